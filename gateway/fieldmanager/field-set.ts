// Sets of field paths, as server-side apply records ownership in managedFields (upstream's
// structured-merge-diff fieldpath package): a path names a field, a keyed or set list item, or an
// atomic list index. A set is kept as a tree, each node listing its member elements and its child
// nodes in one fixed order, which is also the order of the FieldsV1 wire form. Every operation
// walks the tree with an explicit stack, so sets as deep as the objects they describe are fine.

export type PathElement =
  | { readonly field: string }
  | { readonly key: readonly (readonly [string, unknown])[] }
  | { readonly value: unknown }
  | { readonly index: number };

export type Path = readonly PathElement[];

/** A fieldsV1 document that cannot be read. */
export class FieldSetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldSetError";
  }
}

// ---------------------------------------------------------------------------------------------
// Values inside path elements: order, equality and text, as upstream defines them.

/** Nesting allowed inside a key or set value; real ones are scalars. */
export const MAX_VALUE_DEPTH = 100;

type JsonMap = Record<string, unknown>;

function isMap(v: unknown): v is JsonMap {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Go orders strings by bytes of UTF-8, which is code point order, not UTF-16 unit order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate encodes a code point above U+FFFF: it sorts after every unit from U+E000 up.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Kinds in upstream's total order of values: numbers, strings, booleans, lists, maps, null. */
function rank(v: unknown): number {
  switch (typeof v) {
    case "number":
      return 0;
    case "string":
      return 1;
    case "boolean":
      return 2;
    default:
      if (Array.isArray(v)) return 3;
      if (isMap(v)) return 4;
      return 5;
  }
}

/** Upstream's total order over values, so set and key elements sort the same way. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= x.length) return i >= y.length ? 0 : -1;
        if (i >= y.length) return 1;
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
    }
    case 4:
      return compareMaps(a as JsonMap, b as JsonMap);
    default:
      return 0;
  }
}

/** Maps compare key by key over the sorted union of their keys, as upstream zips them. */
function compareMaps(a: JsonMap, b: JsonMap): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length === 0 && kb.length === 0) return 0;
  const keys = [...new Set([...ka, ...kb])].sort(compareStrings);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    let c: number;
    if (i === ka.length) c = -1;
    else if (i === kb.length) c = 1;
    else if (!Object.hasOwn(a, k)) c = 1;
    else if (!Object.hasOwn(b, k)) c = -1;
    else c = compareValues(a[k], b[k]);
    if (c !== 0) return c;
  }
  return 0;
}

/** JSON value equality (numbers by value, maps regardless of key order); no recursion. */
export function equalValues(a: unknown, b: unknown): boolean {
  const work: [unknown, unknown][] = [[a, b]];
  while (work.length > 0) {
    const [x, y] = work.pop() as [unknown, unknown];
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) work.push([x[i], y[i]]);
    } else if (isMap(x)) {
      if (!isMap(y)) return false;
      const kx = Object.keys(x).filter((k) => x[k] !== undefined);
      if (kx.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
      for (const k of kx) {
        if (!Object.hasOwn(y, k)) return false;
        work.push([x[k], y[k]]);
      }
    } else if (!((x === null || x === undefined) && (y === null || y === undefined))) {
      // undefined stands for null in values that came from JavaScript rather than JSON.
      return false;
    }
  }
  return true;
}

/** How deep a value nests (1 for a scalar). */
export function valueDepth(v: unknown, limit: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length > 0) {
    const [x, d] = stack.pop() as [unknown, number];
    if (d > max) max = d;
    if (max > limit) return max;
    if (Array.isArray(x)) for (const e of x) stack.push([e, d + 1]);
    else if (isMap(x)) for (const k of Object.keys(x)) stack.push([x[k], d + 1]);
  }
  return max;
}

const HEX = "0123456789abcdef";

function hex4(c: number): string {
  return `${HEX[(c >> 12) & 15]}${HEX[(c >> 8) & 15]}${HEX[(c >> 4) & 15]}${HEX[c & 15]}`;
}

/** A JSON string as upstream's encoder writes it: HTML-safe, lone surrogates replaced. */
function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029)
      out += `\\u${hex4(c)}`;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s.slice(i, i + 2);
        i++;
      } else out += "\ufffd";
    } else if (c >= 0xdc00 && c <= 0xdfff) out += "\ufffd";
    else out += String.fromCharCode(c);
  }
  return `${out}"`;
}

/** Compact JSON with sorted map keys, as a path element value is written in FieldsV1. */
export function valueJson(v: unknown): string {
  if (typeof v === "string") return jsonString(v);
  if (typeof v === "number") return Number.isFinite(v) ? JSON.stringify(v) : "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (Array.isArray(v)) return `[${v.map(valueJson).join(",")}]`;
  if (isMap(v)) {
    const keys = Object.keys(v).sort(compareStrings);
    return `{${keys.map((k) => `${jsonString(k)}:${valueJson(v[k])}`).join(",")}}`;
  }
  return "null";
}

/** Go's %q of a string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (c === 7) out += "\\a";
    else if (c === 8) out += "\\b";
    else if (c === 12) out += "\\f";
    else if (c === 10) out += "\\n";
    else if (c === 13) out += "\\r";
    else if (c === 9) out += "\\t";
    else if (c === 11) out += "\\v";
    else if (c < 0x20 || c === 0x7f) out += `\\x${HEX[c >> 4]}${HEX[c & 15]}`;
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad || c === 0x2028 || c === 0x2029) out += `\\u${hex4(c)}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += "\ufffd";
    else out += ch;
  }
  return `${out}"`;
}

/** Go's %v of a float64 (shortest form; exponent below 1e-4 and from 1e21). */
export function goNumber(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "+Inf" : "-Inf";
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return Object.is(n, -0) ? "0" : BigInt(n).toString();
  const abs = Math.abs(n);
  if (abs >= 1e-4 && abs < 1e21) return String(n);
  const [mantissa, exp] = n.toExponential().split("e") as [string, string];
  const sign = exp.startsWith("-") ? "-" : "+";
  const digits = exp.replace(/^[-+]/, "");
  return `${mantissa}e${sign}${digits.length < 2 ? `0${digits}` : digits}`;
}

/** A value as upstream prints it inside a path (strings quoted, maps as k=v runs). */
export function valueString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "number") return goNumber(v);
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(",")}]`;
  if (isMap(v))
    return Object.keys(v)
      .sort(compareStrings)
      .map((k) => `${k}=${valueString(v[k])}`)
      .join("");
  return "null";
}

// ---------------------------------------------------------------------------------------------
// Path elements.

function tag(pe: PathElement): number {
  if ("field" in pe) return 0;
  if ("key" in pe) return 1;
  if ("index" in pe) return 3;
  return 2;
}

/** Upstream's order: fields, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ta = tag(a);
  const tb = tag(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  switch (ta) {
    case 0:
      return compareStrings((a as { field: string }).field, (b as { field: string }).field);
    case 1: {
      const x = (a as { key: readonly (readonly [string, unknown])[] }).key;
      const y = (b as { key: readonly (readonly [string, unknown])[] }).key;
      for (let i = 0; ; i++) {
        if (i >= x.length) return i >= y.length ? 0 : -1;
        if (i >= y.length) return 1;
        const [xn, xv] = x[i] as readonly [string, unknown];
        const [yn, yv] = y[i] as readonly [string, unknown];
        const c = compareStrings(xn, yn) || compareValues(xv, yv);
        if (c !== 0) return c;
      }
    }
    case 2:
      return compareValues((a as { value: unknown }).value, (b as { value: unknown }).value);
    default: {
      const x = (a as { index: number }).index;
      const y = (b as { index: number }).index;
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
}

export function pathElementsEqual(a: PathElement, b: PathElement): boolean {
  const ta = tag(a);
  if (ta !== tag(b)) return false;
  switch (ta) {
    case 0:
      return (a as { field: string }).field === (b as { field: string }).field;
    case 1: {
      const x = (a as { key: readonly (readonly [string, unknown])[] }).key;
      const y = (b as { key: readonly (readonly [string, unknown])[] }).key;
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) {
        const [xn, xv] = x[i] as readonly [string, unknown];
        const [yn, yv] = y[i] as readonly [string, unknown];
        if (xn !== yn || !equalValues(xv, yv)) return false;
      }
      return true;
    }
    case 2:
      return equalValues((a as { value: unknown }).value, (b as { value: unknown }).value);
    default:
      return (a as { index: number }).index === (b as { index: number }).index;
  }
}

/** ".name", "[k=v,k2=v2]", "[=v]" or "[3]". */
export function formatPathElement(pe: PathElement): string {
  if ("field" in pe) return `.${pe.field}`;
  if ("key" in pe) return `[${pe.key.map(([k, v]) => `${k}=${valueString(v)}`).join(",")}]`;
  if ("index" in pe) return `[${pe.index}]`;
  return `[=${valueString(pe.value)}]`;
}

/** ".spec.containers[name=\"nginx\"].image", "[=\"x\"]", "[3]" — SMD's Path.String(). */
export function formatPath(path: Path): string {
  let out = "";
  for (const pe of path) out += formatPathElement(pe);
  return out;
}

/** The FieldsV1 key of an element: `f:name`, `k:{...}`, `v:json` or `i:n`. */
export function serializePathElement(pe: PathElement): string {
  if ("field" in pe) return `f:${pe.field}`;
  if ("key" in pe) return `k:{${pe.key.map(([k, v]) => `${jsonString(k)}:${valueJson(v)}`).join(",")}}`;
  if ("index" in pe) return `i:${pe.index}`;
  return `v:${valueJson(pe.value)}`;
}

/** Reads a FieldsV1 key; undefined for an element kind this version does not know (skipped). */
export function parsePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new FieldSetError(`key must be 2 characters long: ${goQuote(s)}`);
  if (s[1] !== ":") throw new FieldSetError(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case "f":
      return { field: rest };
    case "v":
      return { value: parseJson(rest, s) };
    case "k": {
      const v = parseJson(rest, s);
      if (!isMap(v)) throw new FieldSetError(`expected an object of key fields: ${s}`);
      const pairs = Object.keys(v).map((k): readonly [string, unknown] => [k, v[k]]);
      pairs.sort((a, b) => compareStrings(a[0], b[0]));
      return { key: pairs };
    }
    case "i": {
      if (!/^[+-]?[0-9]+$/.test(rest) || !Number.isSafeInteger(Number(rest)))
        throw new FieldSetError(`strconv.Atoi: parsing ${goQuote(rest)}: invalid syntax`);
      return { index: Number(rest) };
    }
    default:
      return undefined;
  }
}

function parseJson(text: string, key: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new FieldSetError(`invalid JSON in ${key}`);
  }
  if (valueDepth(v, MAX_VALUE_DEPTH) > MAX_VALUE_DEPTH)
    throw new FieldSetError(`value nested too deeply in ${key}`);
  return v;
}

// ---------------------------------------------------------------------------------------------
// The tree.

interface Child {
  readonly pe: PathElement;
  node: SetNode;
}

/**
 * One level of a set: member elements and child nodes, each sorted and never empty below. While
 * a cursor builds a set, a node is "loose": elements are appended in any order (children found
 * through `index`), and the set sorts everything once before it is next read.
 */
interface SetNode {
  members: PathElement[];
  children: Child[];
  loose?: boolean;
  index?: Map<string, Child>;
}

const EMPTY: SetNode = Object.freeze({ members: [], children: [] }) as unknown as SetNode;

function newNode(): SetNode {
  return { members: [], children: [] };
}

function nodeEmpty(n: SetNode): boolean {
  return n.members.length === 0 && n.children.length === 0;
}

/** Index of the first entry not less than `pe`. */
function lowerBound<T>(list: readonly T[], pe: PathElement, get: (t: T) => PathElement): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePathElements(get(list[mid] as T), pe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const SELF = (pe: PathElement) => pe;
const CHILD_PE = (c: Child) => c.pe;

function hasMember(n: SetNode, pe: PathElement): boolean {
  const i = lowerBound(n.members, pe, SELF);
  return i < n.members.length && pathElementsEqual(n.members[i] as PathElement, pe);
}

function addMember(n: SetNode, pe: PathElement): void {
  const i = lowerBound(n.members, pe, SELF);
  if (i < n.members.length && pathElementsEqual(n.members[i] as PathElement, pe)) return;
  n.members.splice(i, 0, pe);
}

function getChild(n: SetNode, pe: PathElement): SetNode | undefined {
  const i = lowerBound(n.children, pe, CHILD_PE);
  const c = n.children[i];
  return c && pathElementsEqual(c.pe, pe) ? c.node : undefined;
}

function descend(n: SetNode, pe: PathElement): SetNode {
  const i = lowerBound(n.children, pe, CHILD_PE);
  const c = n.children[i];
  if (c && pathElementsEqual(c.pe, pe)) return c.node;
  const node = newNode();
  n.children.splice(i, 0, { pe, node });
  return node;
}

type Mode = "union" | "intersection" | "difference" | "recursiveDifference";

function combineMembers(x: readonly PathElement[], y: readonly PathElement[], mode: Mode): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    const c =
      i >= x.length ? 1 : j >= y.length ? -1 : comparePathElements(x[i] as PathElement, y[j] as PathElement);
    if (c < 0) {
      if (mode !== "intersection") out.push(x[i] as PathElement);
      i++;
    } else if (c > 0) {
      if (mode === "union") out.push(y[j] as PathElement);
      j++;
    } else {
      if (mode === "union" || mode === "intersection") out.push(x[i] as PathElement);
      i++;
      j++;
    }
  }
  return out;
}

/**
 * The set algebra in one pass over both trees. A side missing below some element is the empty
 * node, so copying a subtree is combining it with nothing. Nodes left empty are dropped last.
 */
function combine(a: SetNode, b: SetNode, mode: Mode): SetNode {
  const root = newNode();
  const created: SetNode[] = [root];
  const work: [SetNode, SetNode, SetNode][] = [[a, b, root]];
  while (work.length > 0) {
    const [x, y, out] = work.pop() as [SetNode, SetNode, SetNode];
    out.members = combineMembers(x.members, y.members, mode);
    const push = (pe: PathElement, l: SetNode, r: SetNode) => {
      const node = newNode();
      out.children.push({ pe, node });
      created.push(node);
      work.push([l, r, node]);
    };
    const xc = x.children;
    const yc = y.children;
    let i = 0;
    let j = 0;
    while (i < xc.length || j < yc.length) {
      const c =
        i >= xc.length
          ? 1
          : j >= yc.length
            ? -1
            : comparePathElements((xc[i] as Child).pe, (yc[j] as Child).pe);
      if (c < 0) {
        const e = xc[i++] as Child;
        if (mode === "intersection") continue;
        // A member of the other set takes its whole subtree with it.
        if (mode === "recursiveDifference" && hasMember(y, e.pe)) continue;
        push(e.pe, e.node, EMPTY);
      } else if (c > 0) {
        const f = yc[j++] as Child;
        if (mode === "union") push(f.pe, EMPTY, f.node);
      } else {
        const e = xc[i++] as Child;
        const f = yc[j++] as Child;
        if (mode === "recursiveDifference" && hasMember(y, e.pe)) continue;
        push(e.pe, e.node, f.node);
      }
    }
  }
  if (mode !== "union") {
    // Children were created after their parents: backwards, every subtree is settled first.
    for (let k = created.length - 1; k >= 0; k--) {
      const n = created[k] as SetNode;
      if (n.children.some((c) => nodeEmpty(c.node)))
        n.children = n.children.filter((c) => !nodeEmpty(c.node));
    }
  }
  return root;
}

/** Whether a set has loose nodes to sort before it is read. */
interface BuildState {
  loose: boolean;
}

function looseDescend(n: SetNode, pe: PathElement): SetNode {
  if (!n.index) n.index = new Map(n.children.map((c) => [serializePathElement(c.pe), c]));
  const id = serializePathElement(pe);
  let c = n.index.get(id);
  if (!c) {
    c = { pe, node: newNode() };
    n.children.push(c);
    n.index.set(id, c);
    n.loose = true;
  }
  return c.node;
}

/** Sorts every loose node of a tree (children were created unique through the index). */
function settle(root: SetNode): void {
  const work: SetNode[] = [root];
  while (work.length > 0) {
    const n = work.pop() as SetNode;
    if (n.loose) {
      normalize(n);
      n.loose = false;
    }
    n.index = undefined;
    for (const c of n.children) work.push(c.node);
  }
}

/** A place in a set under construction; nodes are made only when a member is added below. */
export class SetCursor {
  readonly #state: BuildState;
  readonly #parent: SetCursor | undefined;
  readonly #pe: PathElement | undefined;
  #node: SetNode | undefined;

  /** @internal made by FieldSet.cursor() and child() */
  constructor(
    state: BuildState,
    parent: SetCursor | undefined,
    pe: PathElement | undefined,
    node: SetNode | undefined,
  ) {
    this.#state = state;
    this.#parent = parent;
    this.#pe = pe;
    this.#node = node;
  }

  #materialize(): SetNode {
    if (this.#node) return this.#node;
    // Iteratively: a long run of places with nothing added yet must not cost stack.
    const pending: SetCursor[] = [];
    let c: SetCursor = this;
    while (!c.#node) {
      pending.push(c);
      c = c.#parent as SetCursor;
    }
    let node = c.#node;
    for (let i = pending.length - 1; i >= 0; i--) {
      const p = pending[i] as SetCursor;
      node = looseDescend(node, p.#pe as PathElement);
      p.#node = node;
    }
    return node;
  }

  /** Adds this place's path followed by `pe`. */
  member(pe: PathElement): void {
    const n = this.#materialize();
    n.members.push(pe);
    n.loose = true;
    this.#state.loose = true;
  }

  /** The place one element further down. */
  child(pe: PathElement): SetCursor {
    return new SetCursor(this.#state, this, pe, undefined);
  }
}

export class FieldSet {
  #tree: SetNode;
  /** Whether the tree may be referenced by another set (then it is copied before mutation). */
  #shared: boolean;
  readonly #build: BuildState = { loose: false };

  private constructor(root: SetNode, shared: boolean) {
    this.#tree = root;
    this.#shared = shared;
  }

  /** The tree, sorted. */
  get #root(): SetNode {
    if (this.#build.loose) {
      settle(this.#tree);
      this.#build.loose = false;
    }
    return this.#tree;
  }

  static empty(): FieldSet {
    return new FieldSet(newNode(), false);
  }

  static of(...paths: Path[]): FieldSet {
    const s = FieldSet.empty();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Parses a managedFields entry's fieldsV1 object (throws FieldSetError when malformed). */
  static fromFieldsV1(json: unknown): FieldSet {
    if (json === null || json === undefined) return FieldSet.empty();
    if (!isMap(json)) throw new FieldSetError(`ReadMapCB: expect { or n, but found ${describeJson(json)}`);
    interface Frame {
      readonly value: JsonMap;
      readonly parent: Frame | undefined;
      readonly pe: PathElement | undefined;
      readonly node: SetNode;
      dot: boolean;
    }
    const root: Frame = { value: json, parent: undefined, pe: undefined, node: newNode(), dot: false };
    const order: Frame[] = [];
    const stack: Frame[] = [root];
    while (stack.length > 0) {
      const f = stack.pop() as Frame;
      order.push(f);
      for (const k of Object.keys(f.value)) {
        if (k === ".") {
          f.dot = true;
          continue;
        }
        let pe: PathElement | undefined;
        try {
          pe = parsePathElement(k);
        } catch (err) {
          if (err instanceof FieldSetError)
            throw new FieldSetError(`parsing key as path element: ${err.message}`);
          throw err;
        }
        // Element kinds from a later version are dropped, as upstream does.
        if (pe === undefined) continue;
        const v = f.value[k];
        if (v !== null && v !== undefined && !isMap(v))
          throw new FieldSetError(`ReadMapCB: expect { or n, but found ${describeJson(v)}`);
        stack.push({ value: v ?? {}, parent: f, pe, node: newNode(), dot: false });
      }
    }
    // Descendants follow their ancestors in `order`: backwards, each node is complete when seen.
    for (let i = order.length - 1; i > 0; i--) {
      const f = order[i] as Frame;
      const parent = (f.parent as Frame).node;
      const pe = f.pe as PathElement;
      normalize(f.node);
      const empty = nodeEmpty(f.node);
      // A node with nothing below is a member; "." marks one that also has children.
      if (f.dot || empty) parent.members.push(pe);
      if (!empty) parent.children.push({ pe, node: f.node });
    }
    normalize(root.node);
    return new FieldSet(root.node, false);
  }

  /** Serializes as upstream does: children in SMD's path-element order, "." for a path that is
      both a member and has children, `k:` keys as compact JSON with sorted names. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const work: [SetNode, Record<string, unknown>][] = [[this.#root, out]];
    while (work.length > 0) {
      const [n, obj] = work.pop() as [SetNode, Record<string, unknown>];
      let i = 0;
      let j = 0;
      const m = n.members;
      const ch = n.children;
      while (i < m.length || j < ch.length) {
        const c =
          i >= m.length
            ? 1
            : j >= ch.length
              ? -1
              : comparePathElements(m[i] as PathElement, (ch[j] as Child).pe);
        if (c < 0) {
          obj[serializePathElement(m[i++] as PathElement)] = {};
          continue;
        }
        const child = ch[j++] as Child;
        const sub: Record<string, unknown> = c === 0 ? { ".": {} } : {};
        if (c === 0) i++;
        obj[serializePathElement(child.pe)] = sub;
        work.push([child.node, sub]);
      }
    }
    return out;
  }

  /** Adds a path (mutating; used while building). The empty path is ignored: nobody owns the root. */
  insert(path: Path): void {
    if (path.length === 0) return;
    this.#own();
    let n = this.#root;
    for (let i = 0; i < path.length - 1; i++) n = descend(n, path[i] as PathElement);
    addMember(n, path[path.length - 1] as PathElement);
  }

  /** Member test. */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    const n = this.#nodeAt(path, path.length - 1);
    return n !== undefined && hasMember(n, path[path.length - 1] as PathElement);
  }

  isEmpty(): boolean {
    return nodeEmpty(this.#root);
  }

  union(o: FieldSet): FieldSet {
    return new FieldSet(combine(this.#root, o.#root, "union"), false);
  }

  intersection(o: FieldSet): FieldSet {
    return new FieldSet(combine(this.#root, o.#root, "intersection"), false);
  }

  /** SMD Difference: members of `o` leave; a member's children stay unless `o` has them too. */
  difference(o: FieldSet): FieldSet {
    return new FieldSet(combine(this.#root, o.#root, "difference"), false);
  }

  /** SMD RecursiveDifference: a member of `o` removes that path and everything below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    return new FieldSet(combine(this.#root, o.#root, "recursiveDifference"), false);
  }

  /** Every member path, in order (SMD's: a node's members, then each child's subtree). */
  paths(): Path[] {
    const out: Path[] = [];
    const work: [SetNode, PathElement[]][] = [[this.#root, []]];
    while (work.length > 0) {
      const [n, prefix] = work.pop() as [SetNode, PathElement[]];
      for (const pe of n.members) out.push([...prefix, pe]);
      for (let i = n.children.length - 1; i >= 0; i--) {
        const c = n.children[i] as Child;
        work.push([c.node, [...prefix, c.pe]]);
      }
    }
    return out;
  }

  /** Whether the path is a member or a prefix of a member. */
  touches(path: Path): boolean {
    if (path.length === 0) return !this.isEmpty();
    const n = this.#nodeAt(path, path.length - 1);
    if (!n) return false;
    const last = path[path.length - 1] as PathElement;
    return hasMember(n, last) || getChild(n, last) !== undefined;
  }

  equals(o: FieldSet): boolean {
    const work: [SetNode, SetNode][] = [[this.#root, o.#root]];
    while (work.length > 0) {
      const [x, y] = work.pop() as [SetNode, SetNode];
      if (x === y) continue;
      if (x.members.length !== y.members.length || x.children.length !== y.children.length) return false;
      for (let i = 0; i < x.members.length; i++)
        if (!pathElementsEqual(x.members[i] as PathElement, y.members[i] as PathElement)) return false;
      for (let i = 0; i < x.children.length; i++) {
        const a = x.children[i] as Child;
        const b = y.children[i] as Child;
        if (!pathElementsEqual(a.pe, b.pe)) return false;
        work.push([a.node, b.node]);
      }
    }
    return true;
  }

  /** Number of members. */
  size(): number {
    let count = 0;
    const work: SetNode[] = [this.#root];
    while (work.length > 0) {
      const n = work.pop() as SetNode;
      count += n.members.length;
      for (const c of n.children) work.push(c.node);
    }
    return count;
  }

  /** "one path per line", for messages and test failures. */
  toString(): string {
    return this.paths().map(formatPath).join("\n");
  }

  // --- Access for the typed walks (typed-walk.ts). -------------------------------------------

  /** The paths under `pe`, with `pe` taken off (SMD WithPrefix); shares this set's tree. */
  child(pe: PathElement): FieldSet {
    const n = getChild(this.#root, pe);
    if (!n) return FieldSet.empty();
    this.#shared = true;
    return new FieldSet(n, true);
  }

  /** Whether the one-element path `[pe]` is a member. */
  hasMember(pe: PathElement): boolean {
    return hasMember(this.#root, pe);
  }

  /** A cursor at the root for building this set in place. */
  cursor(): SetCursor {
    this.#own();
    return new SetCursor(this.#build, undefined, undefined, this.#root);
  }

  /**
   * A copy where each child node `pe` for which `promote(state, pe)` holds is a member too;
   * `descend` carries a caller's state (a schema) down the tree (SMD EnsureNamedFieldsAreMembers).
   */
  withPromotedMembers<S>(
    state: S,
    descend: (state: S, pe: PathElement) => S,
    promote: (state: S, pe: PathElement) => boolean,
  ): FieldSet {
    const root = combine(this.#root, EMPTY, "union");
    const work: [SetNode, S][] = [[root, state]];
    while (work.length > 0) {
      const [n, s] = work.pop() as [SetNode, S];
      for (const c of n.children) {
        if (promote(s, c.pe)) addMember(n, c.pe);
        work.push([c.node, descend(s, c.pe)]);
      }
    }
    return new FieldSet(root, false);
  }

  #own(): void {
    if (!this.#shared) return;
    this.#tree = combine(this.#root, EMPTY, "union");
    this.#shared = false;
  }

  #nodeAt(path: Path, depth: number): SetNode | undefined {
    let n: SetNode | undefined = this.#root;
    for (let i = 0; i < depth && n; i++) n = getChild(n, path[i] as PathElement);
    return n;
  }
}

/** Sorts a node built out of order and folds repeated elements together. */
function normalize(n: SetNode): void {
  n.members.sort(comparePathElements);
  n.members = n.members.filter((pe, i, all) => i === 0 || !pathElementsEqual(all[i - 1] as PathElement, pe));
  n.children.sort((a, b) => comparePathElements(a.pe, b.pe));
  const merged: Child[] = [];
  for (const c of n.children) {
    const last = merged[merged.length - 1];
    if (last && pathElementsEqual(last.pe, c.pe)) last.node = combine(last.node, c.node, "union");
    else merged.push(c);
  }
  n.children = merged;
}

/** The first character of a value's JSON, as upstream's reader names what it found. */
function describeJson(v: unknown): string {
  if (typeof v === "string") return '"';
  if (Array.isArray(v)) return "[";
  return String(v).slice(0, 1);
}
