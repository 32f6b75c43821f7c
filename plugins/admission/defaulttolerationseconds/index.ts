// DefaultTolerationSeconds: pods that do not tolerate the not-ready and unreachable NoExecute
// taints get tolerations for them bounded by the server's default seconds (300 unless flagged).
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { badRequest } from "../index.ts";

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

function seconds(value: unknown, flag: string): number {
  if (value === undefined) return 300;
  if (typeof value !== "number" || !Number.isSafeInteger(value))
    throw new Error(`DefaultTolerationSeconds: ${flag} must be an integer, got ${String(value)}`);
  return value;
}

function plugin(env: PluginEnv): AdmissionPlugin {
  const notReady = env.naming.label("not-ready", "node");
  const unreachable = env.naming.label("unreachable", "node");
  const notReadySeconds = seconds(
    env.options.defaultNotReadyTolerationSeconds,
    "default-not-ready-toleration-seconds",
  );
  const unreachableSeconds = seconds(
    env.options.defaultUnreachableTolerationSeconds,
    "default-unreachable-toleration-seconds",
  );
  return {
    name: "DefaultTolerationSeconds",
    admit(a) {
      // Upstream handles creates and updates alike (an update may only add tolerations).
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      if (a.resource.group !== "" || a.resource.resource !== "pods" || a.subresource !== "") return;
      const pod = a.object;
      if (!pod) return;
      if (pod.spec === undefined || pod.spec === null) pod.spec = {};
      const spec = asObject(pod.spec);
      if (!spec) throw badRequest("pod spec must be an object");
      const raw = spec.tolerations ?? [];
      if (!Array.isArray(raw)) throw badRequest("spec.tolerations must be a list");
      // A toleration with an empty key or effect covers every key or effect.
      const covers = (t: unknown, key: string) => {
        const o = asObject(t);
        if (!o) return false;
        const k = typeof o.key === "string" ? o.key : "";
        const e = typeof o.effect === "string" ? o.effect : "";
        return (k === key || k === "") && (e === "NoExecute" || e === "");
      };
      const added: JsonObject[] = [];
      if (!raw.some((t) => covers(t, notReady)))
        added.push({
          key: notReady,
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: notReadySeconds,
        });
      if (!raw.some((t) => covers(t, unreachable))) {
        added.push({
          key: unreachable,
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: unreachableSeconds,
        });
      }
      if (added.length > 0) spec.tolerations = [...raw, ...added];
    },
  };
}

export const registration: PluginRegistration = { name: "DefaultTolerationSeconds", factory: plugin };
