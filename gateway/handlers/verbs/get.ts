// GET of one object, from the watch cache under the request's resourceVersion rule.
import type { VerbHandler } from "../env.ts";
import { query } from "../request-options.ts";

export const get: VerbHandler = async (ctx, env, { served, ns, name }) => {
  const choice = env.codec.output(ctx, served, { list: false, stream: false });
  const item = await served.registry.get(ns, name, query(ctx, "resourceVersion"));
  await env.codec.sendItem(ctx, item, choice, served);
};
