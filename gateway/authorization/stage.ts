// The `authorization` stage: the effective user (after impersonation) and the classified request
// go to the authorizer; anything but "allow" ends the request with a 403 Status. The decision
// and reason are recorded as audit annotations, as upstream does.
import type { Naming } from "../../backends/naming/index.ts";
import type { Attributes, AuthorizationResult, Authorizer } from "../../plugins/authorization/index.ts";
import type { RequestContext, Stage } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import { requestAttributes } from "./attributes.ts";
import { forbidden } from "./forbidden.ts";

/** A bare authorizer that throws has no opinion, so the request is denied, never allowed (a union already absorbs failures). */
function failedAuthorizer(ctx: RequestContext, authorizer: Authorizer, err: unknown): AuthorizationResult {
  ctx.req.log.warn({ err, authorizer: authorizer.name }, "authorizer failed");
  return { decision: "noOpinion", reason: "" };
}

/** The authorizer's answer, a failure turned into no opinion. */
async function ask(
  authorizer: Authorizer,
  ctx: RequestContext,
  attributes: Attributes,
): Promise<AuthorizationResult> {
  try {
    return await authorizer.authorize(attributes);
  } catch (err) {
    return failedAuthorizer(ctx, authorizer, err);
  }
}

export function authorizationStage(authorizer: Authorizer, naming: Naming): Stage {
  const decisionKey = `${naming.group("authorization")}/decision`;
  const reasonKey = `${naming.group("authorization")}/reason`;
  const decide = (ctx: RequestContext, attributes: Attributes, result: AuthorizationResult): void => {
    const annotations = ctx.auditAnnotations ?? {};
    ctx.auditAnnotations = annotations;
    if (result.decision === "allow") {
      annotations[decisionKey] = "allow";
      annotations[reasonKey] = result.reason;
      return;
    }
    annotations[decisionKey] = "forbid";
    annotations[reasonKey] = result.reason;
    ctx.req.log.info(
      { user: ctx.user?.username, verb: attributes.verb, path: attributes.path, reason: result.reason },
      "forbidden",
    );
    throw forbidden(attributes, result.reason);
  };
  return {
    name: "authorization",
    // Synchronous when the authorizer answers synchronously (no microtask turn per request).
    run(ctx: RequestContext) {
      if (!ctx.user) throw errors.internal("no user found for the request");
      if (!ctx.info) throw errors.internal("no RequestInfo found in the context");
      const attributes = requestAttributes(ctx.user, ctx.info);
      let answer: AuthorizationResult | Promise<AuthorizationResult>;
      try {
        answer = authorizer.authorize(attributes);
      } catch (err) {
        answer = failedAuthorizer(ctx, authorizer, err);
      }
      if (answer instanceof Promise)
        return answer.then(
          (result) => decide(ctx, attributes, result),
          (err: unknown) => decide(ctx, attributes, failedAuthorizer(ctx, authorizer, err)),
        );
      decide(ctx, attributes, answer);
    },
  };
}

/**
 * The same question with another verb: a PATCH or PUT that creates its object needs `create`
 * besides the verb it was authorized for. Throws the 403 a denial gets.
 */
export function verbAuthorizer(authorizer: Authorizer): (ctx: RequestContext, verb: string) => Promise<void> {
  return async (ctx, verb) => {
    if (!ctx.user || !ctx.info) throw errors.internal("no user found for the request");
    const attributes = { ...requestAttributes(ctx.user, ctx.info), verb };
    const result = await ask(authorizer, ctx, attributes);
    if (result.decision !== "allow") throw forbidden(attributes, result.reason);
  };
}
