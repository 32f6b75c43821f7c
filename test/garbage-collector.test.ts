// The garbage collector end to end through the real gateway (issue 20): the delete path's
// finalizers per policy and per kind, Background, Foreground (recursive, held by a dependent's
// own finalizer, cycles), Orphan, several owners, dangling references confirmed by a live read,
// namespace mismatches reported as Events, owners of unknown kinds, the namespace controller's
// deletes, and the metric. kubectl and client-node: test/garbage-collector-clients.test.ts.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { naming } from "../backends/naming/naming.ts";
import { ApiClient } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const WAIT = 20_000;
const HOLD = "gc.example.com/hold";
const CM = "/api/v1/namespaces/default/configmaps";

type Obj = { metadata: { name: string; uid: string; [k: string]: unknown }; [k: string]: unknown };

function ref(owner: Obj, kind = "ConfigMap", apiVersion = "v1", block?: boolean) {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    ...(block !== undefined ? { blockOwnerDeletion: block } : {}),
  };
}

describe("garbage collector", () => {
  let gw: GatewayProcess;
  let api: ApiClient;
  const preset = naming("cluster");
  let widgets = "";

  before(async () => {
    gw = await startGateway(["--storage-backend=memory"]);
    api = new ApiClient(gw.kubeconfig);
    widgets = await createServedCrd(api, {
      apiextensions: preset.group("apiextensions"),
      group: "gc.example.com",
      kind: "Widget",
      schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    });
  });
  after(async () => {
    await api?.close();
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  });

  async function make(path: string, body: Record<string, unknown>): Promise<Obj> {
    const r = await api.call("POST", path, { body });
    assert.equal(r.status, 201, r.text);
    return r.body as Obj;
  }
  const cm = (name: string, ownerReferences: unknown[] = [], extra: Record<string, unknown> = {}) =>
    make(CM, { metadata: { name, ownerReferences, ...extra } });
  const gone = (path: string, what = path) =>
    eventually(async () => (await api.call("GET", path)).status === 404, WAIT, `${what} to be gone`);
  const get = async (path: string) => (await api.call("GET", path)).body as Obj;
  async function release(path: string): Promise<void> {
    const r = await api.call("PATCH", path, {
      body: { metadata: { finalizers: null } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(r.status, 200, r.text);
  }

  it("Background: dependents of a deleted owner are deleted, built-in and custom alike", async () => {
    const owner = await cm("bg-owner");
    await cm("bg-dep", [ref(owner)]);
    const secret = await make("/api/v1/namespaces/default/secrets", {
      metadata: { name: "bg-secret", ownerReferences: [ref(owner)] },
    });
    const widget = await make(widgets, {
      apiVersion: "gc.example.com/v1",
      kind: "Widget",
      metadata: { name: "bg-widget", ownerReferences: [ref(owner)] },
    });
    // A custom resource owning a built-in one.
    await cm("bg-widget-dep", [ref(widget, "Widget", "gc.example.com/v1")]);
    const del = await api.call("DELETE", `${CM}/bg-owner`);
    assert.equal(del.status, 200, del.text);
    assert.equal(del.body.kind, "Status", "Background removes the owner at once");
    await gone(`${CM}/bg-dep`);
    await gone(`/api/v1/namespaces/default/secrets/${secret.metadata.name}`);
    await gone(`${widgets}/bg-widget`);
    await gone(`${CM}/bg-widget-dep`, "the custom resource's dependent");
  });

  it("Orphan (and orphanDependents=true): the orphan finalizer, references removed, then the owner goes", async () => {
    for (const query of ["propagationPolicy=Orphan", "orphanDependents=true"]) {
      const owner = await cm("or-owner");
      const other = await cm("or-other");
      await cm("or-dep", [ref(owner), ref(other)]);
      const del = await api.call("DELETE", `${CM}/or-owner?${query}`);
      assert.equal(del.status, 200, del.text);
      assert.deepEqual(del.body.metadata.finalizers, ["orphan"], query);
      assert.ok(del.body.metadata.deletionTimestamp, query);
      await gone(`${CM}/or-owner`);
      const dep = await get(`${CM}/or-dep`);
      assert.deepEqual(
        (dep.metadata.ownerReferences as { uid: string }[]).map((r) => r.uid),
        [other.metadata.uid],
        `${query}: only the orphaning owner's reference is removed`,
      );
      await api.call("DELETE", `${CM}/or-other?propagationPolicy=Orphan`);
      await gone(`${CM}/or-other`);
      await eventually(
        async () => !(await get(`${CM}/or-dep`)).metadata.ownerReferences,
        WAIT,
        "no references",
      );
      assert.equal((await api.call("DELETE", `${CM}/or-dep`)).status, 200);
      await gone(`${CM}/or-dep`);
    }
  });

  it("Foreground: the owner waits with foregroundDeletion until its blocking dependents are gone", async () => {
    const owner = await cm("fg-owner");
    // Held by a finalizer of its own, so the owner's wait can be seen.
    await cm("fg-block", [ref(owner, "ConfigMap", "v1", true)], { finalizers: [HOLD] });
    await cm("fg-free", [ref(owner, "ConfigMap", "v1", false)]);
    const del = await api.call("DELETE", `${CM}/fg-owner?propagationPolicy=Foreground`);
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body.metadata.finalizers, ["foregroundDeletion"]);
    assert.ok(del.body.metadata.deletionTimestamp);
    await eventually(
      async () => Boolean((await get(`${CM}/fg-block`)).metadata.deletionTimestamp),
      WAIT,
      "fg-block deleted",
    );
    await gone(`${CM}/fg-free`, "the non-blocking dependent");
    const waiting = await api.call("GET", `${CM}/fg-owner`);
    assert.equal(waiting.status, 200, "the owner waits for its blocking dependent");
    assert.deepEqual(waiting.body.metadata.finalizers, ["foregroundDeletion"]);
    await release(`${CM}/fg-block`);
    await gone(`${CM}/fg-block`);
    await gone(`${CM}/fg-owner`, "the foreground owner once its dependents are gone");
  });

  it("Foreground is recursive: a dependent with dependents of its own is deleted in the foreground too", async () => {
    const top = await cm("rf-top");
    const middle = await cm("rf-middle", [ref(top, "ConfigMap", "v1", true)]);
    await cm("rf-bottom", [ref(middle, "ConfigMap", "v1", true)], { finalizers: [HOLD] });
    assert.equal((await api.call("DELETE", `${CM}/rf-top?propagationPolicy=Foreground`)).status, 200);
    await eventually(
      async () =>
        ((await get(`${CM}/rf-middle`)).metadata.finalizers as string[] | undefined)?.includes(
          "foregroundDeletion",
        ) === true,
      WAIT,
      "the middle object deleted in the foreground",
    );
    await eventually(
      async () => Boolean((await get(`${CM}/rf-bottom`)).metadata.deletionTimestamp),
      WAIT,
      "bottom deleted",
    );
    assert.equal((await api.call("GET", `${CM}/rf-top`)).status, 200);
    await release(`${CM}/rf-bottom`);
    await gone(`${CM}/rf-bottom`);
    await gone(`${CM}/rf-middle`);
    await gone(`${CM}/rf-top`);
  });

  it("a cycle of owners deleted in the foreground does not deadlock", async () => {
    const a = await cm("cy-a");
    const b = await cm("cy-b", [ref(a, "ConfigMap", "v1", true)]);
    const patched = await api.call("PATCH", `${CM}/cy-a`, {
      body: { metadata: { ownerReferences: [ref(b, "ConfigMap", "v1", true)] } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await api.call("DELETE", `${CM}/cy-a?propagationPolicy=Foreground`)).status, 200);
    await gone(`${CM}/cy-a`);
    await gone(`${CM}/cy-b`);
  });

  it("a dependent with several owners stays while one exists; the deleted owner's reference is dropped", async () => {
    const o1 = await cm("mo-1");
    const o2 = await cm("mo-2");
    await cm("mo-dep", [ref(o1), ref(o2)]);
    assert.equal((await api.call("DELETE", `${CM}/mo-1`)).status, 200);
    await eventually(
      async () => ((await get(`${CM}/mo-dep`)).metadata.ownerReferences as unknown[]).length === 1,
      WAIT,
      "the dangling reference removed",
    );
    assert.equal((await api.call("GET", `${CM}/mo-dep`)).status, 200, "kept by its other owner");
    assert.equal((await api.call("DELETE", `${CM}/mo-2`)).status, 200);
    await gone(`${CM}/mo-dep`);
  });

  it("dangling references: a missing owner and an owner with another uid are confirmed by a live read", async () => {
    const real = await cm("dr-real");
    await cm("dr-missing", [{ apiVersion: "v1", kind: "ConfigMap", name: "dr-nobody", uid: randomUUID() }]);
    await cm("dr-other-uid", [{ apiVersion: "v1", kind: "ConfigMap", name: "dr-real", uid: randomUUID() }]);
    await gone(`${CM}/dr-missing`);
    await gone(`${CM}/dr-other-uid`);
    assert.equal((await api.call("GET", `${CM}/dr-real`)).body.metadata.uid, real.metadata.uid);
  });

  it("an owner of a kind the server does not serve: the dependent stays, logged once", async () => {
    const unknown = { apiVersion: "nothing.example.com/v1", kind: "Nothing", name: "x", uid: randomUUID() };
    await cm("uk-dep", [unknown]);
    await cm("uk-dep-2", [unknown]);
    // A dangling dependent made after them is collected: the workers have been past them.
    await cm("uk-control", [{ apiVersion: "v1", kind: "ConfigMap", name: "uk-nobody", uid: randomUUID() }]);
    await gone(`${CM}/uk-control`);
    assert.equal((await api.call("GET", `${CM}/uk-dep`)).status, 200);
    assert.equal((await api.call("GET", `${CM}/uk-dep-2`)).status, 200);
    const lines = gw
      .output()
      .split("\n")
      .filter((l) => l.includes("nothing.example.com/v1, Kind=Nothing"));
    assert.equal(lines.length, 1, gw.output().slice(-2000));
  });

  it("namespace mismatches: an Event OwnerRefInvalidNamespace; a cross-namespace owner counts as absent, a namespaced owner of a cluster-scoped object is left alone", async () => {
    await make("/api/v1/namespaces", { metadata: { name: "gc-other" } });
    const owner = await cm("ns-owner");
    await make("/api/v1/namespaces/gc-other/configmaps", {
      metadata: { name: "ns-dep", ownerReferences: [ref(owner)] },
    });
    await gone(
      "/api/v1/namespaces/gc-other/configmaps/ns-dep",
      "the dependent of an owner in another namespace",
    );
    const events = async (ns: string) =>
      (
        (await api.call("GET", `/api/v1/namespaces/${ns}/events`)).body.items as {
          reason: string;
          message: string;
          type: string;
          involvedObject: { name: string };
          source: { component: string };
        }[]
      ).filter((e) => e.reason === "OwnerRefInvalidNamespace");
    await eventually(async () => (await events("gc-other")).length > 0, WAIT, "an event in gc-other");
    const [event] = await events("gc-other");
    assert.equal(event?.type, "Warning");
    assert.equal(event?.involvedObject.name, "ns-dep");
    assert.equal(event?.source.component, "garbage-collector-controller");
    assert.equal(
      event?.message,
      `ownerRef [v1/ConfigMap, namespace: gc-other, name: ns-owner, uid: ${owner.metadata.uid}] does not exist in namespace "gc-other"`,
    );
    // A cluster-scoped dependent naming a namespaced owner that does not exist stays.
    await make("/api/v1/namespaces", {
      metadata: {
        name: "gc-cluster-dep",
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "nowhere", uid: randomUUID() }],
      },
    });
    await eventually(
      async () => (await events("default")).some((e) => e.involvedObject.name === "gc-cluster-dep"),
      WAIT,
      "an event for the cluster-scoped dependent",
    );
    assert.equal((await api.call("GET", "/api/v1/namespaces/gc-cluster-dep")).status, 200);
    assert.equal((await api.call("GET", `${CM}/ns-owner`)).status, 200, "the owner itself is untouched");
  });

  it("per-kind defaults: ReplicationControllers and Jobs orphan, Deployments go in the background, Events take no finalizer", async () => {
    const podTemplate = {
      metadata: { labels: { a: "b" } },
      spec: { containers: [{ name: "c", image: "i" }] },
    };
    await make("/api/v1/namespaces/default/replicationcontrollers", {
      metadata: { name: "kd-rc" },
      spec: { replicas: 0, selector: { a: "b" }, template: podTemplate },
    });
    const rc = await api.call("DELETE", "/api/v1/namespaces/default/replicationcontrollers/kd-rc?dryRun=All");
    assert.deepEqual(rc.body.metadata?.finalizers, ["orphan"], rc.text);
    const explicit = await api.call(
      "DELETE",
      "/api/v1/namespaces/default/replicationcontrollers/kd-rc?dryRun=All&propagationPolicy=Background",
    );
    assert.equal(explicit.body.kind, "Status", "an explicit policy wins over the kind's default");
    await make("/apis/batch/v1/namespaces/default/jobs", {
      metadata: { name: "kd-job" },
      spec: { template: { spec: { containers: [{ name: "c", image: "i" }], restartPolicy: "Never" } } },
    });
    const job = await api.call("DELETE", "/apis/batch/v1/namespaces/default/jobs/kd-job?dryRun=All");
    assert.deepEqual(job.body.metadata?.finalizers, ["orphan"], job.text);
    await make("/apis/apps/v1/namespaces/default/deployments", {
      metadata: { name: "kd-deploy" },
      spec: { selector: { matchLabels: { a: "b" } }, template: podTemplate },
    });
    const deploy = await api.call(
      "DELETE",
      "/apis/apps/v1/namespaces/default/deployments/kd-deploy?dryRun=All",
    );
    assert.equal(deploy.body.kind, "Status", deploy.text);
    await make("/api/v1/namespaces/default/events", {
      metadata: { name: "kd-event" },
      involvedObject: { kind: "ConfigMap", namespace: "default", name: "x" },
      reason: "R",
      message: "m",
      type: "Normal",
    });
    const event = await api.call(
      "DELETE",
      "/api/v1/namespaces/default/events/kd-event?propagationPolicy=Orphan",
    );
    assert.equal(event.status, 200, event.text);
    assert.equal(event.body.kind, "Status", "Events are never held for the collector");
    // A second delete may change the policy of an object already waiting.
    const owner = await cm("kd-owner", [], { finalizers: [HOLD] });
    await cm("kd-dep", [ref(owner)]);
    const first = await api.call("DELETE", `${CM}/kd-owner?propagationPolicy=Orphan`);
    assert.deepEqual(first.body.metadata.finalizers, [HOLD, "orphan"]);
    await eventually(
      async () => !(await get(`${CM}/kd-owner`)).metadata.finalizers?.toString().includes("orphan"),
      WAIT,
      "orphaned",
    );
    assert.equal((await api.call("GET", `${CM}/kd-dep`)).body.metadata.ownerReferences, undefined);
    await release(`${CM}/kd-owner`);
    await gone(`${CM}/kd-owner`);
  });

  it("deleting a namespace deletes everything in it, in the background, with no orphan finalizer left to wait for", async () => {
    await make("/api/v1/namespaces", { metadata: { name: "gc-ns" } });
    const podTemplate = {
      metadata: { labels: { a: "b" } },
      spec: { containers: [{ name: "c", image: "i" }] },
    };
    const rc = await make("/api/v1/namespaces/gc-ns/replicationcontrollers", {
      metadata: { name: "rc" },
      spec: { replicas: 0, selector: { a: "b" }, template: podTemplate },
    });
    await make("/api/v1/namespaces/gc-ns/configmaps", {
      metadata: { name: "dep", ownerReferences: [ref(rc, "ReplicationController")] },
    });
    const watch = await api.call("GET", "/api/v1/namespaces/gc-ns/replicationcontrollers");
    const rv = watch.body.metadata.resourceVersion as string;
    const stream = await api.watch(
      `/api/v1/namespaces/gc-ns/replicationcontrollers?watch=1&resourceVersion=${rv}`,
    );
    const seen: string[][] = [];
    const collecting = (async () => {
      for await (const e of stream.events) {
        seen.push(((e.object.metadata as { finalizers?: string[] }).finalizers ?? []).slice());
        if (e.type === "DELETED") return;
      }
    })();
    assert.equal((await api.call("DELETE", "/api/v1/namespaces/gc-ns")).status, 200);
    await gone("/api/v1/namespaces/gc-ns", "the namespace");
    await collecting;
    stream.close();
    assert.ok(!seen.some((f) => f.includes("orphan")), JSON.stringify(seen));
  });

  it("bad input: an owner reference without uid, kind, name or apiVersion is a 422; exact duplicates are dropped with a Warning", async () => {
    const bad = await api.call("POST", CM, {
      body: {
        metadata: {
          name: "bi-bad",
          ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "o" }, { uid: "u" }],
        },
      },
    });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.body.reason, "Invalid");
    const causes = (bad.body.details.causes as { field: string; message: string }[]).map(
      (c) => `${c.field}: ${c.message}`,
    );
    for (const expected of [
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
    ])
      assert.ok(causes.includes(expected), `${expected} in ${causes.join("; ")}`);
    assert.equal((await api.call("GET", `${CM}/bi-bad`)).status, 404, "nothing stored");
    // Upstream 1.27 dedups equal entries (and warns) rather than refusing them.
    // A real owner, so that the collector leaves the dependent alone.
    const owner = ref(await cm("bi-owner"));
    const twin = { ...owner, controller: false };
    const made = await api.call("POST", CM, {
      body: { metadata: { name: "bi-dup", ownerReferences: [owner, owner, twin] } },
    });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(
      made.body.metadata.ownerReferences,
      [owner, twin],
      "equal entries dropped, differing ones kept",
    );
    assert.match(
      String(made.headers.warning),
      new RegExp(
        `ownerReferences contains duplicate entries; API server dedups owner references in 1\\.20\\+, and may reject such requests as early as 1\\.24; please fix your requests; duplicate UID\\(s\\) observed: ${owner.uid}`,
      ),
    );
    const patched = await api.call("PATCH", `${CM}/bi-dup?dryRun=All`, {
      body: { metadata: { ownerReferences: [twin, twin] } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.metadata.ownerReferences, [twin]);
    assert.match(String(patched.headers.warning), /duplicate entries after mutating admission happens/);
  });

  it("metrics: garbagecollector_controller_resources_sync_error_total", async () => {
    const r = await api.call("GET", "/metrics");
    assert.equal(r.status, 200);
    assert.match(r.text, /^garbagecollector_controller_resources_sync_error_total \d+$/m);
  });
});
