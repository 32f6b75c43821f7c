// Strategic merge patch (application/strategic-merge-patch+json) applied on the server, with the
// semantics of upstream's apimachinery strategicpatch package as kube-apiserver runs it: maps merge,
// lists replace unless the field's schema says `x-kubernetes-patch-strategy: merge` (then they merge
// by `x-kubernetes-patch-merge-key`, or as a set of primitives), and the directives `$patch`,
// `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` steer the merge.
// The algorithm follows upstream step by step (including its ordering rules, which kubectl's
// client-side apply depends on); it works on private copies of both inputs.

import { cloneJson } from "../../backends/common/json.ts";
import type { StructuralSchema } from "../../backends/schema/structural/types.ts";
import { pruneNulls } from "./merge-patch.ts";
import {
  type GoType,
  goFormat,
  goType,
  goTypeName,
  guardDepth,
  jsonKind,
  PatchError,
  unprocessablePatch,
} from "./patch-error.ts";

type JsonMap = Record<string, unknown>;
type Schema = StructuralSchema | undefined;

const DIRECTIVE = "$patch";
const DELETE = "delete";
const REPLACE = "replace";
const MERGE = "merge";
const RETAIN_KEYS = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER = "$setElementOrder";

// Upstream's named errors: its PATCH handler answers these with 400, lists of lists with 422.
const BAD_PRIMITIVE_LIST = "invalid patch format of primitive list";
const BAD_RETAIN_KEYS = "invalid patch format of retainKeys";
const BAD_SET_ELEMENT_ORDER = "invalid patch format of setElementOrder list";
const NO_LIST_OF_LISTS = "lists of lists are not supported";

/** A failure upstream returns without a status of its own (a 500 there); the text is kept. */
function fail(message: string): PatchError {
  return new PatchError(400, message);
}

function noMergeKey(item: JsonMap, mergeKey: string): PatchError {
  return fail(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`);
}

function badArgType(expected: string, actual: unknown): PatchError {
  return fail(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

const MAP_TYPE = "map[string]interface {}";
const SLICE_TYPE = "[]interface {}";

function isMap(v: unknown): v is JsonMap {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function has(object: JsonMap, key: string): boolean {
  return Object.hasOwn(object, key);
}

function get(object: JsonMap, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Sets an own property, also for a key such as `__proto__`. */
function set(object: JsonMap, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

// ---------------------------------------------------------------------------------------------
// Schema lookups: upstream reads the Go struct tags; here the same markers sit on the schema.

interface FieldMeta {
  /** The schema of the field's value (for a list: of its items); undefined means free-form. */
  readonly schema: Schema;
  readonly strategies: readonly string[];
  readonly mergeKey: string;
}

function fieldSchema(schema: Schema, key: string): Schema {
  if (!schema) return undefined;
  const own = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
  if (own) return own;
  return typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
}

function metaOf(field: Schema, valueSchema: Schema): FieldMeta {
  const strategy = field?.["x-kubernetes-patch-strategy"];
  return {
    schema: valueSchema,
    strategies: strategy === undefined ? [] : strategy.split(","),
    mergeKey: field?.["x-kubernetes-patch-merge-key"] ?? "",
  };
}

function lookupForMap(schema: Schema, key: string): FieldMeta {
  const field = fieldSchema(schema, key);
  return metaOf(field, field);
}

function lookupForList(schema: Schema, key: string): FieldMeta {
  const field = fieldSchema(schema, key);
  const items = field?.items;
  return metaOf(
    field,
    items !== undefined && !Array.isArray(items) ? (items as StructuralSchema) : undefined,
  );
}

/** The strategy besides `retainKeys` (which only matters to the client that builds patches). */
function mainStrategy(strategies: readonly string[]): string {
  if (strategies.length === 0) return "";
  if (strategies.length === 1) return strategies[0] === "retainKeys" ? "" : (strategies[0] as string);
  if (strategies.length === 2) {
    if (strategies[0] === "retainKeys") return strategies[1] as string;
    if (strategies[1] === "retainKeys") return strategies[0] as string;
  }
  throw fail(`unexpected patch strategy: [${strategies.join(" ")}]`);
}

// ---------------------------------------------------------------------------------------------
// Go's value comparison: scalars compare by dynamic type and value; maps and lists cannot be
// compared (upstream panics), which is reported as a bad request.

function uncomparable(t: GoType): PatchError {
  return fail(`runtime error: comparing uncomparable type ${t === "map" ? MAP_TYPE : SLICE_TYPE}`);
}

function unhashable(value: unknown): PatchError {
  return fail(`runtime error: hash of unhashable type ${goTypeName(value)}`);
}

function isContainer(v: unknown): boolean {
  return typeof v === "object" && v !== null;
}

/** A scalar's identity under Go's interface equality. */
function scalarKey(v: unknown): string {
  const t = goType(v);
  return t === "nil" ? "nil" : `${t}:${String(v)}`;
}

function goEqual(a: unknown, b: unknown): boolean {
  const ta = goType(a);
  const tb = goType(b);
  if (ta !== tb) return false;
  if (ta === "map" || ta === "slice") throw uncomparable(ta);
  return scalarKey(a) === scalarKey(b);
}

/**
 * First positions of values in one list (merge-key values of map items, or the items themselves),
 * so that lookups stay linear on long lists. `strict` mirrors upstream's search for a map by key,
 * which fails on a non-map item met before a match; otherwise non-maps just have no key.
 */
class ListIndex {
  readonly #first = new Map<string, number>();
  readonly #containers = new Set<GoType>();
  #firstNonMap = -1;

  constructor(list: readonly unknown[], mergeKey: string, byKey: boolean, strict: boolean) {
    for (let i = 0; i < list.length; i++) this.#add(list[i], i, mergeKey, byKey, strict);
  }

  #add(item: unknown, i: number, mergeKey: string, byKey: boolean, strict: boolean): void {
    let value: unknown = item;
    if (byKey) {
      if (!isMap(item)) {
        if (strict) {
          if (this.#firstNonMap < 0) this.#firstNonMap = i;
          return;
        }
        value = null;
      } else if (!has(item, mergeKey)) {
        if (strict) return;
        value = null;
      } else value = item[mergeKey];
    }
    if (isContainer(value)) {
      this.#containers.add(goType(value));
      return;
    }
    const key = scalarKey(value);
    if (!this.#first.has(key)) this.#first.set(key, i);
  }

  /** Adds an item appended at position i. */
  append(item: unknown, i: number, mergeKey: string): void {
    this.#add(item, i, mergeKey, true, true);
  }

  /** The first position holding `value`, or -1; throws where upstream's comparison would fail. */
  find(value: unknown): number {
    if (isContainer(value)) {
      const t = goType(value);
      if (this.#containers.has(t)) throw uncomparable(t);
      if (this.#firstNonMap >= 0) throw fail(`value for key ${this.#firstNonMap} is not a map`);
      return -1;
    }
    const at = this.#first.get(scalarKey(value)) ?? -1;
    if (this.#firstNonMap >= 0 && (at < 0 || this.#firstNonMap < at))
      throw fail(`value for key ${this.#firstNonMap} is not a map`);
    return at;
  }
}

/** The value a list item is ordered by: its merge key for map lists, itself otherwise. */
function orderValue(item: unknown, mergeKey: string, kind: GoType): unknown {
  if (kind !== "map") return item;
  return isMap(item) && has(item, mergeKey) ? item[mergeKey] : null;
}

function orderIndex(order: readonly unknown[], mergeKey: string, kind: GoType): (item: unknown) => number {
  const index = new ListIndex(order, mergeKey, kind === "map", false);
  return (item) => index.find(orderValue(item, mergeKey, kind));
}

// ---------------------------------------------------------------------------------------------
// Go's sort.SliceStable (insertion-sorted blocks of 20, then in-place symmetric merges). Upstream
// sorts with a comparison that is not a strict order when items are missing from the reference
// list, so the exact algorithm decides the result.

function goStableSort<T>(a: T[], less: (x: T, y: T) => boolean): void {
  const lessAt = (i: number, j: number) => less(a[i] as T, a[j] as T);
  const swap = (i: number, j: number) => {
    const t = a[i] as T;
    a[i] = a[j] as T;
    a[j] = t;
  };
  const insertion = (from: number, to: number) => {
    for (let i = from + 1; i < to; i++) for (let j = i; j > from && lessAt(j, j - 1); j--) swap(j, j - 1);
  };
  const swapRange = (from: number, to: number, n: number) => {
    for (let i = 0; i < n; i++) swap(from + i, to + i);
  };
  const rotate = (lo: number, mid: number, hi: number) => {
    let i = mid - lo;
    let j = hi - mid;
    while (i !== j) {
      if (i > j) {
        swapRange(mid - i, mid, j);
        i -= j;
      } else {
        swapRange(mid - i, mid + j - i, i);
        j -= i;
      }
    }
    swapRange(mid - i, mid, i);
  };
  const symMerge = (lo: number, mid: number, hi: number): void => {
    if (mid - lo === 1) {
      let i = mid;
      let j = hi;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lessAt(h, lo)) i = h + 1;
        else j = h;
      }
      for (let k = lo; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (hi - mid === 1) {
      let i = lo;
      let j = mid;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lessAt(mid, h)) i = h + 1;
        else j = h;
      }
      for (let k = mid; k > i; k--) swap(k, k - 1);
      return;
    }
    const half = (lo + hi) >>> 1;
    const n = half + mid;
    let start: number;
    let r: number;
    if (mid > half) {
      start = n - hi;
      r = half;
    } else {
      start = lo;
      r = mid;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lessAt(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < mid && mid < end) rotate(start, mid, end);
    if (lo < start && start < half) symMerge(lo, start, half);
    if (half < end && end < hi) symMerge(half, end, hi);
  };

  const n = a.length;
  let block = 20;
  let lo = 0;
  let hi = block;
  while (hi <= n) {
    insertion(lo, hi);
    lo = hi;
    hi += block;
  }
  insertion(lo, n);
  while (block < n) {
    lo = 0;
    hi = 2 * block;
    while (hi <= n) {
      symMerge(lo, lo + block, hi);
      lo = hi;
      hi += 2 * block;
    }
    const mid = lo + block;
    if (mid < n) symMerge(lo, mid, n);
    block *= 2;
  }
}

// ---------------------------------------------------------------------------------------------
// Ordering: items named by the patch keep the patch's order, items only on the server keep the
// server's order, and the two are interleaved by the server's order where both are known.

function requireMergeKeys(mergeKey: string, ...lists: (readonly unknown[])[]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isMap(item)) throw badArgType(MAP_TYPE, item);
      if (!has(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
}

function splitDeletions(list: readonly unknown[]): { keep: unknown[]; remove: unknown[] } {
  const keep: unknown[] = [];
  const remove: unknown[] = [];
  for (const item of list) {
    if (!isMap(item)) throw badArgType(MAP_TYPE, item);
    if (get(item, DIRECTIVE) === DELETE) remove.push(item);
    else keep.push(item);
  }
  return { keep, remove };
}

function sortByOrder(items: unknown[], order: readonly unknown[], mergeKey: string, kind: GoType): unknown[] {
  let toSort = items;
  let deletions: unknown[] = [];
  if (kind === "map") {
    requireMergeKeys(mergeKey, toSort, order);
    ({ keep: toSort, remove: deletions } = splitDeletions(toSort));
  }
  const indexOf = orderIndex(order, mergeKey, kind);
  // Upstream's comparison: by position when both are listed, otherwise "less".
  goStableSort(toSort, (x, y) => {
    const ix = indexOf(x);
    if (ix >= 0) {
      const iy = indexOf(y);
      if (iy >= 0) return ix < iy;
    }
    return true;
  });
  return [...toSort, ...deletions];
}

function interleave(
  serverOnly: readonly unknown[],
  patchItems: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: GoType,
): unknown[] {
  const indexOf = orderIndex(serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (i >= serverOnly.length) out.push(patchItems[j++]);
    else if (j >= patchItems.length) out.push(serverOnly[i++]);
    else {
      const li = indexOf(serverOnly[i]);
      const ri = indexOf(patchItems[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]);
      else out.push(patchItems[j++]);
    }
  }
  return out;
}

function normalizeOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: GoType,
): unknown[] {
  const sortedPatch = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const sortedServer = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  return interleave(sortedServer, sortedPatch, serverOrder, mergeKey, kind);
}

/** Splits `list` into the items present in `by` and the others (primitive lists). */
function partitionPrimitives(list: readonly unknown[], by: readonly unknown[]): [unknown[], unknown[]] {
  const present = new Set<string>();
  for (const v of by) {
    if (isContainer(v)) throw unhashable(v);
    present.add(scalarKey(v));
  }
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (isContainer(v)) throw unhashable(v);
    (present.has(scalarKey(v)) ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

/** Splits `list` into the items whose merge key appears in `by` and the others (map lists). */
function partitionMaps(
  list: readonly unknown[],
  by: readonly unknown[],
  mergeKey: string,
): [unknown[], unknown[]] {
  const index = new ListIndex(by, mergeKey, true, true);
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isMap(v)) throw badArgType(MAP_TYPE, v);
    if (!has(v, mergeKey)) throw noMergeKey(v, mergeKey);
    (index.find(v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

function partition(
  list: readonly unknown[],
  by: readonly unknown[],
  mergeKey: string,
): [unknown[], unknown[]] {
  return mergeKey === "" ? partitionPrimitives(list, by) : partitionMaps(list, by, mergeKey);
}

/** The common Go type of the items of some lists; lists of lists and mixed lists are refused. */
function elementType(lists: readonly (readonly unknown[])[]): GoType | undefined {
  let found: GoType | undefined;
  const mixed = () => fail(`list element types are not identical: ${goFormat(lists)}`);
  for (const list of lists) {
    for (const v of list) {
      const t = goType(v);
      if (found === undefined) {
        // A leading null crashes upstream; it is reported like any other mixed list.
        if (t === "nil") throw mixed();
        if (t === "slice") throw unprocessablePatch(NO_LIST_OF_LISTS);
        found = t;
      } else if (t !== found) throw mixed();
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Lists

/** Distinct items; upstream keeps a different order here, but the ordering step that follows fixes it. */
function dedupeScalars(list: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const v of list) {
    const key = scalarKey(v);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(v);
    }
  }
  return out;
}

function deleteFromPrimitives(current: readonly unknown[], toDelete: readonly unknown[]): unknown[] {
  const gone = new Set<string>();
  for (const v of toDelete) {
    if (isContainer(v)) throw unhashable(v);
    gone.add(scalarKey(v));
  }
  return current.filter((v) => {
    if (isContainer(v)) throw unhashable(v);
    return !gone.has(scalarKey(v));
  });
}

/**
 * Merges a map list by merge key. `original` is updated in place the way upstream's Go slices
 * share their storage: deletions compact it and new items are written after the kept ones, up to
 * its length. The ordering done by the caller of a `$setElementOrder` list reads it afterwards.
 */
function mergeMapList(
  original: unknown[],
  patch: readonly unknown[],
  schema: Schema,
  mergeKey: string,
): unknown[] {
  if (mergeKey === "") throw fail("cannot merge lists without merge key for struct");

  // Directives first: deletions by merge key, a replace marker, anything else refused.
  const rest: unknown[] = [];
  const deleted = new Set<string>();
  const deletedContainers = new Set<GoType>();
  let replace = false;
  for (const v of patch) {
    const item = v as JsonMap;
    if (!has(item, DIRECTIVE)) {
      rest.push(v);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === DELETE) {
      if (!has(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const value = item[mergeKey];
      if (isContainer(value)) deletedContainers.add(goType(value));
      else deleted.add(scalarKey(value));
    } else if (directive === REPLACE) replace = true;
    else if (directive === MERGE) throw fail("merging lists cannot yet be specified in the patch");
    else throw fail(`unknown patch type: ${goFormat(directive, "s")} in map: ${goFormat(item)}`);
  }
  const kept = original.filter((v) => {
    if (!has(v as JsonMap, mergeKey)) return true;
    const value = (v as JsonMap)[mergeKey];
    if (isContainer(value)) {
      if (deletedContainers.has(goType(value))) throw uncomparable(goType(value));
      return true;
    }
    return !deleted.has(scalarKey(value));
  });

  let base = kept;
  let patchItems: readonly unknown[] = rest;
  if (replace) {
    base = rest;
    patchItems = [];
  }
  const serverOrder = base.slice();

  // Patch items merge into the item with the same key, or are appended.
  const merged = base.slice();
  const index = new ListIndex(merged, mergeKey, true, true);
  for (const v of patchItems) {
    const item = v as JsonMap;
    if (!has(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const at = index.find(item[mergeKey]);
    if (at >= 0) merged[at] = mergeMap(merged[at] as JsonMap, item, schema);
    else {
      merged.push(item);
      index.append(item, merged.length - 1, mergeKey);
    }
  }

  // What upstream's shared storage shows through the original list afterwards.
  const visible = replace ? kept : merged;
  for (let i = 0; i < original.length && i < visible.length; i++) original[i] = visible[i];

  const [inPatch, serverOnly] = partition(merged, patchItems, mergeKey);
  return normalizeOrder(inPatch, serverOnly, patchItems, serverOrder, mergeKey, "map");
}

function mergeList(
  original: unknown[],
  patch: unknown[],
  schema: Schema,
  mergeKey: string,
  isDeleteList: boolean,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementType([original, patch]);
  if (kind === "map") return mergeMapList(original, patch, schema, mergeKey);
  if (isDeleteList) return deleteFromPrimitives(original, patch);
  const merged = dedupeScalars([...original, ...patch]);
  const [inPatch, serverOnly] = partition(merged, patch, mergeKey);
  return normalizeOrder(inPatch, serverOnly, patch, original, mergeKey, kind ?? "nil");
}

function mergeListField(
  original: unknown,
  patch: unknown,
  meta: FieldMeta,
  strategy: string,
  isDeleteList: boolean,
): unknown[] {
  if (!Array.isArray(original)) throw badArgType(SLICE_TYPE, original);
  if (!Array.isArray(patch)) throw badArgType(SLICE_TYPE, patch);
  if (strategy !== MERGE) return patch;
  return mergeList(original, patch, meta.schema, meta.mergeKey, isDeleteList);
}

// ---------------------------------------------------------------------------------------------
// Maps

/** The name of the list a `$setElementOrder/x` or `$deleteFromPrimitiveList/x` key refers to. */
function directiveTarget(key: string, prefix: string, error: string): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) throw fail(error);
  return key.slice(slash + 1);
}

function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!has(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw fail(BAD_RETAIN_KEYS);
  const retained = new Set<string>();
  for (const k of list) {
    // Upstream cannot even hold a map or list as a key; other non-strings never match a field.
    if (isContainer(k)) throw fail(BAD_RETAIN_KEYS);
    if (typeof k === "string") retained.add(k);
  }
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!retained.has(k)) throw fail(BAD_RETAIN_KEYS);
  }
  for (const k of Object.keys(original)) if (!retained.has(k)) delete original[k];
}

/** Checks that the patch list names its items in the same relative order as `$setElementOrder`. */
function checkOrderList(patchList: readonly unknown[], order: readonly unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === "" ? patchList : splitDeletions(patchList).keep;
  const same = (a: unknown, b: unknown) => {
    if (mergeKey === "") return goEqual(a, b);
    if (!isMap(a)) throw badArgType(MAP_TYPE, a);
    if (!isMap(b)) throw badArgType(MAP_TYPE, b);
    if (!has(a, mergeKey)) throw noMergeKey(a, mergeKey);
    if (!has(b, mergeKey)) throw noMergeKey(b, mergeKey);
    return goEqual(a[mergeKey], b[mergeKey]);
  };
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isMap(items[p]) && has(items[p] as JsonMap, DIRECTIVE)) {
      p++;
      continue;
    }
    if (same(items[p], order[o])) p++;
    o++;
  }
  if (p < items.length && o >= order.length)
    throw fail(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormat(order)}\n`,
    );
}

/** Merges each list that has a `$setElementOrder` directive and puts it in the requested order. */
function applyElementOrders(original: JsonMap, patch: JsonMap, schema: Schema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER) || !has(patch, key)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType(SLICE_TYPE, order);
    const listKey = directiveTarget(key, SET_ELEMENT_ORDER, BAD_SET_ELEMENT_ORDER);
    const foundOriginal = has(original, listKey);
    const foundPatch = has(patch, listKey);
    const originalList = original[listKey];
    const patchList = patch[listKey];
    if (foundOriginal && !Array.isArray(originalList)) throw badArgType(SLICE_TYPE, originalList);
    if (foundPatch && !Array.isArray(patchList)) throw badArgType(SLICE_TYPE, patchList);
    const originalItems = foundOriginal ? (originalList as unknown[]) : [];
    const patchItems = foundPatch ? (patchList as unknown[]) : [];

    const meta = lookupForList(schema, listKey);
    const strategy = mainStrategy(meta.strategies);
    checkOrderList(patchItems, order, meta.mergeKey);

    let merged: unknown[];
    if (foundOriginal && foundPatch)
      merged = mergeListField(originalItems, patchItems, meta, strategy, false);
    else if (foundOriginal) merged = originalItems;
    else if (foundPatch) merged = patchItems;
    else continue;

    const [inOrder, serverOnly] = partition(merged, order, meta.mergeKey);
    const kind = elementType([originalItems, patchItems]);
    // Upstream fails on two empty lists here; an empty list stays as it is.
    set(
      original,
      listKey,
      kind === undefined
        ? merged
        : normalizeOrder(inOrder, serverOnly, order, originalItems, meta.mergeKey, kind),
    );
    delete patch[listKey];
  }
}

function mapDirective(directive: unknown, patch: JsonMap): JsonMap {
  if (directive === REPLACE) {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === DELETE) return {};
  throw fail(`unknown patch type: ${goFormat(directive, "s")} in map: ${goFormat(patch)}`);
}

function mergeMap(original: JsonMap, patch: JsonMap, schema: Schema): JsonMap {
  if (has(patch, DIRECTIVE)) return mapDirective(patch[DIRECTIVE], patch);
  applyRetainKeys(original, patch);
  applyElementOrders(original, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    const patchValue = patch[patchKey];
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      const target = directiveTarget(patchKey, DELETE_FROM_PRIMITIVE_LIST, BAD_PRIMITIVE_LIST);
      isDeleteList = true;
      if (target !== "") key = target;
    }
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    if (!has(original, key) || goType(original[key]) !== goType(patchValue)) {
      if (!isDeleteList) set(original, key, pruneNulls(patchValue));
      continue;
    }
    const current = original[key];
    if (isMap(current)) {
      const meta = lookupForMap(schema, key);
      const strategy = mainStrategy(meta.strategies);
      const value = patchValue as JsonMap;
      set(original, key, strategy === REPLACE ? value : mergeMap(current, value, meta.schema));
    } else if (Array.isArray(current)) {
      const meta = lookupForList(schema, key);
      set(
        original,
        key,
        mergeListField(current, patchValue, meta, mainStrategy(meta.strategies), isDeleteList),
      );
    } else set(original, key, patchValue);
  }
  return original;
}

/**
 * Applies a strategic merge patch to an object. `schema` is the kind's schema at the request's
 * version; where it is absent or free-form, lists are replaced and maps merged. Throws PatchError.
 */
export function applyStrategicMergePatch(
  original: Record<string, unknown>,
  patch: Record<string, unknown>,
  schema: StructuralSchema | undefined,
): Record<string, unknown> {
  return guardDepth(() => {
    if (patch === null) return cloneJson(original);
    if (!isMap(patch))
      throw fail(`json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`);
    return mergeMap(cloneJson(original), cloneJson(patch), schema);
  }, original);
}
