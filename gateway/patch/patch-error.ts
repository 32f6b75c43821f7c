// The failure of a patch (strategic, merge or JSON), carrying the HTTP status and the message the
// upstream PATCH handler answers with, plus helpers that print JSON values the way upstream's
// error texts show them (Go's fmt notation: `map[k:v]`, `[a b]`, `<nil>`).

import {
  formatFieldError,
  MAX_BODY_DEPTH,
  nestingErrors,
  nestingLimitText,
  nestsWithin,
} from "../../backends/registry/index.ts";

export type PatchErrorStatus = 400 | 413 | 422;

/**
 * Upstream answers a patch that decodes but cannot be applied with this fixed text (status 422,
 * reason Invalid, empty details); the underlying failure never reaches the client.
 */
export const UNPROCESSABLE_PATCH_MESSAGE = "the server rejected our request due to an error in our request";

export class PatchError extends Error {
  /** 400: BadRequest; 413: RequestEntityTooLarge; 422: Invalid with empty details. */
  readonly status: PatchErrorStatus;
  /** The underlying failure, for logs; for 400 and 413 it equals the message. */
  readonly detail: string;

  constructor(status: PatchErrorStatus, message: string, detail: string = message) {
    super(message);
    this.name = "PatchError";
    this.status = status;
    this.detail = detail;
  }
}

/** A 422 the way upstream shapes it: the generic message, the cause kept aside. */
export function unprocessablePatch(detail: string): PatchError {
  return new PatchError(422, UNPROCESSABLE_PATCH_MESSAGE, detail);
}

/**
 * Runs a patch of `base`. A result nested past the object limit is a 422 naming it (unless `base`,
 * stored before the limit, was as deep): copies can deepen an object without bound, and what
 * follows the patch recurses. Stack exhaustion on deeper input is a clean 400, not a crash.
 */
export function guardDepth<T>(run: () => T, base?: unknown): T {
  let result: T;
  try {
    result = run();
  } catch (err) {
    if (err instanceof RangeError) throw new PatchError(400, "the patch or the object is nested too deeply");
    throw err;
  }
  if (isMap(result)) {
    const [tooDeep] = nestingErrors(result, isMap(base) ? base : undefined);
    if (tooDeep) throw new PatchError(422, `the patched object is invalid: ${formatFieldError(tooDeep)}`);
  } else if (!nestsWithin(result, MAX_BODY_DEPTH)) {
    throw new PatchError(422, `the patched value ${nestingLimitText(MAX_BODY_DEPTH)}`);
  }
  return result;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Go's dynamic type of a decoded JSON value (integers decode as int64 on the upstream server). */
export type GoType = "map" | "slice" | "string" | "bool" | "int64" | "float64" | "nil";

export function goType(value: unknown): GoType {
  if (value === null || value === undefined) return "nil";
  if (Array.isArray(value)) return "slice";
  switch (typeof value) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? "int64" : "float64";
    default:
      return "map";
  }
}

/** Go's name for a value's type, as `reflect.TypeOf(v)` prints it with %s. */
export function goTypeName(value: unknown): string {
  switch (goType(value)) {
    case "map":
      return "map[string]interface {}";
    case "slice":
      return "[]interface {}";
    case "nil":
      return "%!s(<nil>)";
    default:
      return goType(value);
  }
}

/** JSON's name for a value's kind, as Go's decoder names it in type errors. */
export function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "boolean":
      return "bool";
    case "number":
      return "number";
    case "string":
      return "string";
    default:
      return "object";
  }
}

function goFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : "-Inf";
  // Shortest digits; Go switches to exponent form below 1e-4 and from 1e6 on.
  const [mantissa = "", exp = "0"] = n.toExponential().split("e");
  const e = Number(exp);
  if (e < -4 || e >= 6) {
    const sign = e < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  return String(n);
}

function utf8Compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** A JSON value printed as Go's fmt prints the decoded value with %v (or %s). */
export function goFormat(value: unknown, verb: "v" | "s" = "v"): string {
  const t = goType(value);
  switch (t) {
    case "map": {
      const object = value as Record<string, unknown>;
      const keys = Object.keys(object).sort(utf8Compare);
      return `map[${keys.map((k) => `${k}:${goFormat(object[k], verb)}`).join(" ")}]`;
    }
    case "slice":
      return `[${(value as unknown[]).map((v) => goFormat(v, verb)).join(" ")}]`;
    case "string":
      return value as string;
    default: {
      const text = t === "nil" ? "<nil>" : t === "float64" ? goFloat(value as number) : String(value);
      if (verb === "v") return text;
      return t === "nil" ? "%!s(<nil>)" : `%!s(${t}=${text})`;
    }
  }
}
