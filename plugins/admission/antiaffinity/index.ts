// LimitPodHardAntiAffinityTopology: required pod anti-affinity may only spread over hostnames, so
// that one pod cannot keep a whole zone or region free of others.
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { forbidden } from "../index.ts";

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

function plugin(env: PluginEnv): AdmissionPlugin {
  const hostname = env.naming.label("hostname");
  return {
    name: "LimitPodHardAntiAffinityTopology",
    validate(a) {
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      if (a.resource.group !== "" || a.resource.resource !== "pods" || a.subresource !== "") return;
      const anti = asObject(asObject(asObject(a.object?.spec)?.affinity)?.podAntiAffinity);
      const terms = anti?.requiredDuringSchedulingIgnoredDuringExecution;
      if (!Array.isArray(terms)) return;
      for (const term of terms) {
        const raw = asObject(term)?.topologyKey;
        const key = typeof raw === "string" ? raw : "";
        if (key !== hostname) {
          throw forbidden(
            a,
            `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${key} but only key ${hostname} is allowed`,
          );
        }
      }
    },
  };
}

export const registration: PluginRegistration = { name: "LimitPodHardAntiAffinityTopology", factory: plugin };
