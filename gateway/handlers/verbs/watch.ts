// A watch: opened on the cache (a named object is the collection pinned to its name), then
// streamed by serveWatch.
import { queryFlag } from "../codec.ts";
import type { VerbHandler } from "../env.ts";
import { intParam, query, selectors } from "../request-options.ts";
import { serveWatch } from "../watch.ts";

export const watch: VerbHandler = async (ctx, env, { served, ns, name, version }) => {
  const choice = env.codec.output(ctx, served, { list: true, stream: true });
  const sendInitial = query(ctx, "sendInitialEvents");
  const watcher = await served.registry.watch(ns, {
    resourceVersion: query(ctx, "resourceVersion"),
    resourceVersionMatch: query(ctx, "resourceVersionMatch"),
    sendInitialEvents: sendInitial === undefined ? undefined : sendInitial === "true",
    allowWatchBookmarks: queryFlag(ctx.url, "allowWatchBookmarks"),
    ...selectors(ctx, served, name || undefined),
  });
  await serveWatch(ctx, env, served, watcher, choice, version, intParam(ctx, "timeoutSeconds"));
};
