// Computed resources (the reviews) and subresource actions (a ServiceAccount's `token`, a Pod's
// `binding` and `eviction`): they answer `create` with an object made from the request's body.
import type { RequestContext } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import type { ServedResource, VirtualResource } from "../routing/resources.ts";
import type { HandlerEnv } from "./env.ts";
import { dryRun, nameOf, query } from "./request-options.ts";
import { admissionFor } from "./write-admission.ts";

/** A create on a virtual resource, or on a subresource action: the answer is computed. */
export async function handleVirtual(
  ctx: RequestContext,
  env: HandlerEnv,
  target: VirtualResource,
  version: string,
  namespace: string | undefined,
  name: string | undefined,
  parent?: { readonly served: ServedResource; readonly subresource: string },
): Promise<void> {
  const info = ctx.info;
  const ref = { group: target.schema.group, resource: target.schema.plural };
  if (info?.verb !== "create") throw errors.methodNotSupported(ref, info?.verb || ctx.req.method);
  const body = await env.codec.readObject(ctx, target, version);
  const choice = env.codec.output(ctx, target, { list: false, stream: false });
  // Computed answers have no stored object: both phases see the request's body.
  const admission = admissionFor(ctx, env, {
    served: parent?.served ?? target,
    subresource: parent?.subresource,
    namespace,
    name: name ?? nameOf(body),
    dryRun: dryRun(ctx),
    options: { kind: "CreateOptions", fieldManager: query(ctx, "fieldManager") },
    kind: { group: target.schema.group, version, kind: target.schema.kind },
  });
  if (admission) {
    await admission.admit(body, undefined);
    await admission.validate(body, undefined);
  }
  const object = await target.create(ctx, body, version, namespace, name);
  await env.codec.sendObject(ctx, 201, object, choice, target);
}

/** A subresource action's body is of one version (TokenRequest: authentication/v1). */
export function bodyVersion(resource: VirtualResource): string {
  return (resource.schema.versions.find((v) => v.served) ?? { name: "v1" }).name;
}
