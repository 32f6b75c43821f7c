// Small JSON value helpers tuned for the hot paths (no structuredClone, no key sorting unless asked).

/** A deep copy of a JSON value (objects, arrays and scalars only). */
export function copyJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = copyJson((value as Record<string, unknown>)[key]);
  return out as T;
}

/** JSON text with object keys sorted, as Go's encoding/json writes maps. */
export function canonicalJson(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  const object = value as Record<string, unknown>;
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(",")}}`;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Readers for values of unknown shape (decoded bodies, stored objects): the value when it has the
// type, else Go's zero value. Each call returns a fresh empty container, so callers may fill it.

/** The value as an object, or undefined. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** The value as an object, or a new empty one. */
export function objectOrEmpty(value: unknown): Record<string, unknown> {
  return isJsonObject(value) ? value : {};
}

/** The string, or "". */
export function asString(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The array, or a new empty one. */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The strings of an array, other items left out; none when it is not an array. */
export function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === "string") : [];
}
