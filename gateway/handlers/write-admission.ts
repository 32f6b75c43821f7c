// Admission as the resource handlers start it: the request's attributes, the DeleteOptions that
// webhooks see, and the extra `create` check of writes that create.
import type { JsonObject } from "../../backends/registry/index.ts";
import { type RequestAdmission, type RequestAdmissionInput, requestAdmission } from "../admission/request.ts";
import type { RequestContext } from "../pipeline/index.ts";
import type { DeleteOptionsBody } from "./delete-options.ts";
import type { HandlerEnv } from "./env.ts";

/** The request's admission, for a resource or one of its subresources. */
export function admissionFor(
  ctx: RequestContext,
  env: HandlerEnv,
  input: Omit<RequestAdmissionInput, "version"> & { readonly version?: string },
): RequestAdmission | undefined {
  return requestAdmission(env.admission, env.naming, ctx, {
    ...input,
    version: input.version ?? ctx.info?.apiVersion ?? "",
  });
}

/** DeleteOptions as webhooks see them. */
export function deleteOptionsBody(options: DeleteOptionsBody): JsonObject {
  return {
    ...(options.preconditions ? { preconditions: options.preconditions } : {}),
    ...(options.dryRun ? { dryRun: ["All"] } : {}),
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
  };
}

/** A PUT or apply that creates its object needs `create` too. */
export async function checkCreateByWrite(ctx: RequestContext, env: HandlerEnv): Promise<void> {
  await env.authorizeVerb?.(ctx, "create");
}
