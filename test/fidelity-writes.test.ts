// Writes that upstream accepts and real clients make (issue 25): changing a Service's type with
// kubectl apply (client- and server-side) and patches, patches and applies of the scale
// subresource from python3-kubernetes, kubectl and @kubernetes/client-node, and ephemeral
// containers added by kubectl debug. Each runs against the server started as README says, under
// both naming presets, with the oldest and newest kubectl.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { ApiClient } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import {
  type GatewayProcess,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { PYTHON, pythonSkip } from "./support/python.ts";

type Obj = Record<string, unknown>;

const bins = oldestAndNewestKubectl();
const run = promisify(execFile);

const PRESETS = [
  { preset: "cluster", domain: "cluster.io" },
  { preset: "kubernetes", domain: "kubernetes.io" },
] as const;

function service(name: string, spec: Obj): string {
  return JSON.stringify({ apiVersion: "v1", kind: "Service", metadata: { name }, spec });
}

const specOf = (o: Obj) => o.spec as Obj;
const portsOf = (o: Obj) => specOf(o).ports as Obj[];

for (const { preset, domain } of PRESETS) {
  describe(`writes upstream accepts (--api-naming=${preset})`, {
    skip: bins.length > 0 ? false : NO_KUBECTL,
  }, () => {
    let gw: GatewayProcess;
    before(async () => {
      gw = await startGateway([`--api-naming=${preset}`]);
    });
    after(async () => {
      await gw?.stop();
      if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    });

    const kubectl = (bin: string) => {
      const version = bin.split("kubectl.")[1] as string;
      const k = (args: string[], input?: string) => kubectlRun(bin, gw.kubeconfig, args, input);
      const ok = async (args: string[], input?: string) => {
        const r = await k(args, input);
        assert.equal(r.code, 0, `kubectl ${version} ${args.join(" ")}:\n${r.stdout}${r.stderr}`);
        return r.stdout;
      };
      const get = async (what: string) =>
        JSON.parse(await ok(["get", what, "-o", "json", "--show-managed-fields"])) as Obj;
      return { version, tag: version.replace(".", "-"), k, ok, get };
    };

    describe("changing a Service's type", () => {
      for (const bin of bins) {
        const { version, tag, k, ok, get } = kubectl(bin);

        it(`kubectl ${version} apply: NodePort to ClusterIP drops and frees the node port`, async () => {
          const name = `np-csa-${tag}`;
          await ok(
            ["apply", "-f", "-"],
            service(name, { type: "NodePort", selector: { app: name }, ports: [{ port: 80 }] }),
          );
          const before = await get(`service/${name}`);
          const nodePort = portsOf(before)[0]?.nodePort as number;
          assert.equal(typeof nodePort, "number");
          assert.equal(specOf(before).externalTrafficPolicy, "Cluster");
          await ok(
            ["apply", "-f", "-"],
            service(name, { type: "ClusterIP", selector: { app: name }, ports: [{ port: 80 }] }),
          );
          const now = await get(`service/${name}`);
          assert.equal(specOf(now).type, "ClusterIP");
          assert.equal(portsOf(now)[0]?.nodePort, undefined);
          assert.equal(specOf(now).externalTrafficPolicy, undefined);
          assert.equal(specOf(now).clusterIP, specOf(before).clusterIP);
          // The port is free again: another Service may ask for it.
          await ok(
            ["create", "-f", "-"],
            service(`${name}-next`, { type: "NodePort", ports: [{ port: 80, nodePort }] }),
          );
          // And back: a node port is allocated anew.
          await ok(
            ["apply", "-f", "-"],
            service(name, { type: "NodePort", selector: { app: name }, ports: [{ port: 80 }] }),
          );
          const again = await get(`service/${name}`);
          assert.equal(typeof portsOf(again)[0]?.nodePort, "number");
          assert.notEqual(portsOf(again)[0]?.nodePort, nodePort);
          await ok(["delete", "service", name, `${name}-next`]);
        });

        it(`kubectl ${version} apply --server-side: NodePort to ClusterIP`, async () => {
          const name = `np-ssa-${tag}`;
          const np = service(name, { type: "NodePort", selector: { app: name }, ports: [{ port: 80 }] });
          await ok(["apply", "--server-side", "-f", "-"], np);
          await ok(
            ["apply", "--server-side", "-f", "-"],
            service(name, { type: "ClusterIP", selector: { app: name }, ports: [{ port: 80 }] }),
          );
          const now = await get(`service/${name}`);
          assert.equal(specOf(now).type, "ClusterIP");
          assert.equal(portsOf(now)[0]?.nodePort, undefined);
          assert.equal(specOf(now).externalTrafficPolicy, undefined);
          await ok(["delete", "service", name]);
        });

        it(`kubectl ${version} patch: LoadBalancer to NodePort drops the load balancer's fields`, async () => {
          const name = `lb-${tag}`;
          await ok(
            ["apply", "-f", "-"],
            service(name, {
              type: "LoadBalancer",
              externalTrafficPolicy: "Local",
              loadBalancerClass: "example.com/lb",
              selector: { app: name },
              ports: [{ port: 80 }],
            }),
          );
          const before = await get(`service/${name}`);
          const healthPort = specOf(before).healthCheckNodePort as number;
          assert.equal(typeof healthPort, "number", "a Local load balancer gets a health check node port");
          assert.equal(specOf(before).allocateLoadBalancerNodePorts, true);
          await ok(["patch", "service", name, "-p", '{"spec":{"type":"NodePort"}}']);
          const now = await get(`service/${name}`);
          assert.equal(specOf(now).type, "NodePort");
          for (const gone of ["healthCheckNodePort", "allocateLoadBalancerNodePorts", "loadBalancerClass"])
            assert.equal(specOf(now)[gone], undefined, gone);
          assert.equal(specOf(now).externalTrafficPolicy, "Local");
          assert.equal(portsOf(now)[0]?.nodePort, portsOf(before)[0]?.nodePort);
          // The health check port is free again.
          await ok(
            ["create", "-f", "-"],
            service(`${name}-next`, { type: "NodePort", ports: [{ port: 80, nodePort: healthPort }] }),
          );
          await ok(["delete", "service", name, `${name}-next`]);
        });

        it(`kubectl ${version} patch: a node port the patch itself sets is kept and refused`, async () => {
          const name = `np-keep-${tag}`;
          await ok(["create", "-f", "-"], service(name, { type: "NodePort", ports: [{ port: 80 }] }));
          const nodePort = portsOf(await get(`service/${name}`))[0]?.nodePort as number;
          const other = nodePort === 32767 ? 30000 : nodePort + 1;
          const r = await k([
            "patch",
            "service",
            name,
            "--type=merge",
            "-p",
            JSON.stringify({ spec: { type: "ClusterIP", ports: [{ port: 80, nodePort: other }] } }),
          ]);
          assert.notEqual(r.code, 0);
          assert.match(
            r.stderr,
            /spec\.ports\[0\]\.nodePort: Forbidden: may not be used when `type` is 'ClusterIP'/,
          );
          await ok(["delete", "service", name]);
        });

        it(`kubectl ${version} patch: ClusterIP to ExternalName releases the cluster IP`, async () => {
          const name = `ext-${tag}`;
          await ok(["create", "-f", "-"], service(name, { ports: [{ port: 80 }] }));
          const ip = specOf(await get(`service/${name}`)).clusterIP as string;
          await ok([
            "patch",
            "service",
            name,
            "--type=merge",
            "-p",
            '{"spec":{"type":"ExternalName","externalName":"db.example.com"}}',
          ]);
          const now = await get(`service/${name}`);
          for (const gone of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"])
            assert.equal(specOf(now)[gone], undefined, gone);
          await ok(["create", "-f", "-"], service(`${name}-next`, { clusterIP: ip, ports: [{ port: 80 }] }));
          await ok(["delete", "service", name, `${name}-next`]);
        });
      }
    });

    describe("the scale subresource", () => {
      const workloads = (name: string): string => {
        const template = {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: "c", image: "nginx" }] },
        };
        const apps = (kind: string, extra: Obj = {}) => ({
          apiVersion: "apps/v1",
          kind,
          metadata: { name },
          spec: { replicas: 1, selector: { matchLabels: { app: name } }, template, ...extra },
        });
        return JSON.stringify({
          apiVersion: "v1",
          kind: "List",
          items: [
            apps("Deployment"),
            apps("StatefulSet", { serviceName: name }),
            apps("ReplicaSet"),
            {
              apiVersion: "v1",
              kind: "ReplicationController",
              metadata: { name },
              spec: { replicas: 1, selector: { app: name }, template },
            },
          ],
        });
      };

      it("python3-kubernetes patches the scale of every workload (a strategic merge patch)", {
        skip: pythonSkip,
      }, async () => {
        const [first] = bins;
        const { ok, get } = kubectl(first as string);
        await ok(["apply", "-f", "-"], workloads("py"));
        const script = `
import sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
apps, core = client.AppsV1Api(), client.CoreV1Api()
for patch, n in ((apps.patch_namespaced_deployment_scale, 2), (apps.patch_namespaced_stateful_set_scale, 3),
                 (apps.patch_namespaced_replica_set_scale, 4), (core.patch_namespaced_replication_controller_scale, 5)):
    print(patch("py", "default", {"spec": {"replicas": n}}).spec.replicas)
`;
        const { stdout } = await run(PYTHON, ["-c", script, gw.kubeconfig], { timeout: 60_000 });
        assert.deepEqual(stdout.trim().split("\n"), ["2", "3", "4", "5"]);
        const replicas = async (what: string) => specOf(await get(what)).replicas;
        assert.equal(await replicas("deployment/py"), 2);
        assert.equal(await replicas("statefulset/py"), 3);
        assert.equal(await replicas("replicaset/py"), 4);
        assert.equal(await replicas("replicationcontroller/py"), 5);
      });

      for (const bin of bins) {
        const { version, tag, ok, get } = kubectl(bin);
        it(`kubectl ${version} patch --subresource=scale (a strategic merge patch)`, async () => {
          const name = `sc-${tag}`;
          await ok(["apply", "-f", "-"], workloads(name));
          for (const kind of ["deployment", "statefulset", "replicaset", "replicationcontroller"]) {
            await ok(["patch", kind, name, "--subresource=scale", "-p", '{"spec":{"replicas":3}}']);
            assert.equal(specOf(await get(`${kind}/${name}`)).replicas, 3, kind);
          }
        });
      }

      it("@kubernetes/client-node applies a Deployment's Scale: conflicts, force, ownership on the parent", async () => {
        const k8s = await import("@kubernetes/client-node");
        const kc = new k8s.KubeConfig();
        kc.loadFromFile(gw.kubeconfig);
        const appsApi = kc.makeApiClient(k8s.AppsV1Api);
        const { ok, k } = kubectl(bins[0] as string);
        const deployment = (replicas: number) =>
          JSON.stringify({
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "applied", namespace: "default" },
            spec: {
              replicas,
              selector: { matchLabels: { app: "applied" } },
              template: {
                metadata: { labels: { app: "applied" } },
                spec: { containers: [{ name: "c", image: "nginx" }] },
              },
            },
          });
        await ok(["apply", "--server-side", "-f", "-"], deployment(1));
        const asApply = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.ServerSideApply);
        const scale = (replicas: number) => ({
          apiVersion: "autoscaling/v1",
          kind: "Scale",
          metadata: { name: "applied", namespace: "default" },
          spec: { replicas },
        });
        const target = { name: "applied", namespace: "default", fieldManager: "scaler" };
        await assert.rejects(
          appsApi.patchNamespacedDeploymentScale({ ...target, body: scale(4) }, asApply),
          (e: { code?: number; body?: string }) => {
            assert.equal(e.code, 409);
            assert.match(String(e.body), /conflict with \\"kubectl\\"/);
            return true;
          },
        );
        const forced = await appsApi.patchNamespacedDeploymentScale(
          { ...target, body: scale(4), force: true },
          asApply,
        );
        assert.equal(forced.spec?.replicas, 4);
        const parent = await appsApi.readNamespacedDeployment({ name: "applied", namespace: "default" });
        assert.equal(parent.spec?.replicas, 4);
        const entries = parent.metadata?.managedFields ?? [];
        const scaler = entries.find((e) => e.manager === "scaler");
        assert.equal(scaler?.operation, "Apply");
        assert.equal(scaler?.subresource, "scale");
        assert.equal(scaler?.apiVersion, "apps/v1");
        assert.deepEqual(scaler?.fieldsV1, { "f:spec": { "f:replicas": {} } });
        const kubectlSpec = ((entries.find((e) => e.manager === "kubectl")?.fieldsV1 ?? {}) as Obj)["f:spec"];
        assert.ok(
          kubectlSpec && !("f:replicas" in (kubectlSpec as Obj)),
          "kubectl no longer owns the replicas",
        );
        // The replicas are the scaler's now: kubectl applying its own count conflicts with it.
        const again = await k(["apply", "--server-side", "-f", "-"], deployment(1));
        assert.notEqual(again.code, 0);
        assert.match(again.stderr, /conflict with "scaler" with subresource "scale"/);
        // An applier that owns the replicas applies again without a conflict.
        const mine = await appsApi.patchNamespacedDeploymentScale({ ...target, body: scale(6) }, asApply);
        assert.equal(mine.spec?.replicas, 6);
      });

      it("@kubernetes/client-node applies a custom resource's Scale; a strategic merge patch is 415", async () => {
        const api = new ApiClient(gw.kubeconfig);
        const apiextensions = preset === "kubernetes" ? "apiextensions.k8s.io" : "apiextensions.cluster.io";
        await createServedCrd(api, {
          apiextensions,
          group: "fidelity.example.com",
          kind: "Pool",
          schema: {
            type: "object",
            properties: {
              spec: { type: "object", properties: { replicas: { type: "integer" } } },
              status: { type: "object", properties: { replicas: { type: "integer" } } },
            },
          },
          subresources: {
            status: {},
            scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
          },
        });
        const { ok } = kubectl(bins[0] as string);
        await ok(
          ["create", "-f", "-"],
          JSON.stringify({
            apiVersion: "fidelity.example.com/v1",
            kind: "Pool",
            metadata: { name: "p", namespace: "default" },
            spec: { replicas: 1 },
          }),
        );
        const k8s = await import("@kubernetes/client-node");
        const kc = new k8s.KubeConfig();
        kc.loadFromFile(gw.kubeconfig);
        const custom = kc.makeApiClient(k8s.CustomObjectsApi);
        const where = {
          group: "fidelity.example.com",
          version: "v1",
          namespace: "default",
          plural: "pools",
          name: "p",
        };
        const asApply = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.ServerSideApply);
        const body = {
          apiVersion: "autoscaling/v1",
          kind: "Scale",
          metadata: { name: "p" },
          spec: { replicas: 3 },
        };
        // kubectl create set the replicas, so they are its own until an applier forces them.
        await assert.rejects(
          custom.patchNamespacedCustomObjectScale({ ...where, body, fieldManager: "scaler" }, asApply),
          (e: { code?: number; body?: string }) => {
            assert.equal(e.code, 409);
            assert.match(String(e.body), /conflict with \\"kubectl-create\\"/);
            return true;
          },
        );
        const applied = (await custom.patchNamespacedCustomObjectScale(
          { ...where, body, fieldManager: "scaler", force: true },
          asApply,
        )) as Obj;
        assert.equal(specOf(applied).replicas, 3);
        const pool = (await custom.getNamespacedCustomObject(where)) as Obj;
        assert.equal(specOf(pool).replicas, 3);
        const owners = ((pool.metadata as Obj).managedFields as Obj[]).map((e) => [
          e.manager,
          e.operation,
          e.apiVersion,
          e.subresource,
          JSON.stringify(e.fieldsV1),
        ]);
        assert.deepEqual(
          owners.find((o) => o[0] === "scaler"),
          ["scaler", "Apply", "fidelity.example.com/v1", "scale", '{"f:spec":{"f:replicas":{}}}'],
        );
        const smp = await api.call(
          "PATCH",
          "/apis/fidelity.example.com/v1/namespaces/default/pools/p/scale",
          {
            body: { spec: { replicas: 2 } },
            contentType: "application/strategic-merge-patch+json",
          },
        );
        assert.equal(smp.status, 415, smp.text);
        assert.equal(smp.body.reason, "UnsupportedMediaType");
      });
    });

    describe("ephemeral containers", () => {
      for (const bin of bins) {
        const { version, tag, ok, get } = kubectl(bin);
        it(`kubectl ${version} debug adds ephemeral containers to a pod`, async () => {
          const name = `dbg-${tag}`;
          await ok(["run", name, "--image=nginx"]);
          await ok(["debug", "--attach=false", "--image=busybox", name]);
          await ok(["debug", "--attach=false", "--image=busybox", `--target=${name}`, name]);
          const pod = await get(`pod/${name}`);
          const added = specOf(pod).ephemeralContainers as Obj[];
          assert.equal(added.length, 2);
          for (const c of added) {
            assert.match(String(c.name), /^debugger-/);
            assert.equal(c.image, "busybox");
          }
          assert.equal(added[0]?.targetContainerName, undefined);
          assert.equal(added[1]?.targetContainerName, name);
          const discovery = JSON.parse(await ok(["get", "--raw", "/api/v1"])) as { resources: Obj[] };
          const listed = discovery.resources.find((r) => r.name === "pods/ephemeralcontainers");
          assert.deepEqual(listed && [listed.kind, listed.verbs], ["Pod", ["get", "patch", "update"]]);
        });
      }

      it("@kubernetes/client-node: get and update of the subresource, with upstream's refusals", async () => {
        const k8s = await import("@kubernetes/client-node");
        const kc = new k8s.KubeConfig();
        kc.loadFromFile(gw.kubeconfig);
        const core = kc.makeApiClient(k8s.CoreV1Api);
        const target = { name: "eph", namespace: "default" };
        await core.createNamespacedPod({
          namespace: "default",
          body: {
            metadata: { name: "eph", labels: { app: "eph" } },
            spec: { containers: [{ name: "app", image: "nginx" }] },
          },
        });
        const pod = await core.readNamespacedPodEphemeralcontainers(target);
        assert.equal(pod.kind, "Pod");
        assert.equal(pod.spec?.ephemeralContainers, undefined);
        // Only the ephemeral containers move: a label or an image changed along with them is not taken.
        pod.spec!.ephemeralContainers = [{ name: "debug", image: "busybox", targetContainerName: "app" }];
        pod.spec!.containers[0]!.image = "nginx:2";
        pod.metadata!.labels = { app: "other" };
        const updated = await core.replaceNamespacedPodEphemeralcontainers({ ...target, body: pod });
        assert.deepEqual(
          updated.spec?.ephemeralContainers?.map((c) => [c.name, c.image, c.targetContainerName]),
          [["debug", "busybox", "app"]],
        );
        assert.equal(updated.spec?.containers[0]?.image, "nginx");
        assert.deepEqual(updated.metadata?.labels, { app: "eph" });

        const refused = async (edit: (p: typeof pod) => void, message: RegExp) => {
          const current = await core.readNamespacedPodEphemeralcontainers(target);
          edit(current);
          await assert.rejects(
            core.replaceNamespacedPodEphemeralcontainers({ ...target, body: current }),
            (e: { code?: number; body?: string }) => {
              assert.equal(e.code, 422, e.body);
              assert.match(String(e.body), message);
              return true;
            },
          );
        };
        await refused((p) => {
          p.spec!.ephemeralContainers![0]!.image = "alpine";
        }, /existing ephemeral containers \\"debug\\" may not be changed/);
        await refused((p) => {
          p.spec!.ephemeralContainers = [];
        }, /existing ephemeral containers \\"debug\\" may not be removed/);
        await refused((p) => {
          p.spec!.ephemeralContainers!.push({ name: "web", image: "nginx", ports: [{ containerPort: 80 }] });
        }, /spec\.ephemeralContainers\[1\]\.ports: Forbidden: cannot be set for an Ephemeral Container/);
        // The pod itself cannot take them.
        const whole = await core.readNamespacedPod(target);
        whole.spec!.ephemeralContainers!.push({ name: "more", image: "busybox" });
        await assert.rejects(
          core.replaceNamespacedPod({ ...target, body: whole }),
          (e: { code?: number }) => {
            assert.equal(e.code, 422);
            return true;
          },
        );
      });

      it("a mirror pod takes none", async () => {
        const k8s = await import("@kubernetes/client-node");
        const kc = new k8s.KubeConfig();
        kc.loadFromFile(gw.kubeconfig);
        const core = kc.makeApiClient(k8s.CoreV1Api);
        await core.createNamespacedPod({
          namespace: "default",
          body: {
            metadata: { name: "mirror", annotations: { [`${domain}/config.mirror`]: "hash" } },
            spec: { containers: [{ name: "app", image: "nginx" }] },
          },
        });
        const pod = await core.readNamespacedPodEphemeralcontainers({ name: "mirror", namespace: "default" });
        pod.spec!.ephemeralContainers = [{ name: "debug", image: "busybox" }];
        await assert.rejects(
          core.replaceNamespacedPodEphemeralcontainers({ name: "mirror", namespace: "default", body: pod }),
          (e: { code?: number; body?: string }) => {
            assert.equal(e.code, 422);
            assert.match(String(e.body), /static pods do not support ephemeral containers/);
            return true;
          },
        );
      });
    });
  });
}
