// Real client libraries against the server started as README says: Debian's python3-kubernetes
// (skipped with a hint when it is not installed; required under REQUIRE_SERVICES=1).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { promisify } from "node:util";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { PYTHON, pythonSkip } from "./support/python.ts";
import { eventually } from "./support/watch.ts";

const run = promisify(execFile);

let gw: GatewayProcess | undefined;
before(async () => {
  if (pythonSkip === false) gw = await startGateway(["--storage-backend=memory"]);
});
after(async () => {
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

it("python3-kubernetes: list, create, read, patch, page, watch, 404, delete, an admission refusal", {
  skip: pythonSkip,
}, async () => {
  const script = join(import.meta.dirname, "clients", "python-client.py");
  const { stdout } = await run(PYTHON, [script, (gw as GatewayProcess).kubeconfig], { timeout: 60_000 });
  assert.deepEqual(stdout.trim().split("\n"), [
    "namespaces ok",
    "create ok",
    "read and patch ok",
    "list ok",
    "watch ok",
    "not found ok",
    "delete ok",
    "admission ok",
  ]);
});

/**
 * Runs `body` with @kubernetes/client-node against the shared gateway, or a gateway of its own
 * when python3-kubernetes is absent (the shared one is started only for it).
 */
async function withClientNode(
  body: (client: {
    k8s: typeof import("@kubernetes/client-node");
    kc: import("@kubernetes/client-node").KubeConfig;
    core: import("@kubernetes/client-node").CoreV1Api;
  }) => Promise<void>,
): Promise<void> {
  const k8s = await import("@kubernetes/client-node");
  const standalone = gw ?? (await startGateway(["--storage-backend=memory"]));
  try {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(standalone.kubeconfig);
    await body({ k8s, kc, core: kc.makeApiClient(k8s.CoreV1Api) });
  } finally {
    if (!gw) {
      await standalone.stop();
      await rm(standalone.dataDir, { recursive: true, force: true });
    }
  }
}

it("@kubernetes/client-node: list, create, read, watch, 404, delete", async () => {
  await withClientNode(async ({ k8s, kc, core }) => {
    const namespaces = await core.listNamespace();
    assert.ok(namespaces.items.some((n) => n.metadata?.name === "default"));
    const created = await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "node-cm", labels: { from: "node" } }, data: { a: "1" } },
    });
    assert.ok(created.metadata?.resourceVersion);
    const read = await core.readNamespacedConfigMap({ name: "node-cm", namespace: "default" });
    assert.deepEqual(read.data, { a: "1" });

    const events: string[] = [];
    const watch = new k8s.Watch(kc);
    let request: { abort(): void } | undefined;
    await new Promise<void>((resolve, reject) => {
      watch
        .watch(
          "/api/v1/namespaces/default/configmaps",
          { labelSelector: "from=node" },
          (type, object) => {
            events.push(`${type} ${(object as { metadata: { name: string } }).metadata.name}`);
            if (events.length === 1) resolve();
          },
          (err) => {
            if (err && events.length === 0) reject(err);
          },
        )
        .then((r) => {
          request = r;
        }, reject);
    });
    request?.abort();
    assert.deepEqual(events, ["ADDED node-cm"]);

    await assert.rejects(
      core.readNamespacedConfigMap({ name: "missing", namespace: "default" }),
      (e: unknown) => (e as { code?: number }).code === 404,
    );
    await core.deleteNamespacedConfigMap({ name: "node-cm", namespace: "default" });
  });
});

it("@kubernetes/client-node: admission mutates a Pod (service-account token volume) and refuses with a Status", async () => {
  await withClientNode(async ({ core }) => {
    // The service-account controller makes `default` shortly after start.
    await eventually(
      () =>
        core.readNamespacedServiceAccount({ name: "default", namespace: "default" }).then(
          () => true,
          () => false,
        ),
      20_000,
      "the default service account",
    );
    const pod = await core.createNamespacedPod({
      namespace: "default",
      body: { metadata: { name: "node-pod" }, spec: { containers: [{ name: "c", image: "nginx" }] } },
    });
    assert.equal(pod.spec?.serviceAccountName, "default");
    const volume = pod.spec?.volumes?.find((v) => v.name.startsWith("kube-api-access-"));
    assert.ok(volume?.projected?.sources?.some((s) => s.serviceAccountToken?.path === "token"));
    assert.ok(pod.spec?.containers[0]?.volumeMounts?.some((m) => m.name === volume?.name && m.readOnly));
    await assert.rejects(
      core.createNamespacedPod({
        namespace: "default",
        body: {
          metadata: { name: "ghost-pod" },
          spec: { serviceAccountName: "ghost", containers: [{ name: "c", image: "nginx" }] },
        },
      }),
      (e: unknown) => {
        const err = e as { code?: number; body?: string };
        assert.equal(err.code, 403);
        const status = JSON.parse(err.body ?? "{}") as { kind?: string; reason?: string; message?: string };
        assert.equal(status.kind, "Status");
        assert.equal(status.reason, "Forbidden");
        assert.match(status.message ?? "", /serviceaccount "ghost" not found/);
        return true;
      },
    );
    await core.deleteNamespacedPod({ name: "node-pod", namespace: "default" });
  });
});
