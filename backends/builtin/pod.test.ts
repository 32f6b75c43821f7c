import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import { formatFieldError, type Registry, RegistryError } from "../registry/index.ts";
import type { JsonObject } from "../registry/strategy.ts";
import { parseFieldSelector } from "../selection/index.ts";
import { podKind, podRow } from "./pod.ts";
import { type ServedKind, serveKind } from "./testing.ts";

const kind = podKind(naming("cluster"));
const supported = new Set([
  "metadata.name",
  "metadata.namespace",
  ...Object.keys(kind.schema.selectableFields?.({}) ?? {}),
]);

let served: ServedKind;
let pods: Registry;

before(async () => {
  served = await serveKind(kind);
  pods = served.registry;
});
after(() => served.stop());

const pod = (name: string, spec: JsonObject = {}, extra: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
  ...extra,
});

async function invalid(p: Promise<unknown>): Promise<string[]> {
  let causes: string[] = [];
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RegistryError, String(e));
    assert.equal(e.reason, "Invalid");
    causes = (e.causes ?? []).map(formatFieldError);
    return true;
  });
  return causes;
}

function names(items: readonly { json: string }[]): string[] {
  return items.map((i) => (JSON.parse(i.json) as { metadata: { name: string } }).metadata.name).sort();
}

describe("Pod", () => {
  it("is namespaced, short name po, in category all, with upstream's subresources", () => {
    assert.equal(kind.schema.namespaced, true);
    assert.deepEqual(kind.schema.shortNames, ["po"]);
    assert.deepEqual(kind.schema.categories, ["all"]);
    assert.deepEqual(kind.schema.subresources, [
      "status",
      "binding",
      "eviction",
      "ephemeralcontainers",
      "attach",
      "exec",
      "log",
      "portforward",
      "proxy",
    ]);
  });

  it("adds ephemeral containers through their subresource, and nothing else", async () => {
    await pods.create("default", pod("dbg", {}, { metadata: { name: "dbg", labels: { app: "a" } } }));
    const debug = { name: "debug", image: "busybox", targetContainerName: "c", resources: {} };
    const { object } = await pods.update(
      "default",
      "dbg",
      (cur) => {
        const next = structuredClone(cur) as JsonObject;
        const spec = next.spec as JsonObject;
        spec.ephemeralContainers = [debug];
        spec.containers = [{ name: "c", image: "nginx" }];
        next.status = { phase: "Running" };
        (next.metadata as JsonObject).labels = { app: "b" };
        return next;
      },
      { subresource: "ephemeralcontainers" },
    );
    assert.deepEqual((object.spec as JsonObject).ephemeralContainers, [debug]);
    assert.deepEqual((object.spec as JsonObject).containers, [{ name: "c", image: "busybox" }]);
    assert.equal((object.status as JsonObject).phase, "Pending");
    assert.deepEqual((object.metadata as JsonObject).labels, { app: "a" });

    const edit = (change: (spec: JsonObject) => void) =>
      invalid(
        pods.update(
          "default",
          "dbg",
          (cur) => {
            const next = structuredClone(cur) as JsonObject;
            change(next.spec as JsonObject);
            return next;
          },
          { subresource: "ephemeralcontainers" },
        ),
      );
    assert.deepEqual(
      await edit((spec) => {
        spec.ephemeralContainers = [];
      }),
      ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "debug" may not be removed\n'],
    );
    const changed = await edit((spec) => {
      (spec.ephemeralContainers as JsonObject[])[0]!.image = "alpine";
    });
    assert.equal(changed.length, 1);
    assert.match(
      changed[0] ?? "",
      /^spec\.ephemeralContainers: Forbidden: existing ephemeral containers "debug" may not be changed\n/,
    );
    assert.match(changed[0] ?? "", /image: "busybox"[\s\S]*image: "alpine"/);
    assert.deepEqual(
      await edit((spec) => {
        (spec.ephemeralContainers as JsonObject[]).push({
          name: "probe",
          image: "busybox",
          ports: [{ containerPort: 80 }],
          resources: { limits: { cpu: "1" } },
        });
      }),
      [
        "spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container",
        "spec.ephemeralContainers[1].resources: Forbidden: cannot be set for an Ephemeral Container",
      ],
    );
  });

  it("refuses ephemeral containers for mirror pods", async () => {
    const mirror = { name: "static", annotations: { "cluster.io/config.mirror": "hash" } };
    await pods.create("default", pod("static", {}, { metadata: mirror }));
    assert.deepEqual(
      await invalid(
        pods.update(
          "default",
          "static",
          (cur) => {
            const next = structuredClone(cur) as JsonObject;
            (next.spec as JsonObject).ephemeralContainers = [{ name: "debug", image: "busybox" }];
            return next;
          },
          { subresource: "ephemeralcontainers" },
        ),
      ),
      [": Forbidden: static pods do not support ephemeral containers"],
    );
  });

  it("creates Pending whatever status the request carries, and checks metadata", async () => {
    const { object } = await pods.create(
      "default",
      pod("web", {}, { status: { phase: "Running", podIP: "10.0.0.1" } }),
    );
    assert.deepEqual(object.status, { phase: "Pending", qosClass: "BestEffort" });
    assert.deepEqual((object.spec as JsonObject).containers, [{ name: "c", image: "busybox" }]);
    const stored = JSON.parse((await pods.get("default", "web")).json);
    assert.equal(stored.status.phase, "Pending");

    assert.match(
      (await invalid(pods.create("default", pod("Bad_Name"))))[0] ?? "",
      /^metadata\.name: Invalid value: "Bad_Name"/,
    );
    await assert.rejects(pods.create("default", pod("x", { nodeName: 7 })), (e: unknown) => {
      assert.ok(e instanceof RegistryError);
      assert.equal(e.reason, "BadRequest");
      assert.match(
        e.message,
        /cannot unmarshal number into Go struct field Pod\.spec\.nodeName of type string/,
      );
      return true;
    });
    await assert.rejects(
      pods.create("default", pod("y", {}, { status: "running" })),
      /Pod\.status of type object/,
    );
  });

  it("keeps status on the main resource and spec on the status subresource", async () => {
    await pods.create("default", pod("s"));
    const { object } = await pods.update("default", "s", (cur) => {
      const next = structuredClone(cur) as JsonObject;
      (next.spec as JsonObject).activeDeadlineSeconds = 30;
      next.status = { phase: "Failed" };
      return next;
    });
    assert.equal((object.spec as JsonObject).activeDeadlineSeconds, 30);
    assert.deepEqual(object.status, { phase: "Pending", qosClass: "BestEffort" });

    const owners = [{ apiVersion: "v1", kind: "X", name: "o", uid: "u1" }];
    const { object: after } = await pods.update(
      "default",
      "s",
      (cur) => {
        const next = structuredClone(cur) as JsonObject;
        next.spec = { containers: [{ name: "other", image: "nginx" }], nodeName: "n1" };
        next.status = { phase: "Running", podIP: "10.1.2.3" };
        (next.metadata as JsonObject).ownerReferences = owners;
        return next;
      },
      { subresource: "status" },
    );
    assert.deepEqual(after.status, { phase: "Running", podIP: "10.1.2.3" });
    assert.equal((after.spec as JsonObject).nodeName, undefined, "spec stays as it was");
    assert.deepEqual((after.spec as JsonObject).containers, [{ name: "c", image: "busybox" }]);
    assert.equal((after.metadata as JsonObject).ownerReferences, undefined, "owners stay as they were");
  });

  it("filters lists on spec.nodeName, spec.serviceAccountName and status.phase", async () => {
    await pods.create("sel", pod("on-a", { nodeName: "a", serviceAccountName: "sa1" }));
    await pods.create("sel", pod("on-b", { nodeName: "b" }));
    await pods.create("sel", pod("nowhere", { serviceAccountName: "sa1" }));
    await pods.update("sel", "on-b", (cur) => ({ ...(cur as JsonObject), status: { phase: "Running" } }), {
      subresource: "status",
    });
    const list = async (selector: string) =>
      names((await pods.list("sel", { fieldSelector: parseFieldSelector(selector, supported) })).items);
    assert.deepEqual(await list("spec.nodeName=a"), ["on-a"]);
    assert.deepEqual(await list("spec.nodeName="), ["nowhere"]);
    assert.deepEqual(await list("spec.nodeName!=a"), ["nowhere", "on-b"]);
    assert.deepEqual(await list("spec.serviceAccountName=sa1"), ["nowhere", "on-a"]);
    assert.deepEqual(await list("status.phase=Running"), ["on-b"]);
    assert.deepEqual(await list("status.phase=Pending,spec.nodeName=a"), ["on-a"]);
    assert.throws(() => parseFieldSelector("spec.containers=x", supported), /field label not supported/);
    assert.deepEqual(kind.schema.selectableFields?.({}), {
      "spec.nodeName": "",
      "spec.restartPolicy": "",
      "spec.schedulerName": "",
      "spec.serviceAccountName": "",
      "spec.hostNetwork": "false",
      "status.phase": "",
      "status.podIP": "",
      "status.nominatedNodeName": "",
    });
  });
});

describe("Pod table cells", () => {
  const columns = kind.schema.tableColumns ?? [];
  const cells = (o: JsonObject) => Object.fromEntries(columns.map((c) => [c.name, c.cell(o)]));
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

  it("has kubectl's columns, the wide ones at priority 1", () => {
    assert.deepEqual(
      columns.map((c) => [c.name, c.priority]),
      [
        ["Ready", 0],
        ["Status", 0],
        ["Restarts", 0],
        ["Age", 0],
        ["IP", 1],
        ["Node", 1],
        ["Nominated Node", 1],
        ["Readiness Gates", 1],
      ],
    );
  });

  it("shows a new pod", () => {
    assert.deepEqual(
      cells({
        metadata: { name: "p", creationTimestamp: ago(90_000) },
        spec: { containers: [{ name: "a" }, { name: "b" }] },
        status: { phase: "Pending" },
      }),
      {
        Ready: "0/2",
        Status: "Pending",
        Restarts: "0",
        Age: "90s",
        IP: "<none>",
        Node: "<none>",
        "Nominated Node": "<none>",
        "Readiness Gates": "<none>",
      },
    );
  });

  it("counts ready containers and restarts, with the last restart's age", () => {
    const running = {
      metadata: { name: "p" },
      spec: {
        nodeName: "n1",
        containers: [{ name: "a" }, { name: "b" }],
        readinessGates: [{ conditionType: "x/y" }],
      },
      status: {
        phase: "Running",
        podIPs: [{ ip: "10.0.0.7" }],
        conditions: [{ type: "x/y", status: "True" }],
        containerStatuses: [
          {
            name: "a",
            ready: true,
            restartCount: 2,
            state: { running: {} },
            lastState: { terminated: { finishedAt: ago(5 * 60_000) } },
          },
          { name: "b", ready: false, restartCount: 1, state: { running: {} } },
        ],
      },
    };
    const c = cells(running);
    assert.equal(c.Ready, "1/2");
    assert.equal(c.Status, "Running");
    assert.equal(c.Restarts, "3 (5m ago)");
    assert.equal(c.IP, "10.0.0.7");
    assert.equal(c.Node, "n1");
    assert.equal(c["Readiness Gates"], "1/1");
  });

  it("shows why containers wait or stopped, the first container winning", () => {
    const status = (containerStatuses: JsonObject[]) =>
      podRow({
        spec: { containers: [{ name: "a" }, { name: "b" }] },
        status: { phase: "Running", containerStatuses },
      }).status;
    assert.equal(
      status([
        { name: "a", state: { waiting: { reason: "CrashLoopBackOff" } } },
        { name: "b", state: { waiting: { reason: "ImagePullBackOff" } } },
      ]),
      "CrashLoopBackOff",
    );
    assert.equal(status([{ name: "a", state: { terminated: { exitCode: 3 } } }]), "ExitCode:3");
    assert.equal(status([{ name: "a", state: { terminated: { exitCode: 137, signal: 9 } } }]), "Signal:9");
    assert.equal(
      status([
        { name: "a", state: { terminated: { reason: "Completed", exitCode: 0 } } },
        { name: "b", ready: true, state: { running: {} } },
      ]),
      "NotReady",
    );
  });

  it("shows init progress, terminating pods, and survives junk", () => {
    const init = podRow({
      spec: { initContainers: [{ name: "i1" }, { name: "i2" }], containers: [{ name: "a" }] },
      status: {
        phase: "Pending",
        initContainerStatuses: [
          { name: "i1", state: { terminated: { exitCode: 0 } } },
          { name: "i2", state: { running: {} } },
        ],
      },
    });
    assert.equal(init.status, "Init:1/2");
    const failedInit = podRow({
      spec: { initContainers: [{ name: "i1" }], containers: [{ name: "a" }] },
      status: {
        phase: "Pending",
        initContainerStatuses: [{ name: "i1", state: { terminated: { exitCode: 1, reason: "Error" } } }],
      },
    });
    assert.equal(failedInit.status, "Init:Error");
    const sidecar = podRow({
      spec: { initContainers: [{ name: "s", restartPolicy: "Always" }], containers: [{ name: "a" }] },
      status: {
        phase: "Running",
        conditions: [{ type: "Initialized", status: "True" }],
        initContainerStatuses: [{ name: "s", started: true, ready: true, state: { running: {} } }],
        containerStatuses: [{ name: "a", ready: true, state: { running: {} } }],
      },
    });
    assert.equal(sidecar.ready, "2/2");
    assert.equal(
      podRow({ metadata: { deletionTimestamp: ago(0) }, spec: {}, status: { phase: "Running" } }).status,
      "Terminating",
    );
    assert.equal(
      podRow({ metadata: { deletionTimestamp: ago(0) }, status: { phase: "Running", reason: "NodeLost" } })
        .status,
      "Unknown",
    );
    assert.equal(
      podRow({ metadata: { deletionTimestamp: ago(0) }, status: { phase: "Succeeded" } }).status,
      "Succeeded",
    );
    assert.deepEqual(podRow({ spec: "x", status: [1] }), { ready: "0/0", status: "", restarts: "0" });
  });
});
