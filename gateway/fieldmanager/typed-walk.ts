// Objects seen through their schema as server-side apply sees them (upstream's
// structured-merge-diff typed values): which paths an object sets, how two objects differ, how
// an applied configuration merges onto the live object, and what apply removes.
import type { StructuralSchema } from "../../backends/schema/structural/types.ts";
import { equalValues, FieldSet, formatPath, type Path, type PathElement } from "./field-set.ts";

export class TypedWalkError extends Error {
  readonly path: string;
  constructor(path: Path, message: string) {
    super(`${formatPath(path) || "."}: ${message}`);
    this.name = "TypedWalkError";
    this.path = formatPath(path);
  }
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

type Json = Record<string, unknown>;
type Schema = StructuralSchema | undefined;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

type Shape =
  | { kind: "scalar" }
  | { kind: "atomic" }
  | { kind: "map"; field: (name: string) => Schema }
  | { kind: "list"; items: Schema; type: "set" | "map"; keys: readonly string[] };

/** What a node is, from its schema and (for free-form nodes) its value. */
function shape(schema: Schema, value: unknown): Shape {
  const free =
    !schema || schema["x-kubernetes-preserve-unknown-fields"] === true || schema.type === undefined;
  if (schema?.["x-kubernetes-int-or-string"]) return { kind: "scalar" };
  if (schema?.type === "object" || (free && isObject(value))) {
    if (schema?.["x-kubernetes-map-type"] === "atomic") return { kind: "atomic" };
    const props = schema?.properties;
    const extra = schema?.additionalProperties;
    return {
      kind: "map",
      field: (name) => props?.[name] ?? (typeof extra === "object" ? extra : undefined),
    };
  }
  if (schema?.type === "array" && !Array.isArray(schema.items ?? [])) {
    const items = schema.items as StructuralSchema | undefined;
    const listType = schema["x-kubernetes-list-type"];
    if (listType === "set") return { kind: "list", items, type: "set", keys: [] };
    if (listType === "map")
      return { kind: "list", items, type: "map", keys: schema["x-kubernetes-list-map-keys"] ?? [] };
    if (listType === undefined) {
      const strategy = (schema["x-kubernetes-patch-strategy"] ?? "").split(",")[0];
      const key = schema["x-kubernetes-patch-merge-key"];
      if (strategy === "merge") {
        return key
          ? { kind: "list", items, type: "map", keys: [key] }
          : { kind: "list", items, type: "set", keys: [] };
      }
    }
    return { kind: "atomic" };
  }
  if (Array.isArray(value)) return { kind: "atomic" };
  return { kind: "scalar" };
}

/** The path element naming a list item, by its keys (map lists) or its value (sets). */
function itemElement(s: Extract<Shape, { kind: "list" }>, item: unknown, path: Path): PathElement {
  if (s.type === "set") return { value: item };
  if (!isObject(item))
    throw new TypedWalkError(path, "associative list with keys has an element that is not a map");
  const key: [string, unknown][] = [];
  for (const name of s.keys) {
    let v = item[name];
    if (v === undefined || v === null) v = s.items?.properties?.[name]?.default;
    if (v === undefined || v === null)
      throw new TypedWalkError(
        path,
        `associative list with keys has an element that omits key field "${name}"`,
      );
    key.push([name, v]);
  }
  key.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { key };
}

function itemsOf(
  s: Extract<Shape, { kind: "list" }>,
  list: unknown[],
  path: Path,
): Map<string, [PathElement, unknown]> {
  const out = new Map<string, [PathElement, unknown]>();
  for (const item of list) {
    const pe = itemElement(s, item, path);
    const id = JSON.stringify(pe);
    if (out.has(id)) throw new TypedWalkError(path, `duplicate entries for key ${formatPath([pe])}`);
    out.set(id, [pe, item]);
  }
  return out;
}

function expectMap(value: unknown, path: Path): Json {
  if (!isObject(value)) throw new TypedWalkError(path, `expected map, got ${JSON.stringify(value)}`);
  return value;
}

function expectList(value: unknown, path: Path): unknown[] {
  if (!Array.isArray(value)) throw new TypedWalkError(path, `expected list, got ${JSON.stringify(value)}`);
  return value;
}

export function toFieldSet(value: unknown, schema: Schema): FieldSet {
  const set = FieldSet.empty();
  const walk = (v: unknown, sc: Schema, path: Path): void => {
    const s = shape(sc, v);
    if (v === null || v === undefined || s.kind === "scalar" || s.kind === "atomic") {
      if (path.length > 0) set.insert(path);
      return;
    }
    if (s.kind === "map") {
      for (const [k, child] of Object.entries(expectMap(v, path)))
        walk(child, s.field(k), [...path, { field: k }]);
      return;
    }
    for (const [pe, item] of itemsOf(s, expectList(v, path), path).values()) {
      const p = [...path, pe];
      set.insert(p);
      if (s.type === "map") walk(item, s.items, p);
    }
  };
  walk(value, schema, []);
  return set;
}

/** Every path of a subtree, the node itself included (for added and removed nodes). */
function insertAll(set: FieldSet, value: unknown, schema: Schema, path: Path): void {
  if (path.length > 0) set.insert(path);
  const sub = toFieldSet(value, schema);
  for (const p of sub.paths()) {
    for (let i = 1; i <= p.length; i++) set.insert([...path, ...p.slice(0, i)]);
  }
}

export function compare(lhs: unknown, rhs: unknown, schema: Schema): Comparison {
  const added = FieldSet.empty();
  const modified = FieldSet.empty();
  const removed = FieldSet.empty();
  const walk = (a: unknown, b: unknown, sc: Schema, path: Path): void => {
    if (a === undefined && b === undefined) return;
    if (a === undefined || b === undefined) {
      insertAll(a === undefined ? added : removed, a === undefined ? b : a, sc, path);
      return;
    }
    const s = shape(sc, b ?? a);
    if (s.kind === "map" && isObject(a) && isObject(b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
        walk(a[k], b[k], s.field(k), [...path, { field: k }]);
      return;
    }
    if (s.kind === "list" && Array.isArray(a) && Array.isArray(b)) {
      const left = itemsOf(s, a, path);
      const right = itemsOf(s, b, path);
      for (const id of new Set([...left.keys(), ...right.keys()])) {
        const l = left.get(id);
        const r = right.get(id);
        const pe = (l ?? r)?.[0] as PathElement;
        if (s.type === "set") {
          if (!l) added.insert([...path, pe]);
          else if (!r) removed.insert([...path, pe]);
          continue;
        }
        walk(l?.[1], r?.[1], s.items, [...path, pe]);
      }
      return;
    }
    if (!equalValues(a, b) && path.length > 0) modified.insert(path);
  };
  walk(lhs, rhs, schema, []);
  return { added, modified, removed };
}

export function merge(live: unknown, config: unknown, schema: Schema): unknown {
  const walk = (a: unknown, b: unknown, sc: Schema, path: Path): unknown => {
    if (a === undefined) return structuredClone(b);
    if (b === undefined) return structuredClone(a);
    const s = shape(sc, b);
    if (s.kind === "map" && isObject(a) && isObject(b)) {
      const out: Json = {};
      for (const [k, v] of Object.entries(a)) out[k] = structuredClone(v);
      for (const [k, v] of Object.entries(b)) out[k] = walk(a[k], v, s.field(k), [...path, { field: k }]);
      return out;
    }
    if (s.kind === "list" && Array.isArray(a) && Array.isArray(b)) {
      const left = itemsOf(s, a, path);
      const right = itemsOf(s, b, path);
      const out: unknown[] = [];
      for (const [id, [pe, item]] of left) {
        const r = right.get(id);
        out.push(r && s.type === "map" ? walk(item, r[1], s.items, [...path, pe]) : structuredClone(item));
      }
      for (const [id, [, item]] of right) if (!left.has(id)) out.push(structuredClone(item));
      return out;
    }
    return structuredClone(b);
  };
  return walk(live, config, schema, []);
}

/** Removes from `value` the nodes that are members of `set`. */
export function removeItems(value: unknown, set: FieldSet, schema: Schema): unknown {
  const walk = (v: unknown, sc: Schema, path: Path): unknown => {
    const s = shape(sc, v);
    if (s.kind === "map" && isObject(v)) {
      const out: Json = {};
      for (const [k, child] of Object.entries(v)) {
        const p: Path = [...path, { field: k }];
        if (set.has(p)) continue;
        out[k] = set.touches(p) ? walk(child, s.field(k), p) : structuredClone(child);
      }
      return out;
    }
    if (s.kind === "list" && Array.isArray(v)) {
      const out: unknown[] = [];
      for (const item of v) {
        const p: Path = [...path, itemElement(s, item, path)];
        if (set.has(p)) continue;
        out.push(s.type === "map" && set.touches(p) ? walk(item, s.items, p) : structuredClone(item));
      }
      return out;
    }
    return structuredClone(v);
  };
  return walk(value, schema, []);
}

/**
 * Apply's pruning: what the applier owned last time and nobody owns now is removed from the
 * merged object. A node is kept while any manager's set reaches it.
 */
export function pruneUnowned(
  merged: unknown,
  lastApplied: FieldSet,
  owned: FieldSet,
  schema: Schema,
): unknown {
  const drop = FieldSet.empty();
  for (const p of lastApplied.paths()) {
    for (let i = 1; i <= p.length; i++) {
      const prefix = p.slice(0, i);
      if (!owned.touches(prefix)) {
        drop.insert(prefix);
        break;
      }
    }
  }
  return drop.isEmpty() ? merged : removeItems(merged, drop, schema);
}
