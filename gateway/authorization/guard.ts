// The access stages as a fastify hook for the endpoints outside /api and /apis (health,
// version, OpenAPI, unknown paths): the same authentication, impersonation and authorization as
// API requests, so anonymous callers reach only what the authorizer grants them (RBAC's
// system:public-info-viewer and system:discovery). 401 and 403 are Status bodies.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Pipeline } from "../pipeline/index.ts";
import { toApiError } from "../request/api-error.ts";
import { sendError } from "../request/send-error.ts";
import { type AccessOptions, accessStages, requestContext } from "./access.ts";

/** Resolves when the request may go on; otherwise it has answered it (and returns the reply). */
export type AccessGuard = (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;

export function accessGuard(options: AccessOptions): AccessGuard {
  const pipeline = new Pipeline(accessStages(options));
  return async (req, reply) => {
    try {
      await pipeline.run(requestContext(req, reply));
      return undefined;
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError.code >= 500) req.log.error({ err }, "request failed");
      sendError(reply, apiError);
      return reply;
    }
  };
}

/** Paths nothing serves: upstream's plain 404, for callers the authorizer lets see it. */
export function registerNotFound(app: FastifyInstance, guard: AccessGuard): void {
  app.setNotFoundHandler({ preHandler: guard }, (_req, reply) => {
    void reply
      .code(404)
      .type("text/plain; charset=utf-8")
      .header("x-content-type-options", "nosniff")
      .send("404 page not found\n");
  });
}
