// Small helpers the defaulters share. They read JSON the way upstream's Go decoder fills structs:
// a missing key and `null` are both the zero value, and a value of the wrong JSON type is left
// alone (the decoder or validation reports it; defaulting never hides it by overwriting it).

export type JsonMap = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonMap {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` as an object, or undefined. */
export function objectAt(value: unknown): JsonMap | undefined {
  return isObject(value) ? value : undefined;
}

/** A Go nil: the key is missing or null. */
export function isNil(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

/**
 * `parent[key]` for a field that is a struct VALUE in Go (not a pointer): upstream's defaulter sees
 * the zero struct when the key is missing, so one is created here. A value of the wrong type gives
 * undefined and stays as it is.
 */
export function structAt(parent: JsonMap, key: string): JsonMap | undefined {
  const value = parent[key];
  if (isNil(value)) {
    const created: JsonMap = {};
    parent[key] = created;
    return created;
  }
  return isObject(value) ? value : undefined;
}

/** A string field's Go value is "": missing, null or the empty string. */
export function isEmptyString(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/** A number field's Go value is 0: missing, null or 0. */
export function isZero(value: unknown): boolean {
  return value === undefined || value === null || value === 0;
}

/** Sets `key` when it holds Go's empty string (a plain string field); true when it did. */
export function defaultString(object: JsonMap, key: string, value: string): boolean {
  if (!isEmptyString(object[key])) return false;
  object[key] = value;
  return true;
}

/** Sets `key` when it holds Go's zero number (a plain int field); true when it did. */
export function defaultNumber(object: JsonMap, key: string, value: number): boolean {
  if (!isZero(object[key])) return false;
  object[key] = value;
  return true;
}

/**
 * Sets `key` when it is nil (a pointer field) to a scalar; true when it did. Object and list
 * defaults are built fresh at each use, never shared.
 */
export function defaultPointer(object: JsonMap, key: string, value: string | number | boolean): boolean {
  if (!isNil(object[key])) return false;
  object[key] = value;
  return true;
}

/** A list field's Go length: 0 for missing, null, empty and (never decoded) non-lists. */
export function listLength(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

/** A map field's Go length. */
export function mapSize(value: unknown): number {
  if (!isObject(value)) return 0;
  let n = 0;
  for (const _ in value) n++;
  return n;
}

/** Calls `fn` for each plain object in a list field; other elements are skipped. */
export function forEachObject(value: unknown, fn: (element: JsonMap) => void): void {
  if (!Array.isArray(value)) return;
  for (let i = 0; i < value.length; i++) {
    const element: unknown = value[i];
    if (isObject(element)) fn(element);
  }
}
