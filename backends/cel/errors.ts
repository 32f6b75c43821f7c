// Typed errors of the CEL environment. Messages use upstream's texts where clients or users see them.

/** The kinds of failure: a rule that does not compile, an evaluation error, a spent budget, a timeout. */
export type CelErrorKind = "compile" | "runtime" | "cost" | "interrupted";

export class CelError extends Error {
  readonly kind: CelErrorKind;
  constructor(kind: CelErrorKind, message: string) {
    super(message);
    this.kind = kind;
    this.name = "CelError";
  }
}

/** The expression does not parse or type-check; the message starts with `compilation failed: `. */
export class CelCompileError extends CelError {
  constructor(message: string) {
    super("compile", message);
    this.name = "CelCompileError";
  }
}

/** An error while evaluating: no such key, integer overflow, division by zero, no such overload... */
export class CelRuntimeError extends CelError {
  /** A short machine-readable code, e.g. `no_such_key`, `numeric_overflow`, `no_such_overload`. */
  readonly code: string;
  constructor(code: string, message: string) {
    super("runtime", message);
    this.code = code;
    this.name = "CelRuntimeError";
  }
}

export const COST_LIMIT_EXCEEDED_MESSAGE = "operation cancelled: actual cost limit exceeded";

/** The evaluation used more cost units than its budget allowed; it was stopped. */
export class CelCostLimitError extends CelError {
  constructor() {
    super("cost", COST_LIMIT_EXCEEDED_MESSAGE);
    this.name = "CelCostLimitError";
  }
}

/** The wall-clock guard stopped an evaluation that the cost model failed to bound. */
export class CelInterruptedError extends CelError {
  constructor() {
    super("interrupted", "operation interrupted");
    this.name = "CelInterruptedError";
  }
}
