// Static cost estimation for the CRD-create check: the worst-case cost of an expression given the
// size bounds of the schema it reads (maxLength, maxItems, maxProperties; unbounded sizes are
// estimated from the largest request, like upstream). Walks the parsed AST in the same cost model
// as the runtime meter, multiplying a comprehension's per-iteration cost by the maximum number of
// elements it iterates, so the estimate bounds the runtime cost.
import type { ASTNode } from "@marcbachmann/cel-js";
import type { Program } from "./compile.ts";
import {
  CALL_COST,
  ITERATION_COST,
  LIST_CREATE_BASE_COST,
  MAP_CREATE_BASE_COST,
  MAX_REQUEST_SIZE_BYTES,
  MIN_STRING_SIZE,
  SELECT_AND_IDENT_COST,
  STRING_TRAVERSAL_COST_FACTOR,
} from "./limits.ts";
import { BOOL, type DeclType, DOUBLE, DYN, INT } from "./schema.ts";

const UNKNOWN_SIZE = MAX_REQUEST_SIZE_BYTES - 2;

interface Estimate {
  /** Worst-case cost of evaluating the node. */
  readonly cost: number;
  /** Static type, when known; its maxElements bounds the value's size. */
  readonly type: DeclType | undefined;
  /** The value of a string literal (a regular expression's pattern, a separator). */
  readonly literal?: string;
}

type Scope = ReadonlyMap<string, DeclType | undefined>;

const MAP_KEY: DeclType = { kind: "string", minSize: MIN_STRING_SIZE, maxElements: 0 };
/** A value of fixed size: type names, results of constant-size functions. */
const SCALAR: DeclType = INT;

function sized(kind: "string" | "bytes", maxElements: number): DeclType {
  return { kind, minSize: MIN_STRING_SIZE, maxElements };
}

function listOf(items: DeclType, maxElements: number): DeclType {
  return { kind: "list", items, minSize: 2, maxElements };
}

function size(t: DeclType | undefined): number {
  return t === undefined ? UNKNOWN_SIZE : t.maxElements;
}

/** The size an operation compares or traverses: 1 for scalars. */
function extent(t: DeclType | undefined): number {
  if (t === undefined) return UNKNOWN_SIZE;
  switch (t.kind) {
    case "string":
    case "bytes":
    case "list":
    case "map":
    case "dyn":
      return t.maxElements;
    default:
      return 1;
  }
}

function traversal(n: number): number {
  return Math.ceil(n * STRING_TRAVERSAL_COST_FACTOR);
}

function textual(t: DeclType | undefined): boolean {
  return t !== undefined && (t.kind === "string" || t.kind === "bytes");
}

const MACROS = new Set(["all", "exists", "exists_one", "map", "filter"]);

/** The worst-case cost of one evaluation of `program`. */
export function estimateProgramCost(program: Program): number {
  const scope = new Map<string, DeclType | undefined>(program.env.variables);
  return estimateNode(program.ast, scope).cost;
}

function estimateNode(node: ASTNode, scope: Scope): Estimate {
  const est = (n: ASTNode, s: Scope = scope) => estimateNode(n, s);
  switch (node.op) {
    case "value": {
      const v = node.args;
      if (typeof v === "string") return { cost: 0, type: sized("string", v.length), literal: v };
      if (v instanceof Uint8Array) return { cost: 0, type: sized("bytes", v.length) };
      if (typeof v === "bigint") return { cost: 0, type: INT };
      if (typeof v === "number") return { cost: 0, type: DOUBLE };
      if (typeof v === "boolean") return { cost: 0, type: BOOL };
      return { cost: 0, type: undefined };
    }
    case "id":
      // Identifiers that are not variables are type names (`int`, `string`...).
      return { cost: SELECT_AND_IDENT_COST, type: scope.has(node.args) ? scope.get(node.args) : SCALAR };
    case ".":
    case ".?": {
      const [operand, field] = node.args;
      const o = est(operand);
      return { cost: o.cost + SELECT_AND_IDENT_COST, type: member(o.type, field) };
    }
    case "[]":
    case "[?]": {
      const o = est(node.args[0]);
      const i = est(node.args[1]);
      return { cost: o.cost + i.cost + SELECT_AND_IDENT_COST, type: member(o.type, undefined) };
    }
    case "list": {
      const items = node.args.map((n) => est(n));
      const first = items[0]?.type ?? DYN;
      return {
        cost: LIST_CREATE_BASE_COST + items.reduce((sum, e) => sum + e.cost, 0),
        type: listOf(first, items.length),
      };
    }
    case "map": {
      let cost = MAP_CREATE_BASE_COST;
      let values: DeclType = DYN;
      for (const [k, v] of node.args) {
        const ve = est(v);
        cost += est(k).cost + ve.cost;
        values = ve.type ?? DYN;
      }
      return { cost, type: { kind: "map", values, minSize: 2, maxElements: node.args.length } };
    }
    case "?:": {
      const [c, a, b] = node.args.map((n) => est(n)) as [Estimate, Estimate, Estimate];
      const type = size(a.type) >= size(b.type) ? a.type : b.type;
      return { cost: c.cost + Math.max(a.cost, b.cost), type };
    }
    case "||":
    case "&&": {
      const [l, r] = node.args.map((n) => est(n)) as [Estimate, Estimate];
      return { cost: l.cost + r.cost, type: BOOL };
    }
    case "!_":
    case "-_": {
      const o = est(node.args);
      return { cost: o.cost + CALL_COST, type: o.type };
    }
    case "call":
      return estimateCall(node.args[0], undefined, node.args[1], scope);
    case "rcall":
      return estimateCall(node.args[0], node.args[1], node.args[2], scope);
    default:
      return estimateBinary(node.op, node.args as [ASTNode, ASTNode], scope);
  }
}

function member(t: DeclType | undefined, field: string | undefined): DeclType | undefined {
  if (t === undefined) return undefined;
  switch (t.kind) {
    case "object":
      return field === undefined ? DYN : t.fields.get(field)?.type;
    case "map":
      return t.values;
    case "list":
      return t.items;
    default:
      return DYN;
  }
}

function estimateBinary(op: string, args: [ASTNode, ASTNode], scope: Scope): Estimate {
  const l = estimateNode(args[0], scope);
  const r = estimateNode(args[1], scope);
  const base = l.cost + r.cost;
  switch (op) {
    case "==":
    case "!=":
    case "<":
    case "<=":
    case ">":
    case ">=":
      return { cost: base + traversal(Math.min(extent(l.type), extent(r.type))), type: BOOL };
    case "+": {
      const lt = l.type;
      if (lt !== undefined && (textual(lt) || lt.kind === "list")) {
        const total = size(lt) + size(r.type);
        const type: DeclType =
          lt.kind === "list"
            ? listOf(lt.items, total)
            : sized(lt.kind === "bytes" ? "bytes" : "string", total);
        return { cost: base + traversal(total), type };
      }
      return { cost: base + CALL_COST, type: lt };
    }
    case "in":
      return { cost: base + (r.type?.kind === "map" ? CALL_COST : extent(r.type)), type: BOOL };
    default:
      return { cost: base + CALL_COST, type: l.type };
  }
}

function estimateCall(
  name: string,
  receiverNode: ASTNode | undefined,
  argNodes: readonly ASTNode[],
  scope: Scope,
): Estimate {
  const fn = name.replace(/^__k_/, "");
  const receiver = receiverNode === undefined ? undefined : estimateNode(receiverNode, scope);
  const iterVar = argNodes[0];
  if (receiver !== undefined && MACROS.has(fn) && argNodes.length >= 2 && iterVar?.op === "id") {
    return estimateComprehension(fn, receiver, iterVar.args, argNodes.slice(1), scope);
  }
  if (fn === "has" && argNodes[0]?.op === ".") {
    return { cost: estimateNode(argNodes[0].args[0], scope).cost + SELECT_AND_IDENT_COST, type: BOOL };
  }
  const args = argNodes.map((n) => estimateNode(n, scope));
  const operands = receiver === undefined ? args : [receiver, ...args];
  const base = operands.reduce((sum, e) => sum + e.cost, 0);
  const [a, b] = operands;
  const s = extent(a?.type);
  const str = (n: number) => sized("string", n);
  switch (fn) {
    case "matches":
    case "find":
    case "findAll": {
      const pattern = b?.literal !== undefined ? b.literal.length : extent(b?.type);
      const cost = traversal(1 + s) * Math.ceil(pattern * 0.25);
      const type = fn === "matches" ? BOOL : fn === "find" ? str(s) : listOf(str(s), s);
      return { cost: base + cost, type };
    }
    case "contains":
      return { cost: base + traversal(s) * traversal(extent(b?.type)), type: BOOL };
    case "startsWith":
    case "endsWith":
      return { cost: base + traversal(s), type: BOOL };
    case "size":
      // cel-go counts size() as O(1); the runtime meter charges the code point count it walks.
      return { cost: base + CALL_COST, type: INT };
    case "lowerAscii":
    case "upperAscii":
    case "trim":
    case "substring":
      return { cost: base + traversal(s), type: str(s) };
    case "charAt":
      return { cost: base + traversal(s), type: str(4) };
    case "url":
    case "isURL":
      return { cost: base + traversal(s), type: fn === "isURL" ? BOOL : SCALAR };
    case "replace":
      return { cost: base + traversal(2 * s), type: str(s) };
    case "split":
      return { cost: base + traversal(2 * s), type: listOf(str(s), s) };
    case "join": {
      const n = size(a?.type);
      const elem = a?.type?.kind === "list" ? extent(a.type.items) : UNKNOWN_SIZE;
      const total = n * elem + (b === undefined ? 0 : extent(b.type) * Math.max(0, n - 1));
      return { cost: base + traversal(2 * total), type: str(total) };
    }
    case "indexOf":
    case "lastIndexOf":
    case "isSorted":
    case "sum":
    case "min":
    case "max": {
      const t = a?.type;
      if (t?.kind !== "list") return { cost: base + traversal(s), type: fn === "isSorted" ? BOOL : INT };
      const perElement = 1 + (textual(t.items) ? traversal(extent(t.items)) : 0);
      const type = fn === "isSorted" ? BOOL : fn === "indexOf" || fn === "lastIndexOf" ? INT : t.items;
      return { cost: base + t.maxElements * perElement, type };
    }
    case "getQuery":
      return {
        cost: base + CALL_COST,
        type: { kind: "map", values: listOf(DYN, UNKNOWN_SIZE), minSize: 2, maxElements: UNKNOWN_SIZE },
      };
    case "getScheme":
    case "getHost":
    case "getHostname":
    case "getPort":
    case "getEscapedPath":
      return { cost: base + CALL_COST, type: str(UNKNOWN_SIZE) };
    case "int":
    case "uint":
    case "double":
    case "bool":
    case "timestamp":
    case "duration":
    case "string":
    case "bytes":
    case "dyn": {
      const cost = Math.max(CALL_COST, textual(a?.type) ? traversal(s) : 0);
      const type = fn === "string" ? str(textual(a?.type) ? s : 32) : fn === "dyn" ? a?.type : SCALAR;
      return { cost: base + cost, type };
    }
    default:
      return { cost: base + CALL_COST, type: SCALAR };
  }
}

function estimateComprehension(
  fn: string,
  range: Estimate,
  iterVar: string,
  body: readonly ASTNode[],
  scope: Scope,
): Estimate {
  const t = range.type;
  const count = size(t);
  const element = t?.kind === "list" ? t.items : t?.kind === "map" ? MAP_KEY : DYN;
  const inner = new Map(scope);
  inner.set(iterVar, element);
  const parts = body.map((n) => estimateNode(n, inner));
  const perIteration = ITERATION_COST + parts.reduce((sum, e) => sum + e.cost, 0);
  const cost = range.cost + count * perIteration;
  switch (fn) {
    case "map":
      return { cost, type: listOf(parts[parts.length - 1]?.type ?? DYN, count) };
    case "filter":
      return { cost, type: listOf(element, count) };
    default:
      return { cost, type: BOOL };
  }
}
