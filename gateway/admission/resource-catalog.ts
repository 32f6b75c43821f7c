// The plugins' view of which resources are served (PluginEnv.resources), over the resource table:
// by resource or by kind, at a served version, with the storage version's structural schema.
import type { ResourceCatalog, ResourceInfo } from "../../plugins/admission/index.ts";
import type { ResourceTable, ServedResource } from "../routing/resources.ts";

function info(served: ServedResource, version: string): ResourceInfo {
  const s = served.schema;
  const schema =
    s.versions.find((v) => v.name === version)?.schema ?? s.versions.find((v) => v.storage)?.schema;
  return {
    group: s.group,
    version,
    resource: s.plural,
    kind: s.kind,
    namespaced: s.namespaced,
    ...(schema ? { schema } : {}),
  };
}

export function resourceCatalog(table: ResourceTable): ResourceCatalog {
  return {
    byResource(group, version, resource) {
      const served = table.lookup(group, version, resource);
      return served ? info(served, version) : undefined;
    },
    byKind(group, version, kind) {
      for (const served of table.all) {
        const s = served.schema;
        if (s.group !== group || s.kind !== kind) continue;
        if (table.lookup(group, version, s.plural)) return info(served, version);
      }
      return undefined;
    },
  };
}
