import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "./testing.ts";

test("attributes carry the request's version, the storage version and what plugins leave", async () => {
  const t = await startAdmissionTest();
  try {
    const a = t.attributes({
      operation: "CREATE",
      resource: "horizontalpodautoscalers",
      group: "autoscaling",
      version: "v1",
      namespace: "default",
      object: { metadata: { name: "h" } },
    });
    assert.deepEqual(a.resource, {
      group: "autoscaling",
      version: "v1",
      resource: "horizontalpodautoscalers",
    });
    assert.deepEqual(a.kind, { group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler" });
    assert.equal(a.storageVersion, "v2");
    assert.equal(a.name, "h");
    assert.equal(a.namespace, "default");
    a.annotate("x.cluster.io/k", "v");
    a.warn("careful");
    assert.deepEqual(a.annotations, { "x.cluster.io/k": "v" });
    assert.deepEqual(a.warnings, ["careful"]);
    const nodes = t.attributes({ operation: "DELETE", resource: "nodes", name: "n1", namespace: "ignored" });
    assert.equal(nodes.namespace, "", "cluster-scoped resources have no namespace");

    await t.create("namespaces", undefined, { metadata: { name: "team" } });
    const ns = await t.get("namespaces", undefined, "team");
    assert.equal((ns?.metadata as { name?: string } | undefined)?.name, "team");
    const env = t.env();
    const updated = await env.writer.update(
      { group: "", resource: "namespaces" },
      undefined,
      "team",
      (cur) => ({
        ...cur,
        metadata: { ...(cur.metadata as object), labels: { a: "b" } },
      }),
    );
    assert.equal((updated.metadata as { labels?: Record<string, string> }).labels?.a, "b");
  } finally {
    await t.stop();
  }
});
