// Toleration arithmetic shared by the toleration-merging plugins (this one and RuntimeClass):
// upstream's "superset" rule decides which tolerations are redundant in a merge and which ones a
// whitelist admits. Tolerations stay the JSON objects they came as; only their fields are read.
import type { JsonObject } from "../index.ts";

/** A toleration's fields as upstream's typed value has them (absent strings are ""). */
interface Fields {
  readonly key: string;
  readonly operator: string;
  readonly value: string;
  readonly effect: string;
  readonly seconds: number | undefined;
}

function fields(t: JsonObject): Fields {
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const s = t.tolerationSeconds;
  return {
    key: str(t.key),
    operator: str(t.operator),
    value: str(t.value),
    effect: str(t.effect),
    seconds: typeof s === "number" ? s : undefined,
  };
}

function same(a: Fields, b: Fields): boolean {
  return (
    a.key === b.key &&
    a.operator === b.operator &&
    a.value === b.value &&
    a.effect === b.effect &&
    a.seconds === b.seconds
  );
}

/** Whether `ss` tolerates everything `t` does. */
function isSuperset(ss: Fields, t: Fields): boolean {
  if (same(ss, t)) return true;
  // An empty key with Exists matches every key.
  if (t.key !== ss.key && (ss.key !== "" || ss.operator !== "Exists")) return false;
  // An empty effect matches every effect.
  if (t.effect !== ss.effect && ss.effect !== "") return false;
  if (ss.effect === "NoExecute" && ss.seconds !== undefined) {
    if (t.seconds === undefined || t.seconds > ss.seconds) return false;
  }
  if (ss.operator === "Equal" || ss.operator === "") return t.operator === "Equal" && t.value === ss.value;
  return ss.operator === "Exists";
}

/** `first` then `second`, without the tolerations another one in the list already covers. */
export function mergeTolerations(first: readonly JsonObject[], second: readonly JsonObject[]): JsonObject[] {
  const all = [...first, ...second];
  const parsed = all.map(fields);
  const merged: JsonObject[] = [];
  const mergedFields: Fields[] = [];
  all.forEach((t, i) => {
    const f = parsed[i] as Fields;
    if (mergedFields.some((m) => isSuperset(m, f))) return;
    // A later toleration that covers this one wins; of equal ones the first stays.
    if (parsed.slice(i + 1).some((later) => !same(f, later) && isSuperset(later, f))) return;
    merged.push(t);
    mergedFields.push(f);
  });
  return merged;
}

/** Whether every toleration is covered by some whitelist entry (an empty whitelist allows all). */
export function verifyAgainstWhitelist(
  tolerations: readonly JsonObject[],
  whitelist: readonly JsonObject[],
): boolean {
  if (whitelist.length === 0 || tolerations.length === 0) return true;
  const allowed = whitelist.map(fields);
  return tolerations.every((t) => {
    const f = fields(t);
    return allowed.some((w) => isSuperset(w, f));
  });
}

/** A list of tolerations from JSON, or a description of why it is not one. */
export function tolerationList(value: unknown): JsonObject[] | string {
  if (!Array.isArray(value)) return "expected an array of tolerations";
  const out: JsonObject[] = [];
  for (const [i, item] of value.entries()) {
    if (typeof item !== "object" || item === null || Array.isArray(item))
      return `toleration ${i} is not an object`;
    const t = item as JsonObject;
    for (const name of ["key", "operator", "value", "effect"]) {
      if (t[name] !== undefined && t[name] !== null && typeof t[name] !== "string")
        return `toleration ${i}: ${name} must be a string`;
    }
    const s = t.tolerationSeconds;
    if (s !== undefined && s !== null && !Number.isInteger(s))
      return `toleration ${i}: tolerationSeconds must be an integer`;
    out.push(t);
  }
  return out;
}
