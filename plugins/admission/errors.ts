// Admission refusals, typed here and turned into a Status in one place (gateway/request/api-error.ts).
import type { FieldError } from "../../backends/registry/index.ts";
import type { Attributes } from "./contract.ts";

export interface AdmissionDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly causes?: readonly {
    readonly reason?: string;
    readonly message?: string;
    readonly field?: string;
  }[];
  readonly retryAfterSeconds?: number;
}

/** A refused write with the Status it becomes. */
export class AdmissionError extends Error {
  readonly code: number;
  /** A Status reason (Forbidden, BadRequest, TooManyRequests, InternalError, ...) or a webhook's own. */
  readonly reason: string;
  readonly details: AdmissionDetails | undefined;
  /** Set by `invalid`: the field errors, formatted by the gateway as the registry's are. */
  readonly fieldErrors: readonly FieldError[] | undefined;

  constructor(
    code: number,
    reason: string,
    message: string,
    details?: AdmissionDetails,
    fieldErrors?: readonly FieldError[],
  ) {
    super(message);
    this.name = "AdmissionError";
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.fieldErrors = fieldErrors;
  }
}

/** `pods`, `deployments.apps`. */
function qualified(a: Pick<Attributes, "resource">): string {
  return a.resource.group ? `${a.resource.resource}.${a.resource.group}` : a.resource.resource;
}

/** Upstream's admission.NewForbidden: `<resource> "<name>" is forbidden: <why>`, a 403. */
export function forbidden(a: Pick<Attributes, "resource" | "name">, why: string): AdmissionError {
  const what = a.name ? `${qualified(a)} "${a.name}"` : qualified(a);
  return new AdmissionError(403, "Forbidden", `${what} is forbidden: ${why}`, {
    name: a.name,
    group: a.resource.group,
    kind: a.resource.resource,
  });
}

/**
 * A 422 naming the offending fields, formatted by the gateway exactly as the registry's
 * validation errors are: `<Kind> "<name>" is invalid: <field>: <type>: <detail>`.
 */
export function invalid(a: Pick<Attributes, "kind" | "name">, causes: readonly FieldError[]): AdmissionError {
  return new AdmissionError(
    422,
    "Invalid",
    `${a.kind.kind} "${a.name}" is invalid`,
    { name: a.name, group: a.kind.group, kind: a.kind.kind },
    causes,
  );
}

/** A 400 with the plugin's message as is. */
export function badRequest(message: string): AdmissionError {
  return new AdmissionError(400, "BadRequest", message);
}

/** A 500 for a plugin that could not decide (a failed lookup); never for bad input. */
export function internalError(message: string): AdmissionError {
  return new AdmissionError(500, "InternalError", `Internal error occurred: ${message}`);
}
