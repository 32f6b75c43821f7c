// Cost accounting of one evaluation. Evaluation is synchronous, so the meter of the evaluation in
// progress is a module-level slot that instrumented AST nodes and library functions charge.
import { CelCostLimitError, CelInterruptedError } from "./errors.ts";

/** How many charges pass between two looks at the clock. */
const CLOCK_EVERY = 1024;

export class CostMeter {
  cost = 0;
  readonly limit: number;
  /** performance.now() after which the evaluation is interrupted; Infinity for none. */
  readonly deadline: number;
  exceeded = false;
  interrupted = false;
  #charges = 0;

  constructor(limit: number, timeoutMs: number) {
    this.limit = limit;
    this.deadline = timeoutMs > 0 ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY;
  }

  /**
   * Adds `units` and throws once the total passes the limit. Once stopped, every later charge throws
   * again: the library catches errors in `||`, `&&` and quantifiers, and a stopped evaluation must not
   * make progress past them.
   */
  add(units: number): void {
    if (this.exceeded) throw new CelCostLimitError();
    if (this.interrupted) throw new CelInterruptedError();
    this.cost += units;
    if (this.cost > this.limit) {
      this.exceeded = true;
      throw new CelCostLimitError();
    }
    if (++this.#charges % CLOCK_EVERY === 0 && performance.now() > this.deadline) {
      this.interrupted = true;
      throw new CelInterruptedError();
    }
  }

  /** Throws if the evaluation was stopped; used where no cost is due. */
  check(): void {
    if (this.exceeded) throw new CelCostLimitError();
    if (this.interrupted) throw new CelInterruptedError();
  }

  get stopped(): boolean {
    return this.exceeded || this.interrupted;
  }
}

let active: CostMeter | undefined;

/** The meter of the evaluation in progress, if any. */
export function activeMeter(): CostMeter | undefined {
  return active;
}

/** Runs `fn` with `meter` as the active meter, restoring the previous one afterwards. */
export function withMeter<T>(meter: CostMeter, fn: () => T): T {
  const previous = active;
  active = meter;
  try {
    return fn();
  } finally {
    active = previous;
  }
}
