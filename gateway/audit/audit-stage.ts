// The `audit` stage: every API request gets an audit ID (the `Audit-Id` response header; a
// client's own `Audit-ID` is kept, as upstream does). With a policy (`--audit-policy-file`) the
// request's level and omitted stages come from the first matching rule, matched against the
// authenticated user (this stage runs before impersonation, as upstream's filter does), and one
// event per stage goes to the backends: RequestReceived now, ResponseStarted when a long-running
// request (watch, exec, ...) sends its headers, then ResponseComplete, or Panic when the request
// failed unexpectedly. At Request and above the event carries the decoded request body
// (`requestObject`; a patch as sent), at RequestResponse also the response body
// (`responseObject`); handlers hand these over through auditRequestObject / auditResponse.
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { RequestContext, UserInfo } from "../pipeline/context.ts";
import { isLongRunning } from "../pipeline/inflight-limit.ts";
import type { Stage } from "../pipeline/pipeline.ts";
import { AUDIT_ID_HEADER } from "../pipeline/take-over.ts";
import { errors } from "../request/api-error.ts";
import type { AuditBackend, AuditEvent } from "./backends.ts";
import {
  type AuditStageName,
  evaluatePolicy,
  type Level,
  levelAtLeast,
  type Policy,
  type PolicyAttributes,
} from "./policy.ts";

// The formatted second, kept: formatting a date is a large part of an event's cost, and the
// events of one second share everything up to the fraction.
let cachedSecond = Number.NaN;
let cachedPrefix = "";

/** RFC 3339 with microseconds, as audit timestamps are written (`ms` from Date.now()). */
export function microTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    // "YYYY-MM-DDTHH:MM:SS." of toISOString.
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    cachedSecond = second;
  }
  const fraction = Math.floor(ms - second * 1000);
  return `${cachedPrefix}${fraction < 10 ? "00" : fraction < 100 ? "0" : ""}${fraction}000Z`;
}

export interface AuditMetrics {
  /** An event handed to the backends (`apiserver_audit_event_total`). */
  event(): void;
  /** A request's policy level (`apiserver_audit_level_total`). */
  level(level: Level): void;
  /** A request refused because its event could not be stored (blocking-strict). */
  rejected(): void;
}

export interface Auditor {
  readonly policy: Policy;
  readonly backend: AuditBackend;
  /** `audit.<domain>/v1`. */
  readonly apiVersion: string;
  readonly metrics?: AuditMetrics;
}

interface AuditRecord {
  readonly level: Level;
  readonly omitStages: ReadonlySet<AuditStageName>;
  readonly omitManagedFields: boolean;
  readonly auditID: string;
  readonly received: number;
  /** Filled from the body at Metadata level too, as upstream completes its objectRef. */
  readonly objectRef: Record<string, string> | undefined;
  requestObject?: string;
  responseObject?: () => unknown;
  responseStatus?: Record<string, unknown>;
  panic?: string;
}

// Kept on the response, which every writer of a reply (handlers, error paths) has at hand: a
// property is cheaper to set and find than a WeakMap entry, once per request.
const RECORD = Symbol("audit record");
type Recorded = ServerResponse & { [RECORD]?: AuditRecord | undefined };
const recordOf = (raw: ServerResponse): AuditRecord | undefined => (raw as Recorded)[RECORD];

type Obj = Record<string, unknown>;

function hasKeys(o: object | undefined): boolean {
  for (const _ in o) return true;
  return false;
}
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The decoded body of a create, update, apply or delete, at the request's version. Completes
 * the event's objectRef from the object's metadata (at Metadata level too) and keeps the body
 * for Request and above.
 */
export function auditRequestObject(ctx: RequestContext, object: unknown): void {
  const rec = recordOf(ctx.reply.raw);
  if (!rec) return;
  const meta = isObj(object) && isObj(object.metadata) ? object.metadata : undefined;
  if (rec.objectRef && meta) {
    for (const key of ["namespace", "name", "uid", "resourceVersion"] as const) {
      const v = meta[key];
      if (!rec.objectRef[key] && typeof v === "string" && v !== "") rec.objectRef[key] = v;
    }
  }
  if (levelAtLeast(rec.level, "Request")) rec.requestObject = JSON.stringify(object);
}

/** A body recorded as sent (decoded): a patch, an apply configuration, DeleteOptions. */
export function auditRequestBody(ctx: RequestContext, patch: unknown): void {
  const rec = recordOf(ctx.reply.raw);
  if (rec && levelAtLeast(rec.level, "Request")) rec.requestObject = JSON.stringify(patch);
}

/** Whether a response body would be recorded: callers skip building one otherwise. */
export function auditWantsResponse(raw: ServerResponse): boolean {
  const rec = recordOf(raw);
  return rec !== undefined && levelAtLeast(rec.level, "RequestResponse");
}

/** The response body (read when the event is written; a JSON string or a value). */
export function auditResponse(raw: ServerResponse, body: () => unknown): void {
  const rec = recordOf(raw);
  if (rec && levelAtLeast(rec.level, "RequestResponse")) rec.responseObject = body;
}

/** A Status answer: its bounded fields go into responseStatus at every level, as upstream. */
export function auditStatus(raw: ServerResponse, status: Obj): void {
  const rec = recordOf(raw);
  if (!rec) return;
  rec.responseStatus = {
    metadata: {},
    ...(status.status !== undefined ? { status: status.status } : {}),
    ...(status.message ? { message: status.message } : {}),
    ...(status.reason ? { reason: status.reason } : {}),
    ...(status.details !== undefined ? { details: status.details } : {}),
    code: status.code,
  };
  if (levelAtLeast(rec.level, "RequestResponse")) rec.responseObject = () => status;
}

/** The request failed unexpectedly: its last event is a Panic, not ResponseComplete. */
export function auditPanic(raw: ServerResponse, err: unknown): void {
  const rec = recordOf(raw);
  if (rec) rec.panic = err instanceof Error ? err.message : String(err);
}

/** An audit event's UserInfo: empty fields are left out, as upstream's JSON omits them. */
function auditUser(user: UserInfo): Obj {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: user.groups } : {}),
    ...(Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

function dropManagedFields(value: unknown): void {
  if (!isObj(value)) return;
  if (isObj(value.metadata)) delete value.metadata.managedFields;
  if (Array.isArray(value.items)) for (const item of value.items) dropManagedFields(item);
}

/**
 * Credentials never reach an audit event, whatever the level: the token a TokenReview carries
 * (asked and echoed) and the token a TokenRequest returns are blanked. Secrets are left to the
 * policy, as upstream.
 */
function scrubCredentials(value: unknown, info: RequestContext["info"]): void {
  if (!isObj(value) || !info?.isResourceRequest) return;
  if (info.resource === "tokenreviews" && isObj(value.spec) && typeof value.spec.token === "string")
    value.spec.token = "";
  if (
    info.resource === "serviceaccounts" &&
    info.subresource === "token" &&
    isObj(value.status) &&
    typeof value.status.token === "string"
  )
    value.status.token = "";
}

function bodyValue(raw: unknown, ctx: RequestContext, omitManagedFields: boolean): unknown {
  let value: unknown;
  try {
    value = typeof raw === "string" ? JSON.parse(raw) : structuredClone(raw);
  } catch {
    return undefined;
  }
  if (omitManagedFields) dropManagedFields(value);
  scrubCredentials(value, ctx.info);
  return value;
}

function buildEvent(
  ctx: RequestContext,
  rec: AuditRecord,
  auditor: Auditor,
  stage: AuditStageName,
): AuditEvent {
  const raw = ctx.reply.raw;
  // `user` is who authenticated; the one it acted as is `impersonatedUser`.
  const user = ctx.impersonator ?? ctx.user;
  const event: AuditEvent = {
    kind: "Event",
    apiVersion: auditor.apiVersion,
    level: rec.level,
    auditID: rec.auditID,
    stage,
    requestURI: ctx.req.url,
    verb: ctx.info?.verb ?? ctx.req.method.toLowerCase(),
    user: user ? auditUser(user) : {},
    ...(ctx.impersonator && ctx.user ? { impersonatedUser: auditUser(ctx.user) } : {}),
    sourceIPs: [ctx.req.ip],
    userAgent: ctx.req.headers["user-agent"] ?? "",
  };
  if (rec.objectRef) event.objectRef = { ...rec.objectRef };
  if (stage === "Panic")
    event.responseStatus = {
      metadata: {},
      status: "Failure",
      message: `APIServer panic'd: ${rec.panic}`,
      reason: "InternalError",
      code: 500,
    };
  else if (stage !== "RequestReceived")
    event.responseStatus = rec.responseStatus ?? { metadata: {}, code: raw.statusCode };
  if (rec.requestObject !== undefined) {
    const value = bodyValue(rec.requestObject, ctx, rec.omitManagedFields);
    if (value !== undefined) event.requestObject = value;
  }
  if (stage === "ResponseComplete" && rec.responseObject) {
    const value = bodyValue(rec.responseObject(), ctx, rec.omitManagedFields);
    if (value !== undefined) event.responseObject = value;
  }
  event.requestReceivedTimestamp = microTime(rec.received);
  event.stageTimestamp = microTime(Date.now());
  const requestAnnotations = levelAtLeast(rec.level, "Request") ? ctx.auditRequestAnnotations : undefined;
  // Most requests have none: no objects made for them.
  if (hasKeys(ctx.auditAnnotations) || hasKeys(requestAnnotations))
    event.annotations = { ...ctx.auditAnnotations, ...requestAnnotations };
  return event;
}

function policyAttributes(ctx: RequestContext): PolicyAttributes {
  const info = ctx.info;
  return {
    user: ctx.user,
    verb: info?.verb ?? ctx.req.method.toLowerCase(),
    isResourceRequest: info?.isResourceRequest ?? false,
    path: info?.path ?? ctx.url.pathname,
    apiGroup: info?.apiGroup ?? "",
    resource: info?.resource ?? "",
    subresource: info?.subresource ?? "",
    namespace: info?.namespace ?? "",
    name: info?.name ?? "",
  };
}

/** Hands one event to the backends; false when a blocking-strict backend failed to store it. */
function emit(auditor: Auditor, event: AuditEvent): boolean | Promise<boolean> {
  auditor.metrics?.event();
  return auditor.backend.process([event]);
}

/** The request's audit ID (the client's own `Audit-ID` kept), set on the response now. */
function assignAuditID(ctx: RequestContext): string {
  const given = ctx.req.headers["audit-id"];
  const auditID = typeof given === "string" && given !== "" ? given : randomUUID();
  // On fastify's reply only; a handler that takes the raw response over carries it across.
  ctx.reply.header(AUDIT_ID_HEADER, auditID);
  return auditID;
}

/** The policy's decision for this request as a record, or undefined at level None. */
function newRecord(ctx: RequestContext, auditor: Auditor, auditID: string): AuditRecord | undefined {
  const config = evaluatePolicy(auditor.policy, policyAttributes(ctx));
  auditor.metrics?.level(config.level);
  if (config.level === "None") return undefined;
  const info = ctx.info;
  // Built field by field (the key order of upstream's objectRef): no spread copies per request.
  let objectRef: Record<string, string> | undefined;
  if (info?.isResourceRequest) {
    objectRef = { resource: info.resource };
    if (info.namespace) objectRef.namespace = info.namespace;
    if (info.name) objectRef.name = info.name;
    objectRef.apiGroup = info.apiGroup;
    objectRef.apiVersion = info.apiVersion;
    if (info.subresource) objectRef.subresource = info.subresource;
  }
  return {
    level: config.level,
    omitStages: config.omitStages,
    omitManagedFields: config.omitManagedFields,
    auditID,
    received: Date.now(),
    objectRef,
  };
}

/** Runs `then` once, right after the response's headers are written. */
function onHeaders(raw: ServerResponse, then: () => void): void {
  const writeHead = raw.writeHead;
  raw.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    raw.writeHead = writeHead;
    const result = writeHead.apply(this, args);
    then();
    return result;
  } as ServerResponse["writeHead"];
}

/** Upstream's summary of the credentials a refused request tried (never their values). */
function attemptedCredentials(ctx: RequestContext): string {
  const methods: string[] = [];
  const authorization = String(ctx.req.headers.authorization ?? "").trim();
  const [scheme = "", ...rest] = authorization.split(" ");
  if (scheme.toLowerCase() === "basic" && rest.length > 0) {
    // Basic counts only when it decodes to user:password, as Go's Request.BasicAuth.
    const decoded = Buffer.from(rest.join(" "), "base64").toString("utf8");
    if (decoded.includes(":")) methods.push("basic");
  }
  if (scheme.toLowerCase() === "bearer" && rest.length > 0) methods.push("bearer");
  if ((ctx.url.searchParams.get("access_token") ?? "").trim() !== "") methods.push("access_token");
  const cert =
    typeof ctx.socket?.getPeerCertificate === "function" ? ctx.socket.getPeerCertificate() : undefined;
  if (cert && Object.keys(cert).length > 0) methods.push("x509");
  return methods.length > 0
    ? `Authentication failed, attempted: ${methods.join(", ")}`
    : "Authentication failed, no credentials provided";
}

/**
 * A request refused by authentication (401): one event at ResponseStarted when the refusal is
 * written, as upstream's failed-authentication audit does. The policy sees no user, the event's
 * user is empty, and the response status names only the kinds of credential tried. Its outcome
 * never changes the answer, whatever the mode.
 */
export function auditFailedAuthentication(ctx: RequestContext, auditor: Auditor | undefined): void {
  const auditID = assignAuditID(ctx);
  if (!auditor) return;
  const rec = newRecord(ctx, auditor, auditID);
  if (!rec || rec.omitStages.has("ResponseStarted")) return;
  const message = attemptedCredentials(ctx);
  const raw = ctx.reply.raw;
  onHeaders(raw, () => {
    rec.responseStatus = { metadata: {}, message, code: raw.statusCode };
    void emit(auditor, buildEvent(ctx, rec, auditor, "ResponseStarted"));
  });
}

export function auditStage(auditor: Auditor | undefined): Stage {
  return {
    name: "audit",
    // Synchronous unless the RequestReceived event must be waited for: a request that is not
    // audited (or not at this level) goes on without a microtask turn.
    run(ctx: RequestContext) {
      const auditID = assignAuditID(ctx);
      if (!auditor) return;
      const rec = newRecord(ctx, auditor, auditID);
      if (!rec) return;
      const raw = ctx.reply.raw;
      (raw as Recorded)[RECORD] = rec;
      if (rec.omitStages.has("RequestReceived")) return followResponse(ctx, rec, auditor);
      const stored = emit(auditor, buildEvent(ctx, rec, auditor, "RequestReceived"));
      if (stored === true) return followResponse(ctx, rec, auditor);
      if (stored === false) return refuseUnstored(raw, auditor);
      return stored.then((ok) => (ok ? followResponse(ctx, rec, auditor) : refuseUnstored(raw, auditor)));
    },
  };
}

/** The RequestReceived event could not be stored: the request fails, unaudited. */
function refuseUnstored(raw: ServerResponse, auditor: Auditor): never {
  auditor.metrics?.rejected();
  (raw as Recorded)[RECORD] = undefined;
  throw errors.internal("failed to store audit event");
}

/** Emits the events of the response: ResponseStarted for a long-running one, then the last. */
function followResponse(ctx: RequestContext, rec: AuditRecord, auditor: Auditor): void {
  const raw = ctx.reply.raw;
  if (isLongRunning(ctx.info) && !rec.omitStages.has("ResponseStarted")) {
    // The headers of a long-running response are its start.
    onHeaders(raw, () => void emit(auditor, buildEvent(ctx, rec, auditor, "ResponseStarted")));
  }
  raw.once("close", () => {
    const stage = rec.panic !== undefined ? "Panic" : "ResponseComplete";
    if (!rec.omitStages.has(stage)) void emit(auditor, buildEvent(ctx, rec, auditor, stage));
  });
}
