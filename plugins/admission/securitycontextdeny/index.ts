// SecurityContextDeny (deprecated upstream, behind the SecurityContextDeny feature gate): pods
// may not set the security context fields that pick identities and SELinux labels.
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { forbidden } from "../index.ts";

const PLUGIN_NAME = "SecurityContextDeny";
const DOC_LINK =
  "https://k8s.io/docs/reference/access-authn-authz/admission-controllers/#securitycontextdeny";

/** Pod-level fields in upstream's order, with the Go field names its messages use. */
const POD_FIELDS = [
  ["supplementalGroups", "SupplementalGroups"],
  ["seLinuxOptions", "SELinuxOptions"],
  ["runAsUser", "RunAsUser"],
  ["fsGroup", "FSGroup"],
] as const;

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

const set = (o: JsonObject | undefined, field: string) =>
  o !== undefined && o[field] !== undefined && o[field] !== null;

function plugin(env: PluginEnv): AdmissionPlugin {
  if (env.options.featureGates.SecurityContextDeny !== true) {
    throw new Error(
      `${PLUGIN_NAME} admission controller is an alpha feature, planned to be removed, and requires the SecurityContextDeny feature gate to be enabled, see ${DOC_LINK} for more information`,
    );
  }
  return {
    name: PLUGIN_NAME,
    validate(a) {
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      if (a.resource.group !== "" || a.resource.resource !== "pods" || a.subresource !== "") return;
      const spec = asObject(a.object?.spec);
      if (!spec) return;
      const pod = asObject(spec.securityContext);
      for (const [field, name] of POD_FIELDS) {
        if (set(pod, field)) throw forbidden(a, `pod.Spec.SecurityContext.${name} is forbidden`);
      }
      // Init containers first, then containers; ephemeral containers are not checked upstream.
      for (const list of [spec.initContainers, spec.containers]) {
        if (!Array.isArray(list)) continue;
        for (const c of list) {
          const sc = asObject(asObject(c)?.securityContext);
          if (set(sc, "seLinuxOptions")) throw forbidden(a, "SecurityContext.SELinuxOptions is forbidden");
          if (set(sc, "runAsUser")) throw forbidden(a, "SecurityContext.RunAsUser is forbidden");
        }
      }
    },
  };
}

export const registration: PluginRegistration = { name: PLUGIN_NAME, factory: plugin };
