import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { builtinCatalog } from "../catalog/index.ts";
import type { JsonObject } from "../common/json.ts";
import { naming } from "../naming/naming.ts";
import { compileGoForm } from "./go-form.ts";
import { builtinKinds } from "./index.ts";
import { type ServedKind, serveKind } from "./testing.ts";

function encoded(typeId: string, value: JsonObject): JsonObject {
  compileGoForm(builtinCatalog(), typeId).encoded(value);
  return value;
}

describe("Go form of catalog types", () => {
  it("leaves out empty maps, lists and zero values of omitempty fields", () => {
    const cm = encoded("core/v1.ConfigMap", {
      metadata: { name: "x", labels: {}, annotations: {}, finalizers: [], namespace: "", generation: 0 },
      data: {},
      binaryData: {},
    });
    assert.deepEqual(cm, { metadata: { name: "x" } });
    const spec = encoded("apps/v1.Deployment", {
      metadata: { name: "d" },
      spec: { paused: false, minReadySeconds: 0, replicas: 0, template: { spec: { containers: [] } } },
    }).spec as JsonObject;
    // `replicas` is a pointer: its zero is a value. `containers` has no omitempty: kept empty.
    assert.equal(spec.replicas, 0);
    assert.equal("paused" in spec, false);
    assert.equal("minReadySeconds" in spec, false);
    assert.deepEqual((spec.template as JsonObject).spec, { containers: [] });
    // A Secret's []byte value that is empty, and one that is not.
    assert.deepEqual(encoded("core/v1.Secret", { metadata: { name: "s" }, data: { a: "" }, type: "" }), {
      metadata: { name: "s" },
      data: { a: "" },
    });
  });

  it("writes the structs and the zero values without omitempty that Go always writes", () => {
    assert.deepEqual(encoded("core/v1.Service", { metadata: { name: "s" } }), {
      metadata: { name: "s" },
      spec: {},
      status: { loadBalancer: {} },
    });
    assert.deepEqual(encoded("policy/v1.PodDisruptionBudget", { metadata: { name: "p" }, spec: {} }).status, {
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    });
    assert.deepEqual(encoded("apps/v1.ReplicaSet", { metadata: { name: "r" } }).status, { replicas: 0 });
    assert.deepEqual(encoded("autoscaling/v1.HorizontalPodAutoscaler", { metadata: { name: "h" } }).status, {
      currentReplicas: 0,
      desiredReplicas: 0,
    });
    // Pointers to structs stay unset.
    const pod = encoded("core/v1.Pod", { metadata: { name: "p" }, spec: { containers: [{ name: "c" }] } });
    assert.equal("securityContext" in (pod.spec as JsonObject), false);
    assert.deepEqual((pod.spec as JsonObject).containers, [{ name: "c", resources: {} }]);
  });

  it("fills a missing required field only in a struct it adds, as Go's zero value", () => {
    const crd = encoded("apiextensions/v1.CustomResourceDefinition", { metadata: { name: "a.b" }, spec: {} });
    assert.deepEqual((crd.status as JsonObject).acceptedNames, { plural: "", kind: "" });
    // A client's struct without its required fields is validation's to report.
    const rb = encoded("rbac/v1.RoleBinding", { metadata: { name: "rb" }, roleRef: {} });
    assert.deepEqual(rb.roleRef, {});
  });

  it("spells quantities canonically wherever the type has them", () => {
    const pod = encoded("core/v1.Pod", {
      metadata: { name: "p" },
      spec: {
        containers: [
          { name: "c", resources: { limits: { cpu: 0.5, memory: "1024Mi" }, requests: { cpu: "1000m" } } },
        ],
        overhead: { cpu: "0.1" },
        volumes: [{ name: "v", emptyDir: { sizeLimit: "2048Mi" } }],
      },
    });
    const spec = pod.spec as JsonObject;
    const container = (spec.containers as JsonObject[])[0] as JsonObject;
    assert.deepEqual(container.resources, { limits: { cpu: "500m", memory: "1Gi" }, requests: { cpu: "1" } });
    assert.deepEqual(spec.overhead, { cpu: "100m" });
    assert.deepEqual((spec.volumes as JsonObject[])[0], { name: "v", emptyDir: { sizeLimit: "2Gi" } });
    const quota = encoded("core/v1.ResourceQuota", {
      metadata: { name: "q" },
      spec: { hard: { "requests.storage": "1e3", pods: 10, cpu: "+1" } },
    });
    // Already-canonical spellings are kept as upstream keeps them.
    assert.deepEqual((quota.spec as JsonObject).hard, { "requests.storage": "1e3", pods: "10", cpu: "+1" });
    // Something that is no quantity is left for validation to report.
    const bad = encoded("core/v1.LimitRange", {
      metadata: { name: "l" },
      spec: { limits: [{ type: "Container", max: { cpu: "lots" } }] },
    });
    assert.deepEqual(((bad.spec as JsonObject).limits as JsonObject[])[0]?.max, { cpu: "lots" });
  });
});

describe("Go form of stored built-in objects", () => {
  const kinds = builtinKinds(naming("cluster"));
  const served = new Map<string, ServedKind>();
  const registry = (plural: string) => {
    const s = served.get(plural);
    assert.ok(s);
    return s.registry;
  };
  before(async () => {
    for (const plural of ["configmaps", "deployments", "poddisruptionbudgets"]) {
      const kind = kinds.find((k) => k.schema.plural === plural && k.schema.group !== "extensions");
      assert.ok(kind);
      served.set(plural, await serveKind(kind));
    }
  });
  after(async () => {
    for (const s of served.values()) await s.stop();
  });

  it("stores and returns what upstream's Go types would", async () => {
    const cms = registry("configmaps");
    await cms.create("default", { metadata: { name: "x", labels: { a: "b" } }, data: { k: "v" } });
    const { object } = await cms.update("default", "x", (cur) => {
      const next = structuredClone(cur) as JsonObject;
      (next.metadata as JsonObject).labels = {};
      next.data = {};
      return next;
    });
    assert.equal("labels" in (object.metadata as JsonObject), false);
    assert.equal("data" in object, false);
    const stored = JSON.parse((await cms.get("default", "x")).json) as JsonObject;
    assert.equal("labels" in (stored.metadata as JsonObject), false);

    const pdbs = registry("poddisruptionbudgets");
    await pdbs.create("default", { metadata: { name: "p" }, spec: { minAvailable: 1 } });
    assert.deepEqual(JSON.parse((await pdbs.get("default", "p")).json).status, {
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    });
  });

  it("defaults a zero that Go cannot tell from unset", async () => {
    const deployments = registry("deployments");
    const { object } = await deployments.create("default", {
      metadata: { name: "d" },
      spec: {
        selector: { matchLabels: { app: "d" } },
        template: {
          metadata: { labels: { app: "d" } },
          spec: {
            containers: [
              {
                name: "c",
                image: "busybox",
                readinessProbe: { exec: { command: ["true"] }, timeoutSeconds: 0 },
              },
            ],
          },
        },
      },
    });
    const spec = object.spec as JsonObject;
    const [container] = ((spec.template as JsonObject).spec as JsonObject).containers as JsonObject[];
    assert.equal((container?.readinessProbe as JsonObject | undefined)?.timeoutSeconds, 1);
    assert.deepEqual(object.status, {});
  });
});
