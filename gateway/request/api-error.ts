// Every failure a client sees is a Status object; this is the one place that builds them, with
// upstream's reasons, codes and message wording (clients match on them). Errors from storage and
// the watch cache are mapped here too.

import { RemoteTimeoutError, RemoteUnavailableError } from "../../backends/aggregator/index.ts";
import {
  CacheTimeoutError,
  ExpiredError,
  InvalidRequestError,
  TooLargeResourceVersionError,
} from "../../backends/cacher/index.ts";
import { isStorageError } from "../../backends/contract/index.ts";
import { ConversionError } from "../../backends/crd/index.ts";
import {
  clip,
  ERROR_LIMITS,
  type FieldError,
  fieldErrorBody,
  RegistryError,
} from "../../backends/registry/index.ts";
import { SelectorParseError } from "../../backends/selection/index.ts";
import { AdmissionError } from "../../plugins/admission/index.ts";
import { ApplyConflictError, FieldManagerError } from "../fieldmanager/errors.ts";
import { PatchError } from "../patch/patch-error.ts";

export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Expired"
  | "Invalid"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "TooManyRequests"
  | "InternalError"
  | "ServiceUnavailable"
  | "Timeout";

export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: { continue?: string };
  status: "Failure" | "Success";
  message: string;
  reason: StatusReason | "";
  details?: StatusDetails;
  code: number;
}

/** A failure with its HTTP code and Status body. */
export class ApiError extends Error {
  readonly code: number;
  /** "" is upstream's StatusReasonUnknown (a failure it has no reason for). */
  readonly reason: StatusReason | "";
  readonly details: StatusDetails | undefined;
  readonly continueToken: string | undefined;

  constructor(
    code: number,
    reason: StatusReason | "",
    message: string,
    details?: StatusDetails,
    continueToken?: string,
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.continueToken = continueToken;
  }

  toStatus(): Status {
    const status: Status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: this.continueToken ? { continue: this.continueToken } : {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) status.details = this.details;
    return status;
  }
}

/** What a resource is called in messages: `pods`, or `deployments.apps`. */
export interface ResourceRef {
  readonly group: string;
  readonly resource: string;
}

const qualified = (r: ResourceRef) => (r.group ? `${r.resource}.${r.group}` : r.resource);

export const errors = {
  badRequest: (message: string) => new ApiError(400, "BadRequest", message),
  unauthorized: (message = "Unauthorized") => new ApiError(401, "Unauthorized", message),
  forbidden: (r: ResourceRef, name: string, why: string) =>
    new ApiError(403, "Forbidden", `${qualified(r)} "${name}" is forbidden: ${why}`, {
      name,
      group: r.group,
      kind: r.resource,
    }),
  namespaceTerminating: (namespace: string) =>
    new ApiError(
      403,
      "Forbidden",
      `unable to create new content in namespace ${namespace} because it is being terminated`,
      {
        name: namespace,
        group: "",
        kind: "namespaces",
        causes: [
          {
            reason: "NamespaceTerminating",
            message: `namespace ${namespace} is being terminated`,
            field: "metadata.namespace",
          },
        ],
      },
    ),
  notFound: (r: ResourceRef, name: string) =>
    new ApiError(404, "NotFound", `${qualified(r)} "${name}" not found`, {
      name,
      group: r.group,
      kind: r.resource,
    }),
  /** A path that names no resource at all. */
  pageNotFound: () => new ApiError(404, "NotFound", "the server could not find the requested resource", {}),
  /** A path that exists, asked with a method it has no route for (upstream's router answers so). */
  methodNotAllowed: () =>
    new ApiError(
      405,
      "MethodNotAllowed",
      "the server does not allow this method on the requested resource",
      {},
    ),
  alreadyExists: (r: ResourceRef, name: string) =>
    new ApiError(409, "AlreadyExists", `${qualified(r)} "${name}" already exists`, {
      name,
      group: r.group,
      kind: r.resource,
    }),
  conflict: (r: ResourceRef, name: string, why: string) =>
    new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${qualified(r)} "${name}": ${why}`, {
      name,
      group: r.group,
      kind: r.resource,
    }),
  /** Upstream's wording for a write against a stale resourceVersion. */
  staleConflict: (r: ResourceRef, name: string) =>
    errors.conflict(
      r,
      name,
      "the object has been modified; please apply your changes to the latest version and try again",
    ),
  /**
   * Upstream's Invalid: the message lists each distinct error once. Within ERROR_LIMITS: at most
   * `causes` causes, fewer once the message's list passes `listChars`; the rest are counted.
   */
  invalid: (kind: { group: string; kind: string }, name: string, causes: readonly FieldError[]) => {
    const listed: StatusCause[] = [];
    const texts = new Set<string>();
    let size = 0;
    for (const c of causes) {
      if (listed.length === ERROR_LIMITS.causes || size > ERROR_LIMITS.listChars) break;
      const cause = { reason: c.type, message: fieldErrorBody(c), field: clip(c.field) };
      listed.push(cause);
      const text = `${cause.field}: ${cause.message}`;
      if (!texts.has(text)) size += text.length + 2;
      texts.add(text);
    }
    const items = [...texts];
    if (listed.length < causes.length) items.push(`... (${causes.length - listed.length} more errors)`);
    const qualifiedKind = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
    const head = `${qualifiedKind} "${name}" is invalid`;
    const message =
      items.length === 0 ? head : `${head}: ${items.length === 1 ? items[0] : `[${items.join(", ")}]`}`;
    return new ApiError(422, "Invalid", message, {
      name,
      group: kind.group,
      kind: kind.kind,
      causes: listed,
    });
  },
  methodNotSupported: (r: ResourceRef, verb: string) =>
    new ApiError(405, "MethodNotAllowed", `${verb} is not supported on resources of kind "${qualified(r)}"`, {
      group: r.group,
      kind: r.resource,
    }),
  notAcceptable: (accepted: readonly string[]) =>
    new ApiError(406, "NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`),
  unsupportedMediaType: (accepted: readonly string[]) =>
    new ApiError(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    ),
  tooManyRequests: () =>
    new ApiError(429, "TooManyRequests", "Too many requests, please try again later.", {
      retryAfterSeconds: 1,
    }),
  tooLarge: (limit: number) =>
    new ApiError(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`),
  /** Request line and headers past the listener's bound; upstream has no reason for 431. */
  headersTooLarge: (limit: number) =>
    new ApiError(431, "BadRequest", `Request header fields too large: limit is ${limit}`),
  expired: (message: string, continueToken?: string) =>
    new ApiError(410, "Expired", message, undefined, continueToken),
  timeout: (message: string, retryAfterSeconds?: number, causes?: readonly StatusCause[]) =>
    new ApiError(504, "Timeout", message, {
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      ...(causes ? { causes } : {}),
    }),
  unavailable: (message: string) =>
    new ApiError(503, "ServiceUnavailable", message, { retryAfterSeconds: 1 }),
  internal: (message: string) =>
    new ApiError(500, "InternalError", `Internal error occurred: ${message}`, { causes: [{ message }] }),
};

/**
 * Map any error to the ApiError the client sees. Unknown errors become 500 with a generic
 * message; their detail goes to the log, not to the client.
 */
export function toApiError(err: unknown, ref?: ResourceRef, name?: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof RegistryError) {
    const r = { group: err.target.group, resource: err.target.resource };
    const n = err.objectName;
    switch (err.reason) {
      case "NotFound":
        return errors.notFound(r, n);
      case "AlreadyExists":
        return errors.alreadyExists(r, n);
      case "Conflict":
        return errors.conflict(r, n, err.message);
      case "Invalid":
        return errors.invalid({ group: err.target.group, kind: err.target.kind }, n, err.causes);
      case "BadRequest":
        return errors.badRequest(err.message);
      case "Forbidden":
        return errors.forbidden(r, n, err.message);
      case "MethodNotSupported":
        return errors.methodNotSupported(r, err.message);
    }
  }
  if (err instanceof AdmissionError) {
    const d = err.details ?? {};
    if (err.fieldErrors)
      return errors.invalid({ group: d.group ?? "", kind: d.kind ?? "" }, d.name ?? "", err.fieldErrors);
    // A webhook may name its own reason and code; Status carries them as sent. A code no HTTP
    // status line can carry (upstream's server fails writing it) is a 500 that keeps the message.
    if (err.code > 999) return new ApiError(500, "InternalError", err.message, err.details);
    return new ApiError(err.code, err.reason as StatusReason, err.message, err.details);
  }
  if (err instanceof ApplyConflictError)
    return new ApiError(409, "Conflict", err.message, { causes: err.causes() });
  if (err instanceof FieldManagerError) return errors.badRequest(err.message);
  if (err instanceof PatchError)
    return err.status === 422
      ? new ApiError(422, "Invalid", err.message, {})
      : err.status === 413
        ? new ApiError(413, "RequestEntityTooLarge", err.message)
        : errors.badRequest(err.message);
  if (err instanceof InvalidRequestError) return errors.badRequest(err.message);
  if (err instanceof SelectorParseError) return errors.badRequest(err.message);
  if (err instanceof ExpiredError) return errors.expired(err.message, err.continueToken);
  if (err instanceof TooLargeResourceVersionError) {
    return errors.timeout(err.message, err.retryAfterSeconds, [
      { reason: "ResourceVersionTooLarge", message: "Too large resource version" },
    ]);
  }
  if (err instanceof CacheTimeoutError) return errors.timeout(err.message, 1);
  if (err instanceof RemoteUnavailableError)
    return errors.unavailable(`APIService "${err.apiService}" is unavailable: ${err.message}`);
  if (err instanceof RemoteTimeoutError) return errors.timeout(`Timeout: ${err.message}`);
  // Upstream answers a failed conversion with its text, a 500 without a reason.
  if (err instanceof ConversionError) return new ApiError(500, "", err.message);
  if (isStorageError(err)) {
    const r = ref ?? { group: "", resource: "" };
    const n = name ?? err.key?.split("/").pop() ?? "";
    switch (err.code) {
      case "NotFound":
        return errors.notFound(r, n);
      case "AlreadyExists":
        return errors.alreadyExists(r, n);
      case "Conflict":
        return errors.staleConflict(r, n);
      case "TooOld":
        return errors.expired(err.message);
      case "TooLarge":
        // A client can fix this by sending less; not a server failure.
        return new ApiError(413, "RequestEntityTooLarge", `Request entity too large: ${err.message}`);
      case "Unavailable":
        return errors.unavailable(err.message);
      case "Internal":
        return errors.internal(err.message);
    }
  }
  return errors.internal("an unexpected error occurred; see the server log");
}
