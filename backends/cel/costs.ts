// Runtime cost of one function call or operator, from its evaluated operands (receiver first).
// cel-go's model: O(1) work costs 1, a traversal of a string costs 0.1 per character, a regex costs
// the traversal of its input times 0.25 per pattern character. Deviations, because this
// implementation copies where cel-go shares: list concatenation and string growth by replace()
// are charged by their size, and size() of a string (counted in code points) by its length.
import { isList, isMap } from "./equality.ts";
import { RE2_MATCHES } from "./libraries/regex.ts";
import { LOWER_ASCII, replacedLength, UPPER_ASCII } from "./libraries/strings.ts";
import { CALL_COST, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR } from "./limits.ts";
import { CelObject } from "./schema.ts";

/** Length of a string or bytes, element count of a list or map; 1 for anything else. */
export function sizeOf(v: unknown): number {
  if (typeof v === "string" || v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Set) return v.size;
  if (v instanceof Map && !(v instanceof CelObject)) return v.size;
  if (isMap(v)) return Object.keys(v as object).length;
  return 1;
}

export function traversal(size: number): number {
  return Math.ceil(size * STRING_TRAVERSAL_COST_FACTOR);
}

export function regexCost(inputSize: number, patternSize: number): number {
  return traversal(1 + inputSize) * Math.ceil(patternSize * REGEX_STRING_LENGTH_COST_FACTOR);
}

function textSize(v: unknown): number | undefined {
  return typeof v === "string" || v instanceof Uint8Array ? v.length : undefined;
}

/** One pass over a list: 1 per element plus the traversal of string and bytes elements. */
function listTraversal(v: unknown): number {
  if (!isList(v)) return CALL_COST;
  let cost = 0;
  for (const e of v) cost += 1 + (textSize(e) !== undefined ? traversal(textSize(e) as number) : 0);
  return cost;
}

const STRING_PASS = new Set([LOWER_ASCII, UPPER_ASCII, "trim", "substring", "charAt", "url", "isURL"]);
const LIST_PASS = new Set(["isSorted", "sum", "min", "max"]);
const CONVERSIONS = new Set([
  "int",
  "uint",
  "double",
  "string",
  "bytes",
  "bool",
  "timestamp",
  "duration",
  "dyn",
]);

/** Cost of calling `name` (as renamed by the compiler) with `args`, receiver first. */
export function callCost(name: string, args: readonly unknown[]): number {
  const [a, b, c, d] = args;
  switch (name) {
    case RE2_MATCHES:
    case "find":
    case "findAll":
      return regexCost(sizeOf(a), sizeOf(b));
    case "contains":
      return traversal(sizeOf(a)) * traversal(sizeOf(b));
    case "startsWith":
    case "endsWith":
      return traversal(sizeOf(a));
    case "size":
      return typeof a === "string" ? Math.max(CALL_COST, traversal(a.length)) : CALL_COST;
    case "indexOf":
    case "lastIndexOf":
      return isList(a) ? listTraversal(a) : traversal(sizeOf(a));
    case "split":
      return traversal(2 * sizeOf(a));
    case "replace": {
      if (typeof a !== "string" || typeof b !== "string" || typeof c !== "string") return CALL_COST;
      const n = typeof d === "bigint" ? (d < 0n ? -1 : Number(d)) : -1;
      return traversal(2 * a.length + Math.max(0, replacedLength(a, b, c, n) - a.length));
    }
    case "join": {
      if (!isList(a)) return CALL_COST;
      let total = 0;
      let count = 0;
      for (const e of a) {
        total += sizeOf(e);
        count++;
      }
      if (typeof b === "string" && count > 1) total += b.length * (count - 1);
      return traversal(2 * total);
    }
  }
  if (STRING_PASS.has(name)) return traversal(sizeOf(a));
  if (LIST_PASS.has(name)) return listTraversal(a);
  if (CONVERSIONS.has(name)) return Math.max(CALL_COST, traversal(textSize(a) ?? 0));
  return CALL_COST;
}

/** Cost of a binary operator applied to `left` and `right`. */
export function binaryCost(op: string, left: unknown, right: unknown): number {
  switch (op) {
    case "==":
    case "!=":
    case "<":
    case "<=":
    case ">":
    case ">=":
      return traversal(Math.min(sizeOf(left), sizeOf(right)));
    case "+":
      if (textSize(left) !== undefined || isList(left)) return traversal(sizeOf(left) + sizeOf(right));
      return CALL_COST;
    case "in":
      return isList(right) ? sizeOf(right) : CALL_COST;
    default:
      return CALL_COST;
  }
}
