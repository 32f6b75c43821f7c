// ExtendedResourceToleration: a pod requesting an extended resource (say `example.com/gpu`)
// tolerates the NoSchedule taint of that name, which operators put on nodes offering it.

import { isQualifiedName as qualifiedNameErrors } from "../../../backends/validation/index.ts";
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { badRequest } from "../index.ts";

const REQUESTS_PREFIX = "requests.";

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

const isQualifiedName = (value: string) => qualifiedNameErrors(value).length === 0;

/**
 * Upstream's IsExtendedResourceName: domain-prefixed, outside the product's own domain, not a
 * quota `requests.` name, and still a qualified name once quota prefixes it with `requests.`.
 */
export function isExtendedResourceName(name: string, labelDomain: string): boolean {
  const native = !name.includes("/") || name.includes(`${labelDomain}/`);
  if (native || name.startsWith(REQUESTS_PREFIX)) return false;
  return isQualifiedName(`${REQUESTS_PREFIX}${name}`);
}

function sameToleration(a: JsonObject, b: JsonObject): boolean {
  const fields = ["key", "operator", "value", "effect"] as const;
  const s = (o: JsonObject, f: string) => (typeof o[f] === "string" ? o[f] : "");
  return fields.every((f) => s(a, f) === s(b, f));
}

function plugin(env: PluginEnv): AdmissionPlugin {
  return {
    name: "ExtendedResourceToleration",
    admit(a) {
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      if (a.resource.group !== "" || a.resource.resource !== "pods" || a.subresource !== "") return;
      const pod = a.object;
      if (!pod) return;
      const spec = asObject(pod.spec);
      if (!spec) return;
      const names = new Set<string>();
      for (const list of [spec.containers, spec.initContainers]) {
        if (!Array.isArray(list)) continue;
        for (const c of list) {
          const requests = asObject(asObject(asObject(c)?.resources)?.requests) ?? {};
          for (const name of Object.keys(requests))
            if (isExtendedResourceName(name, env.naming.labelDomain)) names.add(name);
        }
      }
      if (names.size === 0) return;
      const raw = spec.tolerations ?? [];
      if (!Array.isArray(raw)) throw badRequest("spec.tolerations must be a list");
      let tolerations: unknown[] = raw;
      for (const key of [...names].sort()) {
        const wanted: JsonObject = { key, operator: "Exists", effect: "NoSchedule" };
        // One equal in key, operator, value and effect stays unless it differs in its seconds.
        const at = tolerations.findIndex((t) => {
          const o = asObject(t);
          return o !== undefined && sameToleration(o, wanted);
        });
        if (at < 0) tolerations = [...tolerations, wanted];
        else if (asObject(tolerations[at])?.tolerationSeconds != null)
          tolerations = tolerations.map((t, i) => (i === at ? wanted : t));
      }
      if (tolerations !== raw) spec.tolerations = tolerations;
    },
  };
}

export const registration: PluginRegistration = { name: "ExtendedResourceToleration", factory: plugin };
