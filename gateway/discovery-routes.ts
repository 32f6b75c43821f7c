// Serving discovery (`/api`, `/apis`, `/api/v1`, `/apis/<g>[/<v>]`) from the discovery cache,
// and `/version`. Aggregated discovery is chosen by the Accept header, as kubectl asks for it.
import type { FastifyInstance } from "fastify";
import type { Naming } from "../backends/naming/index.ts";
import type { AccessGuard } from "./authorization/guard.ts";
import {
  type DiscoveryCache,
  type DiscoveryVariant,
  ifNoneMatchMatches,
  versionBody,
  versionInfo,
} from "./discovery/index.ts";
import { parseAccept } from "./negotiation/index.ts";
import type { RequestContext } from "./pipeline/index.ts";
import { errors } from "./request/api-error.ts";

/** The first acceptable variant in the order the server considers Accept clauses; undefined when nothing fits (406). */
function chooseVariant(
  accept: string | undefined,
  aggregatedGroup: string | undefined,
): DiscoveryVariant | undefined {
  if (!accept) return "legacy";
  const clauses = parseAccept(accept);
  if (clauses.length === 0) return "legacy";
  for (const c of clauses) {
    const e = { type: `${c.type}/${c.subType}`, params: c.params };
    if (e.params.as === "APIGroupDiscoveryList") {
      // Clients name the group; one spelled for the other naming preset is not ours to answer.
      if (aggregatedGroup === undefined || e.type !== "application/json" || e.params.g !== aggregatedGroup)
        continue;
      if (e.params.v === "v2") return "aggregated-v2";
      if (e.params.v === "v2beta1") return "aggregated-v2beta1";
      continue;
    }
    if (e.params.as !== undefined) continue;
    if (e.type === "application/json" || e.type === "*/*" || e.type === "application/*") return "legacy";
  }
  return undefined;
}

/** The routing stage's answer for non-resource requests under /api and /apis. */
export function discoveryResponder(
  naming: Naming,
  cache: () => DiscoveryCache,
): (ctx: RequestContext) => boolean {
  return (ctx) => {
    const method = ctx.req.method;
    if (method !== "GET" && method !== "HEAD") return false;
    const path = ctx.url.pathname.replace(/\/+$/, "") || "/";
    const aggregatedGroup = path === "/api" || path === "/apis" ? naming.group("apidiscovery") : undefined;
    const variant = chooseVariant(ctx.req.headers.accept, aggregatedGroup);
    if (!variant) throw errors.notAcceptable(["application/json"]);
    const doc = cache().get(path, variant);
    if (!doc) return false;
    ctx.done = true;
    const reply = ctx.reply.header("content-type", doc.contentType);
    if (variant !== "legacy") {
      reply.header("etag", doc.etag).header("vary", "Accept").header("cache-control", "public");
      if (ifNoneMatchMatches(ctx.req.headers["if-none-match"], doc.etag)) {
        void reply.code(304).send();
        return true;
      }
    }
    void reply.code(200).send(doc.body);
    return true;
  };
}

/** `/version`, behind the access guard (RBAC lets anyone read it through system:public-info-viewer). */
export function registerVersion(app: FastifyInstance, guard: AccessGuard): void {
  const body = versionBody(versionInfo());
  for (const path of ["/version", "/version/"]) {
    app.get(path, { onRequest: guard }, (_req, reply) => {
      void reply.type("application/json").send(body);
    });
  }
}
