// kubectl apply (client-side, a strategic merge patch), kubectl patch, server-side apply with
// field ownership, and kubectl diff, against the server started as README says, with the oldest
// and newest kubectl; then server-side apply from @kubernetes/client-node, and bad patches.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import {
  type GatewayProcess,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";

const bins = oldestAndNewestKubectl();
let gw: GatewayProcess;

type Obj = Record<string, unknown>;

function deployment(ns: string, containers: Obj[], extra: { labels?: Obj; replicas?: number } = {}): string {
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: ns, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: {
      ...(extra.replicas !== undefined ? { replicas: extra.replicas } : {}),
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers } },
    },
  });
}

describe("apply, patch and diff", { skip: bins.length > 0 ? false : NO_KUBECTL }, () => {
  before(async () => {
    gw = await startGateway(["--api-naming=kubernetes"]);
  });
  after(async () => {
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  });

  for (const bin of bins) {
    const version = bin.split("kubectl.")[1] as string;
    const ns = `apply-${version.replace(".", "-")}`;
    const k = async (args: string[], input?: string) => {
      const r = await kubectlRun(bin, gw.kubeconfig, ["-n", ns, ...args], input);
      return { code: r.code, out: r.stdout, err: r.stderr };
    };
    const ok = async (args: string[], input?: string) => {
      const r = await k(args, input);
      assert.equal(r.code, 0, `kubectl ${version} ${args.join(" ")}:\n${r.out}${r.err}`);
      return r.out;
    };
    const getJson = async (what: string) =>
      JSON.parse(await ok(["get", what, "-o", "json", "--show-managed-fields"])) as Obj;
    const containersOf = (d: Obj) => (((d.spec as Obj).template as Obj).spec as Obj).containers as Obj[];
    const managers = (o: Obj) =>
      ((o.metadata as Obj).managedFields as Obj[]).map((e) => `${e.manager}:${e.operation}`).sort();

    describe(`kubectl ${version}`, () => {
      before(() => ok(["create", "namespace", ns]).then(() => undefined));

      it("client-side apply twice, with keys removed and added in between", async () => {
        await ok(
          ["apply", "-f", "-"],
          deployment(
            ns,
            [
              {
                name: "app",
                image: "nginx:1",
                env: [
                  { name: "A", value: "1" },
                  { name: "B", value: "2" },
                ],
              },
            ],
            {
              labels: { tier: "front", old: "yes" },
            },
          ),
        );
        await ok(
          ["apply", "-f", "-"],
          deployment(
            ns,
            [
              {
                name: "app",
                image: "nginx:2",
                env: [
                  { name: "B", value: "2" },
                  { name: "C", value: "3" },
                ],
              },
              { name: "sidecar", image: "envoy:1" },
            ],
            { labels: { tier: "front", added: "yes" } },
          ),
        );
        const d = await getJson("deployment/web");
        assert.deepEqual((d.metadata as Obj).labels, { tier: "front", added: "yes" });
        const [app, sidecar] = containersOf(d);
        assert.equal(app?.image, "nginx:2");
        assert.deepEqual(app?.env, [
          { name: "B", value: "2" },
          { name: "C", value: "3" },
        ]);
        assert.equal(sidecar?.name, "sidecar");
        assert.ok(managers(d).includes("kubectl-client-side-apply:Update"), managers(d).join(","));
      });

      it("kubectl set env survives a re-apply that does not mention it", async () => {
        await ok(["set", "env", "deployment/web", "-c", "sidecar", "FOREIGN=kept"]);
        await ok(
          ["apply", "-f", "-"],
          deployment(
            ns,
            [
              {
                name: "app",
                image: "nginx:3",
                env: [
                  { name: "B", value: "2" },
                  { name: "C", value: "3" },
                ],
              },
              { name: "sidecar", image: "envoy:1" },
            ],
            { labels: { tier: "front", added: "yes" } },
          ),
        );
        const d = await getJson("deployment/web");
        const [app, sidecar] = containersOf(d);
        assert.equal(app?.image, "nginx:3");
        assert.deepEqual(sidecar?.env, [{ name: "FOREIGN", value: "kept" }]);
        assert.ok(
          managers(d).some((m) => m.startsWith("kubectl-set:Update")),
          managers(d).join(","),
        );
      });

      it("kubectl patch --type strategic deletes a list item with $patch: delete", async () => {
        await ok([
          "patch",
          "deployment",
          "web",
          "--type=strategic",
          "-p",
          JSON.stringify({
            spec: { template: { spec: { containers: [{ name: "sidecar", $patch: "delete" }] } } },
          }),
        ]);
        const d = await getJson("deployment/web");
        assert.deepEqual(
          containersOf(d).map((c) => c.name),
          ["app"],
        );
        await ok([
          "patch",
          "deployment",
          "web",
          "--type=json",
          "-p",
          '[{"op":"replace","path":"/spec/replicas","value":2}]',
        ]);
        await ok([
          "patch",
          "deployment",
          "web",
          "--type=merge",
          "-p",
          '{"metadata":{"labels":{"merged":"yes"}}}',
        ]);
        const after = await getJson("deployment/web");
        assert.equal((after.spec as Obj).replicas, 2);
        assert.equal(((after.metadata as Obj).labels as Obj).merged, "yes");
      });

      it("server-side apply: conflict, force, and removal of fields no longer applied", async () => {
        const cm = (data: Obj) =>
          JSON.stringify({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "ssa", namespace: ns },
            data,
          });
        await ok(
          ["apply", "--server-side", "--field-manager=alpha", "-f", "-"],
          cm({ shared: "1", mine: "a" }),
        );
        const conflict = await k(
          ["apply", "--server-side", "--field-manager=beta", "-f", "-"],
          cm({ shared: "2" }),
        );
        assert.notEqual(conflict.code, 0);
        assert.match(conflict.err, /conflict with "alpha": \.data\.shared/);
        await ok(
          ["apply", "--server-side", "--field-manager=beta", "--force-conflicts", "-f", "-"],
          cm({ shared: "2" }),
        );
        await ok(["apply", "--server-side", "--field-manager=alpha", "-f", "-"], cm({ other: "x" }));
        const got = await getJson("configmap/ssa");
        assert.deepEqual(
          got.data,
          { shared: "2", other: "x" },
          "alpha's dropped key goes, beta's shared stays",
        );
        assert.deepEqual(managers(got), ["alpha:Apply", "beta:Apply"]);
      });

      it("server-side apply of ports without protocol; kubectl scale is recorded under scale", async () => {
        const ported = {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "ported", namespace: ns },
          spec: {
            selector: { matchLabels: { app: "ported" } },
            template: {
              metadata: { labels: { app: "ported" } },
              spec: { containers: [{ name: "app", image: "nginx:1", ports: [{ containerPort: 80 }] }] },
            },
          },
        };
        await ok(["apply", "--server-side", "--field-manager=ops", "-f", "-"], JSON.stringify(ported));
        await ok(["apply", "--server-side", "--field-manager=ops", "-f", "-"], JSON.stringify(ported));
        await ok(["scale", "deployment/ported", "--replicas=4"]);
        const d = await getJson("deployment/ported");
        assert.equal((d.spec as Obj).replicas, 4);
        assert.deepEqual(containersOf(d)[0]?.ports, [{ containerPort: 80, protocol: "TCP" }]);
        const entries = (d.metadata as Obj).managedFields as Obj[];
        const scale = entries.find((e) => e.subresource === "scale");
        assert.ok(scale, JSON.stringify(entries));
        assert.equal(scale.operation, "Update");
        assert.deepEqual(scale.fieldsV1, { "f:spec": { "f:replicas": {} } });
        const ops = entries.find((e) => e.manager === "ops");
        assert.ok(
          JSON.stringify(ops?.fieldsV1).includes('k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}'),
        );
      });

      it("two managers own different containers of one Deployment", async () => {
        const two = (name: string, image: string) =>
          JSON.stringify({
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "pair", namespace: ns },
            spec: {
              selector: { matchLabels: { app: "pair" } },
              template: { metadata: { labels: { app: "pair" } }, spec: { containers: [{ name, image }] } },
            },
          });
        await ok(["apply", "--server-side", "--field-manager=team-a", "-f", "-"], two("a", "nginx:1"));
        const both = await k(
          ["apply", "--server-side", "--field-manager=team-b", "-f", "-"],
          two("b", "envoy:1"),
        );
        // selector and the template labels are shared at equal values: no conflict.
        assert.equal(both.code, 0, both.err);
        await ok(["apply", "--server-side", "--field-manager=team-a", "-f", "-"], two("a", "nginx:2"));
        const d = await getJson("deployment/pair");
        assert.deepEqual(
          containersOf(d).map((c) => `${c.name}=${c.image}`),
          ["a=nginx:2", "b=envoy:1"],
        );
        const fields = JSON.stringify((d.metadata as Obj).managedFields);
        assert.match(fields, /k:\{\\"name\\":\\"b\\"\}/);
      });

      it("kubectl diff, client-side and server-side", async () => {
        const changed = deployment(
          ns,
          [
            {
              name: "app",
              image: "nginx:4",
              env: [
                { name: "B", value: "2" },
                { name: "C", value: "3" },
              ],
            },
            { name: "sidecar", image: "envoy:1" },
          ],
          { labels: { tier: "front", added: "yes" } },
        );
        const diff = await k(["diff", "-f", "-"], changed);
        assert.equal(diff.code, 1, diff.err);
        assert.match(diff.out, /-\s+- image: nginx:3|\+\s+image: nginx:4|nginx:4/);
        const same = await getJson("deployment/web");
        assert.equal(containersOf(same)[0]?.image, "nginx:3", "diff writes nothing");
        const ssa = await k(["diff", "--server-side", "--force-conflicts", "-f", "-"], changed);
        assert.equal(ssa.code, 1, ssa.err);
        assert.match(ssa.out, /nginx:4/);
      });

      it("server-side apply after client-side apply by kubectl takes over without conflicts", async () => {
        const cm = (data: Obj) =>
          JSON.stringify({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "moving", namespace: ns },
            data,
          });
        await ok(["apply", "-f", "-"], cm({ a: "1", b: "2" }));
        await ok(["apply", "--server-side", "-f", "-"], cm({ a: "changed", b: "2" }));
        const got = await getJson("configmap/moving");
        assert.deepEqual(got.data, { a: "changed", b: "2" });
        assert.ok(managers(got).includes("kubectl:Apply"), managers(got).join(","));
      });
    });
  }

  it("@kubernetes/client-node: server-side apply creates, conflicts and forces", async () => {
    const k8s = await import("@kubernetes/client-node");
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(gw.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const header = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.ServerSideApply);
    const body = (value: string) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "from-node", namespace: "default" },
      data: { key: value },
    });
    const created = await core.patchNamespacedConfigMap(
      { name: "from-node", namespace: "default", body: body("1"), fieldManager: "node-a" },
      header,
    );
    assert.equal(created.data?.key, "1");
    assert.equal(created.metadata?.managedFields?.[0]?.manager, "node-a");
    await assert.rejects(
      core.patchNamespacedConfigMap(
        { name: "from-node", namespace: "default", body: body("2"), fieldManager: "node-b" },
        header,
      ),
      (err: { code?: number; body?: string }) => {
        assert.equal(err.code, 409);
        assert.match(String(err.body), /conflict with \\"node-a\\"/);
        return true;
      },
    );
    const forced = await core.patchNamespacedConfigMap(
      { name: "from-node", namespace: "default", body: body("2"), fieldManager: "node-b", force: true },
      header,
    );
    assert.equal(forced.data?.key, "2");
  });
});
