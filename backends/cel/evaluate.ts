// Evaluating a compiled program under a cost budget. Never throws: the outcome carries the value
// or a typed error, and the cost spent either way (callers subtract it from their total budget).
import { EvaluationError } from "@marcbachmann/cel-js";
import type { Program } from "./compile.ts";
import { CelCostLimitError, type CelError, CelInterruptedError, CelRuntimeError } from "./errors.ts";
import { PER_CALL_LIMIT } from "./limits.ts";
import { CostMeter, withMeter } from "./meter.ts";

/** Wall-clock guard of one evaluation; the cost budget is the real bound, this is a last resort. */
export const DEFAULT_TIMEOUT_MS = 2000;

export interface EvaluateOptions {
  /** Cost units the evaluation may spend (default PER_CALL_LIMIT). */
  readonly costBudget?: number;
  /** Wall-clock limit in milliseconds (default DEFAULT_TIMEOUT_MS; 0 for none). */
  readonly timeoutMs?: number;
}

export type EvaluationResult =
  | { readonly ok: true; readonly value: unknown; readonly cost: number }
  | { readonly ok: false; readonly error: CelError; readonly cost: number };

/** Evaluates `program` with `variables` (CEL values, see celValueFromJson). */
export function evaluate(
  program: Program,
  variables: Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>,
  options: EvaluateOptions = {},
): EvaluationResult {
  const meter = new CostMeter(options.costBudget ?? PER_CALL_LIMIT, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let value: unknown;
  try {
    value = withMeter(meter, () => program.run(variables));
  } catch (e) {
    return { ok: false, error: toCelError(e, meter), cost: meter.cost };
  }
  // An error swallowed by `||`, `&&` or a quantifier may hide a stop; the stop still wins.
  if (meter.stopped) return { ok: false, error: toCelError(undefined, meter), cost: meter.cost };
  return { ok: true, value, cost: meter.cost };
}

const MESSAGES: Readonly<Record<string, (summary: string) => string>> = {
  no_such_key: (s) => s.replace(/^No such key: /, "no such key: "),
  numeric_overflow: () => "integer overflow",
  index_out_of_bounds: (s) => s.replace(/^No such key: /, ""),
  no_matching_overload: (s) => s.replace(/^found no matching overload/, "no such overload"),
};

function toCelError(e: unknown, meter: CostMeter): CelError {
  if (meter.exceeded) return new CelCostLimitError();
  if (meter.interrupted) return new CelInterruptedError();
  if (e instanceof CelRuntimeError) return e;
  if (e instanceof EvaluationError) {
    const summary = e.summary.replace(/__k_(\w+)/g, "$1").replace(/dyn<([^<>]+)>/g, "$1");
    const map = MESSAGES[e.code];
    return new CelRuntimeError(e.code, map === undefined ? summary : map(summary));
  }
  const message = e instanceof Error ? e.message : String(e);
  return new CelRuntimeError("internal", message);
}
