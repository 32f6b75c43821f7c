// AdmissionReview, the body of a webhook call: the request as upstream writes it, and the checks
// an answer must pass before anything in it is used.
import { randomUUID } from "node:crypto";
import { type Attributes, type JsonObject, objectAtVersion } from "../index.ts";
import type { Invocation } from "./matching.ts";

/** AdmissionReview versions this server speaks, in preference order. */
export const REVIEW_VERSIONS = ["v1", "v1beta1"] as const;

export interface ReviewRequest {
  readonly uid: string;
  readonly apiVersion: string;
  readonly body: JsonObject;
}

export interface ReviewResponse {
  readonly allowed: boolean;
  readonly status?: JsonObject;
  /** The decoded JSON patch, when one was sent. */
  readonly patch?: unknown;
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

/** A response that breaks the AdmissionReview contract. */
export class InvalidResponseError extends Error {}

/** The first version of the webhook's list this server supports; undefined when none is. */
export function reviewVersion(accepted: readonly string[]): string | undefined {
  return accepted.find((v) => (REVIEW_VERSIONS as readonly string[]).includes(v));
}

function userInfo(a: Attributes): JsonObject {
  const u = a.user;
  return {
    username: u.username,
    ...(u.uid ? { uid: u.uid } : {}),
    ...(u.groups.length > 0 ? { groups: [...u.groups] } : {}),
    ...(Object.keys(u.extra).length > 0 ? { extra: u.extra } : {}),
  };
}

export function buildReview(
  a: Attributes,
  invocation: Invocation,
  admissionGroup: string,
  reviewApiVersion: string,
): ReviewRequest {
  const uid = randomUUID();
  const version = invocation.version;
  const kindVersion = a.kind.group === a.resource.group ? version : a.kind.version;
  const request: JsonObject = {
    uid,
    kind: { ...a.kind, version: kindVersion },
    resource: { ...a.resource, version },
    ...(a.subresource ? { subResource: a.subresource } : {}),
    requestKind: { ...a.kind },
    requestResource: { ...a.resource },
    ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo: userInfo(a),
    object: objectAtVersion(a, a.object, version),
    oldObject: objectAtVersion(a, a.oldObject, version),
    dryRun: a.dryRun,
    options: a.options ?? null,
  };
  const apiVersion = `${admissionGroup}/${reviewApiVersion}`;
  return { uid, apiVersion, body: { kind: "AdmissionReview", apiVersion, request } };
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks an answer against the request it answers; throws InvalidResponseError. */
export function readResponse(review: ReviewRequest, answer: unknown, mutating: boolean): ReviewResponse {
  if (!isObject(answer)) throw new InvalidResponseError("the answer is not a JSON object");
  const strict = review.apiVersion.endsWith("/v1");
  if (strict && (answer.apiVersion !== review.apiVersion || answer.kind !== "AdmissionReview")) {
    throw new InvalidResponseError(
      `expected webhook response of ${review.apiVersion}, Kind=AdmissionReview, got ${String(answer.apiVersion ?? "")}, Kind=${String(answer.kind ?? "")}`,
    );
  }
  const response = answer.response;
  if (!isObject(response)) throw new InvalidResponseError("webhook response was absent");
  if (response.uid !== review.uid)
    throw new InvalidResponseError(
      `expected response.uid="${review.uid}", got "${String(response.uid ?? "")}"`,
    );
  if (typeof response.allowed !== "boolean")
    throw new InvalidResponseError("response.allowed is required and must be a boolean");
  // Upstream decodes status.code into an int32: anything else fails the decoding, so the call.
  const code = isObject(response.status) ? response.status.code : undefined;
  const int32 = typeof code === "number" && Number.isInteger(code) && code >= -(2 ** 31) && code < 2 ** 31;
  if (code !== undefined && code !== null && !int32)
    throw new InvalidResponseError(`response.status.code is not a 32-bit integer: ${JSON.stringify(code)}`);
  const patchText = response.patch;
  const hasPatch = typeof patchText === "string" && patchText.length > 0;
  if (strict && hasPatch && response.patchType === undefined)
    throw new InvalidResponseError("webhook returned response.patch but not response.patchType");
  if (response.patchType !== undefined && response.patchType !== null && response.patchType !== "JSONPatch")
    throw new InvalidResponseError(
      `webhook returned invalid response.patchType of "${String(response.patchType)}"`,
    );
  if (hasPatch && !mutating)
    throw new InvalidResponseError("validating webhook may not return response.patch");
  if (patchText !== undefined && patchText !== null && typeof patchText !== "string")
    throw new InvalidResponseError("response.patch must be a base64 string");
  let patch: unknown;
  if (hasPatch) {
    try {
      patch = JSON.parse(Buffer.from(patchText, "base64").toString("utf8"));
    } catch (err) {
      throw new InvalidResponseError(
        `response.patch is not base64 of a JSON patch: ${(err as Error).message}`,
      );
    }
    if (!Array.isArray(patch))
      throw new InvalidResponseError("response.patch is not a JSON patch (an array)");
  }
  const warnings = Array.isArray(response.warnings)
    ? response.warnings.filter((w): w is string => typeof w === "string")
    : [];
  const auditAnnotations: Record<string, string> = {};
  if (isObject(response.auditAnnotations)) {
    for (const [k, v] of Object.entries(response.auditAnnotations))
      if (typeof v === "string") auditAnnotations[k] = v;
  }
  return {
    allowed: response.allowed,
    ...(isObject(response.status) ? { status: response.status } : {}),
    ...(patch !== undefined ? { patch } : {}),
    warnings,
    auditAnnotations,
  };
}
