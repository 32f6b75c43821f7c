import assert from "node:assert/strict";
import { test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type AdmissionPlugin, type JsonObject } from "../index.ts";
import { registration } from "./index.ts";

const NS = "team";

async function waitFor(what: string, ok: () => boolean, boundMs = 5000): Promise<void> {
  const until = Date.now() + boundMs;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A control plane with the namespace and the given LimitRange items, and the plugin over it. */
async function setup(
  ranges: JsonObject[][],
  run: (t: AdmissionTest, plugin: AdmissionPlugin) => Promise<void>,
): Promise<void> {
  const t = await startAdmissionTest();
  try {
    await t.create("namespaces", undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    for (const [i, limits] of ranges.entries()) {
      await t.create("limitranges", NS, {
        apiVersion: "v1",
        kind: "LimitRange",
        metadata: { name: `lr${i}`, namespace: NS },
        spec: { limits },
      });
    }
    const plugin = await registration.factory(t.env());
    const informer = t.objects.informer({ group: "", resource: "limitranges" });
    await waitFor("limit ranges", () => (informer?.list(NS).length ?? 0) === ranges.length);
    await run(t, plugin);
  } finally {
    await t.stop();
  }
}

function pod(containers: JsonObject[], initContainers?: JsonObject[]): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: NS },
    spec: { containers, ...(initContainers ? { initContainers } : {}) },
  };
}

const container = (name: string, resources?: JsonObject): JsonObject => ({
  name,
  image: "img",
  ...(resources ? { resources } : {}),
});

async function admitAndValidate(t: AdmissionTest, plugin: AdmissionPlugin, object: JsonObject) {
  const a = t.attributes({ operation: "CREATE", resource: "pods", namespace: NS, object });
  await plugin.admit?.(a);
  await plugin.validate?.(a);
  return a;
}

async function refusal(p: Promise<unknown>): Promise<AdmissionError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof AdmissionError, String(err));
    return err;
  }
  assert.fail("expected a refusal");
}

test("registration is upstream's name", () => {
  assert.equal(registration.name, "LimitRanger");
});

test("defaults fill missing requests and limits and annotate the pod", async () => {
  const cases: {
    name: string;
    limits: JsonObject[];
    pod: JsonObject;
    want: JsonObject[];
    initWant?: JsonObject[];
    note?: string;
  }[] = [
    {
      name: "default limit and request",
      limits: [
        { type: "Container", default: { cpu: "500m", memory: "256Mi" }, defaultRequest: { cpu: "100m" } },
      ],
      pod: pod([container("c1")]),
      want: [{ limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "256Mi" } }],
      note: "LimitRanger plugin set: cpu, memory request for container c1; cpu, memory limit for container c1",
    },
    {
      name: "the request defaults to the default limit when no default request is given",
      limits: [{ type: "Container", default: { cpu: "1" } }],
      pod: pod([container("c1")]),
      want: [{ limits: { cpu: "1" }, requests: { cpu: "1" } }],
      note: "LimitRanger plugin set: cpu request for container c1; cpu limit for container c1",
    },
    {
      name: "max becomes the default limit, min the default request",
      limits: [{ type: "Container", max: { cpu: "2" }, min: { memory: "64Mi" } }],
      pod: pod([container("c1")]),
      want: [{ limits: { cpu: "2" }, requests: { cpu: "2", memory: "64Mi" } }],
      note: "LimitRanger plugin set: cpu, memory request for container c1; cpu limit for container c1",
    },
    {
      name: "explicit values are kept",
      limits: [
        {
          type: "Container",
          default: { cpu: "1", memory: "1Gi" },
          defaultRequest: { cpu: "500m", memory: "512Mi" },
        },
      ],
      pod: pod([container("c1", { requests: { cpu: "200m" }, limits: { memory: "2Gi" } })]),
      want: [{ requests: { cpu: "200m", memory: "512Mi" }, limits: { memory: "2Gi", cpu: "1" } }],
      note: "LimitRanger plugin set: memory request for container c1; cpu limit for container c1",
    },
    {
      name: "init containers are defaulted too",
      limits: [{ type: "Container", default: { cpu: "300m" } }],
      pod: pod(
        [container("main", { limits: { cpu: "300m" }, requests: { cpu: "300m" } })],
        [container("setup")],
      ),
      want: [{ limits: { cpu: "300m" }, requests: { cpu: "300m" } }],
      initWant: [{ limits: { cpu: "300m" }, requests: { cpu: "300m" } }],
      note: "LimitRanger plugin set: cpu request for init container setup; cpu limit for init container setup",
    },
    {
      name: "nothing to set leaves the pod unannotated",
      limits: [{ type: "Container", default: { cpu: "1" } }],
      pod: pod([container("c1", { limits: { cpu: "1" }, requests: { cpu: "1" } })]),
      want: [{ limits: { cpu: "1" }, requests: { cpu: "1" } }],
    },
  ];
  for (const c of cases) {
    await setup([c.limits], async (t, plugin) => {
      const a = await admitAndValidate(t, plugin, structuredClone(c.pod));
      const spec = a.object?.spec as { containers: JsonObject[]; initContainers?: JsonObject[] };
      assert.deepEqual(
        spec.containers.map((x) => x.resources),
        c.want,
        c.name,
      );
      if (c.initWant)
        assert.deepEqual(
          spec.initContainers?.map((x) => x.resources),
          c.initWant,
          c.name,
        );
      const annotations = (a.object?.metadata as { annotations?: Record<string, string> } | undefined)
        ?.annotations;
      assert.equal(annotations?.[t.naming.label("limit-ranger")], c.note, c.name);
    });
  }
});

test("the annotation uses the naming preset's domain", async () => {
  const t = await startAdmissionTest({ preset: "kubernetes" });
  try {
    await t.create("namespaces", undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    await t.create("limitranges", NS, {
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: "lr", namespace: NS },
      spec: { limits: [{ type: "Container", default: { cpu: "1" } }] },
    });
    const plugin = await registration.factory(t.env());
    await waitFor(
      "limit range",
      () => (t.objects.informer({ group: "", resource: "limitranges" })?.list(NS).length ?? 0) > 0,
    );
    const a = await admitAndValidate(t, plugin, pod([container("c")]));
    const annotations = (a.object as JsonObject & { metadata: { annotations: Record<string, string> } })
      .metadata.annotations;
    assert.equal(
      annotations["kubernetes.io/limit-ranger"],
      "LimitRanger plugin set: cpu request for container c; cpu limit for container c",
    );
  } finally {
    await t.stop();
  }
});

test("min, max and ratio refusals carry upstream's messages", async () => {
  const cases: { name: string; limits: JsonObject[]; pod: JsonObject; admit?: boolean; want: string }[] = [
    {
      name: "container max on limit",
      limits: [{ type: "Container", max: { cpu: "1" } }],
      pod: pod([container("c", { limits: { cpu: "2" } })]),
      want: 'pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
    },
    {
      name: "container max without a limit",
      limits: [{ type: "Container", max: { memory: "1Gi" } }],
      pod: pod([container("c", { requests: { memory: "10Mi" } })]),
      admit: false,
      want: 'pods "p" is forbidden: maximum memory usage per Container is 1Gi.  No limit is specified',
    },
    {
      name: "container min on request",
      limits: [{ type: "Container", min: { memory: "100Mi" } }],
      pod: pod([container("c", { requests: { memory: "50Mi" } })]),
      want: 'pods "p" is forbidden: minimum memory usage per Container is 100Mi, but request is 50Mi',
    },
    {
      name: "container min without a request",
      limits: [{ type: "Container", min: { cpu: "100m" } }],
      pod: pod([container("c")]),
      admit: false,
      want: 'pods "p" is forbidden: minimum cpu usage per Container is 100m.  No request is specified',
    },
    {
      name: "container min on limit",
      limits: [{ type: "Container", min: { cpu: "500m" } }],
      pod: pod([container("c", { requests: { cpu: "500m" }, limits: { cpu: "200m" } })]),
      want: 'pods "p" is forbidden: minimum cpu usage per Container is 500m, but limit is 200m',
    },
    {
      name: "limit to request ratio",
      limits: [{ type: "Container", maxLimitRequestRatio: { cpu: "2" } }],
      pod: pod([container("c", { requests: { cpu: "100m" }, limits: { cpu: "500m" } })]),
      want: 'pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000',
    },
    {
      name: "ratio without a limit",
      limits: [{ type: "Container", maxLimitRequestRatio: { memory: "2" } }],
      pod: pod([container("c", { requests: { memory: "1Gi" } })]),
      want: 'pods "p" is forbidden: memory max limit to request ratio per Container is 2, but no limit is specified or limit is 0',
    },
    {
      name: "pod max sums the containers",
      limits: [{ type: "Pod", max: { cpu: "1" } }],
      pod: pod([
        container("a", { requests: { cpu: "600m" }, limits: { cpu: "600m" } }),
        container("b", { requests: { cpu: "600m" }, limits: { cpu: "600m" } }),
      ]),
      want: 'pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m',
    },
    {
      name: "an init container is a floor of the pod's total",
      limits: [{ type: "Pod", max: { memory: "1Gi" } }],
      pod: pod(
        [container("a", { requests: { memory: "100Mi" }, limits: { memory: "100Mi" } })],
        [container("i", { requests: { memory: "2Gi" }, limits: { memory: "2Gi" } })],
      ),
      want: 'pods "p" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 2Gi',
    },
    {
      name: "several failures are bracketed",
      limits: [{ type: "Container", max: { cpu: "1" }, min: { cpu: "500m" } }],
      pod: pod([container("c", { requests: { cpu: "100m" }, limits: { cpu: "2" } })]),
      want: 'pods "p" is forbidden: [minimum cpu usage per Container is 500m, but request is 100m, maximum cpu usage per Container is 1, but limit is 2]',
    },
  ];
  for (const c of cases) {
    await setup([c.limits], async (t, plugin) => {
      const a = t.attributes({
        operation: "CREATE",
        resource: "pods",
        namespace: NS,
        object: structuredClone(c.pod),
      });
      if (c.admit !== false) await plugin.admit?.(a);
      const err = await refusal(Promise.resolve(plugin.validate?.(a)));
      assert.equal(err.code, 403, c.name);
      assert.equal(err.message, c.want, c.name);
    });
  }
});

test("pods within bounds are admitted", async () => {
  await setup(
    [
      [
        {
          type: "Container",
          max: { cpu: "2", memory: "1Gi" },
          min: { cpu: "100m" },
          maxLimitRequestRatio: { cpu: "4" },
        },
      ],
    ],
    async (t, plugin) => {
      const a = await admitAndValidate(
        t,
        plugin,
        pod([container("c", { requests: { cpu: "500m", memory: "100Mi" }, limits: { cpu: "2000m" } })]),
      );
      const resources = ((a.object as JsonObject).spec as { containers: JsonObject[] }).containers[0]
        ?.resources;
      assert.deepEqual(resources, {
        requests: { cpu: "500m", memory: "100Mi" },
        limits: { cpu: "2000m", memory: "1Gi" },
      });
    },
  );
});

test("each LimitRange of the namespace applies", async () => {
  await setup(
    [[{ type: "Container", default: { cpu: "1" } }], [{ type: "Container", max: { cpu: "500m" } }]],
    async (t, plugin) => {
      const a = t.attributes({
        operation: "CREATE",
        resource: "pods",
        namespace: NS,
        object: pod([container("c")]),
      });
      await plugin.admit?.(a);
      const err = await refusal(Promise.resolve(plugin.validate?.(a)));
      assert.equal(
        err.message,
        'pods "p" is forbidden: maximum cpu usage per Container is 500m, but limit is 1',
      );
    },
  );
});

test("claims are bounded by PersistentVolumeClaim min and max on requests", async () => {
  const claim = (storage?: string): JsonObject => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "data", namespace: NS, resourceVersion: "5" },
    spec: { accessModes: ["ReadWriteOnce"], resources: storage ? { requests: { storage } } : {} },
  });
  const cases: {
    name: string;
    operation: "CREATE" | "UPDATE";
    object: JsonObject;
    old?: JsonObject;
    want?: string;
  }[] = [
    { name: "within", operation: "CREATE", object: claim("5Gi") },
    {
      name: "over max",
      operation: "CREATE",
      object: claim("20Gi"),
      want: 'persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi',
    },
    {
      name: "under min",
      operation: "CREATE",
      object: claim("500Mi"),
      want: 'persistentvolumeclaims "data" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi',
    },
    {
      name: "no request",
      operation: "CREATE",
      object: claim(),
      want: 'persistentvolumeclaims "data" is forbidden: [minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified]',
    },
    {
      name: "resize over max",
      operation: "UPDATE",
      object: claim("11Gi"),
      old: claim("5Gi"),
      want: 'persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 11Gi',
    },
    {
      name: "a claim being deleted is left alone",
      operation: "UPDATE",
      object: claim("11Gi"),
      old: {
        ...claim("5Gi"),
        metadata: { name: "data", namespace: NS, deletionTimestamp: "2024-01-01T00:00:00Z" },
      },
    },
  ];
  await setup(
    [[{ type: "PersistentVolumeClaim", min: { storage: "1Gi" }, max: { storage: "10Gi" } }]],
    async (t, plugin) => {
      for (const c of cases) {
        const a = t.attributes({
          operation: c.operation,
          resource: "persistentvolumeclaims",
          namespace: NS,
          object: c.object,
          oldObject: c.old,
        });
        await plugin.admit?.(a);
        if (c.want === undefined) {
          await plugin.validate?.(a);
          continue;
        }
        const err = await refusal(Promise.resolve(plugin.validate?.(a)));
        assert.equal(err.code, 403, c.name);
        assert.equal(err.message, c.want, c.name);
      }
    },
  );
});

test("pod updates, subresources and namespaces without LimitRanges are left alone", async () => {
  await setup([[{ type: "Container", max: { cpu: "1" } }]], async (t, plugin) => {
    const big = pod([container("c", { limits: { cpu: "4" } })]);
    const update = t.attributes({
      operation: "UPDATE",
      resource: "pods",
      namespace: NS,
      object: structuredClone(big),
      oldObject: big,
    });
    await plugin.admit?.(update);
    await plugin.validate?.(update);
    assert.deepEqual(update.object, big);
    const sub = t.attributes({
      operation: "CREATE",
      resource: "pods",
      subresource: "binding",
      namespace: NS,
      name: "p",
      object: {
        apiVersion: "v1",
        kind: "Binding",
        metadata: { name: "p" },
        target: { kind: "Node", name: "n" },
      },
    });
    await plugin.admit?.(sub);
    await plugin.validate?.(sub);
    const elsewhere = structuredClone(big);
    (elsewhere.metadata as JsonObject).namespace = "other";
    const a = t.attributes({ operation: "CREATE", resource: "pods", namespace: "other", object: elsewhere });
    await plugin.admit?.(a);
    await plugin.validate?.(a);
    assert.deepEqual(
      ((a.object as JsonObject).spec as { containers: JsonObject[] }).containers[0]?.resources,
      {
        limits: { cpu: "4" },
      },
    );
  });
});

test("a generated name is named by its prefix in refusals", async () => {
  await setup([[{ type: "Container", max: { cpu: "1" } }]], async (t, plugin) => {
    const object = pod([container("c", { limits: { cpu: "3" } })]);
    object.metadata = { generateName: "web-", namespace: NS };
    const a = t.attributes({ operation: "CREATE", resource: "pods", namespace: NS, object });
    const err = await refusal(admitAndValidate(t, plugin, object).then(() => plugin.validate?.(a)));
    assert.equal(
      err.message,
      'pods "web-" is forbidden: maximum cpu usage per Container is 1, but limit is 3',
    );
  });
});

test("malformed quantities are a 400, not a crash", async () => {
  await setup([[{ type: "Container", max: { cpu: "1" } }]], async (t, plugin) => {
    const a = t.attributes({
      operation: "CREATE",
      resource: "pods",
      namespace: NS,
      object: pod([container("c", { limits: { cpu: "lots" } })]),
    });
    await plugin.admit?.(a);
    const err = await refusal(Promise.resolve(plugin.validate?.(a)));
    assert.equal(err.code, 400);
    assert.match(err.message, /spec\.containers\[0\]\.resources\.limits\[cpu\]/);
  });
});
