// Streaming a watch: chunked HTTP, one encoded event per frame. Frames of live changes are
// encoded once per media type and shared by every watcher (encodeOnce). The stream ends when
// the client goes, the timeout passes, the watcher is closed (too slow, cache reset) or the
// server shuts down.
import { once } from "node:events";
import { type CacheWatcher, encodeOnce, type WatchDelivery } from "../../backends/cacher/index.ts";
import type { RequestContext } from "../pipeline/index.ts";
import { toApiError } from "../request/api-error.ts";
import { warningHeader } from "../request/warning.ts";
import type { ServedResource } from "../routing/resources.ts";
import type { OutputChoice } from "./codec.ts";
import type { HandlerEnv } from "./resource.ts";

/** Upstream's default: a random time between 30 and 60 minutes, so watches do not expire together. */
function defaultTimeoutMs(): number {
  return (1800 + Math.floor(Math.random() * 1800)) * 1000;
}

const activeWatches = new Set<() => void>();

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
  const res = ctx.reply.raw;
  ctx.reply.hijack();
  ctx.done = true;
  const headers: Record<string, string | string[]> = {
    "content-type": choice.contentType,
    "transfer-encoding": "chunked",
    "cache-control": "no-cache, private",
  };
  if (ctx.warnings.length > 0) headers.warning = warningHeader(ctx.warnings);
  res.writeHead(200, headers);
  res.flushHeaders();

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
  const mediaKey = `${choice.kind}:${choice.contentType}:${version}`;
  let first = true;
  try {
    for await (const delivery of watcher) {
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
      if (!res.write(frame)) {
        // The client reads slowly: wait, while the watcher's bounded buffer absorbs new events.
        await Promise.race([once(res, "drain"), once(res, "close")]);
      }
    }
  } finally {
    clearTimeout(timer);
    activeWatches.delete(stop);
    stop();
    if (!res.writableEnded) res.end();
  }
}
