// The JSONPath dialect of kubectl (client-go's util/jsonpath), enough for a CRD's printer columns:
// a template `{...}` holding fields (`.spec.x`, `['x.y']`), `*`, recursive descent `..`, array
// indices and slices (`[0]`, `[-1]`, `[1:3]`, `[::2]`, `[*]`), unions (`[0,2]`), filters
// (`[?(@.type=="Ready")]`, with == != < > <= >= and existence), quoted text and number/bool
// literals. Missing keys yield no result (columns are evaluated with AllowMissingKeys), other
// evaluation problems are errors. Results print as kubectl prints them.
import { goNumber } from "../schema/structural/go-text.ts";

type ListNode = { readonly t: "list"; readonly nodes: Node[] };
type Param = { known: boolean; value: number; derived: boolean };
type Node =
  | ListNode
  | { readonly t: "text"; readonly text: string }
  | { readonly t: "field"; readonly name: string }
  | { readonly t: "array"; readonly params: readonly [Param, Param, Param] }
  | { readonly t: "filter"; readonly left: ListNode; readonly right: ListNode; readonly op: string }
  | { readonly t: "int" | "float"; readonly value: number }
  | { readonly t: "bool"; readonly value: boolean }
  | { readonly t: "wildcard" }
  | { readonly t: "recursive" }
  | { readonly t: "union"; readonly lists: ListNode[] }
  | { readonly t: "identifier"; readonly name: string };

export class JsonPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonPathError";
  }
}

const EOF = "";
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=~]+)(.+?)$/s;

function isTerminator(r: string): boolean {
  return (
    r === EOF ||
    r === " " ||
    r === "\t" ||
    r === "\r" ||
    r === "\n" ||
    r === "." ||
    r === "," ||
    r === "[" ||
    r === "]" ||
    r === "$" ||
    r === "@" ||
    r === "{" ||
    r === "}"
  );
}

function isAlphaNumeric(r: string): boolean {
  return r === "_" || /^[\p{L}\p{Nd}]$/u.test(r);
}

function isDigit(r: string): boolean {
  return /^\p{Nd}$/u.test(r);
}

const list = (): ListNode => ({ t: "list", nodes: [] });

class Parser {
  private input = "";
  private pos = 0;
  private start = 0;
  private width = 0;
  root: ListNode = list();

  parse(text: string): ListNode {
    this.input = text;
    this.root = list();
    this.pos = 0;
    this.start = 0;
    this.parseText(this.root);
    return this.root;
  }

  private consume(): string {
    const v = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return v;
  }

  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const cp = this.input.codePointAt(this.pos) ?? 0;
    const r = String.fromCodePoint(cp);
    this.width = r.length;
    this.pos += this.width;
    return r;
  }

  private peek(): string {
    const r = this.next();
    this.backup();
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private rest(): string {
    return this.input.slice(this.pos);
  }

  private parseText(cur: ListNode): void {
    for (;;) {
      if (this.rest().startsWith("{")) {
        if (this.pos > this.start) cur.nodes.push({ t: "text", text: this.consume() });
        this.pos += 1;
        this.consume();
        const node = list();
        cur.nodes.push(node);
        this.parseInsideAction(node);
        return;
      }
      if (this.next() === EOF) break;
    }
    if (this.pos > this.start) cur.nodes.push({ t: "text", text: this.consume() });
  }

  private parseInsideAction(cur: ListNode): void {
    for (;;) {
      const rest = this.rest();
      if (rest.startsWith("}")) {
        this.pos += 1;
        this.consume();
        this.parseText(this.root);
        return;
      }
      if (rest.startsWith("[?(")) {
        this.parseFilter(cur);
        continue;
      }
      if (rest.startsWith("..")) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || r === "\r" || r === "\n") throw new JsonPathError("unclosed action");
      if (r === " " || r === "@" || r === "$") this.consume();
      else if (r === "[") this.parseArray(cur);
      else if (r === '"' || r === "'") this.parseQuote(cur, r);
      else if (r === ".") this.parseField(cur);
      else if (r === "+" || r === "-" || isDigit(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else {
        throw new JsonPathError(
          `unrecognized character in action: U+${(r.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")} '${r}'`,
        );
      }
    }
  }

  private parseIdentifier(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (value === "true" || value === "false") cur.nodes.push({ t: "bool", value: value === "true" });
    else cur.nodes.push({ t: "identifier", name: value });
  }

  private parseRecursive(cur: ListNode): void {
    const last = cur.nodes[cur.nodes.length - 1];
    if (last?.t === "recursive") throw new JsonPathError("invalid multiple recursive descent");
    this.pos += 2;
    this.consume();
    cur.nodes.push({ t: "recursive" });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: ListNode): void {
    const first = this.peek();
    if (first === "+" || first === "-") this.next();
    for (;;) {
      const r = this.next();
      if (r !== "." && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (/^[+-]?\d+$/.test(value)) cur.nodes.push({ t: "int", value: Number.parseInt(value, 10) });
    else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value))
      cur.nodes.push({ t: "float", value: Number.parseFloat(value) });
    else throw new JsonPathError(`cannot parse number ${value}`);
  }

  private parseArray(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === "\n") throw new JsonPathError("unterminated array");
      if (r === "]") break;
    }
    let text = this.consume().slice(1, -1);
    if (text === "*") text = ":";
    const parts = text.split(",");
    if (parts.length > 1) {
      const lists = parts.map((p) => parseAction(`[${p.trim()}]`));
      cur.nodes.push({ t: "union", lists });
      return;
    }
    const key = DICT_KEY.exec(text);
    if (key) {
      for (const n of parseAction(`.${key[1]}`).nodes) cur.nodes.push(n);
      return;
    }
    const slice = SLICE.exec(text);
    if (!slice) throw new JsonPathError(`invalid array index ${text}`);
    const params: [Param, Param, Param] = [
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let v = slice[i + 1] ?? "";
      const p = params[i] as Param;
      if (v !== "") {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === "") p.known = false;
        else {
          p.known = true;
          p.value = Number.parseInt(v, 10);
          if (Number.isNaN(p.value)) throw new JsonPathError(`array index ${v} is not a number`);
        }
      } else if (i === 1) {
        p.known = true;
        p.value = params[0].value + 1;
        p.derived = true;
      }
    }
    cur.nodes.push({ t: "array", params });
  }

  private parseFilter(cur: ListNode): void {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = "";
    for (;;) {
      const r = this.next();
      if (r === EOF || r === "\n") throw new JsonPathError("unterminated filter");
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input.charAt(this.pos - 2) !== "\\" && r === pair) end = true;
      } else if (r === ")" && begin === end) break;
    }
    if (this.next() !== "]") throw new JsonPathError("unclosed array expect ]");
    const text = this.consume().slice(0, -2);
    const m = FILTER.exec(text);
    if (!m) {
      cur.nodes.push({ t: "filter", left: parseAction(text), right: list(), op: "exists" });
      return;
    }
    cur.nodes.push({
      t: "filter",
      left: parseAction(m[1] ?? ""),
      right: parseAction(m[3] ?? ""),
      op: m[2] ?? "",
    });
  }

  private parseQuote(cur: ListNode, endQuote: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === "\n") throw new JsonPathError("unterminated quoted string");
      if (r === endQuote && this.input.charAt(this.pos - 2) !== "\\") break;
    }
    const value = this.consume();
    cur.nodes.push({ t: "text", text: unquote(value) });
  }

  private parseField(cur: ListNode): void {
    this.consume();
    for (;;) {
      const r = this.next();
      if (r === "\\") {
        this.next();
        continue;
      }
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (value === "*") cur.nodes.push({ t: "wildcard" });
    else cur.nodes.push({ t: "field", name: value.replaceAll("\\", "") });
  }
}

function unquote(quoted: string): string {
  const quote = quoted.charAt(0);
  const body = quoted.slice(1, -1);
  if (quote === '"') {
    try {
      return JSON.parse(quoted) as string;
    } catch {
      throw new JsonPathError(`unquote string ${quoted} error invalid syntax`);
    }
  }
  return body.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c));
}

/** One `{...}` action parsed on its own (unions, dict keys, filter operands). */
function parseAction(text: string): ListNode {
  const root = new Parser().parse(`{${text}}`);
  const first = root.nodes[0];
  if (first?.t !== "list") throw new JsonPathError("invalid syntax");
  return first;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

type Values = unknown[];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (typeof v === "boolean") return "bool";
  if (isObject(v)) return "map[string]interface {}";
  return "<invalid reflect.Value>";
}

function evalList(values: Values, node: ListNode): Values {
  let cur = values;
  for (const n of node.nodes) cur = walk(cur, n);
  return cur;
}

function walk(values: Values, node: Node): Values {
  switch (node.t) {
    case "list":
      return evalList(values, node);
    case "text":
      return [node.text];
    case "int":
    case "float":
    case "bool":
      return values.map(() => node.value);
    case "field": {
      const out: Values = [];
      for (const v of values) if (isObject(v) && Object.hasOwn(v, node.name)) out.push(v[node.name]);
      return out;
    }
    case "array":
      return evalArray(values, node.params);
    case "filter":
      return evalFilter(values, node);
    case "wildcard": {
      const out: Values = [];
      for (const v of values) {
        if (Array.isArray(v)) out.push(...v);
        else if (isObject(v)) out.push(...Object.values(v));
        else if (typeof v === "string") out.push(...Buffer.from(v));
      }
      return out;
    }
    case "recursive":
      return evalRecursive(values);
    case "union": {
      const out: Values = [];
      for (const l of node.lists) out.push(...evalList(values, l));
      return out;
    }
    case "identifier":
      throw new JsonPathError(
        node.name === "end" ? "not in range, nothing to end" : `unrecognized identifier ${node.name}`,
      );
  }
}

function evalArray(values: Values, raw: readonly [Param, Param, Param]): Values {
  const out: Values = [];
  for (const v of values) {
    if (v === null || v === undefined) continue;
    if (!Array.isArray(v)) throw new JsonPathError(`${typeName(v)} is not array or slice`);
    const len = v.length;
    let from = raw[0].known ? raw[0].value : 0;
    if (from < 0) from += len;
    let to = raw[1].known ? raw[1].value : len;
    if (to < 0 || (to === 0 && raw[1].derived)) to += len;
    if (to === from) continue;
    if (from >= len || from < 0)
      throw new JsonPathError(`array index out of bounds: index ${from}, length ${len}`);
    if (to > len || to < 0)
      throw new JsonPathError(`array index out of bounds: index ${to - 1}, length ${len}`);
    if (from > to) throw new JsonPathError(`starting index ${from} is greater than ending index ${to}`);
    let step = 1;
    if (raw[2].known) {
      if (raw[2].value <= 0) throw new JsonPathError("step must be > 0");
      step = raw[2].value;
    }
    for (let i = from; i < to; i += step) out.push(v[i]);
  }
  return out;
}

function evalRecursive(values: Values): Values {
  const out: Values = [];
  for (const v of values) {
    if (v === null || v === undefined) continue;
    const children: Values = Array.isArray(v)
      ? v
      : isObject(v)
        ? Object.values(v)
        : typeof v === "string"
          ? [...Buffer.from(v)]
          : [];
    if (children.length === 0) continue;
    out.push(v, ...evalRecursive(children));
  }
  return out;
}

function compare(left: unknown, right: unknown, op: string): boolean {
  const lt = typeof left;
  const rt = typeof right;
  const comparable = (lt === "number" && rt === "number") || (lt === "string" && rt === "string");
  switch (op) {
    case "==":
    case "!=": {
      if (lt !== rt || !["number", "string", "boolean"].includes(lt))
        throw new JsonPathError("incompatible types for comparison");
      return (left === right) === (op === "==");
    }
    case "<":
    case ">":
    case "<=":
    case ">=": {
      if (!comparable) throw new JsonPathError("incompatible types for comparison");
      const l = left as number | string;
      const r = right as number | string;
      return op === "<" ? l < r : op === ">" ? l > r : op === "<=" ? l <= r : l >= r;
    }
    case "=~":
      if (typeof left !== "string" || typeof right !== "string")
        throw new JsonPathError("regexp search only support string now");
      return new RegExp(right).test(left);
    default:
      throw new JsonPathError(`unrecognized filter operator ${op}`);
  }
}

function evalFilter(values: Values, node: Extract<Node, { t: "filter" }>): Values {
  const out: Values = [];
  for (const v of values) {
    if (!Array.isArray(v))
      throw new JsonPathError(`${typeName(v)} is not array or slice and cannot be filtered`);
    for (const item of v) {
      const lefts = evalList([item], node.left);
      if (node.op === "exists") {
        if (lefts.length > 0) out.push(item);
        continue;
      }
      if (lefts.length === 0) continue;
      if (lefts.length > 1) throw new JsonPathError("can only compare one element at a time");
      const rights = evalList([item], node.right);
      if (rights.length === 0) continue;
      if (rights.length > 1) throw new JsonPathError("can only compare one element at a time");
      if (compare(lefts[0], rights[0], node.op)) out.push(item);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Printing

const GO_JSON_ESCAPES: Readonly<Record<string, string>> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
  "\b": "\\u0008",
  "\f": "\\u000c",
};

/** Go's json.Marshal of a decoded JSON value: object keys sorted, HTML characters escaped. */
export function goJsonMarshal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJsonMarshal).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${goJsonMarshal(k)}:${goJsonMarshal(value[k])}`).join(",")}}`;
  }
  if (typeof value === "string")
    return JSON.stringify(value).replace(/[<>&\u2028\u2029\b\f]/g, (c) => GO_JSON_ESCAPES[c] ?? c);
  if (value === undefined) return "null";
  return JSON.stringify(value);
}

/** How kubectl's JSONPath printer shows one result: JSON for maps and lists, text otherwise. */
export function printResult(value: unknown): string {
  if (Array.isArray(value) || isObject(value)) return goJsonMarshal(value);
  if (value === null || value === undefined) return "<no value>";
  if (typeof value === "number") return goNumber(value);
  return String(value);
}

export interface JsonPath {
  /** The results of each part of the template, in order (missing keys give none). */
  find(data: unknown): unknown[][];
}

/** Parses a JSONPath template such as `{.spec.replicas}`; throws JsonPathError when it does not parse. */
export function parseJsonPath(template: string): JsonPath {
  const root = new Parser().parse(template);
  return {
    find(data) {
      const results: unknown[][] = [];
      for (const node of root.nodes) results.push(walk([data], node));
      return results;
    },
  };
}
