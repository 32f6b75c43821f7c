// The routing stage's end for stored and computed resources: the path's shape is checked
// against the resource's scope, subresource actions and `scale` go to their handlers, and every
// other request to the handler of its verb (verbs/). Handlers never touch storage (DESIGN.md):
// they go through the registry, which owns the lifecycle.
import { noteDeprecatedRequest } from "../deprecation.ts";
import type { RequestContext } from "../pipeline/index.ts";
import { handleProxy, isProxySubresource } from "../proxy/handler.ts";
import { errors } from "../request/api-error.ts";
import type { RequestInfo } from "../request/request-info.ts";
import type { HandlerEnv } from "./env.ts";
import { handlePodStream, isPodStream } from "./pod-streams.ts";
import { dryRun, query } from "./request-options.ts";
import { handleScale } from "./scale.ts";
import { OPTIONAL_VERBS, VERBS } from "./verbs/index.ts";
import { bodyVersion, handleVirtual } from "./virtual.ts";
import { admissionFor } from "./write-admission.ts";

export async function handleResource(ctx: RequestContext, env: HandlerEnv): Promise<void> {
  const info = ctx.info;
  if (!info?.isResourceRequest) throw errors.pageNotFound();
  const served = env.resources.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!served) {
    const virtual = env.resources.lookupVirtual(info.apiGroup, info.apiVersion, info.resource);
    if (!virtual || info.subresource || info.name) throw errors.pageNotFound();
    // Computed resources have no all-namespaces collection.
    if (virtual.schema.namespaced !== info.inNamespace || !scopeFits(virtual.schema.namespaced, info))
      throw errors.pageNotFound();
    noteDeprecatedRequest(ctx, env.naming, virtual.schema, info.apiVersion, env.metrics);
    return handleVirtual(ctx, env, virtual, info.apiVersion, info.namespace || undefined, undefined);
  }
  const { schema, registry } = served;
  // The root `/proxy/` paths (verb `proxy`) are gone since 1.10; the subresource replaced them.
  if (info.verb === "proxy") throw errors.pageNotFound();
  if (!scopeFits(schema.namespaced, info)) throw errors.pageNotFound();
  // The all-namespaces collection of a namespaced resource is only read (list, watch).
  if (schema.namespaced && !info.inNamespace && info.verb !== "list" && info.verb !== "watch")
    throw errors.methodNotAllowed();
  noteDeprecatedRequest(ctx, env.naming, schema, info.apiVersion, env.metrics);
  const subresource = info.subresource || undefined;
  if (isProxySubresource(served, subresource)) return handleProxy(ctx, env, served);
  if (isPodStream(served, subresource)) return handlePodStream(ctx, env, served, subresource as string);
  const action = subresource
    ? env.subresourceActions?.get(`${schema.group}/${schema.plural}/${subresource}`)
    : undefined;
  if (action && schema.subresources.includes(subresource as string)) {
    const version = bodyVersion(action);
    return handleVirtual(ctx, env, action, version, info.namespace || undefined, info.name, {
      served,
      subresource: subresource as string,
    });
  }
  if (subresource === "scale" && schema.scale && schema.subresources.includes("scale")) {
    const ns = schema.namespaced ? info.namespace || undefined : undefined;
    const dry = dryRun(ctx);
    const admission = admissionFor(ctx, env, {
      served,
      subresource,
      namespace: ns,
      name: info.name,
      dryRun: dry,
      options: { kind: "UpdateOptions", fieldManager: query(ctx, "fieldManager") },
      kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    });
    return handleScale(ctx, env, {
      served,
      spec: schema.scale,
      namespace: ns,
      name: info.name,
      version: info.apiVersion,
      dryRun: dry,
      admission,
    });
  }
  if (subresource) {
    if (!schema.subresources.includes(subresource) || !registry.subresources[subresource])
      throw errors.pageNotFound();
    if (info.verb !== "get" && info.verb !== "update" && info.verb !== "patch") {
      throw errors.methodNotSupported(
        { group: schema.group, resource: `${schema.plural}/${subresource}` },
        info.verb,
      );
    }
  }
  const ref = { group: schema.group, resource: schema.plural };
  const handler = VERBS.get(info.verb);
  if (!handler || (OPTIONAL_VERBS.has(info.verb) && !(schema.verbs as readonly string[]).includes(info.verb)))
    throw errors.methodNotSupported(ref, info.verb || ctx.req.method);
  await handler(ctx, env, {
    served,
    ns: schema.namespaced ? info.namespace || undefined : undefined,
    name: info.name,
    subresource,
    version: info.apiVersion,
  });
}

/**
 * Whether the path's shape has a route for a resource of this scope, as upstream registers them:
 * a cluster-scoped resource never inside a namespace (authorization saw that namespace, so
 * serving it would act outside what was allowed); a namespaced one inside a named namespace, or
 * as the all-namespaces collection (no name in the path; a field selector may still pin one).
 */
function scopeFits(namespaced: boolean, info: RequestInfo): boolean {
  // resource/name/subresource at most: only `proxy` takes a path below it.
  if (info.parts.length > 3 && info.parts[2] !== "proxy") return false;
  if (!namespaced) return !info.inNamespace;
  if (info.inNamespace) return info.namespace !== "";
  return info.parts.length === 1;
}
