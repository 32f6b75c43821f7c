// The routing stage's remote half: the APIService objects, kept in a table from their informer,
// say which group/versions extension servers serve; a request for one of them (resources, or the
// group version's discovery document) is proxied there after the access stages, without the
// gateway's admission (the extension runs its own, as upstream).

import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import {
  type ApiServiceEntry,
  ApiServiceTable,
  type ClientSide,
  type ProxiedUser,
  type RemoteBackend,
  RemoteUnavailableError,
  readApiService,
} from "../backends/aggregator/index.ts";
import { parseDuration } from "../config/duration.ts";
import type { LocalInformer } from "../plugins/objects/index.ts";
import { type RequestContext, takeOverResponse } from "./pipeline/index.ts";
import { isLongRunning } from "./pipeline/inflight-limit.ts";
import { errors } from "./request/api-error.ts";
import { isUpgrade } from "./server.ts";

/** Upstream's deadline for requests that are not long-running. */
const DEFAULT_TIMEOUT_MS = 60_000;

export interface Aggregation {
  readonly table: ApiServiceTable;
  /** Resolves once the APIServices present at start are in the table. */
  readonly synced: Promise<void>;
  /** Answers the request when an extension serves its group/version; false when the gateway does. */
  route(ctx: RequestContext): Promise<boolean>;
  stop(): void;
}

/** The group/version a request addresses under `/apis`, resources or discovery; undefined otherwise. */
function groupVersionOf(ctx: RequestContext): { group: string; version: string } | undefined {
  const info = ctx.info;
  if (!info) return undefined;
  if (info.isResourceRequest)
    return info.apiPrefix === "apis" ? { group: info.apiGroup, version: info.apiVersion } : undefined;
  const m = /^\/apis\/([^/]+)\/([^/]+)\/?$/.exec(info.path);
  return m ? { group: m[1] as string, version: m[2] as string } : undefined;
}

/** The request's deadline: `?timeout=` (a Go duration) capped by the default; none when long-running. */
function timeoutMs(ctx: RequestContext): number | undefined {
  if (isLongRunning(ctx.info)) return undefined;
  const asked = ctx.url.searchParams.get("timeout");
  if (asked === null || asked === "") return DEFAULT_TIMEOUT_MS;
  let ms: number;
  try {
    ms = parseDuration(asked);
  } catch {
    throw errors.badRequest(`invalid timeout specified in the request URL: ${JSON.stringify(asked)}`);
  }
  return ms > 0 && ms < DEFAULT_TIMEOUT_MS ? ms : DEFAULT_TIMEOUT_MS;
}

/**
 * A connection upgrade for an extension: once the extension answers, the client's connection is
 * taken from the response and joined to the extension's (or handed the extension's refusal).
 */
async function upgrade(ctx: RequestContext, entry: ApiServiceEntry, backend: RemoteBackend): Promise<void> {
  const opened = await backend.upgrade(
    entry,
    { method: ctx.req.method, url: ctx.req.url, headers: ctx.req.headers, user: ctx.user as ProxiedUser },
    String(ctx.req.headers.upgrade),
  );
  const raw = takeOverResponse(ctx);
  const socket = raw.socket as Socket;
  raw.detachSocket(socket);
  opened.join(socket);
}

const CALL = Symbol("proxied call");

type ProxiedRaw = ServerResponse & { [CALL]?: { clientLeft(): void } };

/**
 * Only a client that leaves before its answer is sent ends the call (aborting costs). One listener
 * for every response, finding its call on it.
 */
function clientClosed(this: ProxiedRaw): void {
  if (!this.writableFinished) this[CALL]?.clientLeft();
}

/** The client's side of one proxied request (see ClientSide: no closures per request). */
class ProxiedResponse implements ClientSide {
  readonly #ctx: RequestContext;
  /** A watch's client learns at once that it began; other heads go out with the body. */
  readonly #flushHead: boolean;

  constructor(ctx: RequestContext, flushHead: boolean) {
    this.#ctx = ctx;
    this.#flushHead = flushHead;
  }

  begin(status: number, headers: Record<string, string | string[]>): ServerResponse {
    const raw = takeOverResponse(this.#ctx);
    raw.writeHead(status, headers);
    if (this.#flushHead) raw.flushHeaders();
    return raw;
  }

  follow(call: { clientLeft(): void } | undefined): void {
    const raw = this.#ctx.reply.raw as ProxiedRaw;
    if (call === undefined) {
      delete raw[CALL];
      return;
    }
    raw[CALL] = call;
    raw.on("close", clientClosed);
    // Gone already, before the call began.
    if (raw.destroyed) clientClosed.call(raw);
  }
}

export function startAggregation(options: {
  readonly informer: LocalInformer;
  readonly backend: RemoteBackend;
  /** Whether an APIService's extension was last found available; undefined before the first check. */
  readonly available?: (name: string) => { available: boolean; message: string } | undefined;
  /** Called after the table changed. */
  readonly onChange?: () => void;
}): Aggregation {
  const table = new ApiServiceTable();
  const unsubscribe = options.informer.subscribe((event) => {
    const entry = readApiService(event.object);
    if (event.type === "DELETED" || !entry) table.delete(event.object.metadata.name);
    else table.set(entry);
    options.onChange?.();
  });
  return {
    table,
    synced: options.informer.synced,
    async route(ctx) {
      const gv = groupVersionOf(ctx);
      const entry = gv ? table.remote(gv.group, gv.version) : undefined;
      if (!entry || !ctx.user) return false;
      // A dead extension is not waited on: its requests fail at once, as upstream's do.
      const state = options.available?.(entry.name);
      if (state && !state.available) throw new RemoteUnavailableError(entry.name, state.message);
      if (isUpgrade(ctx.req.raw)) {
        await upgrade(ctx, entry, options.backend);
        return true;
      }
      const timeout = timeoutMs(ctx);
      const body = ctx.req.body;
      await options.backend.forward(
        entry,
        {
          method: ctx.req.method,
          url: ctx.req.url,
          headers: ctx.req.headers,
          body: Buffer.isBuffer(body) ? body : undefined,
          user: ctx.user,
          timeoutMs: timeout,
        },
        new ProxiedResponse(ctx, timeout === undefined),
      );
      return true;
    },
    stop: unsubscribe,
  };
}
