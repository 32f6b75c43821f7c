// The front of every request, API or not: classify it, authenticate the caller, open its audit
// record, apply impersonation, authorize. The API pipeline continues with limits and routing;
// health, version and OpenAPI run these stages alone (guard.ts).
import type { TLSSocket } from "node:tls";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Naming } from "../../backends/naming/index.ts";
import {
  type AuthenticationRequest,
  type Authenticator,
  authenticate,
} from "../../plugins/authentication/index.ts";
import type { Authorizer } from "../../plugins/authorization/index.ts";
import { type Auditor, auditFailedAuthentication, auditStage } from "../audit/audit-stage.ts";
import { impersonationStage } from "../impersonation/index.ts";
import type { RequestContext, Stage } from "../pipeline/index.ts";
import { ApiError, errors } from "../request/api-error.ts";
import { parseRequestInfo } from "../request/request-info.ts";
import { authorizationStage } from "./stage.ts";

export interface AccessOptions {
  readonly authenticators: readonly Authenticator[];
  readonly anonymousAuth: boolean;
  /** The authorizer chain (`--authorization-mode`), asked for impersonation and for the request. */
  readonly authorizer: Authorizer;
  readonly naming: Naming;
  /** The audit policy and backends (`--audit-policy-file`, ...); none when absent. */
  readonly auditor?: Auditor;
}

export function requestInfoStage(): Stage {
  return {
    name: "request-info",
    run(ctx) {
      ctx.info = parseRequestInfo(ctx.req.method, ctx.req.url, ctx.url.searchParams);
      // Upstream answers 500 here; the client named no resource, so it is a 404 (upstream's text).
      if (ctx.info.parseError)
        throw new ApiError(404, "NotFound", `failed to create RequestInfo: ${ctx.info.parseError}`, {});
    },
  };
}

/**
 * What authenticators see of a request. Repeated headers also stay apart in `headersDistinct`
 * (each X-Remote-Group line is a group); Node builds that view on first use, so only for an
 * authenticator that reads it. A class rather than an object literal with a getter: a getter
 * closure made per request kept requests' objects alive through V8's young-generation
 * collections (as RequestRecord in metrics-routes.ts explains).
 */
class AuthenticationView implements AuthenticationRequest {
  readonly headers: AuthenticationRequest["headers"];
  readonly socket: TLSSocket;
  readonly #raw: FastifyRequest["raw"];

  constructor(ctx: RequestContext) {
    this.headers = ctx.req.headers;
    this.socket = ctx.socket;
    this.#raw = ctx.req.raw;
  }

  get headersDistinct(): AuthenticationRequest["headersDistinct"] {
    return this.#raw.headersDistinct;
  }
}

/** A rejected credential is a 401 even when anonymous requests are allowed. */
export function authenticationStage(
  authenticators: readonly Authenticator[],
  anonymousAuth: boolean,
  auditor?: Auditor,
): Stage {
  return {
    name: "authentication",
    async run(ctx) {
      const request = new AuthenticationView(ctx);
      const result = await authenticate(authenticators, request, anonymousAuth);
      if ("rejected" in result) {
        ctx.req.log.info({ reason: result.rejected }, "authentication failed");
        // Refusals are audited too (upstream's failed-authentication audit), before the 401 goes out.
        auditFailedAuthentication(ctx, auditor);
        throw errors.unauthorized();
      }
      ctx.user = result.user;
    },
  };
}

/**
 * The access stages in upstream's order: request-info, authentication, audit, impersonation,
 * authorization. Others go in by anchor (the API's in-flight limits sit before authorization).
 */
export function accessStages(options: AccessOptions): Stage[] {
  // Fail at start, not with a 403 on every request, when a caller forgets the authorizer.
  if (typeof options.authorizer?.authorize !== "function")
    throw new Error("an authorizer is required (e.g. alwaysAllow() from plugins/authorization)");
  return [
    requestInfoStage(),
    authenticationStage(options.authenticators, options.anonymousAuth, options.auditor),
    auditStage(options.auditor),
    impersonationStage(options.authorizer, options.naming),
    authorizationStage(options.authorizer, options.naming),
  ];
}

export function requestContext(req: FastifyRequest, reply: FastifyReply): RequestContext {
  return {
    req,
    reply,
    url: new URL(req.url, "https://localhost"),
    socket: req.raw.socket as TLSSocket,
    warnings: [],
    done: false,
  };
}
