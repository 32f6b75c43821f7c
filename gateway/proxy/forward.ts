// The proxy verb's HTTP leg, as upstream's upgrade-aware proxy handler does it: the request goes on
// with its method, the path below `proxy/`, its raw query and body; the caller's credentials and
// hop-by-hop headers stay behind; the answer streams back as it arrives, redirects unfollowed but
// their Location pointed back through the proxy path.

import type { IncomingHttpHeaders } from "node:http";
import { posix } from "node:path";
import { pipeline } from "node:stream/promises";
import type { Dispatcher } from "undici";
import { type RequestContext, takeOverResponse } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import type { ProxyLocation } from "./location.ts";

/** Hop-by-hop headers: meaningful for one connection only (Go's ReverseProxy drops the same). */
const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Response headers upstream removes so a proxied page cannot widen the gateway's CORS policy. */
const CORS = new Set([
  "access-control-allow-credentials",
  "access-control-allow-headers",
  "access-control-allow-methods",
  "access-control-allow-origin",
]);

/** Those named in `Connection` go too. */
function connectionNamed(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
): Set<string> {
  const value = headers.connection;
  const list = Array.isArray(value) ? value.join(",") : (value ?? "");
  return new Set(
    list
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * What the target sees: the caller's headers without its credentials (Authorization,
 * impersonation: the gateway consumed them) and without hop-by-hop ones; `X-Forwarded-For` gains
 * the caller's address and `X-Forwarded-Uri` says which gateway path this was.
 */
export function outgoingHeaders(
  incoming: IncomingHttpHeaders,
  clientAddress: string | undefined,
  forwardedUri: string,
): Record<string, string | string[]> {
  const named = connectionNamed(incoming);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    if (lower === "authorization" || lower.startsWith("impersonate-")) continue;
    // The body is sent whole; its length is counted again.
    if (lower === "content-length") continue;
    out[lower] = value;
  }
  // "TE: trailers" is the one TE value a proxy passes on.
  if (typeof incoming.te === "string" && /(^|,)\s*trailers\s*(,|$)/i.test(incoming.te)) out.te = "trailers";
  if (clientAddress) {
    const prior = incoming["x-forwarded-for"];
    const list = Array.isArray(prior) ? prior.join(", ") : prior;
    out["x-forwarded-for"] = list ? `${list}, ${clientAddress}` : clientAddress;
  }
  out["x-forwarded-uri"] = forwardedUri;
  return out;
}

/**
 * Upstream's rewrite of a redirect: an absolute path, or a URL on the target's or the gateway's own
 * host, is moved under the proxy prefix (keeping the origin only when it is the gateway's);
 * relative and foreign locations are left alone.
 */
export function rewriteLocation(
  location: string,
  target: ProxyLocation,
  requestHost: string,
  prefix: string,
): string {
  const m = /^([a-z][a-z0-9+.-]*:)?\/\/([^/?#]*)(.*)$/is.exec(location);
  const origin = m ? location.slice(0, location.length - (m[3] as string).length) : "";
  const host = m ? (m[2] as string) : "";
  const rest = m ? (m[3] as string) : location;
  if (host !== "" && host !== target.host && host !== requestHost) return location;
  if (!rest.startsWith("/")) return location;
  const keep = host !== "" && host === requestHost ? origin : "";
  const cut = rest.search(/[?#]/);
  const path = cut >= 0 ? rest.slice(0, cut) : rest;
  const tail = cut >= 0 ? rest.slice(cut) : "";
  if (path.startsWith(prefix)) return `${keep}${rest}`;
  const joined = posix.join(prefix, path);
  return `${keep}${path.endsWith("/") && !joined.endsWith("/") ? `${joined}/` : joined}${tail}`;
}

/** The answer's headers as they go back: no hop-by-hop or CORS headers, Location rewritten. */
export function returnedHeaders(
  headers: Record<string, string | string[] | undefined>,
  rewrite: (location: string) => string,
): Record<string, string | string[]> {
  const named = connectionNamed(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower) || CORS.has(lower)) continue;
    out[lower] = lower === "location" && typeof value === "string" ? rewrite(value) : value;
  }
  return out;
}

/** Go's message for the usual connection failures, then Node's. */
export function reachError(err: unknown, host: string): string {
  const e = err as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === "ECONNREFUSED") return `dial tcp ${host}: connect: connection refused`;
  if (code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT") return `dial tcp ${host}: i/o timeout`;
  return [e.message ?? String(err), e.cause?.message].filter(Boolean).join(": ");
}

export interface ForwardTarget {
  readonly location: ProxyLocation;
  /** The decoded path below `proxy/`, with a leading slash; "" for none. */
  readonly path: string;
  /** The gateway path up to and including the `proxy` segment (where redirects are moved under). */
  readonly prefix: string;
}

/**
 * Sends the request to the target and streams its answer back. A failure to reach the target is a
 * 503 (upstream's "error trying to reach service"); once the answer has begun, a failure ends the
 * response.
 */
export async function forward(
  ctx: RequestContext,
  dispatcher: Dispatcher,
  target: ForwardTarget,
): Promise<void> {
  const raw = ctx.reply.raw;
  const abort = new AbortController();
  raw.once("close", () => abort.abort());
  const rawUrl = ctx.req.url;
  const q = rawUrl.indexOf("?");
  const query = q >= 0 ? rawUrl.slice(q) : "";
  // A path Go would escape: everything but what may stand in a path as it is.
  const escaped = encodeURI(target.path || "/")
    .replace(/\?/g, "%3F")
    .replace(/#/g, "%23");
  const body = ctx.req.body;
  let answer: Dispatcher.ResponseData;
  try {
    answer = await dispatcher.request({
      origin: `${target.location.protocol}//${target.location.host}`,
      path: `${escaped}${query}`,
      method: ctx.req.method as Dispatcher.HttpMethod,
      headers: outgoingHeaders(ctx.req.headers, ctx.socket.remoteAddress, posix.join(target.prefix, escaped)),
      ...(Buffer.isBuffer(body) && body.length > 0 ? { body } : {}),
      signal: abort.signal,
      // Long-running: a slow stream is the caller's to end, not the gateway's.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  } catch (err) {
    if (abort.signal.aborted) return;
    throw errors.unavailable(`error trying to reach service: ${reachError(err, target.location.host)}`);
  }
  const requestHost = ctx.req.headers.host ?? "";
  const headers = returnedHeaders(answer.headers, (location) =>
    rewriteLocation(location, target.location, requestHost, target.prefix),
  );
  takeOverResponse(ctx);
  raw.writeHead(answer.statusCode, headers);
  raw.flushHeaders();
  try {
    await pipeline(answer.body, raw);
  } catch {
    // The caller left or the target broke off: the status is sent, so the response just ends.
    answer.body.destroy();
    raw.destroy();
  }
}
