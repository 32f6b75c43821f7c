import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type AdmissionPlugin, type JsonObject } from "../index.ts";
import { createResourceQuota } from "./plugin.ts";
import { pod, quota, until } from "./testing.ts";

describe("ResourceQuota", () => {
  let t: AdmissionTest;
  const plugins: AdmissionPlugin[] = [];
  let n = 0;

  before(async () => {
    t = await startAdmissionTest();
  });
  after(async () => {
    for (const p of plugins) await p.close?.();
    await t.stop();
  });

  /** A fresh namespace and a plugin over the control plane. */
  async function setup(configuration?: unknown): Promise<{ ns: string; plugin: AdmissionPlugin }> {
    const ns = `q${++n}`;
    await t.create("namespaces", undefined, { metadata: { name: ns } });
    const plugin = await createResourceQuota(t.env({ configuration }), { debounceMs: 10 });
    plugins.push(plugin);
    return { ns, plugin };
  }

  /** Admits a create the way the chain does, then stores it (as the registry would next). */
  async function create(
    plugin: AdmissionPlugin,
    resource: string,
    ns: string,
    object: JsonObject,
    dryRun = false,
  ) {
    await plugin.validate?.(t.attributes({ operation: "CREATE", resource, namespace: ns, object, dryRun }));
    if (!dryRun) await t.create(resource, ns, object);
  }

  const used = async (ns: string, name: string) =>
    ((await t.get("resourcequotas", ns, name))?.status as { used?: Record<string, string> } | undefined)
      ?.used;

  test("object counts: the write that would go over is refused with upstream's message", async () => {
    const { ns, plugin } = await setup();
    await t.create("resourcequotas", ns, quota("few", ns, { configmaps: "2", "count/secrets": "1" }));
    await create(plugin, "configmaps", ns, { metadata: { name: "a", namespace: ns } });
    await create(plugin, "configmaps", ns, { metadata: { name: "b", namespace: ns } });
    await assert.rejects(
      create(plugin, "configmaps", ns, { metadata: { name: "c", namespace: ns } }),
      (err: unknown) => {
        assert.ok(err instanceof AdmissionError);
        assert.equal(err.code, 403);
        assert.equal(
          err.message,
          'configmaps "c" is forbidden: exceeded quota: few, requested: configmaps=1, used: configmaps=2, limited: configmaps=2',
        );
        return true;
      },
    );
    assert.deepEqual(await used(ns, "few"), { configmaps: "2", "count/secrets": "0" });
    await create(plugin, "secrets", ns, { metadata: { name: "s1", namespace: ns }, type: "Opaque" });
    await assert.rejects(
      create(plugin, "secrets", ns, { metadata: { name: "s2", namespace: ns }, type: "Opaque" }),
      /exceeded quota: few, requested: count\/secrets=1, used: count\/secrets=1, limited: count\/secrets=1/,
    );
  });

  test("compute resources: requests and limits add up; a pod without a tracked resource is refused", async () => {
    const { ns, plugin } = await setup();
    await t.create(
      "resourcequotas",
      ns,
      quota("compute", ns, { "requests.cpu": "1", "limits.memory": "1Gi", pods: "10" }),
    );
    const sized = (cpu: string, memory: string) => ({ requests: { cpu }, limits: { memory, cpu } });
    await create(plugin, "pods", ns, pod("p1", ns, sized("600m", "512Mi")));
    await assert.rejects(
      create(plugin, "pods", ns, pod("p2", ns, sized("500m", "256Mi"))),
      /exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1/,
    );
    await create(plugin, "pods", ns, pod("p3", ns, sized("400m", "512Mi")));
    assert.deepEqual(await used(ns, "compute"), { "requests.cpu": "1", "limits.memory": "1Gi", pods: "2" });
    await assert.rejects(
      create(plugin, "pods", ns, pod("p4", ns)),
      /pods "p4" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c/,
    );
  });

  test("scopes: BestEffort and NotBestEffort quotas count only their pods", async () => {
    const { ns, plugin } = await setup();
    await t.create("resourcequotas", ns, quota("besteffort", ns, { pods: "1" }, { scopes: ["BestEffort"] }));
    await create(plugin, "pods", ns, pod("be1", ns));
    await assert.rejects(create(plugin, "pods", ns, pod("be2", ns)), /exceeded quota: besteffort/);
    await create(plugin, "pods", ns, pod("burstable", ns, { requests: { cpu: "100m" } }));
  });

  test("dry-run writes are judged but never charged", async () => {
    const { ns, plugin } = await setup();
    await t.create("resourcequotas", ns, quota("one", ns, { configmaps: "1" }));
    await create(plugin, "configmaps", ns, { metadata: { name: "a", namespace: ns } }, true);
    await create(plugin, "configmaps", ns, { metadata: { name: "b", namespace: ns } }, true);
    assert.deepEqual(await used(ns, "one"), { configmaps: "0" });
    await create(plugin, "configmaps", ns, { metadata: { name: "c", namespace: ns } });
    await assert.rejects(
      create(plugin, "configmaps", ns, { metadata: { name: "d", namespace: ns } }, true),
      /exceeded quota/,
    );
  });

  test("concurrent creates never go over the hard limit", async () => {
    const { ns, plugin } = await setup();
    await t.create("resourcequotas", ns, quota("five", ns, { pods: "5" }));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        plugin.validate?.(
          t.attributes({ operation: "CREATE", resource: "pods", namespace: ns, object: pod(`c${i}`, ns) }),
        ),
      ),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 5);
    assert.ok(results.every((r) => r.status === "fulfilled" || r.reason instanceof AdmissionError));
    assert.deepEqual(await used(ns, "five"), { pods: "5" });
  });

  test("two plugin instances (replicas) sharing the quota never go over it either", async () => {
    const { ns, plugin } = await setup();
    const { plugin: other } = await setup();
    await t.create("resourcequotas", ns, quota("five", ns, { pods: "5", configmaps: "3" }));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? plugin : other).validate?.(
          t.attributes({ operation: "CREATE", resource: "pods", namespace: ns, object: pod(`r${i}`, ns) }),
        ),
      ),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 5);
    for (const r of results) {
      if (r.status === "rejected")
        assert.match(String(r.reason?.message), /exceeded quota: five, requested: pods=1/);
    }
    assert.equal((await used(ns, "five"))?.pods, "5");
  });

  test("usage is given back after a delete, and status mirrors spec.hard", async () => {
    const { ns, plugin } = await setup();
    await t.create("configmaps", ns, { metadata: { name: "before", namespace: ns } });
    await t.create("resourcequotas", ns, quota("cm", ns, { configmaps: "2" }));
    // Counted from what already exists, without any write.
    await until("the recount", async () => {
      const u = await used(ns, "cm");
      return u?.configmaps === "1" ? u : undefined;
    });
    const stored = await t.get("resourcequotas", ns, "cm");
    assert.deepEqual(((stored as JsonObject).status as JsonObject).hard, { configmaps: "2" });
    await create(plugin, "configmaps", ns, { metadata: { name: "second", namespace: ns } });
    assert.equal((await used(ns, "cm"))?.configmaps, "2");
    await t.remove("configmaps", ns, "before");
    await until("the usage given back", async () =>
      (await used(ns, "cm"))?.configmaps === "1" ? true : undefined,
    );
    await create(plugin, "configmaps", ns, { metadata: { name: "third", namespace: ns } });
  });

  test("limitedResources: a tracked resource may only be used under a quota that covers it", async () => {
    const { ns, plugin } = await setup({
      apiVersion: `${t.naming.group("apiserver.config")}/v1`,
      kind: "ResourceQuotaConfiguration",
      limitedResources: [{ resource: "pods", matchContains: ["requests.cpu"] }],
    });
    await assert.rejects(
      create(plugin, "pods", ns, pod("cpu", ns, { requests: { cpu: "100m" } })),
      /insufficient quota to consume: requests.cpu/,
    );
    await create(plugin, "pods", ns, pod("nocpu", ns));
  });

  test("bad quantities give a 4xx, not a crash", async () => {
    const { ns, plugin } = await setup();
    await t.create("resourcequotas", ns, quota("cpu", ns, { "requests.cpu": "1" }));
    await assert.rejects(
      plugin.validate?.(
        t.attributes({
          operation: "CREATE",
          resource: "pods",
          namespace: ns,
          object: pod("bad", ns, { requests: { cpu: "lots" } }),
        }),
      ) as Promise<void>,
      (err: unknown) => err instanceof AdmissionError && err.code >= 400 && err.code < 500,
    );
  });
});

describe("ResourceQuota close()", () => {
  test("stops the background recount: quotas created afterwards get no status from it", async () => {
    const t = await startAdmissionTest();
    try {
      await t.create("namespaces", undefined, { metadata: { name: "closing" } });
      const plugin = await createResourceQuota(t.env(), { debounceMs: 5 });
      await t.create("resourcequotas", "closing", quota("before", "closing", { configmaps: "5" }));
      await until("the recount while open", async () => {
        const q = await t.get("resourcequotas", "closing", "before");
        return (q?.status as JsonObject | undefined)?.used ? true : undefined;
      });
      await plugin.close?.();
      await plugin.close?.();
      await t.create("resourcequotas", "closing", quota("after", "closing", { configmaps: "5" }));
      // Bounded look: long enough for several debounce periods of the closed plugin.
      await new Promise((r) => setTimeout(r, 200));
      // The status struct upstream always writes, left empty.
      assert.deepEqual((await t.get("resourcequotas", "closing", "after"))?.status, {});
    } finally {
      await t.stop();
    }
  });
});
