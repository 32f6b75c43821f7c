// Cost metering inside cel-js evaluation. cel-js 8.0.0 has no cost accounting, so every node of a
// checked AST gets its own `evaluate` that charges the active meter before doing the node's work:
// 1 per variable read, field selection and index, 40 per list literal, 30 per map literal, 1 per
// comprehension iteration, and for calls and operators a cost computed from the evaluated operands
// (costs.ts) before the function runs. This reaches into cel-js internals (a node's `meta`,
// `handle`, `left`/`right`, `receiverWithArgs`, comprehension args), which are pinned by the exact
// dependency version and verified by a self-test before the first compile (compile.ts).
import type { ASTNode } from "@marcbachmann/cel-js";
import { binaryCost, callCost } from "./costs.ts";
import { CelRuntimeError } from "./errors.ts";
import {
  ITERATION_COST,
  LIST_CREATE_BASE_COST,
  MAP_CREATE_BASE_COST,
  SELECT_AND_IDENT_COST,
} from "./limits.ts";
import { activeMeter } from "./meter.ts";

type Evaluate = (ev: unknown, ast: unknown, ctx: unknown) => unknown;
type CustomCosts = ReadonlyMap<string, (args: readonly unknown[]) => number>;

/** What cel-js keeps on an AST node besides its public `op` and `args`. */
export interface InternalNode {
  readonly op: string;
  readonly args: unknown;
  readonly pos: number;
  readonly meta: {
    readonly evaluate: Evaluate;
    readonly alternate?: InternalNode;
    readonly macro?: { evaluate: Evaluate } & Record<string, unknown>;
  };
  evaluate: Evaluate;
  readonly checkedType?: { readonly name: string };
  readonly handle?: (...args: unknown[]) => unknown;
  readonly left?: InternalNode;
  readonly right?: InternalNode;
  readonly receiverWithArgs?: readonly InternalNode[];
}

interface Comprehension {
  iterable: InternalNode;
  init: InternalNode;
  step: InternalNode;
  condition?: (accu: unknown) => boolean;
}

interface Evaluator {
  run(ast: InternalNode, ctx: unknown): unknown;
}

const BINARY = new Set(["==", "!=", "+", "-", "*", "/", "%", "<", "<=", ">", ">=", "in"]);
const MAX_INT = 9223372036854775807n;
const MIN_INT = -9223372036854775808n;

export function asInternal(node: ASTNode): InternalNode {
  return node as unknown as InternalNode;
}

function isNode(v: unknown, proto: object): v is InternalNode {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === proto;
}

/** Instruments every node reachable from `root` (including macro expansions); call after type-checking. */
export function instrument(root: InternalNode, customCosts: CustomCosts): void {
  const proto = Object.getPrototypeOf(root) as object;
  const seen = new Set<InternalNode>();
  const steps = new Set<InternalNode>();
  // A comprehension's accumulator starts from an internal literal that is not the user's to pay for.
  const inits = new Set<InternalNode>();

  const visitValue = (v: unknown): void => {
    if (isNode(v, proto)) visit(v);
    else if (Array.isArray(v)) for (const x of v) visitValue(x);
  };

  function visit(node: InternalNode): void {
    if (seen.has(node)) return;
    seen.add(node);
    const meta = node.meta;
    if (meta.alternate !== undefined) visit(meta.alternate);
    if (meta.macro !== undefined) for (const v of Object.values(meta.macro)) visitValue(v);
    if (node.op === "comprehension") {
      const c = node.args as Comprehension;
      steps.add(c.step);
      inits.add(c.init);
      visit(c.iterable);
      visit(c.init);
      visit(c.step);
      const condition = c.condition;
      // Quantifiers swallow step errors and keep iterating; stop as soon as the budget is spent.
      if (condition !== undefined) {
        c.condition = (accu: unknown) => {
          activeMeter()?.check();
          return condition(accu);
        };
      }
    } else {
      visitValue(node.args);
    }
    node.evaluate = inits.has(node) ? node.meta.evaluate : wrap(node, steps.has(node), customCosts);
  }

  visit(root);
}

function wrap(node: InternalNode, isStep: boolean, customCosts: CustomCosts): Evaluate {
  const meta = node.meta;
  let base: Evaluate;
  if (meta.alternate !== undefined) {
    const alt = meta.alternate;
    base = (ev, _ast, ctx) => alt.evaluate(ev, alt, ctx);
  } else if (meta.macro !== undefined) {
    const macro = meta.macro;
    base = (ev, _ast, ctx) => macro.evaluate(ev, macro, ctx);
  } else {
    base = meta.evaluate;
  }
  const extra = isStep ? ITERATION_COST : 0;
  const handle = node.handle;

  if ((node.op === "call" || node.op === "rcall") && handle !== undefined) {
    const argNodes: readonly InternalNode[] =
      node.op === "rcall"
        ? (node.receiverWithArgs ?? [])
        : ((node.args as [string, InternalNode[]])[1] ?? []);
    const name = (node.args as [string])[0];
    const custom = customCosts.get(name);
    const receiverCall = node.op === "rcall";
    return (ev, _ast, ctx) => {
      const meter = activeMeter();
      meter?.add(extra);
      const args = new Array<unknown>(argNodes.length);
      // cel-js resolves arguments last to first; keep its order so the same error wins.
      for (let i = argNodes.length - 1; i >= 0; i--)
        args[i] = (ev as Evaluator).run(argNodes[i] as InternalNode, ctx);
      meter?.add(custom !== undefined ? custom(args) : callCost(name, args));
      return receiverCall ? handle(args, ev, node) : handle(args, node, ev);
    };
  }

  if (BINARY.has(node.op) && handle !== undefined && node.left !== undefined && node.right !== undefined) {
    const left = node.left;
    const right = node.right;
    const op = node.op;
    return (ev, _ast, ctx) => {
      const meter = activeMeter();
      meter?.add(extra);
      const l = (ev as Evaluator).run(left, ctx);
      const r = (ev as Evaluator).run(right, ctx);
      meter?.add(binaryCost(op, l, r));
      const result = handle(l, r, node, ev);
      // cel-js does not catch int64 overflow of MIN_INT / -1.
      if (op === "/" && typeof result === "bigint" && result > MAX_INT) {
        throw new CelRuntimeError("numeric_overflow", "integer overflow");
      }
      return result;
    };
  }

  let cost = extra;
  switch (node.op) {
    case "id":
    case ".":
    case ".?":
    case "[]":
    case "[?]":
      cost += SELECT_AND_IDENT_COST;
      break;
    case "list":
      cost += LIST_CREATE_BASE_COST;
      break;
    case "map":
      cost += MAP_CREATE_BASE_COST;
      break;
    case "call":
    case "rcall":
    case "!_":
    case "-_":
      cost += 1;
      break;
  }
  if (node.op === "-_") {
    return (ev, ast, ctx) => {
      activeMeter()?.add(cost);
      const result = base(ev, ast, ctx);
      if (typeof result === "bigint" && (result > MAX_INT || result < MIN_INT)) {
        throw new CelRuntimeError("numeric_overflow", "integer overflow");
      }
      return result;
    };
  }
  return (ev, ast, ctx) => {
    activeMeter()?.add(cost);
    return base(ev, ast, ctx);
  };
}
