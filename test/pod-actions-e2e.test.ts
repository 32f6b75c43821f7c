// Pod binding and eviction as a scheduler and `kubectl drain` use them, against the server started
// as README says: binding sets the node once; eviction deletes a pod unless its disruption budget
// has no disruption left, and counts the one it allows.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import {
  type GatewayProcess,
  kubectlRun,
  kubectlVersions,
  NO_KUBECTL,
  startGateway,
} from "./support/gateway-process.ts";

const bin = kubectlVersions().at(-1);
let gw: GatewayProcess;

async function k(args: string[], input?: string): Promise<{ code: number; out: string }> {
  const r = await kubectlRun(bin as string, gw.kubeconfig, args, input);
  return { code: r.code, out: r.stdout + r.stderr };
}

async function ok(args: string[], input?: string): Promise<string> {
  const r = await k(args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(" ")}:\n${r.out}`);
  return r.out;
}

describe("pod binding and eviction", { skip: bin ? false : NO_KUBECTL }, () => {
  before(async () => {
    gw = await startGateway(["--api-naming=kubernetes"]);
  });
  after(async () => {
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  });

  it("binds a pod to a node once", async () => {
    await ok(["run", "bound", "--image=busybox", "--labels=app=bound"]);
    const binding = JSON.stringify({
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "bound" },
      target: { kind: "Node", name: "node-1" },
    });
    const created = await ok(
      ["create", "--raw", "/api/v1/namespaces/default/pods/bound/binding", "-f", "-"],
      binding,
    );
    assert.equal(JSON.parse(created).status, "Success");
    assert.equal(await ok(["get", "pod", "bound", "-o", "jsonpath={.spec.nodeName}"]), "node-1");
    const again = await k(
      ["create", "--raw", "/api/v1/namespaces/default/pods/bound/binding", "-f", "-"],
      binding,
    );
    assert.notEqual(again.code, 0);
    assert.match(again.out, /pod bound is already assigned to node "node-1"/);
    const noTarget = await k(
      ["create", "--raw", "/api/v1/namespaces/default/pods/bound/binding", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name: "bound" }, target: {} }),
    );
    assert.match(noTarget.out, /target.name: Required value/);
  });

  it("binds through the older bindings resource too, the pod named by the Binding", async () => {
    await ok(["run", "bound-legacy", "--image=busybox"]);
    const binding = (name: string) =>
      JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name }, target: { name: "node-2" } });
    assert.match(await ok(["api-resources", "--api-group="]), /^bindings\s+v1\s+true\s+Binding$/m);
    const created = await ok(
      ["create", "--raw", "/api/v1/namespaces/default/bindings", "-f", "-"],
      binding("bound-legacy"),
    );
    assert.equal(JSON.parse(created).status, "Success");
    assert.equal(await ok(["get", "pod", "bound-legacy", "-o", "jsonpath={.spec.nodeName}"]), "node-2");
    const again = await k(
      ["create", "--raw", "/api/v1/namespaces/default/bindings", "-f", "-"],
      binding("bound-legacy"),
    );
    assert.match(again.out, /already assigned to node "node-2"/);
    const unnamed = await k(
      ["create", "--raw", "/api/v1/namespaces/default/bindings", "-f", "-"],
      binding(""),
    );
    assert.match(unnamed.out, /resource name may not be empty/);
    const missing = await k(
      ["create", "--raw", "/api/v1/namespaces/default/bindings", "-f", "-"],
      binding("nope"),
    );
    assert.match(missing.out, /pods "nope" not found/);
  });

  it("evicts only what the disruption budget allows", async () => {
    await ok([
      "patch",
      "pod",
      "bound",
      "--subresource=status",
      "--type=merge",
      "-p",
      '{"status":{"phase":"Running"}}',
    ]);
    await ok(
      ["create", "-f", "-"],
      JSON.stringify({
        apiVersion: "policy/v1",
        kind: "PodDisruptionBudget",
        metadata: { name: "keep" },
        spec: { minAvailable: 1, selector: { matchLabels: { app: "bound" } } },
      }),
    );
    const eviction = JSON.stringify({
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "bound" },
    });
    const path = "/api/v1/namespaces/default/pods/bound/eviction";
    const refused = await k(["create", "--raw", path, "-f", "-"], eviction);
    assert.notEqual(refused.code, 0);
    assert.match(refused.out, /TooManyRequests|disruption budget/);
    await ok([
      "patch",
      "pdb",
      "keep",
      "--subresource=status",
      "--type=merge",
      "-p",
      '{"status":{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":2,"desiredHealthy":1,"expectedPods":2}}',
    ]);
    await ok(["create", "--raw", path, "-f", "-"], eviction);
    // A pod on a node is deleted gracefully: it terminates until its kubelet removes it.
    const evicted = JSON.parse(await ok(["get", "pod", "bound", "-o", "json"])).metadata;
    assert.ok(evicted.deletionTimestamp);
    assert.equal(evicted.deletionGracePeriodSeconds, 30);
    // The eviction's own grace period reaches the delete: a shorter one moves the deadline.
    const shorter = JSON.stringify({ ...JSON.parse(eviction), deleteOptions: { gracePeriodSeconds: 5 } });
    await ok(["create", "--raw", path, "-f", "-"], shorter);
    const shortened = JSON.parse(await ok(["get", "pod", "bound", "-o", "json"])).metadata;
    assert.equal(shortened.deletionGracePeriodSeconds, 5);
    assert.ok(Date.parse(shortened.deletionTimestamp) < Date.parse(evicted.deletionTimestamp));
    const status = JSON.parse(await ok(["get", "pdb", "keep", "-o", "json"])).status;
    assert.equal(status.disruptionsAllowed, 0);
    assert.ok(status.disruptedPods.bound);
  });

  it("evicts a pod that is not running without asking the budget", async () => {
    await ok(["run", "pending", "--image=busybox", "--labels=app=bound"]);
    await ok(
      ["create", "--raw", "/api/v1/namespaces/default/pods/pending/eviction", "-f", "-"],
      JSON.stringify({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "pending" } }),
    );
    const pending = await k(["get", "pod", "pending"]);
    assert.notEqual(pending.code, 0);
    assert.match(pending.out, /Error from server \(NotFound\): pods "pending" not found/);
  });
});
