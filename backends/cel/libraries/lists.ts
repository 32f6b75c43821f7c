// The list library: isSorted, sum, min, max, indexOf, lastIndexOf on lists.
import type { Environment } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { celCompare, celEquals } from "../equality.ts";
import { CelRuntimeError } from "../errors.ts";

const COMPARABLE = [
  "int",
  "uint",
  "double",
  "bool",
  "string",
  "bytes",
  "google.protobuf.Duration",
  "google.protobuf.Timestamp",
];
const SUMMABLE: ReadonlyArray<readonly [string, () => unknown]> = [
  ["int", () => 0n],
  ["uint", () => new UnsignedInt(0n)],
  ["double", () => 0],
  ["google.protobuf.Duration", () => new Duration(0, 0)],
];

const MAX_INT = 9223372036854775807n;
const MIN_INT = -9223372036854775808n;

function items(list: unknown): unknown[] {
  return Array.isArray(list) ? list : [...(list as Iterable<unknown>)];
}

function extreme(name: string, wantSign: number) {
  return (list: unknown): unknown => {
    const all = items(list);
    if (all.length === 0) throw new CelRuntimeError("invalid_argument", `${name} called on empty list`);
    let best = all[0];
    for (let i = 1; i < all.length; i++) {
      if (Math.sign(celCompare(all[i], best)) === wantSign) best = all[i];
    }
    return best;
  };
}

function add(a: unknown, b: unknown): unknown {
  if (typeof a === "bigint" && typeof b === "bigint") {
    const r = a + b;
    if (r > MAX_INT || r < MIN_INT) throw new CelRuntimeError("numeric_overflow", "integer overflow");
    return r;
  }
  if (typeof a === "number" && typeof b === "number") return a + b;
  if (a instanceof UnsignedInt && b instanceof UnsignedInt) {
    try {
      return new UnsignedInt(a.valueOf() + b.valueOf());
    } catch {
      throw new CelRuntimeError("numeric_overflow", "unsigned integer overflow");
    }
  }
  if (a instanceof Duration && b instanceof Duration) return a.addDuration(b);
  throw new CelRuntimeError("no_such_overload", "no such overload");
}

export function registerListLibrary(env: Environment): void {
  for (const t of COMPARABLE) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (list: unknown) => {
      const all = items(list);
      for (let i = 1; i < all.length; i++) if (celCompare(all[i - 1], all[i]) > 0) return false;
      return true;
    });
    env.registerFunction(`list<${t}>.min(): ${t}`, extreme("min", -1));
    env.registerFunction(`list<${t}>.max(): ${t}`, extreme("max", 1));
  }
  for (const [t, zero] of SUMMABLE) {
    env.registerFunction(`list<${t}>.sum(): ${t}`, (list: unknown) => items(list).reduce(add, zero()));
  }
  env.registerFunction("list<A>.indexOf(A): int", (list: unknown, x: unknown) =>
    BigInt(items(list).findIndex((v) => celEquals(v, x))),
  );
  env.registerFunction("list<A>.lastIndexOf(A): int", (list: unknown, x: unknown) =>
    BigInt(items(list).findLastIndex((v) => celEquals(v, x))),
  );
}
