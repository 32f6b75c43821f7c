// TaintNodesByCondition: a new Node starts with the not-ready NoSchedule taint, so nothing is
// scheduled onto it before the node lifecycle controller sees it ready and lifts the taint.
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { forbidden } from "../index.ts";

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

function plugin(env: PluginEnv): AdmissionPlugin {
  const notReady = env.naming.label("not-ready", "node");
  return {
    name: "TaintNodesByCondition",
    admit(a) {
      if (a.operation !== "CREATE" || a.subresource !== "") return;
      if (a.resource.group !== "" || a.resource.resource !== "nodes") return;
      const node = a.object;
      if (!node) return;
      if (node.spec === undefined || node.spec === null) node.spec = {};
      const spec = asObject(node.spec);
      if (!spec) throw forbidden(a, "unexpected type: node spec is not an object");
      const taints = spec.taints ?? [];
      if (!Array.isArray(taints)) throw forbidden(a, "unexpected type: spec.taints is not a list");
      // A taint matches on key and effect; its value does not matter.
      const present = taints.some((t) => {
        const o = asObject(t);
        return o?.key === notReady && o.effect === "NoSchedule";
      });
      if (!present) spec.taints = [...taints, { key: notReady, effect: "NoSchedule" }];
    },
  };
}

export const registration: PluginRegistration = { name: "TaintNodesByCondition", factory: plugin };
