// NamespaceLifecycle: nothing new goes into a namespace that is missing or being deleted, and the
// namespaces the system relies on cannot be deleted. Namespaces themselves, deletions and access
// reviews always pass (a review must not reveal whether a namespace exists).
import type { AdmissionPlugin, Attributes, PluginEnv, PluginRegistration } from "../contract.ts";
import { AdmissionError, forbidden } from "../errors.ts";
import { findNamespace, namespaceNotFound } from "./lookup.ts";

function isAccessReview(a: Attributes, env: PluginEnv): boolean {
  return (
    a.resource.group === env.naming.group("authorization") &&
    a.resource.resource === "localsubjectaccessreviews"
  );
}

function lifecycle(env: PluginEnv): AdmissionPlugin {
  const immortal = new Set(["default", env.naming.systemNamespace, env.naming.publicNamespace]);
  return {
    name: "NamespaceLifecycle",
    async admit(a) {
      if (a.namespace === "" || (a.resource.group === "" && a.resource.resource === "namespaces")) {
        if (a.operation === "DELETE" && a.resource.resource === "namespaces" && immortal.has(a.name))
          throw forbidden(a, "this namespace may not be deleted");
        return;
      }
      if (a.operation === "DELETE" || isAccessReview(a, env)) return;
      const ns = await findNamespace(env, a.namespace);
      if (!ns) throw namespaceNotFound(a.namespace);
      if (a.operation !== "CREATE") return;
      if (ns.status?.phase !== "Terminating" && !ns.metadata.deletionTimestamp) return;
      const refused = forbidden(
        a,
        `unable to create new content in namespace ${a.namespace} because it is being terminated`,
      );
      throw new AdmissionError(refused.code, refused.reason, refused.message, {
        ...refused.details,
        causes: [
          {
            reason: "NamespaceTerminating",
            message: `namespace ${a.namespace} is being terminated`,
            field: "metadata.namespace",
          },
        ],
      });
    },
  };
}

export const namespaceLifecycle: PluginRegistration = { name: "NamespaceLifecycle", factory: lifecycle };
