// Wires the API surface into the HTTPS server: every /api and /apis request goes through the
// pipeline of named stages, ending in the resource handlers; errors become Status bodies.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Naming } from "../backends/naming/index.ts";
import type { Authenticator } from "../plugins/authentication/index.ts";
import type { Authorizer } from "../plugins/authorization/index.ts";
import { type Auditor, auditPanic } from "./audit/audit-stage.ts";
import { accessStages, requestContext } from "./authorization/access.ts";
import type { HandlerEnv } from "./handlers/env.ts";
import { handleResource } from "./handlers/resource.ts";
import { instrumentPipeline } from "./metrics-routes.ts";
import { Pipeline, type RequestContext } from "./pipeline/index.ts";
import { type InflightLimits, inflightLimitStage } from "./pipeline/inflight-limit.ts";
import { ApiError, errors, toApiError } from "./request/api-error.ts";
import { sendError } from "./request/send-error.ts";
import { discardUnreadBody } from "./request/unread-body.ts";
import { warningHeader } from "./request/warning.ts";

/** Upstream's limit on request bodies. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface ApiOptions {
  readonly env: HandlerEnv;
  readonly authenticators: readonly Authenticator[];
  readonly anonymousAuth: boolean;
  /** The authorizer chain (`--authorization-mode`): impersonation and every request ask it. */
  readonly authorizer: Authorizer;
  /** Answers non-resource GETs under /api and /apis (discovery); undefined when unknown. */
  readonly discovery?: (ctx: RequestContext) => boolean;
  readonly inflight?: InflightLimits;
  readonly naming: Naming;
  /** The audit policy and backends; none when absent. */
  readonly auditor?: Auditor;
  /**
   * The remote backend: answers a request whose group/version an extension server serves
   * (true), or leaves it to the gateway's own handlers (false).
   */
  readonly remote?: (ctx: RequestContext) => Promise<boolean>;
}

/**
 * request-info, authentication, audit, impersonation, limits, authorization, routing: upstream's
 * filter order (in-flight limits count only requests whose caller is known).
 */
export function defaultPipeline(options: ApiOptions): Pipeline {
  const pipeline = new Pipeline([
    ...accessStages(options),
    {
      name: "routing",
      async run(ctx) {
        if (await options.remote?.(ctx)) return;
        if (!ctx.info?.isResourceRequest) {
          if (options.discovery?.(ctx)) return;
          throw errors.pageNotFound();
        }
        await handleResource(ctx, options.env);
      },
    },
  ]);
  const { metrics } = options.env;
  pipeline.insertBefore(
    "authorization",
    inflightLimitStage(
      options.inflight ?? { readOnly: 400, mutating: 200 },
      metrics && ((kind, n) => metrics.inflightChanged(kind, n)),
    ),
  );
  return metrics ? instrumentPipeline(pipeline, metrics) : pipeline;
}

export function registerApi(app: FastifyInstance, pipeline: Pipeline): void {
  // Bodies arrive as bytes whatever their type; handlers decode them after negotiation.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
    done(null, body),
  );

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, req, reply) => {
    if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      discardUnreadBody(req.raw, reply);
      return sendError(reply, errors.tooLarge(MAX_BODY_BYTES));
    }
    if (err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" || err.code === "FST_ERR_CTP_EMPTY_TYPE") {
      discardUnreadBody(req.raw, reply);
      return sendError(reply, errors.unsupportedMediaType(["application/json"]));
    }
    const apiError = toApiError(err);
    if (apiError.code >= 500) req.log.error({ err }, "request failed");
    sendError(reply, apiError);
  });

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const ctx = requestContext(req, reply);
    try {
      await pipeline.run(ctx);
    } catch (err) {
      if (ctx.done && reply.raw.headersSent) {
        req.log.warn({ err }, "error after the response started");
        return;
      }
      const apiError = toApiError(err);
      if (apiError.code >= 500) req.log.error({ err }, "request failed");
      // An unexpected failure is the audit's Panic stage, as a panic is upstream's.
      if (!(err instanceof ApiError) && apiError.reason === "InternalError") auditPanic(reply.raw, err);
      // Warnings gathered before the refusal (admission's, say) still reach the client.
      const warnings = warningHeader(ctx.warnings);
      if (warnings.length > 0) reply.header("warning", warnings);
      sendError(reply, apiError);
    }
    if (!ctx.done && !reply.sent) sendError(reply, errors.pageNotFound());
    // A body still streaming (a large list) has not ended yet: returning the reply tells fastify
    // the response is under way rather than missing.
    return reply;
  };
  for (const path of ["/api", "/api/*", "/apis", "/apis/*"]) {
    app.all(path, handle);
  }
}
