// NamespaceAutoProvision: a create into a namespace that does not exist creates the namespace
// first. A dry run creates nothing (its namespace would outlive the request).
import type { PluginRegistration } from "../contract.ts";
import { findNamespace, NAMESPACES } from "./lookup.ts";

export const namespaceAutoProvision: PluginRegistration = {
  name: "NamespaceAutoProvision",
  factory: (env) => ({
    name: "NamespaceAutoProvision",
    async admit(a) {
      if (a.operation !== "CREATE" || a.namespace === "" || a.dryRun) return;
      if (a.resource.group === "" && a.resource.resource === "namespaces") return;
      if (await findNamespace(env, a.namespace)) return;
      try {
        await env.writer.create(NAMESPACES, undefined, {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: a.namespace },
        });
      } catch (err) {
        // Someone else made it meanwhile: that is what was wanted.
        if ((err as { reason?: string }).reason !== "AlreadyExists") throw err;
      }
    },
  }),
};
