// `/metrics` in Prometheus' text format, behind the access stages like every other route, and
// the recording of the request, TLS and storage series.
import { performance } from "node:perf_hooks";
import type { FastifyInstance } from "fastify";
import type { Storage } from "../backends/contract/index.ts";
import type { AccessGuard } from "./authorization/guard.ts";
import type { GatewayMetrics, RequestLabels } from "./metrics.ts";
import type { Pipeline, RequestContext } from "./pipeline/index.ts";
import { isLongRunning } from "./pipeline/inflight-limit.ts";
import type { RequestInfo } from "./request/request-info.ts";

export function registerMetrics(app: FastifyInstance, guard: AccessGuard, metrics: GatewayMetrics): void {
  app.get("/metrics", { onRequest: guard }, async (_req, reply) => {
    const body = await metrics.registry.metrics();
    void reply.type(metrics.registry.contentType).send(body);
  });
  // Upstream counts the "TLS handshake error from" lines of its HTTP server.
  app.server.on("tlsClientError", () => metrics.tlsHandshakeFailed());
}

/** The verbs upstream reports; any other is `other`. */
const REPORTED_VERBS: ReadonlySet<string> = new Set([
  "APPLY",
  "CONNECT",
  "CREATE",
  "DELETE",
  "DELETECOLLECTION",
  "GET",
  "LIST",
  "PATCH",
  "POST",
  "PROXY",
  "PUT",
  "UPDATE",
  "WATCH",
  "WATCHLIST",
]);
/** Subresources reported as CONNECT. */
const CONNECT_SUBRESOURCES: ReadonlySet<string> = new Set(["log", "exec", "portforward", "attach", "proxy"]);
const APPLY_PATCH = "application/apply-patch+yaml";

/** Upstream's scope label: resource (a named object, or a create), namespace, cluster, or "". */
export function requestScope(info: RequestInfo): string {
  if (info.name !== "" || info.verb === "create") return "resource";
  if (info.namespace !== "") return "namespace";
  return info.isResourceRequest ? "cluster" : "";
}

/**
 * The verb as upstream's metrics and request log report it: the HTTP method, GET of a
 * collection as LIST, watches as WATCH, server-side apply as APPLY, connect subresources as
 * CONNECT; anything else `other`.
 */
export function reportedVerb(
  method: string,
  contentType: string | undefined,
  query: URLSearchParams,
  info: RequestInfo,
  /** Whether verbs outside upstream's list become `other` (metrics), or stay (the request log). */
  onlyKnown = true,
): string {
  const upper = method.toUpperCase();
  const scope = requestScope(info);
  let verb = (upper === "GET" || upper === "HEAD") && scope !== "resource" && scope !== "" ? "LIST" : upper;
  if (info.verb === "watch") verb = "WATCH";
  else if (upper === "GET") {
    const watch = query.getAll("watch")[0]?.toLowerCase();
    if (watch !== undefined && watch !== "0" && watch !== "false") verb = "WATCH";
  }
  if (verb === "PATCH" && contentType === APPLY_PATCH) verb = "APPLY";
  if (info.isResourceRequest && CONNECT_SUBRESOURCES.has(info.subresource)) verb = "CONNECT";
  return !onlyKnown || REPORTED_VERBS.has(verb) ? verb : "other";
}

/** The dry_run label: "", the sorted distinct values, or `invalid` for a value other than All. */
function dryRunLabel(rawQuery: string, query: URLSearchParams): string {
  if (!rawQuery.includes("dryRun")) return "";
  const values = query.getAll("dryRun");
  if (values.some((v) => v !== "All")) return "invalid";
  return [...new Set(values)].sort().join(",");
}

export function requestLabels(ctx: RequestContext, info: RequestInfo): RequestLabels {
  return {
    verb: reportedVerb(ctx.req.method, ctx.req.headers["content-type"], ctx.url.searchParams, info),
    dry_run: dryRunLabel(ctx.url.search, ctx.url.searchParams),
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    scope: requestScope(info),
    component: "apiserver",
  };
}

type RawResponse = RequestContext["reply"]["raw"];
type Write = (this: RawResponse, chunk: unknown, ...rest: unknown[]) => unknown;

/** The bytes a response has written since counting began, and its own write and end. */
interface WrittenCount {
  bytes: number;
  readonly write: Write;
  readonly end: Write;
}

const COUNT = Symbol("bytes written");
type Counted = RawResponse & { [COUNT]: WrittenCount };

function chunkSize(chunk: unknown): number {
  return typeof chunk === "string"
    ? Buffer.byteLength(chunk)
    : chunk instanceof Uint8Array
      ? chunk.byteLength
      : 0;
}

// Shared by every counted response (see RequestRecord).
function countingWrite(this: Counted, chunk: unknown, ...rest: unknown[]): unknown {
  const count = this[COUNT];
  count.bytes += chunkSize(chunk);
  return count.write.call(this, chunk, ...rest);
}

function countingEnd(this: Counted, chunk?: unknown, ...rest: unknown[]): unknown {
  const count = this[COUNT];
  count.bytes += chunkSize(chunk);
  return count.end.call(this, chunk, ...rest);
}

/** Counts the bytes a response writes from now on. */
function countWritten(res: RawResponse): WrittenCount {
  const count: WrittenCount = { bytes: 0, write: res.write as Write, end: res.end as Write };
  (res as Counted)[COUNT] = count;
  res.write = countingWrite as typeof res.write;
  res.end = countingEnd as typeof res.end;
  return count;
}

/**
 * One request's part in the request series, from its arrival to its last byte, kept on its
 * response. Data only, with listeners and wrappers shared by every request: a closure made per
 * request and stored where it can reach itself (on the record, or as a listener of the response
 * it captures) kept every request's objects alive through V8's young-generation collections, which
 * then copied and promoted megabytes each time and tripled the cost of a GET under load.
 */
class RequestRecord {
  readonly ctx: RequestContext;
  readonly begun = performance.now();
  authorized = false;
  /** Found once an authorized request is classified; a refused one finds them at the end. */
  labels: RequestLabels | undefined;
  written: WrittenCount | undefined;
  longRunning = false;

  constructor(ctx: RequestContext) {
    this.ctx = ctx;
  }
}

const RECORD = Symbol("request record");
type Recorded = RawResponse & { [RECORD]: RequestRecord };

/**
 * The request series, recorded as upstream's instrumented routes do: for resource requests that
 * passed authorization (a 401 or 403 is not counted) and for those the in-flight limit refused
 * (429), timed from the request's arrival to its last byte.
 */
export function instrumentPipeline(pipeline: Pipeline, metrics: GatewayMetrics): Pipeline {
  // One listener for every response, finding its request through the record.
  function closed(this: Recorded): void {
    const record = this[RECORD];
    const info = record.ctx.info;
    if (!info?.isResourceRequest) return;
    if (record.longRunning) metrics.longRunningEnded(record.labels as RequestLabels);
    if (!record.authorized && this.statusCode !== 429) return;
    record.labels ??= requestLabels(record.ctx, info);
    const seconds = (performance.now() - record.begun) / 1000;
    metrics.requestServed(record.labels, this.statusCode, seconds, record.written?.bytes);
  }
  return pipeline
    .insertBefore("request-info", {
      name: "metrics-start",
      run(ctx) {
        const res = ctx.reply.raw as Recorded;
        res[RECORD] = new RequestRecord(ctx);
        res.on("close", closed);
      },
    })
    .insertAfter("authorization", {
      name: "metrics",
      run(ctx) {
        const record = (ctx.reply.raw as Partial<Recorded>)[RECORD];
        if (!record) return;
        record.authorized = true;
        const info = ctx.info;
        if (!info?.isResourceRequest) return;
        const labels = requestLabels(ctx, info);
        record.labels = labels;
        if (labels.verb === "GET" || labels.verb === "LIST") record.written = countWritten(ctx.reply.raw);
        if (isLongRunning(info)) {
          record.longRunning = true;
          metrics.longRunningStarted(labels);
        }
      },
    });
}

/** The resource part of a storage key (`/<group>/<resource>/...`): `pods`, `deployments.apps`. */
export function keyResource(key: string): string {
  const [, group = "", resource = ""] = key.split("/");
  return group === "" || group === "core" ? resource : `${resource}.${group}`;
}

/**
 * The storage series around a store: each call's latency by operation and resource, and the
 * LISTs read from the store itself (the watch cache serves the rest).
 */
export function instrumentStorage(storage: Storage, metrics: GatewayMetrics): Storage {
  const timed = <T>(operation: string, key: string, run: () => Promise<T>): Promise<T> => {
    const begun = performance.now();
    const done = () =>
      metrics.storageRequest(storage.name, operation, keyResource(key), (performance.now() - begun) / 1000);
    return run().finally(done);
  };
  const wrapped: Partial<Storage> = {
    get: (key) => timed("get", key, () => storage.get(key)),
    list: (prefix) =>
      timed("list", prefix, async () => {
        const result = await storage.list(prefix);
        const n = result.items.length;
        metrics.storageListed(keyResource(prefix), n, n, n);
        return result;
      }),
    create: (key, value) => timed("create", key, () => storage.create(key, value)),
    update: (key, value, expected) => timed("update", key, () => storage.update(key, value, expected)),
    delete: (key, expected) => timed("delete", key, () => storage.delete(key, expected)),
  };
  // Everything else goes to the store itself, bound to it (its methods use private fields).
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (typeof property === "string" && property in wrapped) return wrapped[property as keyof Storage];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
