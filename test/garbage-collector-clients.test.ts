// The garbage collector through real clients (issue 20), under the kubernetes naming preset:
// `kubectl delete --cascade=background|foreground|orphan` with the oldest and newest kubectl,
// `kubectl get` showing an owner that waits in the foreground, and @kubernetes/client-node's
// propagationPolicy.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { ApiClient } from "./support/api-client.ts";
import {
  type GatewayProcess,
  kubectl,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const WAIT = 20_000;
const HOLD = "gc.example.com/hold";
const CM = "/api/v1/namespaces/default/configmaps";
const binaries = oldestAndNewestKubectl();

describe("garbage collector through kubectl and client-node (kubernetes naming)", () => {
  let gw: GatewayProcess;
  let api: ApiClient;

  before(async () => {
    gw = await startGateway(["--storage-backend=memory", "--api-naming=kubernetes"]);
    api = new ApiClient(gw.kubeconfig);
  });
  after(async () => {
    await api?.close();
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  });

  async function cm(
    name: string,
    owner?: { name: string; uid: string },
    extra: Record<string, unknown> = {},
  ) {
    const ownerReferences = owner
      ? [{ apiVersion: "v1", kind: "ConfigMap", name: owner.name, uid: owner.uid, blockOwnerDeletion: true }]
      : [];
    const r = await api.call("POST", CM, { body: { metadata: { name, ownerReferences, ...extra } } });
    assert.equal(r.status, 201, r.text);
    return { name, uid: r.body.metadata.uid as string };
  }
  const status = async (name: string) => (await api.call("GET", `${CM}/${name}`)).status;
  const gone = (name: string) => eventually(async () => (await status(name)) === 404, WAIT, `${name} gone`);

  for (const bin of binaries) {
    const v = bin.split(".").slice(-2).join("-");
    it(`${v}: delete --cascade=background deletes the dependents`, async () => {
      const owner = await cm(`bg-${v}`);
      await cm(`bg-${v}-dep`, owner);
      const out = await kubectl(bin, gw.kubeconfig, [
        "delete",
        "configmap",
        owner.name,
        "--cascade=background",
      ]);
      assert.equal(out.code, 0, out.stdout);
      assert.match(out.stdout, new RegExp(`configmap "${owner.name}" deleted`));
      await gone(`bg-${v}-dep`);
    });

    it(`${v}: delete --cascade=orphan keeps the dependents without the reference`, async () => {
      const owner = await cm(`or-${v}`);
      await cm(`or-${v}-dep`, owner);
      const out = await kubectl(bin, gw.kubeconfig, ["delete", "configmap", owner.name, "--cascade=orphan"]);
      assert.equal(out.code, 0, out.stdout);
      await gone(owner.name);
      const dep = await api.call("GET", `${CM}/or-${v}-dep`);
      assert.equal(dep.status, 200);
      assert.equal(dep.body.metadata.ownerReferences, undefined);
    });

    it(`${v}: delete --cascade=foreground; kubectl get shows the owner while it waits`, async () => {
      const owner = await cm(`fg-${v}`);
      await cm(`fg-${v}-dep`, owner, { finalizers: [HOLD] });
      const out = await kubectl(bin, gw.kubeconfig, [
        "delete",
        "configmap",
        owner.name,
        "--cascade=foreground",
        "--wait=false",
      ]);
      assert.equal(out.code, 0, out.stdout);
      await eventually(
        async () => Boolean((await api.call("GET", `${CM}/fg-${v}-dep`)).body.metadata.deletionTimestamp),
        WAIT,
        "the dependent deleted",
      );
      const shown = await kubectl(bin, gw.kubeconfig, ["get", "configmap", owner.name, "-o", "json"]);
      assert.equal(shown.code, 0, shown.stdout);
      const obj = JSON.parse(shown.stdout);
      assert.deepEqual(obj.metadata.finalizers, ["foregroundDeletion"]);
      assert.ok(obj.metadata.deletionTimestamp);
      const table = await kubectl(bin, gw.kubeconfig, ["get", "configmap", owner.name]);
      assert.match(table.stdout, new RegExp(`^${owner.name}\\s`, "m"));
      const released = await kubectl(bin, gw.kubeconfig, [
        "patch",
        "configmap",
        `fg-${v}-dep`,
        "--type=merge",
        "-p",
        '{"metadata":{"finalizers":null}}',
      ]);
      assert.equal(released.code, 0, released.stdout);
      await gone(`fg-${v}-dep`);
      await gone(owner.name);
    });
  }
  if (binaries.length === 0) it("kubectl", { skip: NO_KUBECTL }, () => {});

  it("@kubernetes/client-node: propagationPolicy Foreground and Orphan", async () => {
    const k8s = await import("@kubernetes/client-node");
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(gw.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const owner = await cm("node-fg");
    await cm("node-fg-dep", owner, { finalizers: [HOLD] });
    await core.deleteNamespacedConfigMap({
      name: "node-fg",
      namespace: "default",
      propagationPolicy: "Foreground",
    });
    // The answer is typed as a Status by the library; the stored owner shows the finalizer.
    const waiting = await core.readNamespacedConfigMap({ name: "node-fg", namespace: "default" });
    assert.deepEqual(waiting.metadata?.finalizers, ["foregroundDeletion"]);
    await eventually(
      async () => Boolean((await api.call("GET", `${CM}/node-fg-dep`)).body.metadata.deletionTimestamp),
      WAIT,
      "the dependent deleted",
    );
    assert.equal(await status("node-fg"), 200);
    await core.patchNamespacedConfigMap(
      { name: "node-fg-dep", namespace: "default", body: { metadata: { finalizers: null } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    await gone("node-fg");

    const orphanOwner = await cm("node-or");
    await cm("node-or-dep", orphanOwner);
    await core.deleteNamespacedConfigMap({
      name: "node-or",
      namespace: "default",
      propagationPolicy: "Orphan",
    });
    await gone("node-or");
    assert.equal(await status("node-or-dep"), 200);
  });
});
