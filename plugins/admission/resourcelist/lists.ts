// Resource list algebra as quota and limit ranges use it (upstream's quota/v1 resources helpers):
// sums, masks, comparisons and the `name=value,...` form refusals print.
import {
  add,
  compareQuantities,
  isZero,
  negate,
  type Quantity,
  type ResourceList,
  sign,
  subtract,
  text,
  ZERO,
} from "./quantity.ts";

export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    out.set(k, other ? add(v, other) : v);
  }
  for (const [k, v] of b) if (!out.has(k)) out.set(k, v);
  return out;
}

export function subtractLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    out.set(k, other ? subtract(v, other) : v);
  }
  for (const [k, v] of b) if (!out.has(k)) out.set(k, negate(v));
  return out;
}

/** a − b per resource, with negative results (and resources only in b) as zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    const diff = other ? subtract(v, other) : v;
    out.set(k, sign(diff) > 0 ? diff : ZERO);
  }
  for (const k of b.keys()) if (!out.has(k)) out.set(k, ZERO);
  return out;
}

export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const keep = new Set(names);
  const out: ResourceList = new Map();
  for (const [k, v] of list) if (keep.has(k)) out.set(k, v);
  return out;
}

export function equalLists(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const other = b.get(k);
    if (!other || compareQuantities(v, other) !== 0) return false;
  }
  return true;
}

/** Whether every resource of `b` present in `a` is at most b's value; the ones that are not. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): [boolean, string[]] {
  const exceeded: string[] = [];
  for (const [k, limit] of b) {
    const value = a.get(k);
    if (value && compareQuantities(value, limit) > 0) exceeded.push(k);
  }
  return [exceeded.length === 0, exceeded];
}

export function removeZeros(list: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of list) if (!isZero(v)) out.set(k, v);
  return out;
}

export function negativeResources(list: ResourceList): string[] {
  return [...list].filter(([, v]) => sign(v) < 0).map(([k]) => k);
}

/** Sets `list[name]` to the larger of its value and `value`. */
export function maxInto(list: ResourceList, name: string, value: Quantity): void {
  const current = list.get(name);
  if (!current || compareQuantities(value, current) > 0) list.set(name, value);
}

/** Sorted `name=value` pairs joined by commas (upstream's prettyPrint). */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${text(list.get(k) as Quantity)}`)
    .join(",");
}

export function prettyNames(names: Iterable<string>): string {
  return [...names].sort().join(",");
}
