// Compiling an expression: parse, restrict to upstream's function set, redirect calls to this
// module's implementations, type-check against the environment, validate constant regular
// expressions, and instrument the checked AST for cost accounting.
import type { ASTNode, ParseResult } from "@marcbachmann/cel-js";
import { type CelEnvironment, createEnvironment, RENAMED_FUNCTIONS } from "./environment.ts";
import { CelCompileError } from "./errors.ts";
import { asInternal, instrument } from "./instrument.ts";
import { compilePattern } from "./libraries/regex.ts";
import { CostMeter, withMeter } from "./meter.ts";

export interface Program {
  readonly expression: string;
  readonly env: CelEnvironment;
  /** The result type as cel-js names it: `bool`, `string`, `int`, `list<string>`, `dyn`... */
  readonly resultType: string;
  /** Free variables the expression reads (e.g. whether a rule uses `oldSelf`). */
  readonly references: ReadonlySet<string>;
  /** The parsed AST, before macro expansion (input to the cost estimator). */
  readonly ast: ASTNode;
  /** Evaluates without cost accounting of its own; use evaluate() (evaluate.ts). */
  readonly run: (variables: Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>) => unknown;
}

export type CompileResult =
  | { readonly ok: true; readonly program: Program }
  | { readonly ok: false; readonly error: CelCompileError };

export interface CompileOptions {
  /** Required result type; `bool` for validation rules, `string` for message expressions. */
  readonly resultType?: "bool" | "string";
}

const MACROS = new Set(["all", "exists", "exists_one", "map", "filter"]);

let verified = false;
/** Cost of the self-test probe: list literal 40, `all` 1, 3 iterations of 1 + `x` 1 + `>` 1, `+` 1, `==` 1. */
const PROBE_COST = 52;

/**
 * Cost accounting relies on cel-js internals; evaluate a probe of known cost once, so that a changed
 * dependency fails loudly instead of evaluating without a budget.
 */
function verifyInstrumentation(): void {
  const compiled = compileOrThrow("[1, 2, 3].all(x, x > 0) && 'ab' + 'c' == 'abc'", createEnvironment(), {});
  if (!compiled.ok) throw new Error("CEL self-test: the probe does not compile");
  const meter = new CostMeter(Number.POSITIVE_INFINITY, 0);
  const value = withMeter(meter, () => compiled.program.run({}));
  if (value !== true || meter.cost !== PROBE_COST) {
    throw new Error(`CEL self-test: cost accounting is broken (cost ${meter.cost}, expected ${PROBE_COST})`);
  }
  verified = true;
}

/** Compiles `expression` in `env`; never throws for bad input. */
export function compile(
  expression: string,
  env: CelEnvironment,
  options: CompileOptions = {},
): CompileResult {
  if (!verified) verifyInstrumentation();
  try {
    return compileOrThrow(expression, env, options);
  } catch (e) {
    if (e instanceof CelCompileError) return { ok: false, error: e };
    const message = e instanceof Error ? e.message : String(e);
    return { ok: false, error: new CelCompileError(`compilation failed: ${message}`) };
  }
}

function compileOrThrow(expression: string, env: CelEnvironment, options: CompileOptions): CompileResult {
  if (expression.trim() === "") throw new CelCompileError(compileMessage(expression, 0, "empty expression"));
  let parsed: ParseResult;
  try {
    parsed = env.cel.parse(expression);
  } catch (e) {
    throw celJsError(expression, e);
  }
  const references = new Set<string>();
  inspect(parsed.ast, env, expression, new Set(), references);
  const checked = parsed.check();
  if (!checked.valid) throw celJsError(expression, checked.error);
  const resultType = checked.type ?? "dyn";
  if (options.resultType === "bool" && resultType !== "bool") {
    throw new CelCompileError("cel expression must evaluate to a bool");
  }
  if (options.resultType === "string" && resultType !== "string") {
    throw new CelCompileError("messageExpression must evaluate to a string");
  }
  instrument(asInternal(parsed.ast), env.customCosts);
  const run = (variables: Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>) =>
    parsed(variables as Record<string, unknown>);
  return { ok: true, program: { expression, env, resultType, references, ast: parsed.ast, run } };
}

/** Checks calls against the environment, renames redirected calls, collects free variables. */
function inspect(
  node: ASTNode,
  env: CelEnvironment,
  src: string,
  bound: Set<string>,
  refs: Set<string>,
): void {
  const visit = (n: unknown, scope: Set<string> = bound) => {
    if (isAst(n)) inspect(n, env, src, scope, refs);
    else if (Array.isArray(n)) for (const x of n) visit(x, scope);
  };
  switch (node.op) {
    case "value":
      return;
    case "id":
      if (!bound.has(node.args)) refs.add(node.args);
      return;
    case "call": {
      const [name, args] = node.args;
      if (!env.globalFunctions.has(name)) throw undeclared(src, node, name);
      checkConstantPattern(name, args[1]);
      rename(node.args, name);
      visit(args);
      return;
    }
    case "rcall": {
      const [name, receiver, args] = node.args;
      if (!env.memberFunctions.has(name)) throw undeclared(src, node, name);
      checkConstantPattern(name, args[0]);
      rename(node.args, name);
      visit(receiver);
      const iterVar = args[0];
      if (MACROS.has(name) && args.length >= 2 && iterVar?.op === "id") {
        visit(args.slice(1), new Set([...bound, iterVar.args]));
      } else {
        visit(args);
      }
      return;
    }
    case "map":
      for (const [k, v] of node.args) {
        visit(k);
        visit(v);
      }
      return;
    case ".":
    case ".?":
      visit(node.args[0]);
      return;
    default:
      visit(node.args);
  }
}

function isAst(v: unknown): v is ASTNode {
  return typeof v === "object" && v !== null && "op" in v && "args" in v && "pos" in v;
}

function rename(args: unknown[], name: string): void {
  const to = RENAMED_FUNCTIONS.get(name);
  if (to !== undefined) args[0] = to;
}

function checkConstantPattern(name: string, pattern: ASTNode | undefined): void {
  if (name !== "matches" && name !== "find" && name !== "findAll") return;
  if (pattern?.op !== "value" || typeof pattern.args !== "string") return;
  const re = compilePattern(pattern.args);
  if (typeof re === "string") throw new CelCompileError(`program instantiation failed: ${re}`);
}

function undeclared(src: string, node: ASTNode, name: string): CelCompileError {
  return new CelCompileError(
    compileMessage(src, node.pos, `undeclared reference to '${name}' (in container '')`),
  );
}

/** Upstream's layout: `compilation failed: ERROR: <input>:L:C: msg` and the source line with a caret. */
function compileMessage(src: string, pos: number, message: string): string {
  const at = Math.max(0, Math.min(pos, src.length));
  const lineStart = src.lastIndexOf("\n", at - 1) + 1;
  let lineEnd = src.indexOf("\n", at);
  if (lineEnd < 0) lineEnd = src.length;
  const line = src.slice(0, at).split("\n").length;
  const column = at - lineStart;
  return (
    `compilation failed: ERROR: <input>:${line}:${column + 1}: ${message}\n` +
    ` | ${src.slice(lineStart, lineEnd)}\n | ${".".repeat(column)}^`
  );
}

/** A cel-js ParseError or TypeError as a compile error, in cel-go's words where they differ. */
function celJsError(src: string, e: unknown): CelCompileError {
  if (!(e instanceof Error)) return new CelCompileError(`compilation failed: ${String(e)}`);
  const err = e as Error & { code?: string; summary?: string; range?: { start: number } };
  let message = (err.summary ?? err.message).replace(/__k_(\w+)/g, "$1");
  if (err.code === "unknown_variable")
    message = message.replace(/^Unknown variable: (.*)$/, "undeclared reference to '$1' (in container '')");
  if (err.code === "no_such_key") message = message.replace(/^No such key: (.*)$/, "undefined field '$1'");
  if (err.code === "no_such_overload") {
    message = message.replace(
      /^no such overload: (.+) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (.+)$/,
      "found no matching overload for '_$2_' applied to '($1, $3)'",
    );
  }
  if (err.name === "ParseError") message = `Syntax error: ${message}`;
  return new CelCompileError(compileMessage(src, err.range?.start ?? 0, message));
}
