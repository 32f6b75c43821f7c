// Evaluators, quota checks and the namespace mutex on their own (no control plane needed).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import type { JsonObject } from "../index.ts";
import { prettyPrint } from "../resourcelist/lists.ts";
import { QuantityError, toJson } from "../resourcelist/quantity.ts";
import { checkRequest, quotaState } from "./check.ts";
import { EvaluatorRegistry, objectCountName } from "./evaluators.ts";
import { KeyedMutex } from "./mutex.ts";

const k8s = naming("kubernetes");
const usage = (registry: EvaluatorRegistry, resource: string, object: JsonObject, group = "") =>
  toJson(registry.forResource(group, resource)?.usage(object, Date.now()) ?? new Map());

describe("ResourceQuota evaluators", () => {
  const registry = new EvaluatorRegistry(k8s, {});

  test("claims: storage class from the beta annotation first, upstream's suffix, storage rounded up", () => {
    const claim = {
      metadata: { annotations: { "volume.beta.kubernetes.io/storage-class": "fast" } },
      spec: { storageClassName: "slow", resources: { requests: { storage: "1500m" } } },
      status: { allocatedResources: { storage: "5Gi" } },
    };
    assert.deepEqual(usage(registry, "persistentvolumeclaims", claim), {
      persistentvolumeclaims: "1",
      "count/persistentvolumeclaims": "1",
      "fast.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
      "requests.storage": "2",
      "fast.storageclass.storage.k8s.io/requests.storage": "2",
    });
    // Allocated storage above the request counts only with RecoverVolumeExpansionFailure.
    const recovering = new EvaluatorRegistry(k8s, { RecoverVolumeExpansionFailure: true });
    assert.equal(usage(recovering, "persistentvolumeclaims", claim)["requests.storage"], "5Gi");
    const claims = registry.forResource("", "persistentvolumeclaims");
    assert.deepEqual(
      claims?.matchingResources([
        "fast.storageclass.storage.k8s.io/requests.storage",
        "requests.storage",
        "pods",
        "fast.storageclass.storage.k8s.io/pods",
      ]),
      ["fast.storageclass.storage.k8s.io/requests.storage", "requests.storage"],
    );
  });

  test("services: load balancers without node port allocation count only explicit node ports", () => {
    const lb = (allocate: boolean) => ({
      spec: {
        type: "LoadBalancer",
        allocateLoadBalancerNodePorts: allocate,
        ports: [{ port: 80, nodePort: 30080 }, { port: 81 }, { port: 82 }],
      },
    });
    assert.equal(usage(registry, "services", lb(true))["services.nodeports"], "3");
    assert.equal(usage(registry, "services", lb(false))["services.nodeports"], "1");
    assert.deepEqual(usage(registry, "services", { spec: { type: "ClusterIP", ports: [{ port: 1 }] } }), {
      "count/services": "1",
      services: "1",
      "services.loadbalancers": "0",
      "services.nodeports": "0",
    });
  });

  test("pods: terminal or long-deleted pods keep only their object count; hugepages are charged", () => {
    const spec = {
      containers: [
        {
          name: "c",
          resources: { requests: { cpu: "1", "hugepages-2Mi": "4Mi" }, limits: { "hugepages-2Mi": "4Mi" } },
        },
      ],
    };
    assert.deepEqual(usage(registry, "pods", { spec }), {
      "count/pods": "1",
      pods: "1",
      cpu: "1",
      "requests.cpu": "1",
      "hugepages-2Mi": "4Mi",
      "requests.hugepages-2Mi": "4Mi",
    });
    assert.deepEqual(usage(registry, "pods", { spec, status: { phase: "Succeeded" } }), {
      "count/pods": "1",
    });
    const gone = {
      metadata: { deletionTimestamp: "2020-01-01T00:00:00Z", deletionGracePeriodSeconds: 30 },
      spec,
    };
    assert.deepEqual(usage(registry, "pods", gone), { "count/pods": "1" });
    const pods = registry.forResource("", "pods");
    assert.deepEqual(
      pods
        ?.matchingResources(["requests.hugepages-2Mi", "requests.nvidia.com/gpu", "services", "limits.cpu"])
        .sort(),
      ["limits.cpu", "requests.hugepages-2Mi", "requests.nvidia.com/gpu"],
    );
  });

  test("pods: every container, init ones included, must state each tracked cpu and memory resource", () => {
    const pods = registry.forResource("", "pods");
    const pod = {
      spec: {
        initContainers: [{ name: "init", resources: { requests: { cpu: "1" } } }],
        containers: [
          { name: "b", resources: { requests: { cpu: "1", memory: "1Gi" } } },
          { name: "a", resources: { limits: { memory: "1Gi" } } },
        ],
      },
    };
    assert.equal(
      pods?.constraints(["requests.cpu", "requests.memory", "pods"], pod),
      "must specify requests.cpu for: a; requests.memory for: a,init",
    );
    assert.equal(pods?.constraints(["pods", "requests.storage"], pod), undefined);
  });

  test("object counts for any resource; virtual resources and events are ignored", () => {
    assert.equal(objectCountName("apps", "deployments"), "count/deployments.apps");
    assert.deepEqual(usage(registry, "deployments", {}, "apps"), { "count/deployments.apps": "1" });
    assert.deepEqual(usage(registry, "secrets", {}), { "count/secrets": "1", secrets: "1" });
    assert.ok(registry.forNames(["count/widgets.example.com"]).some((e) => e.resource === "widgets"));
    for (const [group, resource] of [
      ["", "events"],
      ["events.k8s.io", "events"],
      ["", "bindings"],
      ["authorization.k8s.io", "subjectaccessreviews"],
    ] as const) {
      assert.equal(registry.forResource(group, resource), undefined, `${group}/${resource}`);
    }
  });
});

describe("ResourceQuota checks", () => {
  const registry = new EvaluatorRegistry(k8s, {});
  const pods = registry.forResource("", "pods");
  assert.ok(pods);
  const attrs = (object: JsonObject, operation: "CREATE" | "UPDATE" = "CREATE", oldObject?: JsonObject) =>
    // Only the fields checkRequest reads; the plugin tests cover real attributes.
    ({ operation, object, oldObject, resource: { group: "", version: "v1", resource: "pods" } }) as never;
  const refuse = (why: string) => new Error(why) as never;
  const quota = (hard: Record<string, string>, used?: Record<string, string>) =>
    quotaState({ metadata: { name: "q" }, spec: { hard }, status: { hard, ...(used ? { used } : {}) } });
  const cpuPod = (cpu: string) => ({
    spec: { containers: [{ name: "c", resources: { requests: { cpu } } }] },
  });

  const rows: {
    name: string;
    quotas: ReturnType<typeof quota>[];
    object: JsonObject;
    error?: RegExp;
    charged?: string;
  }[] = [
    {
      name: "fits",
      quotas: [quota({ "requests.cpu": "2" }, { "requests.cpu": "1" })],
      object: cpuPod("1"),
      charged: "requests.cpu=2",
    },
    {
      name: "exceeds",
      quotas: [quota({ "requests.cpu": "2" }, { "requests.cpu": "1500m" })],
      object: cpuPod("600m"),
      error:
        /^exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=1500m, limited: requests.cpu=2$/,
    },
    {
      name: "usage not yet known",
      quotas: [quota({ "requests.cpu": "2", configmaps: "1" })],
      object: cpuPod("1"),
      error: /^status unknown for quota: q, resources: requests.cpu$/,
    },
    {
      name: "negative request",
      quotas: [],
      object: cpuPod("-1"),
      error: /^quota usage is negative for resource\(s\): cpu,requests.cpu$/,
    },
    {
      name: "untracked",
      quotas: [quota({ configmaps: "1" }, { configmaps: "1" })],
      object: cpuPod("1"),
      charged: "",
    },
  ];
  for (const row of rows) {
    test(`checkRequest: ${row.name}`, () => {
      const run = () => checkRequest(row.quotas, attrs(row.object), pods, [], Date.now(), refuse, refuse);
      if (row.error) {
        const pattern = row.error;
        assert.throws(run, (err: Error) => pattern.test(err.message));
        return;
      }
      const result = run();
      assert.equal(result.charged.map((c) => prettyPrint(c.used)).join(";"), row.charged);
    });
  }

  test("checkRequest: an update charges only the growth; a create-on-update is charged in full", () => {
    const q = [quota({ "requests.cpu": "2" }, { "requests.cpu": "1" })];
    const old = { ...cpuPod("500m"), metadata: { resourceVersion: "7" } };
    const grown = checkRequest(q, attrs(cpuPod("1"), "UPDATE", old), pods, [], 0, refuse, refuse);
    assert.equal(prettyPrint(grown.delta), "cpu=500m,requests.cpu=500m");
    const fresh = checkRequest(q, attrs(cpuPod("1"), "UPDATE", cpuPod("500m")), pods, [], 0, refuse, refuse);
    assert.equal(prettyPrint(fresh.delta), "count/pods=1,cpu=1,pods=1,requests.cpu=1");
    assert.throws(
      () => checkRequest(q, attrs(cpuPod("1"), "UPDATE"), pods, [], 0, refuse, refuse),
      /prior version/,
    );
  });

  test("a quota or object with a bad quantity throws QuantityError (the plugin answers 400)", () => {
    assert.throws(() => quota({ "requests.cpu": "plenty" }), QuantityError);
    assert.throws(() => pods.usage(cpuPod("plenty"), 0), QuantityError);
    assert.throws(
      () => pods.usage({ spec: { containers: [{ name: "c", resources: { requests: ["1"] } }] } }, 0),
      QuantityError,
    );
  });
});

describe("KeyedMutex", () => {
  test("tasks of one key run one at a time and in order; other keys do not wait", async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = mutex.run("a", async () => {
      log.push("a1 start");
      await gate;
      log.push("a1 end");
    });
    const second = mutex.run("a", async () => {
      log.push("a2");
    });
    await mutex.run("b", async () => {
      log.push("b");
    });
    release();
    await Promise.all([first, second]);
    assert.deepEqual(log, ["a1 start", "b", "a1 end", "a2"]);
  });

  test("a task that cannot get its turn in time fails with the timeout error and never runs", async () => {
    const mutex = new KeyedMutex();
    let release: () => void = () => {};
    const held = mutex.run("a", () => new Promise<void>((r) => (release = r)));
    let ran = false;
    await assert.rejects(
      mutex.run(
        "a",
        async () => {
          ran = true;
        },
        1,
        () => new Error("resource quota evaluation timed out"),
      ),
      /timed out/,
    );
    release();
    await held;
    assert.equal(ran, false);
    await mutex.run("a", async () => {});
  });
});
