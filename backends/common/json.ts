// Small helpers for reading plain JSON objects and building upstream-style field paths.
import type { JsonObject } from "../registry/strategy.ts";

export type { JsonObject };

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

/** The string, or "" for anything else (Go's zero value). */
export function asString(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The value as an object, or a new empty one (callers may fill it). */
export function objectOrEmpty(value: unknown): JsonObject {
  return asObject(value) ?? {};
}

/** The strings of an array, other items left out; none when it is not an array. */
export function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === "string") : [];
}

/** The object's `metadata`, or an empty object. */
export function metadataOf(object: JsonObject): JsonObject {
  return asObject(object.metadata) ?? {};
}

/** `parent[key]` as an object, created when missing or not an object. */
export function ensureObject(parent: JsonObject, key: string): JsonObject {
  const existing = asObject(parent[key]);
  if (existing) return existing;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

/** `a.b`: a named child; the empty root gives just the name. */
export function childPath(path: string, ...names: string[]): string {
  let out = path;
  for (const name of names) out = out === "" ? name : `${out}.${name}`;
  return out;
}

/** `a[3]`. */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** `a[key]`: a map key, unquoted as upstream prints it. */
export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}

/** Structural equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  const oa = asObject(a);
  const ob = asObject(b);
  if (!oa || !ob) return false;
  const ka = Object.keys(oa);
  if (ka.length !== Object.keys(ob).length) return false;
  return ka.every((k) => Object.hasOwn(ob, k) && jsonEqual(oa[k], ob[k]));
}

/**
 * An independent copy of a JSON value (objects, arrays and scalars only). About twice as fast
 * as structuredClone on large objects, and it goes deeper before the stack runs out.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const copy = cloneJson((value as Record<string, unknown>)[key]);
    // A "__proto__" member is data (JSON.parse makes it an own property); assigning it would
    // set the copy's prototype instead.
    if (key === "__proto__")
      Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out as T;
}
