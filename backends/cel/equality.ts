// Equality and ordering of CEL values as this module represents them (see values.ts), for object
// types' `==` and the list library.
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { CelRuntimeError } from "./errors.ts";
import { CelObject } from "./schema.ts";

/** CEL equality: numbers compare across int, uint and double; aggregates compare element-wise. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isNumeric(a)) {
    // biome-ignore lint/suspicious/noDoubleEquals: int, uint and double compare by value
    return isNumeric(b) && numericValue(a) == numericValue(b);
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof CelObject)
    return b instanceof CelObject && a.constructor === b.constructor && mapsEqual(a, b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration) return b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  if (isList(a)) {
    if (!isList(b)) return false;
    const x = [...a];
    const y = [...b];
    return x.length === y.length && x.every((v, i) => celEquals(v, y[i]));
  }
  if (isMap(a)) return isMap(b) && mapsEqual(asMap(a), asMap(b));
  if (typeof (a as { equals?: unknown }).equals === "function")
    return (a as { equals(o: unknown): boolean }).equals(b);
  return false;
}

function mapsEqual(a: ReadonlyMap<unknown, unknown>, b: ReadonlyMap<unknown, unknown>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    if (!b.has(k) || !celEquals(v, b.get(k))) return false;
  }
  return true;
}

function isNumeric(v: unknown): v is number | bigint | UnsignedInt {
  return typeof v === "number" || typeof v === "bigint" || v instanceof UnsignedInt;
}

function numericValue(v: number | bigint | UnsignedInt): number | bigint {
  return v instanceof UnsignedInt ? v.valueOf() : v;
}

export function isList(v: unknown): v is unknown[] | Set<unknown> {
  return Array.isArray(v) || v instanceof Set;
}

/** A CEL map value: a Map (not an object type's value) or a plain object from a map literal. */
export function isMap(v: unknown): boolean {
  if (v instanceof Map) return !(v instanceof CelObject);
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function asMap(v: unknown): ReadonlyMap<unknown, unknown> {
  return v instanceof Map ? v : new Map(Object.entries(v as Record<string, unknown>));
}

/** Orders two values of one comparable type; a negative, zero or positive number. */
export function celCompare(a: unknown, b: unknown): number {
  if (isNumeric(a) && isNumeric(b)) {
    const x = numericValue(a);
    const y = numericValue(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (a instanceof Duration && b instanceof Duration) {
    if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
    return a.nanos - b.nanos;
  }
  throw new CelRuntimeError("no_such_overload", "no such overload");
}
