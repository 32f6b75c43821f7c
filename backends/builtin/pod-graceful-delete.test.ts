import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import type { Registry } from "../registry/index.ts";
import type { JsonObject } from "../registry/strategy.ts";
import { podKind } from "./pod.ts";
import { podGracePeriod } from "./pod-graceful-delete.ts";
import { type ServedKind, serveKind } from "./testing.ts";

let served: ServedKind;
let pods: Registry;

before(async () => {
  served = await serveKind(podKind(naming("cluster")));
  pods = served.registry;
});
after(() => served.stop());

const pod = (name: string, spec: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns" },
  spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
});

const metaOf = (o: JsonObject) =>
  o.metadata as { deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
const secondsBetween = (a: string, b: string) => (Date.parse(a) - Date.parse(b)) / 1000;

describe("podGracePeriod", () => {
  it("takes the request's period, else the pod's own, for a pod on a node", () => {
    const p = { spec: { nodeName: "n", terminationGracePeriodSeconds: 45 } };
    assert.equal(podGracePeriod(p, undefined), 45);
    assert.equal(podGracePeriod(p, 7), 7);
    assert.equal(podGracePeriod(p, 0), 0);
    assert.equal(podGracePeriod({ spec: { nodeName: "n" } }, undefined), 0);
    assert.equal(podGracePeriod(p, -3), 1);
  });

  it("is 0 for a pod no node took or one that finished", () => {
    assert.equal(podGracePeriod({ spec: { terminationGracePeriodSeconds: 30 } }, 20), 0);
    for (const phase of ["Succeeded", "Failed"])
      assert.equal(podGracePeriod({ spec: { nodeName: "n" }, status: { phase } }, 20), 0);
    assert.equal(podGracePeriod({ spec: { nodeName: "n" }, status: { phase: "Running" } }, 20), 20);
  });
});

describe("graceful deletion of pods in the registry", () => {
  it("marks a scheduled pod and keeps it until a delete with grace 0", async () => {
    await pods.create("ns", pod("a", { nodeName: "node-1", terminationGracePeriodSeconds: 30 }));
    const first = await pods.delete("ns", "a");
    assert.equal(first.removed, false);
    const m = metaOf(first.object);
    assert.equal(m.deletionGracePeriodSeconds, 30);
    const stored = JSON.parse((await pods.get("ns", "a")).json) as JsonObject;
    assert.equal(metaOf(stored).deletionTimestamp, m.deletionTimestamp);
    // Any other write leaves it in place, finalizers or not.
    await pods.update("ns", "a", (current) => {
      const o = current as JsonObject;
      (o.metadata as JsonObject).labels = { touched: "yes" };
      return o;
    });
    assert.ok(await pods.get("ns", "a"));
    // A longer or equal period changes nothing; a shorter one moves the deadline back.
    const again = await pods.delete("ns", "a", { gracePeriodSeconds: 60 });
    assert.equal(again.removed, false);
    assert.equal(metaOf(again.object).deletionGracePeriodSeconds, 30);
    const shorter = await pods.delete("ns", "a", { gracePeriodSeconds: 10 });
    assert.equal(shorter.removed, false);
    const sm = metaOf(shorter.object);
    assert.equal(sm.deletionGracePeriodSeconds, 10);
    assert.equal(secondsBetween(m.deletionTimestamp as string, sm.deletionTimestamp as string), 20);
    const last = await pods.delete("ns", "a", { gracePeriodSeconds: 0 });
    assert.equal(last.removed, true);
    await assert.rejects(pods.get("ns", "a"), /not found/);
  });

  it("removes unscheduled and finished pods at once", async () => {
    await pods.create("ns", pod("b"));
    assert.equal((await pods.delete("ns", "b")).removed, true);
    await pods.create("ns", pod("c", { nodeName: "node-1" }));
    await pods.update(
      "ns",
      "c",
      (current) => ({ ...(current as JsonObject), status: { phase: "Succeeded" } }),
      { subresource: "status" },
    );
    assert.equal((await pods.delete("ns", "c")).removed, true);
  });

  it("waits for finalizers after a grace-0 delete, and then removes the pod", async () => {
    await pods.create("ns", {
      ...pod("d", { nodeName: "node-1" }),
      metadata: { name: "d", namespace: "ns", finalizers: ["example.com/hold"] },
    });
    const first = await pods.delete("ns", "d", { gracePeriodSeconds: 0 });
    assert.equal(first.removed, false);
    assert.equal(metaOf(first.object).deletionGracePeriodSeconds, 0);
    await pods.update("ns", "d", (current) => {
      const o = current as JsonObject;
      (o.metadata as JsonObject).finalizers = [];
      return o;
    });
    await assert.rejects(pods.get("ns", "d"), /not found/);
  });
});
