// NamespaceExists: requests into a namespace that does not exist are refused (NotFound).
import type { PluginRegistration } from "../contract.ts";
import { findNamespace, namespaceNotFound } from "./lookup.ts";

export const namespaceExists: PluginRegistration = {
  name: "NamespaceExists",
  factory: (env) => ({
    name: "NamespaceExists",
    async validate(a) {
      if (a.namespace === "" || (a.resource.group === "" && a.resource.resource === "namespaces")) return;
      if (!(await findNamespace(env, a.namespace))) throw namespaceNotFound(a.namespace);
    },
  }),
};
