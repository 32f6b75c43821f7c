// A field manager for one request against a served resource.
import type { Naming } from "../../backends/naming/index.ts";
import type { ServedResource } from "../routing/resources.ts";
import { FieldManager, type VersionView } from "./field-manager.ts";

export function versionView(served: ServedResource): VersionView {
  const { schema } = served;
  const apiVersion = (v: string) => (schema.group ? `${schema.group}/${v}` : v);
  return {
    kind: schema.kind,
    hasStatus: schema.subresources.includes("status"),
    apiVersion,
    versionOf: (av) => schema.versions.find((v) => v.served && apiVersion(v.name) === av)?.name,
    schema: (version) => schema.versions.find((v) => v.name === version)?.schema,
    convert: (object, version) =>
      schema.convert ? schema.convert(object, version) : { ...object, apiVersion: apiVersion(version) },
  };
}

export function fieldManagerFor(
  served: ServedResource,
  naming: Naming,
  version: string,
  subresource: string | undefined,
): FieldManager {
  return new FieldManager({
    view: versionView(served),
    version,
    subresource: subresource ?? "",
    lastAppliedAnnotation: naming.label("last-applied-configuration", "kubectl"),
  });
}
