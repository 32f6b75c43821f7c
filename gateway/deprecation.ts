// Requests to a deprecated version: a `Warning` header in upstream's wording, audit annotations
// and the requested-deprecated-APIs gauge.
import type { Naming } from "../backends/naming/index.ts";
import type { ResourceSchema, ResourceVersion } from "../backends/schema/index.ts";
import type { GatewayMetrics } from "./metrics.ts";
import type { RequestContext } from "./pipeline/context.ts";

/** `<group>/<version> <Kind> is deprecated in v1.26+, unavailable in v1.29+; use <replacement>`. */
export function deprecationWarning(schema: ResourceSchema, version: ResourceVersion): string {
  if (version.deprecationWarning) return version.deprecationWarning;
  const gv = schema.group ? `${schema.group}/${version.name}` : version.name;
  let text = `${gv} ${schema.kind} is deprecated`;
  if (version.deprecatedRelease) text += ` in v${version.deprecatedRelease}+`;
  if (version.removedRelease) text += `, unavailable in v${version.removedRelease}+`;
  if (version.replacement) text += `; use ${version.replacement}`;
  return text;
}

export function noteDeprecatedRequest(
  ctx: RequestContext,
  naming: Naming,
  schema: ResourceSchema,
  versionName: string,
  metrics: GatewayMetrics | undefined,
): void {
  const version = schema.versions.find((v) => v.name === versionName);
  if (!version?.deprecated) return;
  ctx.warnings.push(deprecationWarning(schema, version));
  ctx.auditAnnotations = {
    ...ctx.auditAnnotations,
    [`${naming.groupSuffix}/deprecated`]: "true",
    ...(version.removedRelease ? { [`${naming.groupSuffix}/removed-release`]: version.removedRelease } : {}),
  };
  metrics?.deprecatedApiRequested({
    group: schema.group,
    version: version.name,
    resource: schema.plural,
    subresource: ctx.info?.subresource ?? "",
    removed_release: version.removedRelease ?? "",
  });
}
