import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import { type Registry, RegistryError } from "../registry/index.ts";
import type { JsonObject } from "../registry/strategy.ts";
import { parseFieldSelector } from "../selection/index.ts";
import { nodeKind, nodeRoles } from "./node.ts";
import { type ServedKind, serveKind } from "./testing.ts";

const kind = nodeKind(naming("cluster"));
const supported = new Set(["metadata.name", ...Object.keys(kind.schema.selectableFields?.({}) ?? {})]);

let served: ServedKind;
let nodes: Registry;

before(async () => {
  served = await serveKind(kind);
  nodes = served.registry;
});
after(() => served.stop());

const ready = (status: string) => ({ conditions: [{ type: "Ready", status }] });

describe("Node", () => {
  it("is cluster-scoped, short name no, with status and proxy subresources", () => {
    assert.equal(kind.schema.namespaced, false);
    assert.deepEqual(kind.schema.shortNames, ["no"]);
    assert.deepEqual(kind.schema.categories, []);
    assert.deepEqual(kind.schema.subresources, ["status", "proxy"]);
    assert.equal(kind.strategy.knownFields, undefined, "every field is accepted for now");
  });

  it("registers with its status, drops a namespace, and checks metadata", async () => {
    const { object } = await nodes.create("ignored", {
      metadata: { name: "n1", namespace: "x" },
      spec: { podCIDR: "10.0.1.0/24" },
      status: { ...ready("True"), nodeInfo: { kubeletVersion: "v1.27.3" } },
    });
    assert.equal((object.metadata as JsonObject).namespace, undefined);
    assert.equal((object.status as JsonObject).nodeInfo !== undefined, true, "status kept on create");
    await assert.rejects(nodes.create(undefined, { metadata: { name: "Bad_Name" } }), (e: unknown) => {
      assert.ok(e instanceof RegistryError);
      assert.equal(e.reason, "Invalid");
      return true;
    });
    await assert.rejects(
      nodes.create(undefined, { metadata: { name: "n9" }, spec: { unschedulable: "yes" } }),
      /Node\.spec\.unschedulable of type bool/,
    );
  });

  it("keeps status on the main resource and spec on the status subresource", async () => {
    await nodes.create(undefined, {
      metadata: { name: "n2" },
      spec: { podCIDR: "10.0.2.0/24" },
      status: ready("False"),
    });
    const { object } = await nodes.update(undefined, "n2", (cur) => ({
      ...(cur as JsonObject),
      spec: { podCIDR: "10.0.2.0/24", unschedulable: true },
      status: ready("True"),
    }));
    assert.deepEqual(object.spec, { podCIDR: "10.0.2.0/24", unschedulable: true });
    assert.deepEqual(object.status, ready("False"));
    const { object: after } = await nodes.update(
      undefined,
      "n2",
      (cur) => ({ ...(cur as JsonObject), spec: {}, status: ready("True") }),
      { subresource: "status" },
    );
    assert.deepEqual(after.spec, { podCIDR: "10.0.2.0/24", unschedulable: true });
    assert.deepEqual(after.status, ready("True"));
  });

  it("filters lists on spec.unschedulable", async () => {
    const list = async (selector: string) =>
      (await nodes.list(undefined, { fieldSelector: parseFieldSelector(selector, supported) })).items
        .map((i) => (JSON.parse(i.json) as { metadata: { name: string } }).metadata.name)
        .sort();
    assert.deepEqual(await list("spec.unschedulable=true"), ["n2"]);
    assert.deepEqual(await list("spec.unschedulable=false"), ["n1"]);
    assert.deepEqual(await list("metadata.name=n1"), ["n1"]);
  });
});

describe("Node table cells", () => {
  const columns = kind.schema.tableColumns ?? [];
  const cells = (o: JsonObject) => Object.fromEntries(columns.map((c) => [c.name, c.cell(o)]));

  it("shows status, roles, age and version as kubectl does", () => {
    const domain = naming("cluster").labelDomain;
    const node = {
      metadata: {
        name: "n",
        creationTimestamp: new Date(Date.now() - 3 * 86_400_000).toISOString(),
        labels: {
          [`node-role.${domain}/control-plane`]: "",
          [`node-role.${domain}/`]: "",
          [`${domain}/role`]: "edge",
          [`node-role.${domain}/control-plane2`]: "x",
          other: "y",
        },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: "MemoryPressure", status: "False" },
          { type: "Ready", status: "True" },
        ],
        addresses: [
          { type: "Hostname", address: "n" },
          { type: "InternalIP", address: "10.0.0.5" },
        ],
        nodeInfo: {
          kubeletVersion: "v1.27.3",
          osImage: "Debian GNU/Linux 12",
          containerRuntimeVersion: "containerd://1.7",
        },
      },
    };
    assert.deepEqual(cells(node), {
      Status: "Ready,SchedulingDisabled",
      Roles: "control-plane,control-plane2,edge",
      Age: "3d",
      Version: "v1.27.3",
      "Internal-IP": "10.0.0.5",
      "External-IP": "<none>",
      "OS-Image": "Debian GNU/Linux 12",
      "Kernel-Version": "<unknown>",
      "Container-Runtime": "containerd://1.7",
    });
    assert.deepEqual(
      columns.filter((c) => c.priority === 0).map((c) => c.name),
      ["Status", "Roles", "Age", "Version"],
    );
  });

  it("shows NotReady, Unknown and no roles", () => {
    assert.equal(cells({ metadata: { name: "a" }, status: ready("Unknown") }).Status, "NotReady");
    assert.equal(cells({ metadata: { name: "a" }, status: ready("False") }).Status, "NotReady");
    const bare = cells({ metadata: { name: "a" } });
    assert.equal(bare.Status, "Unknown");
    assert.equal(bare.Roles, "<none>");
    assert.equal(bare.Version, "");
    assert.equal(cells({ spec: [], status: "x", metadata: { labels: "y" } }).Status, "Unknown");
  });

  it("reads roles with the upstream label domain too", () => {
    const k = naming("kubernetes");
    assert.deepEqual(
      nodeRoles(
        { metadata: { labels: { "node-role.kubernetes.io/worker": "", "kubernetes.io/role": "db" } } },
        k,
      ),
      ["db", "worker"],
    );
    assert.deepEqual(
      nodeRoles({ metadata: { labels: { "node-role.kubernetes.io/worker": "" } } }, naming("cluster")),
      [],
    );
  });
});
