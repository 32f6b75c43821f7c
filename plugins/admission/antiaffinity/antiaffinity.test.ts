import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type JsonObject } from "../index.ts";
import { registration } from "./index.ts";

const pod = (affinity?: JsonObject): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default" },
  spec: { containers: [{ name: "c", image: "i" }], ...(affinity ? { affinity } : {}) },
});
const term = (topologyKey?: string) => ({
  labelSelector: {},
  ...(topologyKey === undefined ? {} : { topologyKey }),
});
const anti = (required: unknown[], preferred: unknown[] = []): JsonObject => ({
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: required,
    preferredDuringSchedulingIgnoredDuringExecution: preferred,
  },
});

for (const preset of ["cluster", "kubernetes"] as const) {
  test(`LimitPodHardAntiAffinityTopology (${preset}): only the hostname key is allowed`, async () => {
    const t = await startAdmissionTest({ preset });
    try {
      const host = `${preset === "cluster" ? "cluster.io" : "kubernetes.io"}/hostname`;
      const plugin = await registration.factory(t.env());
      const cases: { name: string; object: JsonObject; key?: string }[] = [
        { name: "no affinity", object: pod() },
        { name: "hostname", object: pod(anti([term(host), term(host)])) },
        {
          name: "preferred terms are free",
          object: pod(anti([], [{ weight: 1, podAffinityTerm: term("zone") }])),
        },
        {
          name: "pod affinity is free",
          object: pod({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term("zone")] } }),
        },
        {
          name: "zone",
          object: pod(anti([term(host), term("topology.cluster.io/zone")])),
          key: "topology.cluster.io/zone",
        },
        { name: "empty key", object: pod(anti([term()])), key: "" },
      ];
      for (const c of cases) {
        const a = t.attributes({ operation: "CREATE", resource: "pods", object: c.object });
        if (c.key === undefined) {
          await plugin.validate?.(a);
          continue;
        }
        await assert.rejects(
          async () => plugin.validate?.(a),
          (err: unknown) =>
            err instanceof AdmissionError &&
            err.code === 403 &&
            err.message ===
              `pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${c.key} but only key ${host} is allowed`,
          c.name,
        );
      }
    } finally {
      await t.stop();
    }
  });
}
