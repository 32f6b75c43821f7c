// x-kubernetes-validations rules: compilation with the CRD-create checks (result type, estimated
// cost) and evaluation against `self`/`oldSelf` with upstream's messages and budget handling.
import { type CompileResult, compile, type Program } from "./compile.ts";
import { ruleEnvironment } from "./environment.ts";
import { CelCompileError, type CelError } from "./errors.ts";
import { estimateProgramCost } from "./estimate.ts";
import { evaluate } from "./evaluate.ts";
import {
  costExceedsBudgetMessage,
  MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES,
  MAX_REQUEST_SIZE_BYTES,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
} from "./limits.ts";
import { type CelSchema, declTypeFromSchema } from "./schema.ts";
import { celValueFromJson } from "./values.ts";

/** One `x-kubernetes-validations` entry (the fields this module reads). */
export interface ValidationRuleSpec {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
}

/** Where rules sit: their schema, and how often they may run per object. */
export interface SchemaContext {
  readonly schema: CelSchema;
  /** The root of a custom resource or an x-kubernetes-embedded-resource. */
  readonly isResourceRoot?: boolean;
  /**
   * Most times rules on this schema run for one object: the product of maxItems/maxProperties of
   * the enclosing lists and maps (childCardinality), `unbounded` if one of them has none. Default 1.
   */
  readonly maxCardinality?: number | "unbounded";
}

export interface CompiledRule {
  readonly rule: ValidationRuleSpec;
  /** Absent for a blank rule, which is skipped. */
  readonly program?: Program;
  /** The rule does not compile (the detail upstream reports under `rule`). */
  readonly error?: CelCompileError;
  readonly messageProgram?: Program;
  /** The messageExpression does not compile (reported under `messageExpression`). */
  readonly messageExpressionError?: CelCompileError;
  /** The rule reads `oldSelf`: a transition rule, run only on updates with an old value. */
  readonly usesOldSelf: boolean;
  /** Estimated worst-case cost of one evaluation, and times the cardinality of the schema. */
  readonly maxCost: number;
  readonly estimatedCost: number;
  readonly messageExpressionMaxCost: number;
  /** `estimated rule cost exceeds budget by factor of ...` when estimatedCost > STATIC_ESTIMATED_COST_LIMIT. */
  readonly costError?: string;
  readonly messageExpressionCostError?: string;
}

/** Cardinality of rules on a child schema, from the parent's cardinality and bounds. */
export function childCardinality(
  parent: number | "unbounded",
  parentSchema: CelSchema,
  via: "properties" | "items" | "additionalProperties",
): number | "unbounded" {
  if (via === "properties" || parent === "unbounded") return parent;
  const bound = via === "items" ? parentSchema.maxItems : parentSchema.maxProperties;
  return bound === undefined ? "unbounded" : parent * Math.max(0, bound);
}

function cardinalityOf(ctx: SchemaContext): number {
  const c = ctx.maxCardinality ?? 1;
  if (c !== "unbounded") return c;
  const type = declTypeFromSchema(ctx.schema, ctx.isResourceRoot === true);
  return Math.floor(MAX_REQUEST_SIZE_BYTES / ((type?.minSize ?? 1) + 1));
}

const compiledCache = new WeakMap<CelSchema, Map<string, CompiledRule>>();

/** Compiles one rule (and its messageExpression) in the environment of `ctx.schema`. Cached. */
export function compileRule(rule: ValidationRuleSpec, ctx: SchemaContext): CompiledRule {
  const key = JSON.stringify([
    rule.rule,
    rule.message ?? "",
    rule.messageExpression ?? "",
    ctx.isResourceRoot === true,
    ctx.maxCardinality ?? 1,
  ]);
  let perSchema = compiledCache.get(ctx.schema);
  if (perSchema === undefined) {
    perSchema = new Map();
    compiledCache.set(ctx.schema, perSchema);
  }
  let compiled = perSchema.get(key);
  if (compiled === undefined) {
    compiled = compileUncached(rule, ctx);
    perSchema.set(key, compiled);
  }
  return compiled;
}

function compileUncached(rule: ValidationRuleSpec, ctx: SchemaContext): CompiledRule {
  const none = { rule, usesOldSelf: false, maxCost: 0, estimatedCost: 0, messageExpressionMaxCost: 0 };
  const env = ruleEnvironment(ctx.schema, ctx.isResourceRoot === true);
  if (env === undefined) {
    const detail =
      `rule declared on schema that does not support validation rules type: '${ctx.schema.type ?? ""}' ` +
      `x-kubernetes-preserve-unknown-fields: '${ctx.schema["x-kubernetes-preserve-unknown-fields"] === true}'`;
    return { ...none, error: new CelCompileError(detail) };
  }
  if (rule.rule.trim() === "") return none;
  const compiled: CompileResult = compile(rule.rule, env, { resultType: "bool" });
  if (!compiled.ok) return { ...none, error: compiled.error };
  const program = compiled.program;
  const cardinality = cardinalityOf(ctx);
  const maxCost = estimateProgramCost(program);
  const estimatedCost = maxCost === 0 ? 0 : maxCost * cardinality;
  let result: CompiledRule = {
    ...none,
    program,
    usesOldSelf: program.references.has("oldSelf"),
    maxCost,
    estimatedCost,
    ...(estimatedCost > STATIC_ESTIMATED_COST_LIMIT
      ? {
          costError: costExceedsBudgetMessage(
            "estimated rule cost",
            estimatedCost,
            STATIC_ESTIMATED_COST_LIMIT,
          ),
        }
      : {}),
  };
  const messageExpression = rule.messageExpression ?? "";
  if (messageExpression.trim() !== "") {
    const message = compile(messageExpression, env, { resultType: "string" });
    if (!message.ok) {
      const detail = message.error.message.replace(
        /^compilation failed: /,
        "messageExpression compilation failed: ",
      );
      return { ...result, messageExpressionError: new CelCompileError(detail) };
    }
    const messageCost = estimateProgramCost(message.program);
    result = {
      ...result,
      messageProgram: message.program,
      messageExpressionMaxCost: messageCost,
      ...(messageCost > STATIC_ESTIMATED_COST_LIMIT
        ? {
            messageExpressionCostError: costExceedsBudgetMessage(
              "estimated messageExpression cost",
              messageCost,
              STATIC_ESTIMATED_COST_LIMIT,
            ),
          }
        : {}),
    };
  }
  return result;
}

export type EstimateResult =
  | { readonly ok: true; readonly cost: number; readonly limit: number }
  | { readonly ok: false; readonly cost: number; readonly limit: number; readonly message: string };

/**
 * The estimated cost of rule `expression` on `ctx.schema` (one evaluation times the cardinality)
 * against STATIC_ESTIMATED_COST_LIMIT; a rule that does not compile is reported with its error.
 */
export function estimateCost(expression: string, ctx: SchemaContext): EstimateResult {
  const compiled = compileRule({ rule: expression }, ctx);
  const limit = STATIC_ESTIMATED_COST_LIMIT;
  if (compiled.error !== undefined) return { ok: false, cost: 0, limit, message: compiled.error.message };
  if (compiled.costError !== undefined) {
    return { ok: false, cost: compiled.estimatedCost, limit, message: compiled.costError };
  }
  return { ok: true, cost: compiled.estimatedCost, limit };
}

/** One failed rule; `stop` means no further rules may run for this object. */
export interface RuleFailure {
  readonly index: number;
  readonly message: string;
  readonly stop: boolean;
}

export interface RulesOutcome {
  readonly failures: readonly RuleFailure[];
  /** Budget left for the rest of the object; negative once spent. */
  readonly remainingBudget: number;
}

export const OUT_OF_BUDGET_MESSAGE =
  "validation failed due to running out of cost budget, no further validation rules will be run";

function ruleErrorString(rule: ValidationRuleSpec): string {
  const message = rule.message?.trim() ?? "";
  return message !== "" ? message : rule.rule.trim();
}

function ruleMessageOrDefault(rule: ValidationRuleSpec): string {
  const message = rule.message?.trim() ?? "";
  return message !== "" ? message : `failed rule: ${ruleErrorString(rule)}`;
}

function stopped(error: CelError): boolean {
  return error.kind === "cost" || error.kind === "interrupted";
}

/**
 * Evaluates the compiled rules of one schema node against JSON `self` (and `oldSelf` on updates
 * when the old value correlates), spending at most `remainingBudget` cost units in total.
 */
export function evaluateRules(
  rules: readonly CompiledRule[],
  self: unknown,
  oldSelf: unknown,
  ctx: SchemaContext,
  remainingBudget: number = RUNTIME_CEL_COST_BUDGET,
): RulesOutcome {
  const failures: RuleFailure[] = [];
  let remaining = remainingBudget;
  if (self === null || self === undefined || rules.length === 0)
    return { failures, remainingBudget: remaining };
  if (remaining <= 0) {
    failures.push({ index: 0, message: OUT_OF_BUDGET_MESSAGE, stop: true });
    return { failures, remainingBudget: -1 };
  }
  let variables: Record<string, unknown> | undefined;
  let conversionError: string | undefined;
  try {
    const options = { isResourceRoot: ctx.isResourceRoot === true };
    variables = { self: celValueFromJson(self, ctx.schema, options) };
    if (oldSelf !== null && oldSelf !== undefined)
      variables.oldSelf = celValueFromJson(oldSelf, ctx.schema, options);
  } catch (e) {
    conversionError = e instanceof Error ? e.message : String(e);
  }
  const hasOld = oldSelf !== null && oldSelf !== undefined;
  for (const [index, compiled] of rules.entries()) {
    const rule = compiled.rule;
    if (compiled.error !== undefined) {
      failures.push({ index, message: `rule compile error: ${compiled.error.message}`, stop: false });
      continue;
    }
    const program = compiled.program;
    if (program === undefined || (compiled.usesOldSelf && !hasOld)) continue;
    if (variables === undefined) {
      failures.push({
        index,
        message: `${conversionError} evaluating rule: ${ruleErrorString(rule)}`,
        stop: false,
      });
      continue;
    }
    const result = evaluate(program, variables, { costBudget: PER_CALL_LIMIT });
    if (result.cost > remaining) {
      failures.push({ index, message: OUT_OF_BUDGET_MESSAGE, stop: true });
      return { failures, remainingBudget: -1 };
    }
    remaining -= result.cost;
    if (!result.ok) {
      const err = result.error;
      if (stopped(err)) {
        const message = `'${err.message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`;
        failures.push({ index, message, stop: true });
        return { failures, remainingBudget: -1 };
      }
      const message = err.message.startsWith("no such overload")
        ? `'${err.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`
        : `${err.message} evaluating rule: ${ruleErrorString(rule)}`;
      failures.push({ index, message, stop: false });
      continue;
    }
    if (result.value === true) continue;
    if (compiled.messageProgram === undefined) {
      failures.push({ index, message: ruleMessageOrDefault(rule), stop: false });
      continue;
    }
    const m = evaluate(compiled.messageProgram, variables, { costBudget: PER_CALL_LIMIT });
    if (m.cost > remaining) {
      failures.push({
        index,
        message:
          "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run",
        stop: true,
      });
      return { failures, remainingBudget: -1 };
    }
    if (!m.ok && stopped(m.error)) {
      const message = `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.messageExpression ?? "")}`;
      failures.push({ index, message, stop: true });
      return { failures, remainingBudget: -1 };
    }
    remaining -= m.cost;
    const text = m.ok && typeof m.value === "string" ? m.value.trim() : "";
    const usable =
      text !== "" &&
      !text.includes("\n") &&
      Buffer.byteLength(text) <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES;
    failures.push({ index, message: usable ? text : ruleMessageOrDefault(rule), stop: false });
  }
  return { failures, remainingBudget: remaining };
}

export type RuleResult = { readonly ok: true } | { readonly ok: false; readonly message: string };

/**
 * Evaluates one rule on `schema` for JSON `self` (and `oldSelf`, if given): ok, or the message
 * upstream would report (the rule's message, its evaluated messageExpression, or a fallback).
 */
export function evaluateRule(
  rule: ValidationRuleSpec,
  self: unknown,
  oldSelf: unknown,
  schema: CelSchema,
  options: { readonly isResourceRoot?: boolean; readonly remainingBudget?: number } = {},
): RuleResult {
  const ctx: SchemaContext = { schema, isResourceRoot: options.isResourceRoot === true };
  const outcome = evaluateRules([compileRule(rule, ctx)], self, oldSelf, ctx, options.remainingBudget);
  const failure = outcome.failures[0];
  return failure === undefined ? { ok: true } : { ok: false, message: failure.message };
}
