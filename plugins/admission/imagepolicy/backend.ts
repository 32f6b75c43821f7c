// The ImageReview backend: one POST of the review to the kubeconfig's server, retried with
// upstream's exponential backoff (5 attempts, factor 1.5, 20% jitter) only on what upstream
// deems transient (a reset connection, 500, 504, 429 or an answer asking for a later retry).
import { setTimeout as delay } from "node:timers/promises";
import type { ApiClient, ApiReply } from "../../client/index.ts";
import type { JsonObject } from "../index.ts";

export interface ReviewStatus {
  readonly allowed: boolean;
  readonly reason: string;
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

/** The backend could not give an answer; the message is what a refusal shows. */
export class BackendError extends Error {
  readonly retry: boolean;
  constructor(message: string, retry: boolean) {
    super(message);
    this.name = "BackendError";
    this.retry = retry;
  }
}

export interface BackendOptions {
  readonly client: ApiClient;
  /** `imagepolicy.<domain>/v1alpha1`: what the answer must be when it says. */
  readonly apiVersion: string;
  /** The first wait between attempts. */
  readonly retryBackoffMs: number;
  /** Bound of one attempt (connect, send, answer). */
  readonly callTimeoutMs: number;
  /** Stops waits and calls (plugin closed, server stopping). */
  readonly signal: AbortSignal;
}

const ATTEMPTS = 5;
const FACTOR = 1.5;
const JITTER = 0.2;
const MAX_ANSWER_BYTES = 1 << 20;

const record = (v: unknown): JsonObject | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;

/** Reasons upstream's webhook client retries. */
const TRANSIENT_REASONS = new Set(["InternalError", "Timeout", "TooManyRequests"]);

/** client-go's texts for an error answer that is not a Status, by code. */
function genericMessage(code: number, text: string): { reason: string; message: string } {
  const server = text.length > 0 && text.length < 1024 ? text : "unknown";
  switch (code) {
    case 400:
      return { reason: "BadRequest", message: "the server rejected our request for an unknown reason" };
    case 401:
      return {
        reason: "Unauthorized",
        message: "the server has asked for the client to provide credentials",
      };
    case 403:
      return { reason: "Forbidden", message: server };
    case 404:
      return { reason: "NotFound", message: "the server could not find the requested resource" };
    case 405:
      return {
        reason: "MethodNotAllowed",
        message: "the server does not allow this method on the requested resource",
      };
    case 429:
      return {
        reason: "TooManyRequests",
        message: "the server has received too many requests and has asked us to try again later",
      };
    case 500:
      return {
        reason: "InternalError",
        message: `an error on the server (${JSON.stringify(server)}) has prevented the request from succeeding`,
      };
    case 503:
      return {
        reason: "ServiceUnavailable",
        message: "the server is currently unable to handle the request",
      };
    case 504:
      return {
        reason: "Timeout",
        message:
          "the server was unable to return a response in the time allotted, but may still be processing the request",
      };
    default:
      return {
        reason: "Unknown",
        message: `an error on the server (${JSON.stringify(server)}) has prevented the request from succeeding`,
      };
  }
}

function retryAfterSeconds(reply: ApiReply): number {
  const header = reply.headers["retry-after"];
  const value = Number(Array.isArray(header) ? header[0] : header);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/** A non-2xx answer as upstream's client reports it, and whether to try again. */
function errorAnswer(reply: ApiReply): BackendError {
  const body = record(reply.body);
  const text =
    typeof reply.body === "string" ? reply.body : reply.body === undefined ? "" : JSON.stringify(reply.body);
  let reason: string;
  let message: string;
  let retryAfter = retryAfterSeconds(reply);
  if (body?.kind === "Status" && typeof body.message === "string" && body.status !== "Success") {
    reason = typeof body.reason === "string" ? body.reason : "";
    message = body.message;
    const details = record(body.details);
    if (typeof details?.retryAfterSeconds === "number" && details.retryAfterSeconds > 0)
      retryAfter = details.retryAfterSeconds;
  } else {
    ({ reason, message } = genericMessage(reply.status, text));
  }
  return new BackendError(message, TRANSIENT_REASONS.has(reason) || retryAfter > 0);
}

/** A 2xx answer decoded as an ImageReview; what the typed decoding upstream does would refuse, refused. */
export function decodeStatus(body: unknown, apiVersion: string): ReviewStatus {
  const review = record(body);
  if (!review)
    throw new BackendError(
      `cannot decode the backend's answer as an ImageReview: ${typeof body === "string" ? "not JSON" : "not an object"}`,
      false,
    );
  if (review.kind !== undefined && review.kind !== "ImageReview")
    throw new BackendError(`the backend answered a ${String(review.kind)}, not an ImageReview`, false);
  if (review.apiVersion !== undefined && review.apiVersion !== apiVersion)
    throw new BackendError(`the backend answered ${String(review.apiVersion)}, not ${apiVersion}`, false);
  const status = review.status === undefined || review.status === null ? {} : record(review.status);
  if (!status) throw new BackendError("the backend's ImageReview status is not an object", false);
  const { allowed, reason, auditAnnotations } = status;
  if (allowed !== undefined && allowed !== null && typeof allowed !== "boolean")
    throw new BackendError("the backend's ImageReview status.allowed is not a boolean", false);
  if (reason !== undefined && reason !== null && typeof reason !== "string")
    throw new BackendError("the backend's ImageReview status.reason is not a string", false);
  const annotations: Record<string, string> = {};
  if (auditAnnotations !== undefined && auditAnnotations !== null) {
    const map = record(auditAnnotations);
    if (!map || Object.values(map).some((v) => typeof v !== "string"))
      throw new BackendError(
        "the backend's ImageReview status.auditAnnotations is not a map of strings",
        false,
      );
    Object.assign(annotations, map);
  }
  // A missing `allowed` is false, as Go's zero value is.
  return {
    allowed: allowed === true,
    reason: typeof reason === "string" ? reason : "",
    auditAnnotations: annotations,
  };
}

const TRANSPORT_RESETS = new Set(["ECONNRESET"]);

function transportError(err: unknown): BackendError {
  const e = err as Error & { cause?: { code?: string; cause?: { code?: string } } };
  const code = e.cause?.code ?? e.cause?.cause?.code;
  return new BackendError(e.message, code !== undefined && TRANSPORT_RESETS.has(code));
}

async function attempt(o: BackendOptions, review: JsonObject): Promise<ReviewStatus> {
  let reply: ApiReply;
  try {
    reply = await o.client.request("POST", "", {
      body: review,
      accept: "application/json, */*",
      timeoutMs: o.callTimeoutMs,
      maxBodyBytes: MAX_ANSWER_BYTES,
      signal: o.signal,
    });
  } catch (err) {
    throw transportError(err);
  }
  if (reply.status >= 400) throw errorAnswer(reply);
  if (reply.status < 200 || reply.status > 299)
    throw new BackendError(`Error contacting webhook: ${reply.status}`, false);
  return decodeStatus(reply.body, o.apiVersion);
}

/** Asks the backend; throws the last BackendError when no attempt gave an answer. */
export async function askBackend(o: BackendOptions, review: JsonObject): Promise<ReviewStatus> {
  let wait = o.retryBackoffMs;
  for (let n = 1; ; n++) {
    try {
      return await attempt(o, review);
    } catch (err) {
      const failure = err instanceof BackendError ? err : new BackendError(String(err), false);
      if (!failure.retry || n >= ATTEMPTS || o.signal.aborted) throw failure;
    }
    await delay(wait * (1 + Math.random() * JITTER), undefined, { signal: o.signal }).catch(() => {});
    wait *= FACTOR;
  }
}
