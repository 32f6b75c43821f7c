// One webhook call as both dispatchers make it: the dry-run rule, the review in a version the
// webhook accepts, the answer checked, and every failure settled by the webhook's failurePolicy.
import { AdmissionError, type Attributes } from "../index.ts";
import { CallError, type WebhookCaller } from "./caller.ts";
import type { Webhook } from "./hooks.ts";
import type { Invocation } from "./matching.ts";
import type { WebhookMetrics, WebhookType } from "./metrics.ts";
import {
  buildReview,
  InvalidResponseError,
  type ReviewResponse,
  readResponse,
  reviewVersion,
} from "./review.ts";

export interface InvokeContext {
  readonly caller: WebhookCaller;
  readonly metrics: WebhookMetrics;
  readonly type: WebhookType;
  /** `admission.<domain>`: the AdmissionReview group. */
  readonly admissionGroup: string;
  /** `<mutation|validating>.webhook.admission.<domain>`: where failed-open annotations go. */
  readonly annotationDomain: string;
  readonly signal: AbortSignal;
}

/** Upstream's rejection Status: at least 400, a message naming the webhook. */
export function rejection(hook: Webhook, status: Record<string, unknown> | undefined): AdmissionError {
  const s = status ?? {};
  const code = typeof s.code === "number" && s.code >= 400 ? s.code : 400;
  const deniedBy = `admission webhook "${hook.name}" denied the request`;
  const message =
    typeof s.message === "string" && s.message !== ""
      ? `${deniedBy}: ${s.message}`
      : typeof s.reason === "string" && s.reason !== ""
        ? `${deniedBy}: ${s.reason}`
        : `${deniedBy} without explanation`;
  const reason = typeof s.reason === "string" ? s.reason : "";
  const details =
    typeof s.details === "object" && s.details !== null
      ? (s.details as AdmissionError["details"])
      : undefined;
  return new AdmissionError(code, reason, message, details);
}

/** A call failure under failurePolicy Fail: upstream answers it as an internal error. */
export function failedCalling(hook: Webhook, reason: string): AdmissionError {
  const text = `failed calling webhook "${hook.name}": ${reason}`;
  return new AdmissionError(500, "InternalError", `Internal error occurred: ${text}`, {
    causes: [{ message: text }],
  });
}

/**
 * Settles a failed call: under Ignore the request goes on (and the failure is recorded), under
 * Fail it is refused.
 */
export function settleFailure(
  ctx: InvokeContext,
  hook: Webhook,
  a: Attributes,
  round: number,
  reason: string,
  code: number,
): void {
  if (hook.failurePolicy === "Ignore") {
    ctx.metrics.observeFailOpen(hook.name, ctx.type);
    a.annotate(`failed-open.${ctx.annotationDomain}/round_${round}_index_${hook.index}`, hook.name);
    return;
  }
  ctx.metrics.observeRejection(hook.name, ctx.type, a.operation, "calling_webhook_error", code);
  throw failedCalling(hook, reason);
}

/**
 * Calls the webhook; returns its allowing answer, or undefined when the call failed and
 * failurePolicy Ignore let the request go on. Throws the AdmissionError that refuses the request.
 */
export async function invoke(
  ctx: InvokeContext,
  invocation: Invocation,
  a: Attributes,
  round: number,
): Promise<ReviewResponse | undefined> {
  const hook = invocation.hook;
  if (invocation.conditionError !== undefined) {
    settleFailure(
      ctx,
      hook,
      a,
      round,
      `failed to evaluate match conditions: ${invocation.conditionError}`,
      0,
    );
    return undefined;
  }
  if (a.dryRun && hook.sideEffects !== "None" && hook.sideEffects !== "NoneOnDryRun") {
    ctx.metrics.observeRejection(hook.name, ctx.type, a.operation, "apiserver_internal_error", 400);
    throw new AdmissionError(400, "BadRequest", `admission webhook "${hook.name}" does not support dry run`);
  }
  const version = reviewVersion(hook.admissionReviewVersions);
  if (!version) {
    settleFailure(ctx, hook, a, round, "webhook does not accept known AdmissionReview versions", 0);
    return undefined;
  }
  const review = buildReview(a, invocation, ctx.admissionGroup, version);
  const start = performance.now();
  let response: ReviewResponse;
  let code = 0;
  try {
    const answer = await ctx.caller.call(hook, review.body, ctx.signal);
    code = 200;
    response = readResponse(review, answer, ctx.type === "admit");
  } catch (err) {
    const seconds = (performance.now() - start) / 1000;
    if (err instanceof CallError || err instanceof InvalidResponseError) {
      if (err instanceof CallError && err.status !== undefined) code = err.status;
      const rejected = hook.failurePolicy === "Fail";
      ctx.metrics.observeCall(hook.name, ctx.type, a.operation, code, rejected, seconds);
      const reason =
        err instanceof InvalidResponseError
          ? `received invalid webhook response: ${err.message}`
          : err.message;
      settleFailure(ctx, hook, a, round, reason, code);
      return undefined;
    }
    throw err;
  }
  const seconds = (performance.now() - start) / 1000;
  ctx.metrics.observeCall(hook.name, ctx.type, a.operation, code, !response.allowed, seconds);
  for (const [key, value] of Object.entries(response.auditAnnotations))
    a.annotate(`${hook.name}/${key}`, value);
  for (const warning of response.warnings) a.warn(warning);
  if (!response.allowed) {
    const refusal = rejection(hook, response.status);
    ctx.metrics.observeRejection(hook.name, ctx.type, a.operation, "no_error", refusal.code);
    throw refusal;
  }
  return response;
}
