// A field manager for one request against a served resource.
import { objectMetaSchema } from "../../backends/builtin/index.ts";
import { clientNames, type Naming } from "../../backends/naming/index.ts";
import type { StructuralSchema } from "../../backends/schema/structural/index.ts";
import type { ServedResource } from "../routing/resources.ts";
import { FieldManager, type VersionView } from "./field-manager.ts";

/** Custom resources' metadata is ObjectMeta to field tracking, as upstream types it. */
const withObjectMeta = new WeakMap<StructuralSchema, StructuralSchema>();
function typedMetadata(schema: StructuralSchema | undefined): StructuralSchema | undefined {
  if (!schema) return undefined;
  let out = withObjectMeta.get(schema);
  if (!out) {
    out = { ...schema, properties: { ...schema.properties, metadata: objectMetaSchema() } };
    withObjectMeta.set(schema, out);
  }
  return out;
}

export function versionView(served: ServedResource): VersionView {
  const { schema } = served;
  const apiVersion = (v: string) => (schema.group ? `${schema.group}/${v}` : v);
  return {
    kind: schema.kind,
    hasStatus: schema.subresources.includes("status"),
    apiVersion,
    versionOf: (av) => schema.versions.find((v) => v.served && apiVersion(v.name) === av)?.name,
    schema: (version) => {
      const v = schema.versions.find((x) => x.name === version);
      return v?.catalogType ? v.schema : typedMetadata(v?.schema);
    },
    convert: (object, version) =>
      schema.convert ? schema.convert(object, version) : { ...object, apiVersion: apiVersion(version) },
    ...(schema.convertMany
      ? {
          convertAsync: async (object: Record<string, unknown>, version: string) =>
            (await schema.convertMany!([object], version))[0] as Record<string, unknown>,
        }
      : {}),
  };
}

export function fieldManagerFor(
  served: ServedResource,
  // Unused: kubectl spells its annotation the same under both presets.
  _naming: Naming,
  version: string,
  subresource: string | undefined,
): FieldManager {
  return new FieldManager({
    view: versionView(served),
    version,
    subresource: subresource ?? "",
    // kubectl writes its own spelling whatever the server's naming.
    lastAppliedAnnotation: clientNames.lastAppliedConfiguration,
  });
}
