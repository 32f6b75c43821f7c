// How deeply objects may nest. Many steps of a write walk objects recursively (structuredClone,
// JSON.stringify, pruning, defaulting, validation, field sets, CEL, patches) and a JavaScript stack
// holds only a few thousand levels of them (structuredClone gives out first, near 1,600 levels of
// objects measured through the server), so objects are held well inside that: past the limit a
// body is refused as it is decoded, and an object as it is written, before anything is stored.
import type { FieldError } from "./field-error.ts";

/** Levels of objects and arrays an object may nest, counting the object itself (`{}` is 1). */
export const MAX_OBJECT_DEPTH = 500;

/**
 * Entries of `metadata.managedFields` may nest this many levels more: an entry's field set sits
 * five levels down and mirrors the fields it tracks, one level deeper than they are.
 */
const MANAGED_FIELDS_EXTRA = 5;

/**
 * Levels a request body may nest: an object with its managedFields, inside a JSON patch's
 * operation. Bodies are checked against this as they are decoded, objects against
 * MAX_OBJECT_DEPTH as they are written.
 */
export const MAX_BODY_DEPTH = MAX_OBJECT_DEPTH + 10;

/** The words every refusal uses, naming the limit. */
export function nestingLimitText(limit: number): string {
  return `may not nest more than ${limit} levels of objects and arrays`;
}

/** Levels of objects and arrays in a JSON value (a scalar is 0); iterative, so any depth works. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const values: unknown[] = [value];
  const levels: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const level = levels.pop() as number;
    if (typeof v !== "object" || v === null) continue;
    if (level > deepest) deepest = level;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child !== "object" || child === null) continue;
      values.push(child);
      levels.push(level + 1);
    }
  }
  return deepest;
}

/**
 * Whether a JSON value nests at most `limit` levels (a scalar 0, `{}` 1). Recursive, but never
 * more than `limit` + 1 calls deep, so callers pass the limits above; it stops at the first value
 * past the limit. Every write asks this, and it is several times cheaper than nestingDepth.
 */
export function nestsWithin(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (limit < 1) return false;
  if (Array.isArray(value)) {
    for (const child of value) {
      if (typeof child === "object" && child !== null && !nestsWithin(child, limit - 1)) return false;
    }
    return true;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null && !nestsWithin(child, limit - 1)) return false;
  }
  return true;
}

/** objectDepth(object).depth <= MAX_OBJECT_DEPTH, without measuring. */
function withinObjectLimit(object: Record<string, unknown>): boolean {
  for (const key in object) {
    const value = object[key];
    if (key !== "metadata" || typeof value !== "object" || value === null || Array.isArray(value)) {
      if (!nestsWithin(value, MAX_OBJECT_DEPTH - 1)) return false;
      continue;
    }
    for (const metaKey in value) {
      const metaValue = (value as Record<string, unknown>)[metaKey];
      if (metaKey !== "managedFields" || !Array.isArray(metaValue)) {
        if (!nestsWithin(metaValue, MAX_OBJECT_DEPTH - 2)) return false;
        continue;
      }
      for (const entry of metaValue) {
        if (!nestsWithin(entry, MAX_OBJECT_DEPTH - 3 + MANAGED_FIELDS_EXTRA)) return false;
      }
    }
  }
  return true;
}

/**
 * An object's depth as MAX_OBJECT_DEPTH counts it, with the top-level field that goes deepest;
 * managedFields entries count MANAGED_FIELDS_EXTRA levels less.
 */
export function objectDepth(object: Record<string, unknown>): { depth: number; field: string } {
  let depth = 1;
  let deepest = "";
  const consider = (d: number, name: string) => {
    if (d > depth) {
      depth = d;
      deepest = name;
    }
  };
  let managed = 0;
  for (const [key, value] of Object.entries(object)) {
    if (key !== "metadata" || typeof value !== "object" || value === null || Array.isArray(value)) {
      consider(1 + nestingDepth(value), key);
      continue;
    }
    consider(2, key);
    for (const [metaKey, metaValue] of Object.entries(value)) {
      if (metaKey !== "managedFields" || !Array.isArray(metaValue)) {
        consider(2 + nestingDepth(metaValue), `metadata.${metaKey}`);
        continue;
      }
      for (const entry of metaValue)
        managed = Math.max(managed, 3 + nestingDepth(entry) - MANAGED_FIELDS_EXTRA);
    }
  }
  // Last: field sets as deep as the fields they track leave the blame with those fields.
  consider(managed, "metadata.managedFields");
  return { depth, field: deepest };
}

/**
 * The field error of an object nested past the limit; none when it is within, or when an update
 * leaves it no deeper than the stored `old` was (objects stored before the limit stay writable).
 */
export function nestingErrors(object: Record<string, unknown>, old?: Record<string, unknown>): FieldError[] {
  if (withinObjectLimit(object)) return [];
  const { depth, field: deepest } = objectDepth(object);
  if (depth <= MAX_OBJECT_DEPTH) return [];
  if (old && depth <= objectDepth(old).depth) return [];
  return [{ field: deepest, type: "FieldValueTooLong", detail: nestingLimitText(MAX_OBJECT_DEPTH) }];
}

/**
 * A copy of a JSON value without recursion, for objects stored before the limit, which may be too
 * deep for structuredClone.
 */
export function copyAnyDepth<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  const copy = (v: object): Record<string, unknown> | unknown[] => (Array.isArray(v) ? [] : {});
  const root = copy(value);
  const pending: [Record<string, unknown>, Record<string, unknown>][] = [
    [value as Record<string, unknown>, root as Record<string, unknown>],
  ];
  while (pending.length > 0) {
    const [from, to] = pending.pop() as [Record<string, unknown>, Record<string, unknown>];
    for (const key of Object.keys(from)) {
      const v = from[key];
      if (typeof v !== "object" || v === null) {
        to[key] = v;
        continue;
      }
      const child = copy(v) as Record<string, unknown>;
      to[key] = child;
      pending.push([v as Record<string, unknown>, child]);
    }
  }
  return root as T;
}
