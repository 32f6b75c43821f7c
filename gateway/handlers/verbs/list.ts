// A list: paged, selected, at the revision the request's resourceVersion rule picks.
import { errors } from "../../request/api-error.ts";
import type { VerbHandler } from "../env.ts";
import { intParam, query, selectors } from "../request-options.ts";

export const list: VerbHandler = async (ctx, env, { served, ns, version }) => {
  const choice = env.codec.output(ctx, served, { list: true, stream: false });
  const limit = intParam(ctx, "limit");
  if (limit !== undefined && limit < 0) throw errors.badRequest("limit must be a non-negative integer");
  const result = await served.registry.list(ns, {
    resourceVersion: query(ctx, "resourceVersion"),
    resourceVersionMatch: query(ctx, "resourceVersionMatch"),
    limit,
    continue: query(ctx, "continue"),
    ...selectors(ctx, served),
  });
  await env.codec.sendList(ctx, result, choice, served, version);
};
