// Structural equality of JSON values as the server returns them (object key order ignored), for
// controllers that compare what is stored with what they want before writing.
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(b))
    return false;
  const oa = a as Record<string, unknown>;
  const ob = b as Record<string, unknown>;
  const keys = Object.keys(oa);
  return (
    keys.length === Object.keys(ob).length &&
    keys.every((k) => Object.hasOwn(ob, k) && sameJson(oa[k], ob[k]))
  );
}
