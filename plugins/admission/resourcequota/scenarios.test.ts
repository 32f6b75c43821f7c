// Services, claims, pod scopes, updates and configuration against the real test control plane.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type AdmissionPlugin, type JsonObject, type PluginOptions } from "../index.ts";
import { createResourceQuota } from "./plugin.ts";
import { pod, quota, until } from "./testing.ts";

const service = (name: string, ns: string, type: string, ports = 1): JsonObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace: ns },
  spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ port: 80 + i, name: `p${i}` })) },
});

const claim = (name: string, ns: string, storage: string, storageClassName?: string): JsonObject => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name, namespace: ns },
  spec: {
    accessModes: ["ReadWriteOnce"],
    resources: { requests: { storage } },
    ...(storageClassName ? { storageClassName } : {}),
  },
});

/** Asserts an AdmissionError with this code and exact message. */
function refusedWith(code: number, message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof AdmissionError, `not an AdmissionError: ${String(err)}`);
    assert.equal(err.message, message);
    assert.equal(err.code, code);
    return true;
  };
}

describe("ResourceQuota scenarios", () => {
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

  async function setup(
    configuration?: unknown,
    options: Partial<PluginOptions> = {},
  ): Promise<{ ns: string; plugin: AdmissionPlugin }> {
    const ns = `s${++n}`;
    await t.create("namespaces", undefined, { metadata: { name: ns } });
    const plugin = await createResourceQuota(t.env({ configuration, options }), { debounceMs: 10 });
    plugins.push(plugin);
    return { ns, plugin };
  }

  async function admitCreate(plugin: AdmissionPlugin, resource: string, ns: string, object: JsonObject) {
    await plugin.validate?.(t.attributes({ operation: "CREATE", resource, namespace: ns, object }));
    return t.create(resource, ns, object);
  }

  /** Admits an update of a stored object, then stores it; returns the stored result. */
  async function admitUpdate(
    plugin: AdmissionPlugin,
    resource: string,
    ns: string,
    name: string,
    change: (o: JsonObject) => void,
  ) {
    const old = (await t.get(resource, ns, name)) as JsonObject;
    const object = structuredClone(old);
    change(object);
    await plugin.validate?.(
      t.attributes({ operation: "UPDATE", resource, namespace: ns, name, object, oldObject: old }),
    );
    return t.env().writer.update({ group: "", resource }, ns, name, (current) => {
      const next = structuredClone(current);
      next.spec = object.spec;
      return next;
    });
  }

  const used = async (ns: string, name: string) =>
    ((await t.get("resourcequotas", ns, name))?.status as { used?: Record<string, string> } | undefined)
      ?.used;

  test("services: load balancers and node ports, on create and on a type change", async () => {
    const { ns, plugin } = await setup();
    const hard = { services: "3", "services.loadbalancers": "1", "services.nodeports": "2" };
    await t.create("resourcequotas", ns, quota("svc", ns, hard));
    await admitCreate(plugin, "services", ns, service("a", ns, "ClusterIP"));
    await admitCreate(plugin, "services", ns, service("b", ns, "LoadBalancer"));
    assert.deepEqual(await used(ns, "svc"), {
      services: "2",
      "services.loadbalancers": "1",
      "services.nodeports": "1",
    });
    await assert.rejects(
      admitCreate(plugin, "services", ns, service("c", ns, "LoadBalancer")),
      refusedWith(
        403,
        'services "c" is forbidden: exceeded quota: svc, requested: services.loadbalancers=1, used: services.loadbalancers=1, limited: services.loadbalancers=1',
      ),
    );
    await assert.rejects(
      admitUpdate(plugin, "services", ns, "a", (s) => {
        s.spec = service("a", ns, "NodePort", 2).spec;
      }),
      refusedWith(
        403,
        'services "a" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=1, limited: services.nodeports=2',
      ),
    );
    await admitUpdate(plugin, "services", ns, "a", (s) => {
      s.spec = service("a", ns, "NodePort", 1).spec;
    });
    assert.deepEqual(await used(ns, "svc"), {
      services: "2",
      "services.loadbalancers": "1",
      "services.nodeports": "2",
    });
    // Back to ClusterIP: the update charges nothing, the recount gives the node port back.
    await admitUpdate(plugin, "services", ns, "a", (s) => {
      s.spec = service("a", ns, "ClusterIP", 1).spec;
    });
    await until("the node port given back", async () =>
      (await used(ns, "svc"))?.["services.nodeports"] === "1" ? true : undefined,
    );
  });

  test("claims: storage in total and per storage class; a bigger claim charges the growth", async () => {
    const { ns, plugin } = await setup();
    const gold = `gold.storageclass.${t.naming.group("storage")}/requests.storage`;
    const goldClaims = `gold.storageclass.${t.naming.group("storage")}/persistentvolumeclaims`;
    await t.create(
      "resourcequotas",
      ns,
      quota("storage", ns, {
        "requests.storage": "10Gi",
        persistentvolumeclaims: "5",
        [gold]: "3Gi",
        [goldClaims]: "4",
      }),
    );
    await admitCreate(plugin, "persistentvolumeclaims", ns, claim("c1", ns, "2Gi", "gold"));
    await assert.rejects(
      admitCreate(plugin, "persistentvolumeclaims", ns, claim("c2", ns, "2Gi", "gold")),
      refusedWith(
        403,
        `persistentvolumeclaims "c2" is forbidden: exceeded quota: storage, requested: ${gold}=2Gi, used: ${gold}=2Gi, limited: ${gold}=3Gi`,
      ),
    );
    await admitCreate(plugin, "persistentvolumeclaims", ns, claim("c3", ns, "5Gi"));
    assert.deepEqual(await used(ns, "storage"), {
      "requests.storage": "7Gi",
      persistentvolumeclaims: "2",
      [gold]: "2Gi",
      [goldClaims]: "1",
    });
    await assert.rejects(
      admitUpdate(plugin, "persistentvolumeclaims", ns, "c3", (c) => {
        ((c.spec as JsonObject).resources as JsonObject).requests = { storage: "9Gi" };
      }),
      refusedWith(
        403,
        'persistentvolumeclaims "c3" is forbidden: exceeded quota: storage, requested: requests.storage=4Gi, used: requests.storage=7Gi, limited: requests.storage=10Gi',
      ),
    );
    await assert.rejects(
      admitCreate(plugin, "persistentvolumeclaims", ns, claim("bad", ns, "a lot")),
      (err: unknown) => err instanceof AdmissionError && err.code === 400,
    );
  });

  test("raised limits apply to the next write; a new quota is counted before judging", async () => {
    const { ns, plugin } = await setup();
    await t.create("configmaps", ns, { metadata: { name: "old", namespace: ns } });
    // Judged at once, without waiting for the background count: the existing configmap counts.
    await t.create("resourcequotas", ns, quota("cm", ns, { configmaps: "1" }));
    await assert.rejects(
      admitCreate(plugin, "configmaps", ns, { metadata: { name: "new", namespace: ns } }),
      refusedWith(
        403,
        'configmaps "new" is forbidden: exceeded quota: cm, requested: configmaps=1, used: configmaps=1, limited: configmaps=1',
      ),
    );
    await t.env().writer.update({ group: "", resource: "resourcequotas" }, ns, "cm", (current) => ({
      ...current,
      spec: { hard: { configmaps: "2" } },
    }));
    await admitCreate(plugin, "configmaps", ns, { metadata: { name: "new", namespace: ns } });
    const stored = (await t.get("resourcequotas", ns, "cm")) as JsonObject;
    assert.deepEqual(stored.status, { hard: { configmaps: "2" }, used: { configmaps: "2" } });
  });

  // Each row: a quota's scope, and whether it is charged for each pod.
  const scopeRows: {
    name: string;
    spec: JsonObject;
    pods: { spec?: JsonObject; resources?: JsonObject; charged: boolean }[];
  }[] = [
    {
      name: "Terminating",
      spec: { scopes: ["Terminating"] },
      pods: [{ spec: { activeDeadlineSeconds: 30 }, charged: true }, { charged: false }],
    },
    {
      name: "NotTerminating",
      spec: { scopes: ["NotTerminating"] },
      pods: [{ spec: { activeDeadlineSeconds: 30 }, charged: false }, { charged: true }],
    },
    {
      name: "NotBestEffort",
      spec: { scopes: ["NotBestEffort"] },
      pods: [{ resources: { limits: { memory: "1Gi" } }, charged: true }, { charged: false }],
    },
    {
      name: "PriorityClass In",
      spec: {
        scopeSelector: {
          matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }],
        },
      },
      pods: [
        { spec: { priorityClassName: "high" }, charged: true },
        { spec: { priorityClassName: "low" }, charged: false },
        { charged: false },
      ],
    },
    {
      name: "PriorityClass NotIn",
      spec: {
        scopeSelector: {
          matchExpressions: [{ scopeName: "PriorityClass", operator: "NotIn", values: ["high"] }],
        },
      },
      pods: [{ spec: { priorityClassName: "high" }, charged: false }, { charged: true }],
    },
    {
      name: "PriorityClass Exists",
      spec: { scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "Exists" }] } },
      pods: [{ spec: { priorityClassName: "low" }, charged: true }, { charged: false }],
    },
    {
      // Upstream matches the class as an always-present label: DoesNotExist never matches.
      name: "PriorityClass DoesNotExist",
      spec: {
        scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "DoesNotExist" }] },
      },
      pods: [{ spec: { priorityClassName: "low" }, charged: false }, { charged: false }],
    },
    {
      name: "BestEffort and Terminating together",
      spec: { scopes: ["BestEffort", "Terminating"] },
      pods: [
        { spec: { activeDeadlineSeconds: 30 }, charged: true },
        { spec: { activeDeadlineSeconds: 30 }, resources: { requests: { cpu: "1" } }, charged: false },
        { charged: false },
      ],
    },
  ];
  for (const row of scopeRows) {
    test(`scope ${row.name}: only matching pods are charged`, async () => {
      const { ns, plugin } = await setup();
      await t.create("resourcequotas", ns, quota("scoped", ns, { pods: "10" }, row.spec));
      let expected = 0;
      for (const [i, p] of row.pods.entries()) {
        await admitCreate(plugin, "pods", ns, pod(`p${i}`, ns, p.resources, p.spec));
        if (p.charged) expected++;
        assert.equal((await used(ns, "scoped"))?.pods, String(expected), `pod ${i}`);
      }
    });
  }

  test("a scoped quota at its limit refuses only the pods it matches", async () => {
    const { ns, plugin } = await setup();
    await t.create("resourcequotas", ns, quota("term", ns, { pods: "1" }, { scopes: ["Terminating"] }));
    await admitCreate(plugin, "pods", ns, pod("t1", ns, undefined, { activeDeadlineSeconds: 10 }));
    await assert.rejects(
      admitCreate(plugin, "pods", ns, pod("t2", ns, undefined, { activeDeadlineSeconds: 10 })),
      refusedWith(
        403,
        'pods "t2" is forbidden: exceeded quota: term, requested: pods=1, used: pods=1, limited: pods=1',
      ),
    );
    await admitCreate(plugin, "pods", ns, pod("long", ns));
  });

  test("pods: init containers are a floor, overhead is added, extended resources are requests.*", async () => {
    const { ns, plugin } = await setup();
    const gpu = "requests.example.com/gpu";
    await t.create(
      "resourcequotas",
      ns,
      quota("compute", ns, { "requests.cpu": "4", "limits.cpu": "4", [gpu]: "2", "count/pods": "10" }),
    );
    const p = pod(
      "big",
      ns,
      { requests: { cpu: "500m", "example.com/gpu": "1" }, limits: { cpu: "1", "example.com/gpu": "1" } },
      {
        initContainers: [
          { name: "init", image: "busybox", resources: { requests: { cpu: "2" }, limits: { cpu: "2" } } },
        ],
        overhead: { cpu: "250m" },
      },
    );
    await admitCreate(plugin, "pods", ns, p);
    assert.deepEqual(await used(ns, "compute"), {
      "requests.cpu": "2250m",
      "limits.cpu": "2250m",
      [gpu]: "1",
      "count/pods": "1",
    });
    const twoGpus = pod("gpus", ns, {
      requests: { cpu: "100m", "example.com/gpu": "2" },
      limits: { cpu: "100m", "example.com/gpu": "2" },
    });
    await assert.rejects(
      admitCreate(plugin, "pods", ns, twoGpus),
      refusedWith(
        403,
        `pods "gpus" is forbidden: exceeded quota: compute, requested: ${gpu}=2, used: ${gpu}=1, limited: ${gpu}=2`,
      ),
    );
  });

  test("refusals name the object by generateName, or Unknown", async () => {
    const { ns, plugin } = await setup();
    await t.create("resourcequotas", ns, quota("none", ns, { pods: "0", configmaps: "0" }));
    const generated = pod("", ns);
    generated.metadata = { generateName: "web-", namespace: ns };
    await assert.rejects(
      plugin.validate?.(
        t.attributes({ operation: "CREATE", resource: "pods", namespace: ns, object: generated }),
      ) as Promise<void>,
      refusedWith(
        403,
        'pods "web-" is forbidden: exceeded quota: none, requested: pods=1, used: pods=0, limited: pods=0',
      ),
    );
    await assert.rejects(
      plugin.validate?.(
        t.attributes({
          operation: "CREATE",
          resource: "configmaps",
          namespace: ns,
          object: { metadata: { namespace: ns } },
        }),
      ) as Promise<void>,
      refusedWith(
        403,
        'configmaps "Unknown" is forbidden: exceeded quota: none, requested: configmaps=1, used: configmaps=0, limited: configmaps=0',
      ),
    );
  });

  test("a pod that finishes gives its compute back, not its object count", async () => {
    const { ns, plugin } = await setup();
    await t.create("resourcequotas", ns, quota("life", ns, { pods: "1", "count/pods": "5" }));
    await admitCreate(plugin, "pods", ns, pod("job", ns));
    await assert.rejects(
      admitCreate(plugin, "pods", ns, pod("next", ns)),
      /exceeded quota: life, requested: pods=1/,
    );
    await t.env().writer.update(
      { group: "", resource: "pods" },
      ns,
      "job",
      (current) => ({
        ...current,
        status: { ...((current.status as JsonObject) ?? {}), phase: "Failed" },
      }),
      { subresource: "status" },
    );
    await until("the pod given back", async () =>
      (await used(ns, "life"))?.pods === "0" ? true : undefined,
    );
    assert.equal((await used(ns, "life"))?.["count/pods"], "1");
    await admitCreate(plugin, "pods", ns, pod("next", ns));
  });

  test("pod updates: ignored without InPlacePodVerticalScaling, a resize charges the signed difference with it", async () => {
    const { ns, plugin } = await setup(undefined, { featureGates: { InPlacePodVerticalScaling: true } });
    await t.create("resourcequotas", ns, quota("cpu", ns, { "requests.cpu": "1" }));
    const sized = (cpu: string) => ({ requests: { cpu }, limits: { cpu } });
    await admitCreate(plugin, "pods", ns, pod("p1", ns, sized("600m")));
    const setCpu = (cpu: string) => (p: JsonObject) => {
      const c = ((p.spec as JsonObject).containers as JsonObject[])[0] as JsonObject;
      c.resources = sized(cpu);
    };
    await assert.rejects(
      admitUpdate(plugin, "pods", ns, "p1", setCpu("1200m")),
      refusedWith(
        403,
        'pods "p1" is forbidden: exceeded quota: cpu, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1',
      ),
    );
    const old = (await t.get("pods", ns, "p1")) as JsonObject;
    const smaller = structuredClone(old);
    setCpu("200m")(smaller);
    await plugin.validate?.(
      t.attributes({ operation: "UPDATE", resource: "pods", namespace: ns, object: smaller, oldObject: old }),
    );
    assert.equal((await used(ns, "cpu"))?.["requests.cpu"], "200m");

    // Without the gate a pod update is not judged at all.
    const { ns: ns2, plugin: plain } = await setup();
    await t.create("resourcequotas", ns2, quota("cpu", ns2, { "requests.cpu": "1" }));
    await admitCreate(plain, "pods", ns2, pod("p1", ns2, sized("600m")));
    const old2 = (await t.get("pods", ns2, "p1")) as JsonObject;
    const bigger = structuredClone(old2);
    setCpu("5")(bigger);
    await plain.validate?.(
      t.attributes({
        operation: "UPDATE",
        resource: "pods",
        namespace: ns2,
        object: bigger,
        oldObject: old2,
      }),
    );
    assert.equal((await used(ns2, "cpu"))?.["requests.cpu"], "600m");
  });

  test("limitedResources matchScopes: a matching pod needs a quota with that scope", async () => {
    const { ns, plugin } = await setup({
      apiVersion: `${t.naming.group("apiserver.config")}/v1`,
      kind: "ResourceQuotaConfiguration",
      limitedResources: [
        {
          resource: "pods",
          matchScopes: [{ scopeName: "PriorityClass", operator: "In", values: ["critical"] }],
        },
      ],
    });
    const critical = pod("crit", ns, undefined, { priorityClassName: "critical" });
    await assert.rejects(
      admitCreate(plugin, "pods", ns, critical),
      refusedWith(500, "insufficient quota to match these scopes: [{PriorityClass In [critical]}]"),
    );
    await admitCreate(plugin, "pods", ns, pod("ordinary", ns));
    await t.create(
      "resourcequotas",
      ns,
      quota(
        "crit",
        ns,
        { pods: "1" },
        {
          scopeSelector: {
            matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["critical"] }],
          },
        },
      ),
    );
    await admitCreate(plugin, "pods", ns, critical);
    assert.equal((await used(ns, "crit"))?.pods, "1");
  });

  test("subresources, cluster-scoped writes, events and deletes are never judged", async () => {
    const { ns, plugin } = await setup();
    await t.create("resourcequotas", ns, quota("zero", ns, { pods: "0", "count/events": "0" }));
    // Events are never counted, so their usage stays unknown; pods are counted at once.
    await until("the first count", async () => ((await used(ns, "zero"))?.pods === "0" ? true : undefined));
    const p = pod("p", ns);
    await plugin.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "pods",
        subresource: "binding",
        namespace: ns,
        name: "p",
        object: { metadata: { name: "p", namespace: ns }, target: { kind: "Node", name: "n" } },
      }),
    );
    await plugin.validate?.(
      t.attributes({ operation: "DELETE", resource: "pods", namespace: ns, name: "p", oldObject: p }),
    );
    await plugin.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "events",
        namespace: ns,
        object: { metadata: { name: "e", namespace: ns }, involvedObject: {} },
      }),
    );
    await plugin.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "namespaces",
        object: { metadata: { name: `${ns}-other` } },
      }),
    );
    assert.deepEqual(await used(ns, "zero"), { pods: "0" });
  });

  test("configuration errors fail the factory", async () => {
    const bad: unknown[] = [
      "limitedResources",
      { limitedResources: "pods" },
      { limitedResources: [{ matchContains: ["cpu"] }] },
      { limitedResources: [{ resource: "pods", matchContains: "cpu" }] },
      {
        limitedResources: [
          { resource: "pods", matchScopes: [{ scopeName: "PriorityClass", operator: "Near" }] },
        ],
      },
      { apiVersion: "v1", kind: "ResourceQuotaConfiguration" },
      { apiVersion: `${t.naming.group("apiserver.config")}/v1`, kind: "Configuration" },
    ];
    for (const configuration of bad) {
      assert.throws(
        () => createResourceQuota(t.env({ configuration })),
        /ResourceQuota configuration/,
        JSON.stringify(configuration),
      );
    }
    const legacy = createResourceQuota(
      t.env({
        configuration: {
          apiVersion: `${t.naming.group("resourcequota.admission")}/v1beta1`,
          kind: "Configuration",
          limitedResources: [{ resource: "pods", matchContains: ["cpu"] }],
        },
      }),
    );
    legacy.close?.();
  });
});
