// Streaming a watch: chunked HTTP, or WebSocket messages when the request asks to upgrade to it (as
// browsers must), one encoded event per frame. Frames of live changes are encoded once per media
// type and shared by every watcher (encodeOnce). The stream ends when the client goes, the
// timeout passes, the watcher is closed (too slow, cache reset) or the server shuts down. A frame
// is written only once the previous one has drained, so what waits for a slow client is the
// watcher's queue, which is bounded in events and bytes.
import { type CacheWatcher, encodeOnce, type WatchDelivery } from "../../backends/cacher/index.ts";
import { type RequestContext, takeOverResponse } from "../pipeline/index.ts";
import { toApiError } from "../request/api-error.ts";
import { warningHeader } from "../request/warning.ts";
import type { ServedResource } from "../routing/resources.ts";
import type { OutputChoice } from "./codec.ts";
import type { HandlerEnv } from "./env.ts";
import { acceptWebSocket, checkHandshake, type Handshake, isWebSocketRequest } from "./websocket.ts";

/** Upstream's default: a random time between 30 and 60 minutes, so watches do not expire together. */
function defaultTimeoutMs(): number {
  return (1800 + Math.floor(Math.random() * 1800)) * 1000;
}

/**
 * How long a watch ended for falling behind may take to hand the client what is already
 * buffered (at most one frame past the socket's buffer) before the connection is dropped.
 */
const OVERFLOW_GRACE_MS = 60_000;

const activeWatches = new Set<() => void>();

/** Where a watch's frames go: the chunked HTTP response, or a WebSocket (one message per frame). */
interface FrameSink {
  write(frame: string | Buffer): boolean;
  on(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain", listener: () => void): unknown;
  once(event: "close", listener: () => void): unknown;
  end(): unknown;
  destroy(): unknown;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
}

/**
 * A WebSocket message is the event alone: a Protobuf frame without the length that delimits it
 * on an HTTP stream (the messages delimit themselves).
 */
function unframed(frame: string | Buffer): string | Buffer {
  return typeof frame === "string" ? frame : frame.subarray(4);
}

/** End every open watch (graceful shutdown). */
export function closeAllWatches(): void {
  for (const close of activeWatches) close();
}

export async function serveWatch(
  ctx: RequestContext,
  env: HandlerEnv,
  served: ServedResource,
  watcher: CacheWatcher,
  choice: OutputChoice,
  version: string,
  timeoutSeconds: number | undefined,
): Promise<void> {
  let res: FrameSink;
  let webSocket = false;
  if (isWebSocketRequest(ctx.req.headers)) {
    let handshake: Handshake;
    try {
      handshake = checkHandshake(ctx.req.method, ctx.req.headers, (name, value) =>
        ctx.reply.header(name, value),
      );
    } catch (err) {
      watcher.close("stopped");
      throw err;
    }
    const raw = takeOverResponse(ctx);
    // Each event is one message: binary frames for Protobuf, text frames otherwise (as upstream).
    // A Protobuf message is the event without the length that frames it on an HTTP stream.
    res = acceptWebSocket(raw, handshake, choice.encoding === "protobuf");
    webSocket = true;
  } else {
    const raw = takeOverResponse(ctx);
    const headers: Record<string, string | string[]> = {
      "content-type": choice.contentType,
      "transfer-encoding": "chunked",
      "cache-control": "no-cache, private",
    };
    if (ctx.warnings.length > 0) headers.warning = warningHeader(ctx.warnings);
    raw.writeHead(200, headers);
    raw.flushHeaders();
    res = raw;
  }

  let closed = false;
  const stop = () => {
    if (closed) return;
    closed = true;
    watcher.close("stopped");
  };
  activeWatches.add(stop);
  res.on("close", stop);
  const timer = setTimeout(
    stop,
    timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : defaultTimeoutMs(),
  );
  // One listener each for the whole stream, not one per blocked write.
  let wake: (() => void) | undefined;
  const onWritable = () => wake?.();
  res.on("drain", onWritable);
  void watcher.whenClosed.then(onWritable);
  const mediaKey = `${choice.kind}:${choice.contentType}:${version}`;
  const { group, kind } = served.schema;
  const unregister = env.metrics?.watcherRegistered(group, version, kind);
  let first = true;
  try {
    for await (const change of watcher) {
      if (closed) break;
      let delivery = change;
      try {
        delivery = await env.codec.watchDelivery(change, choice, served, version);
      } catch {
        // An object its conversion webhook cannot convert ends the watch, as upstream's does.
        break;
      }
      if (closed) break;
      // A table stream's first frame carries the column definitions, so it is this watcher's own.
      const frame =
        delivery.type === "ERROR"
          ? env.codec.errorFrame(toApiError(delivery.error).toStatus(), choice)
          : first && (choice.kind as string) === "table"
            ? env.codec.watchFrame(delivery, choice, served, version, true)
            : encodeOnce(delivery, mediaKey, (d: WatchDelivery) =>
                env.codec.watchFrame(d, choice, served, version, false),
              );
      first = false;
      env.metrics?.watchEventSent(group, version, kind, Buffer.byteLength(frame));
      if (!res.write(webSocket ? unframed(frame) : frame) && watcher.closeReason === undefined) {
        // The client reads slowly: wait, while the watcher's bounded buffer absorbs new events.
        // The watcher closes when that bound is passed or the client goes (stop), ending the wait.
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    }
  } finally {
    unregister?.();
    clearTimeout(timer);
    res.off("drain", onWritable);
    activeWatches.delete(stop);
    const fellBehind = watcher.closeReason === "overflow";
    stop();
    if (!res.writableEnded) res.end();
    if (fellBehind) {
      const { plural } = served.schema;
      env.metrics?.watcherTerminated(group ? `${plural}.${group}` : plural);
      if (!res.writableFinished) {
        const drop = setTimeout(() => res.destroy(), OVERFLOW_GRACE_MS);
        drop.unref();
        res.once("close", () => clearTimeout(drop));
      }
    }
  }
}
