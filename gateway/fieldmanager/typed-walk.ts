// Walks of an object together with its kind's schema, after upstream's structured-merge-diff
// `typed` package: the field set an object sets, the comparison of two versions of it, apply's
// merge of a partial configuration, and removal of items named by a field set.
//
// The schema is read as upstream converts Kubernetes OpenAPI: objects with `properties` are
// structs (each named field typed), objects with `additionalProperties` are maps, lists are
// atomic, sets (items named by value) or maps (items named by key fields), and free-form parts
// are "deduced" from the values themselves (maps granular, lists atomic).

import { turn } from "../../backends/common/turn.ts";
import type { StructuralSchema } from "../../backends/schema/structural/types.ts";
import {
  compareStrings,
  equalValues,
  FieldSet,
  formatPath,
  formatPathElement,
  goNumber,
  goQuote,
  MAX_VALUE_DEPTH,
  type PathElement,
  type SetCursor,
  serializePathElement,
  valueDepth,
} from "./field-set.ts";

/** An object the schema cannot read (wrong kind of value, bad list items, undeclared field). */
export class TypedWalkError extends Error {
  /** formatPath of where. */
  readonly path: string;

  constructor(path: string, message: string) {
    super(path ? `${path}: ${message}` : message);
    this.name = "TypedWalkError";
    this.path = path;
  }
}

export interface WalkOptions {
  /**
   * Refuse fields a struct's schema does not declare ("field not declared in schema"), as
   * upstream's conversion of an object to its typed form does; `apiVersion`, `kind` and
   * `metadata` at the root are always accepted. By default such fields are read as free-form.
   */
  readonly rejectUnknownFields?: boolean;
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

// ---------------------------------------------------------------------------------------------
// Schema nodes as the walks see them.

type ScalarKind = "numeric" | "string" | "boolean" | "untyped";

interface ListAtom {
  /** Items named by key (keys non-empty) or by value (keys empty); otherwise by index. */
  readonly associative: boolean;
  readonly keys: readonly string[];
  element(): Atom;
}

interface MapAtom {
  readonly atomic: boolean;
  /** A declared (struct) field's type. */
  field(name: string): Atom | undefined;
  /** The schema default of a declared field (used for a missing list-map key). */
  fieldDefault(name: string): unknown;
  /** The type of keys that are not declared fields; undefined when a struct allows none. */
  element(): Atom | undefined;
}

/** What a value at some place may be; a free-form place may be any of the three. */
interface Atom {
  readonly scalar?: ScalarKind;
  readonly list?: ListAtom;
  readonly map?: MapAtom;
}

const NO_FIELDS: Pick<MapAtom, "field" | "fieldDefault"> = {
  field: () => undefined,
  fieldDefault: () => undefined,
};

/** Inside an atomic free-form value: everything is one leaf. */
const UNTYPED: Atom = {
  scalar: "untyped",
  list: { associative: false, keys: [], element: () => UNTYPED },
  map: { atomic: true, ...NO_FIELDS, element: () => UNTYPED },
};

/** A free-form value: maps granular, lists atomic. */
const DEDUCED: Atom = {
  scalar: "untyped",
  list: { associative: false, keys: [], element: () => UNTYPED },
  map: { atomic: false, ...NO_FIELDS, element: () => DEDUCED },
};

const ROOT_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/** Atoms by schema node, one table for places below `x-kubernetes-preserve-unknown-fields`. */
const atoms = [new WeakMap<StructuralSchema, Atom>(), new WeakMap<StructuralSchema, Atom>()] as const;

function lazy<T>(make: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = make();
      done = true;
    }
    return value;
  };
}

function atomOf(schema: StructuralSchema | undefined, openAbove: boolean): Atom {
  if (!schema) return DEDUCED;
  const table = atoms[openAbove ? 1 : 0];
  let atom = table.get(schema);
  if (!atom) {
    atom = buildAtom(schema, openAbove);
    table.set(schema, atom);
  }
  return atom;
}

function buildAtom(s: StructuralSchema, openAbove: boolean): Atom {
  // Unknown fields are kept from here down (upstream carries the flag to nested schemas).
  const open =
    openAbove ||
    s["x-kubernetes-preserve-unknown-fields"] === true ||
    s["x-kubernetes-embedded-resource"] === true;
  if (s["x-kubernetes-int-or-string"] === true) return { scalar: "untyped" };
  switch (s.type) {
    case undefined:
    case "":
      return { scalar: "untyped", list: listAtom(s, open), map: mapAtom(s, open) };
    case "object":
      return { map: mapAtom(s, open) };
    case "array":
      return { list: listAtom(s, open) };
    case "integer":
    case "number":
      return { scalar: "numeric" };
    case "boolean":
      return { scalar: "boolean" };
    case "string":
      // Formatted strings (dates, quantities, ...) are untyped scalars upstream.
      return { scalar: !s.format || s.format === "byte" ? "string" : "untyped" };
    default:
      return { scalar: "untyped" };
  }
}

function mapAtom(s: StructuralSchema, open: boolean): MapAtom {
  const props = s.properties;
  const hasProps = props !== undefined && Object.keys(props).length > 0;
  const ap = s.additionalProperties;
  const element = lazy((): Atom | undefined => {
    if (ap === undefined) return open || !hasProps ? DEDUCED : undefined;
    if (ap === true) return DEDUCED;
    if (ap === false) return undefined;
    return atomOf(ap, open);
  });
  return {
    atomic: s["x-kubernetes-map-type"] === "atomic",
    field: (name) => (props && Object.hasOwn(props, name) ? atomOf(props[name], open) : undefined),
    fieldDefault: (name) => (props && Object.hasOwn(props, name) ? props[name]?.default : undefined),
    element,
  };
}

function listAtom(s: StructuralSchema, open: boolean): ListAtom {
  const items = s.items;
  const element = lazy((): Atom => {
    if (items === undefined) return UNTYPED;
    if (Array.isArray(items)) return DEDUCED;
    return atomOf(items as StructuralSchema, open);
  });
  const listType = s["x-kubernetes-list-type"];
  if (listType !== undefined) {
    if (listType === "set") return { associative: true, keys: [], element };
    if (listType === "map")
      return { associative: true, keys: s["x-kubernetes-list-map-keys"] ?? [], element };
    return { associative: false, keys: [], element };
  }
  // Kinds without list markers: strategic-merge-patch's merge strategy implies the same topology.
  const strategy = s["x-kubernetes-patch-strategy"];
  if (strategy !== undefined && strategy.split(",")[0]?.trim() === "merge") {
    const key = s["x-kubernetes-patch-merge-key"];
    return { associative: true, keys: key ? [key] : [], element };
  }
  return { associative: false, keys: [], element };
}

type Part = "scalar" | "list" | "map";

/** Which of the atom's kinds handles `v` (upstream deduceAtom + handleAtom's precedence). */
function partOf(atom: Atom, v: unknown): Part | undefined {
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") {
    if (atom.scalar) return "scalar";
  } else if (Array.isArray(v)) {
    if (atom.list) return "list";
  } else if (isMap(v)) {
    if (atom.map) return "map";
  }
  return atom.map ? "map" : atom.scalar ? "scalar" : atom.list ? "list" : undefined;
}

/** Whether `v` narrows the atom to one kind (for telling whether two values agree on it). */
function narrowed(atom: Atom, v: unknown): string {
  const parts = (atom.scalar ? 1 : 0) + (atom.list ? 1 : 0) + (atom.map ? 1 : 0);
  if (parts <= 1) return "one";
  if ((typeof v === "number" || typeof v === "string" || typeof v === "boolean") && atom.scalar)
    return "scalar";
  if (Array.isArray(v) && atom.list) return "list";
  if (isMap(v) && atom.map) return "map";
  return "all";
}

/** The type of a map's key; undefined when the struct does not declare it and should refuse it. */
function fieldAtom(map: MapAtom, key: string, strict: boolean, atRoot: boolean): Atom | undefined {
  const f = map.field(key);
  if (f) return f;
  const e = map.element();
  if (e) return e;
  if (!strict || (atRoot && ROOT_FIELDS.has(key))) return DEDUCED;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Values.

type JsonMap = Record<string, unknown>;

function isMap(v: unknown): v is JsonMap {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isEmptyMap(m: JsonMap): boolean {
  for (const _ in m) return false;
  return true;
}

/** Sets a key, including one named `__proto__`, as an own enumerable property. */
function setKey(o: JsonMap, k: string, v: unknown): void {
  if (k === "__proto__")
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** A deep copy of a JSON value, without recursion. */
function cloneJson(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  const root: unknown = Array.isArray(v) ? [] : {};
  const work: [unknown, unknown][] = [[v, root]];
  const copy = (x: unknown): unknown => {
    if (typeof x !== "object" || x === null) return x;
    const c: unknown = Array.isArray(x) ? [] : {};
    work.push([x, c]);
    return c;
  };
  while (work.length > 0) {
    const [src, dst] = work.pop() as [unknown, unknown];
    if (Array.isArray(src)) for (const x of src) (dst as unknown[]).push(x === undefined ? null : copy(x));
    else
      for (const k of Object.keys(src as JsonMap)) {
        const x = (src as JsonMap)[k];
        if (x !== undefined) setKey(dst as JsonMap, k, copy(x));
      }
  }
  return root;
}

const MESSAGE_VALUE_LIMIT = 512;

/** Go's %v (or with `sharp`, %#v) of a decoded JSON value, cut short when large. */
function goFormat(v: unknown, sharp: boolean): string {
  let out = "";
  const emit = (x: unknown, depth: number): void => {
    if (out.length > MESSAGE_VALUE_LIMIT) return;
    if (depth > 16) {
      out += "...";
      return;
    }
    if (x === null || x === undefined) out += sharp ? "interface {}(nil)" : "<nil>";
    else if (typeof x === "number") out += goNumber(x);
    else if (typeof x === "string") out += sharp ? goQuote(x) : x;
    else if (typeof x === "boolean") out += String(x);
    else if (Array.isArray(x)) {
      out += sharp ? "[]interface {}{" : "[";
      x.forEach((e, i) => {
        if (i > 0) out += sharp ? ", " : " ";
        emit(e, depth + 1);
      });
      out += sharp ? "}" : "]";
    } else {
      const m = x as JsonMap;
      out += sharp ? "map[string]interface {}{" : "map[";
      Object.keys(m)
        .sort(compareStrings)
        .forEach((k, i) => {
          if (i > 0) out += sharp ? ", " : " ";
          out += `${sharp ? goQuote(k) : k}:`;
          emit(m[k], depth + 1);
        });
      out += sharp ? "}" : "]";
    }
  };
  emit(v, 0);
  return out.length > MESSAGE_VALUE_LIMIT ? `${out.slice(0, MESSAGE_VALUE_LIMIT)}...` : out;
}

/** Go's %T of a decoded JSON value. */
function goType(v: unknown): string {
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  if (isMap(v)) return "map[string]interface {}";
  return "<nil>";
}

/** Upstream's complaint about a scalar of the wrong kind, or undefined. */
function scalarProblem(kind: ScalarKind, v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  switch (kind) {
    case "numeric":
      return typeof v === "number" ? undefined : `expected numeric (int or float), got ${goType(v)}`;
    case "string":
      return typeof v === "string"
        ? undefined
        : `expected string, got &value.valueUnstructured{Value:${goFormat(v, true)}}`;
    case "boolean":
      return typeof v === "boolean" ? undefined : `expected boolean, got &{${goFormat(v, false)}}`;
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Places and list items.

/** A place in a walk, linked to the one above it (for error paths). */
interface At {
  readonly up: At | undefined;
  readonly pe: PathElement | undefined;
  readonly depth: number;
}

function pathOf(at: At | undefined, extra?: PathElement): PathElement[] {
  const out: PathElement[] = extra ? [extra] : [];
  for (let a = at; a?.pe; a = a.up) out.push(a.pe);
  return out.reverse();
}

function fail(at: At | undefined, message: string, extra?: PathElement): never {
  throw new TypedWalkError(formatPath(pathOf(at, extra)), message);
}

class ItemError extends Error {}

/** The path element naming a list item (upstream listItemToPathElement). */
function itemElement(list: ListAtom, item: unknown, index: number): PathElement {
  if (!list.associative) return { index };
  if (list.keys.length > 0) {
    if (item === null || item === undefined)
      throw new ItemError("associative list with keys may not have a null element");
    if (!isMap(item)) throw new ItemError("associative list with keys may not have non-map elements");
    const pairs: (readonly [string, unknown])[] = [];
    for (const k of list.keys) {
      let v = Object.hasOwn(item, k) ? item[k] : undefined;
      if (v === undefined) {
        const element = list.element();
        if (!element.map)
          throw new ItemError(
            `couldn't find default value for ${k}: associative list may not have non-map types`,
          );
        v = element.map.fieldDefault(k);
        if (v === undefined || v === null)
          throw new ItemError(
            `associative list with keys has an element that omits key field ${goQuote(k)} (and doesn't have default value)`,
          );
      }
      if (typeof v === "object" && v !== null) {
        if (valueDepth(v, MAX_VALUE_DEPTH) > MAX_VALUE_DEPTH)
          throw new ItemError(`key field ${goQuote(k)} nests too deeply`);
        // Elements outlive this walk; they must not see later changes to the object.
        v = cloneJson(v);
      }
      pairs.push([k, v]);
    }
    pairs.sort((a, b) => compareStrings(a[0], b[0]));
    return { key: pairs };
  }
  if (isMap(item)) throw new ItemError("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new ItemError("not supported: associative list with lists as elements");
  if (item === null || item === undefined)
    throw new ItemError("associative list without keys has an element that's an explicit null");
  return { value: item };
}

/** A list's items with their elements, refusing bad items and repeated keys as upstream does. */
function indexItems(
  at: At,
  list: ListAtom,
  v: readonly unknown[],
): { pe: PathElement; id: string; value: unknown }[] {
  const out: { pe: PathElement; id: string; value: unknown }[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    let pe: PathElement;
    try {
      pe = itemElement(list, v[i], i);
    } catch (err) {
      if (err instanceof ItemError) fail(at, `element ${i}: ${err.message}`);
      throw err;
    }
    if (!list.associative) {
      // Indices never repeat: nothing to check (a list of 500k scalars spent most of a write here).
      out.push({ pe, id: String(i), value: v[i] });
      continue;
    }
    const id = serializePathElement(pe);
    if (seen.has(id)) fail(at, `duplicate entries for key ${formatPathElement(pe)}`);
    seen.add(id);
    out.push({ pe, id, value: v[i] });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation: what upstream checks when it turns an object into its typed form. Like every walk
// here it keeps its own stack, so nesting costs memory, not call depth.

interface Check extends At {
  readonly v: unknown;
  readonly atom: Atom;
}

function* validateValue(value: unknown, atom: Atom, strict: boolean): Steps<void> {
  const stack: Check[] = [{ up: undefined, pe: undefined, depth: 0, v: value, atom }];
  for (let step = 1; stack.length > 0; step++) {
    if ((step & STEP_MASK) === 0) yield;
    const t = stack.pop() as Check;
    const { v } = t;
    const part = partOf(t.atom, v);
    if (part === "scalar") {
      const problem = scalarProblem(t.atom.scalar as ScalarKind, v);
      if (problem) fail(t, problem);
      continue;
    }
    if (v === null || v === undefined) continue;
    const next: Check[] = [];
    if (part === "map") {
      if (!isMap(v)) fail(t, `expected map, got &{${goFormat(v, false)}}`);
      const map = t.atom.map as MapAtom;
      for (const k of Object.keys(v)) {
        if (v[k] === undefined) continue;
        const pe = { field: k };
        const fa = fieldAtom(map, k, strict, t.depth === 0);
        if (!fa) fail(t, "field not declared in schema", pe);
        next.push({ up: t, pe, depth: t.depth + 1, v: v[k], atom: fa });
      }
    } else if (part === "list") {
      if (!Array.isArray(v)) fail(t, `expected list, got &{${goFormat(v, false)}}`);
      const list = t.atom.list as ListAtom;
      const element = list.element();
      for (const item of indexItems(t, list, v))
        next.push({ up: t, pe: item.pe, depth: t.depth + 1, v: item.value, atom: element });
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i] as Check);
  }
}

// ---------------------------------------------------------------------------------------------
// Field sets.

interface Collect {
  readonly v: unknown;
  readonly atom: Atom;
  /** Where this place's own path is added, and the element that reaches it from there. */
  readonly parent: SetCursor | undefined;
  readonly pe: PathElement | undefined;
  readonly self: SetCursor;
  readonly depth: number;
}

/** What `value` sets (upstream ToFieldSet); items that cannot be named are skipped. */
function* collectSet(value: unknown, atom: Atom): Steps<FieldSet> {
  const set = FieldSet.empty();
  const stack: Collect[] = [
    { v: value, atom, parent: undefined, pe: undefined, self: set.cursor(), depth: 0 },
  ];
  for (let step = 1; stack.length > 0; step++) {
    if ((step & STEP_MASK) === 0) yield;
    const t = stack.pop() as Collect;
    const { v, self } = t;
    const insertSelf = () => t.parent?.member(t.pe as PathElement);
    const part = partOf(t.atom, v);
    if (part === "scalar") insertSelf();
    else if (part === "list") {
      const list = t.atom.list as ListAtom;
      if (!list.associative) insertSelf();
      else if (Array.isArray(v)) {
        const element = list.element();
        for (let i = 0; i < v.length; i++) {
          let pe: PathElement;
          try {
            pe = itemElement(list, v[i], i);
          } catch (err) {
            // Validated input has none; pruned intermediates may.
            if (err instanceof ItemError) continue;
            throw err;
          }
          // List items are members themselves, whatever they hold.
          self.member(pe);
          stack.push({ v: v[i], atom: element, parent: self, pe, self: self.child(pe), depth: t.depth + 1 });
        }
      }
    } else if (part === "map") {
      const map = t.atom.map as MapAtom;
      if (map.atomic) insertSelf();
      else if (isMap(v)) {
        for (const k of Object.keys(v)) {
          const x = v[k];
          if (x === undefined) continue;
          const pe = { field: k };
          // A declared field holding something is owned through what is below it; null, {} and
          // keys of maps (or undeclared fields) are members themselves.
          if (x === null || (isMap(x) && isEmptyMap(x)) || !map.field(k)) self.member(pe);
          const atom = fieldAtom(map, k, false, t.depth === 0) ?? DEDUCED;
          stack.push({ v: x, atom, parent: self, pe, self: self.child(pe), depth: t.depth + 1 });
        }
      }
    }
  }
  return set;
}

// ---------------------------------------------------------------------------------------------
// Merge and compare: one walk over two values at once (upstream's merging walker). A place is
// visited, its children are walked, then it is finished: its merged value is assembled and
// handed to its parent's slot, and a comparison records it if it was added or removed whole.

/** The three sets a comparison fills, at one place of the tree. */
class Sinks {
  readonly added: SetCursor;
  readonly modified: SetCursor;
  readonly removed: SetCursor;

  constructor(added: SetCursor, modified: SetCursor, removed: SetCursor) {
    this.added = added;
    this.modified = modified;
    this.removed = removed;
  }

  child(pe: PathElement): Sinks {
    return new Sinks(this.added.child(pe), this.modified.child(pe), this.removed.child(pe));
  }
}

/** A container's merged children, by position; assembled when the container finishes. */
interface Slots {
  /** Map keys by slot; undefined for a list. */
  readonly keys: string[] | undefined;
  readonly values: unknown[];
}

interface Frame extends At {
  readonly lhs: unknown;
  readonly rhs: unknown;
  readonly atom: Atom;
  /** The sinks of the place above, where this place's own path is recorded. */
  readonly parent: Sinks | undefined;
  own: Sinks | undefined;
  inLeaf: boolean;
  out: unknown;
  slots: Slots | undefined;
  /** The parent's slots and the position there that receives `out`. */
  readonly into: Slots | undefined;
  readonly slot: number;
}

interface PairWalk {
  /** Set when comparing; merging builds the output instead. */
  readonly sinks: Sinks | undefined;
  readonly stack: { readonly frame: Frame; readonly finish: boolean }[];
}

function frame(
  up: Frame | undefined,
  pe: PathElement | undefined,
  lhs: unknown,
  rhs: unknown,
  atom: Atom,
  parent: Sinks | undefined,
  into: Slots | undefined,
  slot: number,
): Frame {
  const depth = up ? up.depth + 1 : 0;
  return {
    up,
    pe,
    depth,
    lhs,
    rhs,
    atom,
    parent,
    own: undefined,
    inLeaf: false,
    out: undefined,
    slots: undefined,
    into,
    slot,
  };
}

function ownSinks(w: PairWalk, f: Frame): Sinks | undefined {
  if (!w.sinks) return undefined;
  if (!f.own) f.own = f.parent ? f.parent.child(f.pe as PathElement) : w.sinks;
  return f.own;
}

function record(f: Frame, which: "added" | "modified" | "removed"): void {
  if (f.parent) f.parent[which].member(f.pe as PathElement);
}

function* runPairWalk(w: PairWalk, lhs: unknown, rhs: unknown, atom: Atom): Steps<unknown> {
  const root = frame(undefined, undefined, lhs, rhs, atom, undefined, undefined, 0);
  w.stack.push({ frame: root, finish: false });
  for (let step = 1; w.stack.length > 0; step++) {
    if ((step & STEP_MASK) === 0) yield;
    const { frame: f, finish } = w.stack.pop() as { frame: Frame; finish: boolean };
    if (finish) finishPlace(w, f);
    else visitPlace(w, f);
  }
  return root.out;
}

function visitPlace(w: PairWalk, f: Frame): void {
  const { lhs, rhs, atom } = f;
  w.stack.push({ frame: f, finish: true });
  const partL = partOf(atom, lhs);
  const partR = partOf(atom, rhs);
  if (rhs === undefined) start(w, f, partL);
  else if (lhs === undefined || narrowed(atom, lhs) === narrowed(atom, rhs)) start(w, f, partR);
  else {
    // The sides disagree on the kind: each is walked as its own kind and the right one wins. Only
    // a comparison needs the left walk (for what it removes); its output is never used.
    if (w.sinks)
      start(
        w,
        { ...f, own: undefined, inLeaf: false, out: undefined, slots: undefined, into: undefined },
        partL,
      );
    start(w, f, partR);
  }
}

function finishPlace(w: PairWalk, f: Frame): void {
  const s = f.slots;
  if (s && !w.sinks) {
    if (s.keys) {
      const out: JsonMap = {};
      let any = false;
      s.keys.forEach((k, i) => {
        const v = s.values[i];
        if (v === undefined) return;
        setKey(out, k, v);
        any = true;
      });
      if (any) f.out = out;
    } else {
      const out = s.values.filter((v) => v !== undefined);
      if (out.length > 0) f.out = out;
    }
  }
  if (w.sinks && !f.inLeaf) {
    if (f.lhs === undefined) record(f, "added");
    else if (f.rhs === undefined) record(f, "removed");
  }
  if (f.into) f.into.values[f.slot] = f.out;
}

/** One kind's handling of a place: a leaf now, or its children queued. */
function start(w: PairWalk, f: Frame, part: Part | undefined): void {
  const { lhs, rhs, atom } = f;
  if (part === "scalar") {
    leaf(w, f);
    return;
  }
  const children: Frame[] = [];
  if (part === "map") {
    const map = atom.map as MapAtom;
    const l = isMap(lhs) ? lhs : undefined;
    const r = isMap(rhs) ? rhs : undefined;
    // Both empty or null: kept as a leaf, so that {} and null stay distinct.
    if (map.atomic || ((!l || isEmptyMap(l)) && (!r || isEmptyMap(r)))) {
      leaf(w, f);
      return;
    }
    // Live keys keep their order; keys only the configuration has follow.
    const keys: string[] = [];
    if (l) for (const k of Object.keys(l)) if (l[k] !== undefined) keys.push(k);
    if (r)
      for (const k of Object.keys(r))
        if (r[k] !== undefined && (!l || l[k] === undefined || !Object.hasOwn(l, k))) keys.push(k);
    const slots: Slots = { keys, values: [] };
    f.slots = slots;
    const sinks = ownSinks(w, f);
    keys.forEach((k, i) => {
      const lv = l && Object.hasOwn(l, k) ? l[k] : undefined;
      const rv = r && Object.hasOwn(r, k) ? r[k] : undefined;
      const fa = fieldAtom(map, k, false, f.depth === 0) ?? DEDUCED;
      children.push(frame(f, { field: k }, lv, rv, fa, sinks, slots, i));
    });
  } else if (part === "list") {
    const list = atom.list as ListAtom;
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    if (!list.associative || ((!l || l.length === 0) && (!r || r.length === 0))) {
      leaf(w, f);
      return;
    }
    const L = indexItems(f, list, l ?? []);
    const R = indexItems(f, list, r ?? []);
    const slots: Slots = { keys: undefined, values: [] };
    f.slots = slots;
    const sinks = ownSinks(w, f);
    const element = list.element();
    listOrder(L, R).forEach(([li, ri], i) => {
      const pe = (li ?? ri)?.pe as PathElement;
      children.push(frame(f, pe, li?.value, ri?.value, element, sinks, slots, i));
    });
  } else return;
  for (let i = children.length - 1; i >= 0; i--) w.stack.push({ frame: children[i] as Frame, finish: false });
}

/** A place merged as a whole: the right side wins; a comparison notes what happened to it. */
function leaf(w: PairWalk, f: Frame): void {
  if (f.inLeaf) return;
  f.inLeaf = true;
  const { lhs, rhs } = f;
  if (w.sinks) {
    if (lhs === undefined) record(f, "added");
    else if (rhs === undefined) record(f, "removed");
    else if (!equalValues(lhs, rhs)) record(f, "modified");
    return;
  }
  f.out = cloneJson(rhs !== undefined ? rhs : lhs);
}

type Item = { pe: PathElement; id: string; value: unknown };

/**
 * The merged list's items in upstream's order, as (live item, applied item) pairs: live items
 * keep their places, and the configuration's items (new or shared) come in the configuration's
 * order, a shared item at its turn in that order.
 */
function listOrder(L: readonly Item[], R: readonly Item[]): [Item | undefined, Item | undefined][] {
  const inL = new Map(L.map((x) => [x.id, x]));
  const inR = new Map(R.map((x) => [x.id, x]));
  const shared = R.filter((x) => inL.has(x.id)).map((x) => x.id);
  const out: [Item | undefined, Item | undefined][] = [];
  let nextShared = 0;
  let li = 0;
  let ri = 0;
  while (li < L.length || ri < R.length) {
    const l = L[li];
    const r = R[ri];
    if (l && r) {
      if (l.id === r.id) {
        out.push([l, r]);
        li++;
        ri++;
        nextShared++;
        continue;
      }
      const want = shared[nextShared];
      if (inR.has(l.id) && want !== undefined && want !== l.id) {
        li++;
        continue;
      }
    }
    if (l && !inR.has(l.id)) {
      out.push([l, undefined]);
      li++;
      continue;
    }
    if (r) {
      out.push([inL.get(r.id), r]);
      ri++;
      if (shared[nextShared] === r.id) nextShared++;
      continue;
    }
    // A live item the configuration has and that was already merged.
    li++;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Removal (upstream RemoveItems): members of the set go, paths below them are followed. A place
// left with nothing becomes null in its parent, as upstream leaves it.

interface Removal {
  readonly v: unknown;
  readonly set: FieldSet;
  readonly atom: Atom;
  readonly into: Slots | undefined;
  readonly slot: number;
  slots: Slots | undefined;
}

function* removeFrom(value: unknown, set: FieldSet, atom: Atom): Steps<unknown> {
  let result: unknown;
  const deliver = (t: Removal, v: unknown) => {
    if (t.into) t.into.values[t.slot] = v;
    else result = v;
  };
  const stack: { t: Removal; finish: boolean }[] = [
    { t: { v: value, set, atom, into: undefined, slot: 0, slots: undefined }, finish: false },
  ];
  for (let step = 1; stack.length > 0; step++) {
    if ((step & STEP_MASK) === 0) yield;
    const { t, finish } = stack.pop() as { t: Removal; finish: boolean };
    if (finish) {
      const s = t.slots as Slots;
      if (s.keys) {
        const out: JsonMap = {};
        s.keys.forEach((k, i) => {
          setKey(out, k, s.values[i] ?? null);
        });
        deliver(t, out);
      } else
        deliver(
          t,
          s.values.map((x) => x ?? null),
        );
      continue;
    }
    const { v } = t;
    const part = partOf(t.atom, v);
    const pending: Removal[] = [];
    const slots: Slots = { keys: part === "map" ? [] : undefined, values: [] };
    if (part === "map") {
      const map = t.atom.map as MapAtom;
      if (!isMap(v) || map.atomic) {
        deliver(t, undefined);
        continue;
      }
      for (const k of Object.keys(v)) {
        const x = v[k];
        const pe = { field: k };
        if (x === undefined || t.set.hasMember(pe)) continue;
        const sub = t.set.child(pe);
        const i = slots.values.length;
        (slots.keys as string[]).push(k);
        if (sub.isEmpty()) slots.values.push(cloneJson(x));
        else {
          slots.values.push(undefined);
          const fa = fieldAtom(map, k, false, t.into === undefined) ?? DEDUCED;
          pending.push({ v: x, set: sub, atom: fa, into: slots, slot: i, slots: undefined });
        }
      }
    } else if (part === "list") {
      const list = t.atom.list as ListAtom;
      if (!Array.isArray(v) || !list.associative) {
        deliver(t, undefined);
        continue;
      }
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        let pe: PathElement | undefined;
        try {
          pe = itemElement(list, x, i);
        } catch (err) {
          // An item that cannot be named is kept as it is.
          if (!(err instanceof ItemError)) throw err;
        }
        if (pe && t.set.hasMember(pe)) continue;
        const sub = pe ? t.set.child(pe) : FieldSet.empty();
        const at = slots.values.length;
        if (sub.isEmpty()) slots.values.push(cloneJson(x));
        else {
          slots.values.push(undefined);
          pending.push({ v: x, set: sub, atom: list.element(), into: slots, slot: at, slots: undefined });
        }
      }
    } else {
      deliver(t, cloneJson(v));
      continue;
    }
    if (slots.values.length === 0) {
      deliver(t, undefined);
      continue;
    }
    t.slots = slots;
    stack.push({ t, finish: true });
    for (const p of pending) stack.push({ t: p, finish: false });
  }
  return result;
}

function* removeRoot(value: unknown, set: FieldSet, atom: Atom): Steps<unknown> {
  const out = yield* removeFrom(value, set, atom);
  if (out !== undefined) return out;
  // Nothing left of the whole object: an empty one of the same kind.
  return isMap(value) ? {} : Array.isArray(value) ? [] : null;
}

/** Declared struct fields with something below them become members (upstream
    EnsureNamedFieldsAreMembers), so that removing them is possible. */
function withNamedFields(set: FieldSet, atom: Atom): FieldSet {
  return set.withPromotedMembers<Atom | undefined>(
    atom,
    (a, pe) => {
      if (!a) return undefined;
      if ("field" in pe) return a.map ? (a.map.field(pe.field) ?? a.map.element()) : undefined;
      if ("key" in pe) return a.list?.element();
      return undefined;
    },
    (a, pe) => a?.map !== undefined && "field" in pe && a.map.field(pe.field) !== undefined,
  );
}

// ---------------------------------------------------------------------------------------------
// Entry points.

/** A walk's steps: it pauses every STEP_MASK + 1 places, so a caller may let others run. */
export type Steps<T> = Generator<undefined, T, undefined>;

/** Places a walk visits between pauses, less one (a power of two, less one). */
const STEP_MASK = 1023;

/** How long a sliced walk runs before it gives the event loop a turn. */
const SLICE_MS = 20;

/** A RangeError (no walk recurses, but values inside elements are compared recursively) is
    reported as a clean error rather than escaping. */
function walkError(err: unknown): unknown {
  return err instanceof RangeError ? new TypedWalkError("", "object nested too deeply") : err;
}

/** Runs a walk to its end at once. */
export function runWalk<T>(steps: Steps<T>): T {
  try {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  } catch (err) {
    throw walkError(err);
  }
}

/**
 * Runs a walk, giving the event loop a turn whenever it has run for SLICE_MS: a walk over a
 * large object (100k keyed list items take seconds) then never holds other requests back for long.
 */
export async function runWalkSliced<T>(steps: Steps<T>, sliceMs: number = SLICE_MS): Promise<T> {
  let since = performance.now();
  try {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (performance.now() - since >= sliceMs) {
        await turn();
        since = performance.now();
      }
    }
  } catch (err) {
    throw walkError(err);
  }
}

/** Checks `value` as upstream does when it types an object; throws TypedWalkError. */
export function* validateSteps(
  value: unknown,
  schema: StructuralSchema | undefined,
  options?: WalkOptions,
): Steps<void> {
  yield* validateValue(value, atomOf(schema, false), options?.rejectUnknownFields === true);
}

/** The fields `value` sets: leaves, atomic parts and list items (SMD ToFieldSet). */
export function* toFieldSetSteps(
  value: unknown,
  schema: StructuralSchema | undefined,
  options?: WalkOptions,
): Steps<FieldSet> {
  yield* validateSteps(value, schema, options);
  return yield* collectSet(value, atomOf(schema, false));
}

/** What changed from `lhs` to `rhs` (SMD Compare): added and removed places, intermediate ones
    included; modified leaves. */
export function* compareSteps(
  lhs: unknown,
  rhs: unknown,
  schema: StructuralSchema | undefined,
  options?: WalkOptions,
): Steps<Comparison> {
  yield* validateSteps(lhs, schema, options);
  yield* validateSteps(rhs, schema, options);
  const added = FieldSet.empty();
  const modified = FieldSet.empty();
  const removed = FieldSet.empty();
  const w: PairWalk = { sinks: new Sinks(added.cursor(), modified.cursor(), removed.cursor()), stack: [] };
  yield* runPairWalk(w, lhs, rhs, atomOf(schema, false));
  return { added, modified, removed };
}

/** Apply's merge of a partial applied configuration onto the live object (SMD TypedValue.Merge). */
export function* mergeSteps(
  live: unknown,
  config: unknown,
  schema: StructuralSchema | undefined,
  options?: WalkOptions,
): Steps<unknown> {
  yield* validateSteps(live, schema, options);
  yield* validateSteps(config, schema, options);
  const w: PairWalk = { sinks: undefined, stack: [] };
  const out = yield* runPairWalk(w, live, config, atomOf(schema, false));
  return out === undefined ? null : out;
}

/** Removes from `value` the items named by `set` (SMD RemoveItems). Pure. */
export function* removeItemsSteps(
  value: unknown,
  set: FieldSet,
  schema: StructuralSchema | undefined,
): Steps<unknown> {
  return yield* removeRoot(value, set, atomOf(schema, false));
}

export const validate = (value: unknown, schema: StructuralSchema | undefined, options?: WalkOptions): void =>
  runWalk(validateSteps(value, schema, options));
export const toFieldSet = (
  value: unknown,
  schema: StructuralSchema | undefined,
  options?: WalkOptions,
): FieldSet => runWalk(toFieldSetSteps(value, schema, options));
export const compare = (
  lhs: unknown,
  rhs: unknown,
  schema: StructuralSchema | undefined,
  options?: WalkOptions,
): Comparison => runWalk(compareSteps(lhs, rhs, schema, options));
export const merge = (
  live: unknown,
  config: unknown,
  schema: StructuralSchema | undefined,
  options?: WalkOptions,
): unknown => runWalk(mergeSteps(live, config, schema, options));
export const removeItems = (value: unknown, set: FieldSet, schema: StructuralSchema | undefined): unknown =>
  runWalk(removeItemsSteps(value, set, schema));

/** Owners at another version: their sets, that version's schema, and the conversions there and back. */
export interface OwnersAtVersion {
  readonly owned: FieldSet;
  readonly schema: StructuralSchema | undefined;
  readonly to: (value: unknown) => unknown;
  readonly back: (value: unknown) => unknown;
}

/** Apply's pruning: drops from `merged` what the applier owned last time (`lastApplied`) and
    nobody owns now (`owned`, every manager's set at this version incl. the applier's new one;
    `others`, owners at other versions, checked on the object converted to theirs), as SMD's
    Updater.prune + addBackOwnedItems + addBackDanglingItems do (named struct fields count as
    members, EnsureNamedFieldsAreMembers). Pure. */
export function* pruneUnownedSteps(
  merged: unknown,
  lastApplied: FieldSet,
  owned: FieldSet,
  schema: StructuralSchema | undefined,
  others: readonly OwnersAtVersion[] = [],
): Steps<unknown> {
  if (lastApplied.isEmpty()) return cloneJson(merged);
  const atom = atomOf(schema, false);
  const named = (s: FieldSet) => withNamedFields(s, atom);
  const fieldsOf = function* (v: unknown): Steps<FieldSet> {
    return named(yield* collectSet(v, atom));
  };
  const last = named(lastApplied);
  // 1. Remove everything the applier had, which includes what it no longer applies.
  const pruned = yield* removeRoot(merged, last, atom);
  // 2. Put back what someone (the applier's new configuration included) still owns, at this
  //    version and then at each other owners' version.
  const mergedSet = yield* fieldsOf(merged);
  const prunedSet = yield* fieldsOf(pruned);
  let restored = yield* removeRoot(merged, mergedSet.difference(prunedSet.union(named(owned))), atom);
  for (const other of others) {
    const at = atomOf(other.schema, false);
    const namedAt = (s: FieldSet) => withNamedFields(s, at);
    const mergedThere = other.to(merged);
    const keptThere = namedAt(yield* collectSet(other.to(restored), at));
    const drop = namedAt(yield* collectSet(mergedThere, at)).difference(
      keptThere.union(namedAt(other.owned)),
    );
    restored = other.back(yield* removeRoot(mergedThere, drop, at));
  }
  // 3. Only what the applier owned last time may go; anything else removed comes back.
  const restoredSet = yield* fieldsOf(restored);
  return yield* removeRoot(merged, mergedSet.difference(restoredSet).intersection(last), atom);
}

export const pruneUnowned = (
  merged: unknown,
  lastApplied: FieldSet,
  owned: FieldSet,
  schema: StructuralSchema | undefined,
  others: readonly OwnersAtVersion[] = [],
): unknown => runWalk(pruneUnownedSteps(merged, lastApplied, owned, schema, others));
