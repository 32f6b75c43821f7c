import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type AdmissionTest,
  type AttributesSpec,
  startAdmissionTest,
} from "../../../gateway/admission/testing.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { AdmissionPlugin } from "../contract.ts";
import { registration } from "./index.ts";

const kubelet = (name: string): UserInfo => ({
  username: `system:node:${name}`,
  uid: "",
  groups: ["system:nodes"],
  extra: {},
});
const N1 = kubelet("n1");

describe("NodeRestriction", () => {
  let t: AdmissionTest;
  let plugin: AdmissionPlugin;
  let mirror: string;
  let uid: string;
  before(async () => {
    t = await startAdmissionTest();
    plugin = await registration.factory(t.env());
    mirror = t.naming.label("config.mirror");
    await t.create("namespaces", undefined, { metadata: { name: "ns" } });
    const mine = await t.create("pods", "ns", {
      metadata: { name: "mine" },
      spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] },
    });
    uid = String((mine.metadata as { uid: string }).uid);
    await t.create("pods", "ns", {
      metadata: { name: "theirs" },
      spec: { nodeName: "n2", containers: [{ name: "c", image: "i" }] },
    });
  });
  after(async () => t?.stop());

  const mirrorPod = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
    metadata: { name: "m", namespace: "ns", annotations: { [mirror]: "x" }, ...meta },
    spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }], ...spec },
  });
  const node = (name: string, labels: Record<string, string> = {}, taints: unknown[] = []) => ({
    metadata: { name, labels },
    spec: { taints },
  });

  const cases: [string, () => AttributesSpec, RegExp | null][] = [
    ["other users are untouched", () => ({ operation: "DELETE", resource: "nodes", name: "n2" }), null],
    [
      "mirror pod on itself",
      () => ({ operation: "CREATE", resource: "pods", namespace: "ns", object: mirrorPod(), user: N1 }),
      null,
    ],
    [
      "non-mirror pod",
      () => ({
        operation: "CREATE",
        resource: "pods",
        namespace: "ns",
        object: { ...mirrorPod(), metadata: { name: "m" } },
        user: N1,
      }),
      /can only create mirror pods/,
    ],
    [
      "mirror pod elsewhere",
      () => ({
        operation: "CREATE",
        resource: "pods",
        namespace: "ns",
        object: mirrorPod({ nodeName: "n2" }),
        user: N1,
      }),
      /node "n1" can only create pods with spec.nodeName set to itself/,
    ],
    [
      "mirror pod with secret",
      () => ({
        operation: "CREATE",
        resource: "pods",
        namespace: "ns",
        object: mirrorPod({ volumes: [{ name: "s", secret: { secretName: "s" } }] }),
        user: N1,
      }),
      /reference secrets/,
    ],
    [
      "mirror pod with configmap",
      () => ({
        operation: "CREATE",
        resource: "pods",
        namespace: "ns",
        object: mirrorPod({ volumes: [{ name: "s", configMap: { name: "s" } }] }),
        user: N1,
      }),
      /reference configmaps/,
    ],
    [
      "mirror pod with pvc",
      () => ({
        operation: "CREATE",
        resource: "pods",
        namespace: "ns",
        object: mirrorPod({ volumes: [{ name: "s", persistentVolumeClaim: { claimName: "s" } }] }),
        user: N1,
      }),
      /reference persistentvolumeclaims/,
    ],
    [
      "mirror pod with SA",
      () => ({
        operation: "CREATE",
        resource: "pods",
        namespace: "ns",
        object: mirrorPod({ serviceAccountName: "default" }),
        user: N1,
      }),
      /reference a service account/,
    ],
    [
      "mirror pod owned by another node",
      () => ({
        operation: "CREATE",
        resource: "pods",
        namespace: "ns",
        object: mirrorPod(
          {},
          { ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n2", uid: "u", controller: true }] },
        ),
        user: N1,
      }),
      /owner reference set to itself/,
    ],
    [
      "mirror pod owned by itself",
      () => ({
        operation: "CREATE",
        resource: "pods",
        namespace: "ns",
        object: mirrorPod(
          {},
          { ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "u", controller: true }] },
        ),
        user: N1,
      }),
      null,
    ],
    [
      "delete own pod",
      () => ({ operation: "DELETE", resource: "pods", namespace: "ns", name: "mine", user: N1 }),
      null,
    ],
    [
      "delete other pod",
      () => ({ operation: "DELETE", resource: "pods", namespace: "ns", name: "theirs", user: N1 }),
      /node "n1" can only delete pods with spec.nodeName set to itself/,
    ],
    [
      "update pod",
      () => ({
        operation: "UPDATE",
        resource: "pods",
        namespace: "ns",
        name: "mine",
        object: mirrorPod(),
        oldObject: mirrorPod(),
        user: N1,
      }),
      /can only create and delete mirror pods/,
    ],
    [
      "own pod status",
      () => ({
        operation: "UPDATE",
        resource: "pods",
        subresource: "status",
        namespace: "ns",
        name: "mine",
        user: N1,
      }),
      null,
    ],
    [
      "labels through own pod status",
      () => ({
        operation: "UPDATE",
        resource: "pods",
        subresource: "status",
        namespace: "ns",
        name: "mine",
        object: { metadata: { name: "mine", labels: { a: "b" } }, spec: { nodeName: "n1" } },
        oldObject: { metadata: { name: "mine" }, spec: { nodeName: "n1" } },
        user: N1,
      }),
      /cannot update labels through pod status/,
    ],
    [
      "delete missing pod",
      () => ({ operation: "DELETE", resource: "pods", namespace: "ns", name: "gone", user: N1 }),
      /pods "gone" not found/,
    ],
    [
      "other pod status",
      () => ({
        operation: "UPDATE",
        resource: "pods",
        subresource: "status",
        namespace: "ns",
        name: "theirs",
        user: N1,
      }),
      /can only update pod status/,
    ],
    [
      "evict other pod",
      () => ({
        operation: "CREATE",
        resource: "pods",
        subresource: "eviction",
        namespace: "ns",
        name: "theirs",
        user: N1,
      }),
      /can only evict pods/,
    ],
    [
      "create own node",
      () => ({
        operation: "CREATE",
        resource: "nodes",
        object: node("n1", { [t.naming.label("hostname")]: "n1" }),
        user: N1,
      }),
      null,
    ],
    [
      "create other node",
      () => ({ operation: "CREATE", resource: "nodes", object: node("n2"), user: N1 }),
      /node "n1" is not allowed to modify node "n2"/,
    ],
    [
      "restricted label",
      () => ({
        operation: "CREATE",
        resource: "nodes",
        object: node("n1", { [`node-restriction.${t.naming.labelDomain}/x`]: "y" }),
        user: N1,
      }),
      /not allowed to set the following labels/,
    ],
    [
      "change taints",
      () => ({
        operation: "UPDATE",
        resource: "nodes",
        name: "n1",
        object: node("n1", {}, [{ key: "k", effect: "NoSchedule" }]),
        oldObject: node("n1"),
        user: N1,
      }),
      /node "n1" is not allowed to modify taints/,
    ],
    [
      "change unsafe label",
      () => ({
        operation: "UPDATE",
        resource: "nodes",
        name: "n1",
        object: node("n1", { [t.naming.label("role", "x")]: "a" }),
        oldObject: node("n1"),
        user: N1,
      }),
      /not allowed to modify labels/,
    ],
    [
      "change allowed label",
      () => ({
        operation: "UPDATE",
        resource: "nodes",
        name: "n1",
        object: node("n1", { [t.naming.label("zone", "topology")]: "a" }),
        oldObject: node("n1"),
        user: N1,
      }),
      null,
    ],
    [
      "own lease",
      () => ({
        operation: "UPDATE",
        resource: "leases",
        group: t.naming.group("coordination"),
        namespace: t.naming.nodeLeaseNamespace,
        name: "n1",
        user: N1,
      }),
      null,
    ],
    [
      "other lease",
      () => ({
        operation: "UPDATE",
        resource: "leases",
        group: t.naming.group("coordination"),
        namespace: t.naming.nodeLeaseNamespace,
        name: "n2",
        user: N1,
      }),
      /same name as the requesting node/,
    ],
    [
      "token for own pod",
      () => ({
        operation: "CREATE",
        resource: "serviceaccounts",
        subresource: "token",
        namespace: "ns",
        name: "default",
        object: { spec: { boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "mine", uid } } },
        user: N1,
      }),
      null,
    ],
    [
      "token unbound",
      () => ({
        operation: "CREATE",
        resource: "serviceaccounts",
        subresource: "token",
        namespace: "ns",
        name: "default",
        object: { spec: {} },
        user: N1,
      }),
      /not bound to a pod/,
    ],
  ];
  for (const [name, spec, want] of cases)
    it(name, async () => {
      const run = async () => plugin.admit?.(t.attributes(spec()));
      if (want) await assert.rejects(run(), want);
      else await run();
    });
});
