// Issue 25, objects as upstream returns them, through real clients under both namings: empty maps
// and lists of omitempty fields are left out (so `kubectl diff` of an unchanged object is clean),
// quantities come back canonical, the zero-valued structs and status fields upstream always
// writes are there, a Pod gets its QoS class, and the scale subresource prints a Scale table.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { basename } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { type NamingPreset, naming } from "../backends/naming/index.ts";
import { ApiClient } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { PRESETS, presetGateways } from "./support/file-gateways.ts";
import { kubectlRun, NO_KUBECTL, oldestAndNewestKubectl } from "./support/gateway-process.ts";
import { PYTHON, pythonSkip } from "./support/python.ts";
import { take } from "./support/watch.ts";

type Json = Record<string, unknown>;

const kubectls = oldestAndNewestKubectl();
const noKubectl = kubectls.length === 0 && NO_KUBECTL;

const gateway = presetGateways();

async function kubectl(binary: string, preset: NamingPreset, args: string[], input?: string) {
  const r = await kubectlRun(binary, gateway(preset).kubeconfig, args, input);
  return r;
}

/** kubectl that must succeed; its stdout. */
async function ok(binary: string, preset: NamingPreset, args: string[], input?: string): Promise<string> {
  const r = await kubectl(binary, preset, args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

async function getJson(binary: string, preset: NamingPreset, args: string[]): Promise<Json> {
  return JSON.parse(await ok(binary, preset, ["get", ...args, "-o", "json"])) as Json;
}

const obj = (value: unknown): Json => value as Json;

/** A short name per kubectl release, for objects each release creates. */
const tag = (binary: string) => basename(binary).replace(/\D/g, "");

function deploymentYaml(name: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 3
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: nginx
        resources:
          limits: {cpu: 0.5, memory: 1024Mi}
          requests: {cpu: 500m, memory: 1073741824}
      - name: d
        image: nginx
        resources:
          requests: {cpu: 1000m, memory: 2048Ki}
`;
}

for (const preset of PRESETS) {
  const n = naming(preset);
  describe(`objects as upstream returns them (--api-naming=${preset})`, { skip: noKubectl }, () => {
    for (const binary of kubectls) {
      const k = basename(binary);
      const v = tag(binary);

      it(`${k}: kubectl diff of an unchanged object exits 0; removed labels leave no labels: {}`, async () => {
        const manifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: diff-${v}
  labels: {team: a}
data: {k: v}
`;
        await ok(binary, preset, ["apply", "--server-side", "-f", "-"], manifest);
        // kubectl's dry run sends `annotations: {}`; upstream stores no empty map, nor do we.
        const diff = await kubectl(binary, preset, ["diff", "-f", "-"], manifest);
        assert.equal(diff.code, 0, diff.stdout + diff.stderr);
        assert.equal(diff.stdout, "");

        await ok(binary, preset, ["label", "cm", `diff-${v}`, "team-"]);
        const cm = await getJson(binary, preset, ["cm", `diff-${v}`]);
        assert.equal("labels" in obj(cm.metadata), false, JSON.stringify(cm.metadata));
        assert.equal("annotations" in obj(cm.metadata), false, JSON.stringify(cm.metadata));
        assert.deepEqual(cm.data, { k: "v" });

        // An empty data map sent is not stored either.
        await ok(
          binary,
          preset,
          ["create", "-f", "-"],
          `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"empty-${v}","annotations":{}},"data":{}}`,
        );
        const empty = await getJson(binary, preset, ["cm", `empty-${v}`]);
        assert.equal("data" in empty, false);
        assert.equal("annotations" in obj(empty.metadata), false);
      });

      it(`${k}: quantities come back canonical wherever a built-in kind stores one`, async () => {
        await ok(binary, preset, ["apply", "-f", "-"], deploymentYaml(`q-${v}`));
        const deploy = await getJson(binary, preset, ["deploy", `q-${v}`]);
        const containers = obj(obj(obj(deploy.spec).template).spec).containers as Json[];
        assert.deepEqual(
          containers.map((c) => c.resources),
          [
            // A plain number of bytes is a decimal quantity: not spelt in Gi.
            { limits: { cpu: "500m", memory: "1Gi" }, requests: { cpu: "500m", memory: "1073741824" } },
            { requests: { cpu: "1", memory: "2Mi" } },
          ],
        );
        // In a namespace of their own: the quota and limits apply to what is created there.
        const ns = `quantities-${v}`;
        await ok(binary, preset, ["create", "namespace", ns]);
        await ok(
          binary,
          preset,
          ["apply", "-n", ns, "-f", "-"],
          `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc-${v}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1024Mi}}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: quota-${v}}
spec:
  hard: {cpu: 2000m, memory: 0.5Gi, pods: 10, requests.storage: 1e3, limits.memory: "5e9"}
---
apiVersion: v1
kind: LimitRange
metadata: {name: limits-${v}}
spec:
  limits:
  - type: Container
    max: {cpu: 1.5, memory: 1536Mi}
    default: {cpu: 0.25}
`,
        );
        const pvc = await getJson(binary, preset, ["-n", ns, "pvc", `pvc-${v}`]);
        assert.deepEqual(obj(obj(pvc.spec).resources).requests, { storage: "1Gi" });
        const quota = await getJson(binary, preset, ["-n", ns, "quota", `quota-${v}`]);
        // YAML's 1e3 and 10 are JSON numbers; a quoted 5e9 keeps its canonical exponent form.
        assert.deepEqual(obj(quota.spec).hard, {
          cpu: "2",
          memory: "512Mi",
          pods: "10",
          "requests.storage": "1k",
          "limits.memory": "5e9",
        });
        const limits = await getJson(binary, preset, ["-n", ns, "limits", `limits-${v}`]);
        const [item] = obj(limits.spec).limits as Json[];
        assert.deepEqual(obj(item).max, { cpu: "1500m", memory: "1536Mi" });
        // Upstream's defaulting fills the default memory from max.
        assert.deepEqual(obj(item).default, { cpu: "250m", memory: "1536Mi" });
      });

      it(`${k}: the zero-valued structs and status fields upstream always returns`, async () => {
        await ok(binary, preset, ["apply", "-f", "-"], deploymentYaml(`z-${v}`));
        await ok(binary, preset, ["create", "service", "clusterip", `z-${v}`, "--tcp=80:8080"]);
        await ok(binary, preset, ["create", "pdb", `z-${v}`, `--selector=app=z-${v}`, "--min-available=1"]);
        await ok(binary, preset, ["autoscale", "deploy", `z-${v}`, "--max=5"]);
        await ok(
          binary,
          preset,
          ["apply", "-f", "-"],
          `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: z-${v}}
spec:
  selector: {matchLabels: {rs: z-${v}}}
  template:
    metadata: {labels: {rs: z-${v}}}
    spec: {containers: [{name: c, image: nginx}]}
`,
        );
        assert.deepEqual((await getJson(binary, preset, ["deploy", `z-${v}`])).status, {});
        assert.deepEqual((await getJson(binary, preset, ["svc", `z-${v}`])).status, { loadBalancer: {} });
        assert.deepEqual((await getJson(binary, preset, ["pdb", `z-${v}`])).status, {
          currentHealthy: 0,
          desiredHealthy: 0,
          disruptionsAllowed: 0,
          expectedPods: 0,
        });
        assert.deepEqual((await getJson(binary, preset, ["rs", `z-${v}`])).status, { replicas: 0 });
        assert.deepEqual((await getJson(binary, preset, ["hpa.v2.autoscaling", `z-${v}`])).status, {
          desiredReplicas: 0,
        });
        // Read at autoscaling/v1 (kubectl 1.33 reads hpa.v1.autoscaling at the preferred v2).
        const v1 = await ok(binary, preset, [
          "get",
          "--raw",
          `/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/z-${v}`,
        ]);
        assert.deepEqual((JSON.parse(v1) as Json).status, { currentReplicas: 0, desiredReplicas: 0 });
      });

      it(`${k}: get --subresource=scale prints a Scale table`, {
        skip: preset === "cluster" && "kubectl asks for tables of meta.k8s.io only (checked below over HTTP)",
      }, async () => {
        await ok(binary, preset, ["apply", "-f", "-"], deploymentYaml(`s-${v}`));
        const out = await ok(binary, preset, ["get", "deploy", `s-${v}`, "--subresource=scale"]);
        const [header, row] = out.trim().split("\n");
        assert.deepEqual(header?.split(/\s+/), ["NAME", "DESIRED", "AVAILABLE", "AGE"]);
        assert.deepEqual(row?.split(/\s+/).slice(0, 3), [`s-${v}`, "3", "0"]);
      });
    }

    it("the Scale table over HTTP, for every workload with a scale subresource", async () => {
      const api = new ApiClient(gateway(preset).kubeconfig);
      try {
        const accept = `application/json;as=Table;v=v1;g=${n.group("meta")}`;
        await api.call("POST", "/apis/apps/v1/namespaces/default/statefulsets", {
          body: {
            metadata: { name: "table" },
            spec: {
              replicas: 2,
              selector: { matchLabels: { app: "table" } },
              serviceName: "table",
              template: {
                metadata: { labels: { app: "table" } },
                spec: { containers: [{ name: "c", image: "nginx" }] },
              },
            },
          },
        });
        const res = await api.call("GET", "/apis/apps/v1/namespaces/default/statefulsets/table/scale", {
          accept,
        });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.kind, "Table");
        assert.deepEqual(
          (res.body.columnDefinitions as Json[]).map((c) => [c.name, c.type]),
          [
            ["Name", "string"],
            ["Desired", "integer"],
            ["Available", "integer"],
            ["Age", "string"],
          ],
        );
        assert.deepEqual(res.body.rows[0].cells.slice(0, 3), ["table", 2, 0]);
        // The parent's own table is unchanged.
        const parent = await api.call("GET", "/apis/apps/v1/namespaces/default/statefulsets/table", {
          accept,
        });
        assert.equal((parent.body.columnDefinitions as Json[])[1]?.name, "Ready");
      } finally {
        await api.close();
      }
    });

    it("watchers and lists see the stored form; a custom resource keeps its own empty values", async () => {
      const api = new ApiClient(gateway(preset).kubeconfig);
      try {
        const path = "/api/v1/namespaces/default/configmaps";
        const made = await api.call("POST", path, {
          body: { metadata: { name: "watched", labels: { a: "b" } }, data: { k: "v" } },
        });
        assert.equal(made.status, 201, made.text);
        const watch = await api.watch(
          `${path}?watch=true&fieldSelector=metadata.name%3Dwatched&resourceVersion=${made.body.metadata.resourceVersion}`,
        );
        try {
          const patched = await api.call("PATCH", `${path}/watched`, {
            body: { metadata: { labels: { a: null } }, data: null },
            contentType: "application/merge-patch+json",
          });
          assert.equal(patched.status, 200, patched.text);
          assert.equal("labels" in patched.body.metadata, false);
          const [event] = await take(watch.events, 1);
          assert.equal(event?.type, "MODIFIED");
          assert.equal("labels" in obj(event?.object.metadata), false);
          assert.equal("data" in (event?.object ?? {}), false);
        } finally {
          watch.close();
        }
        const listed = await api.call("GET", `${path}?fieldSelector=metadata.name%3Dwatched`);
        assert.equal("labels" in listed.body.items[0].metadata, false);

        // A custom resource is unstructured: only its metadata takes ObjectMeta's form, and an
        // int-or-string field holding a quantity's text is no quantity.
        const widgets = await createServedCrd(api, {
          apiextensions: n.group("apiextensions"),
          group: "fidelity.example.com",
          kind: "Widget",
          schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  size: { "x-kubernetes-int-or-string": true },
                  tags: { type: "object", additionalProperties: { type: "string" } },
                  items: { type: "array", items: { type: "string" } },
                  on: { type: "boolean" },
                },
              },
            },
          },
        });
        const cr = await api.call("POST", widgets, {
          body: {
            apiVersion: "fidelity.example.com/v1",
            kind: "Widget",
            metadata: { name: "w", labels: {}, annotations: {} },
            spec: { size: "1024Mi", tags: {}, items: [], on: false },
          },
        });
        assert.equal(cr.status, 201, cr.text);
        const got = await api.call("GET", `${widgets}/w`);
        assert.deepEqual(got.body.spec, { size: "1024Mi", tags: {}, items: [], on: false });
        assert.equal("labels" in got.body.metadata, false);
        assert.equal("annotations" in got.body.metadata, false);
      } finally {
        await api.close();
      }
    });

    it("python3-kubernetes and client-node read the QoS class, canonical quantities and no empty maps", {
      skip: pythonSkip,
    }, async () => {
      const script = `
import sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
core = client.CoreV1Api()
def pod(name, resources):
    return {"metadata": {"name": name, "labels": {}}, "spec": {"containers": [
        {"name": "c", "image": "nginx", "resources": resources}]}}
core.create_namespaced_pod("default", pod("py-guaranteed", {"limits": {"cpu": "0.5", "memory": "1024Mi"}}))
core.create_namespaced_pod("default", pod("py-burstable", {"requests": {"cpu": "1000m"}}))
core.create_namespaced_pod("default", pod("py-besteffort", {}))
for name in ["py-guaranteed", "py-burstable", "py-besteffort"]:
    p = core.read_namespaced_pod(name, "default")
    print(name, p.status.qos_class, p.status.phase, p.metadata.labels, p.spec.containers[0].resources.limits,
          p.spec.containers[0].resources.requests)
`;
      const { stdout } = await promisify(execFile)(PYTHON, ["-c", script, gateway(preset).kubeconfig], {
        timeout: 60_000,
      });
      assert.deepEqual(stdout.trim().split("\n"), [
        "py-guaranteed Guaranteed Pending None {'cpu': '500m', 'memory': '1Gi'} {'cpu': '500m', 'memory': '1Gi'}",
        "py-burstable Burstable Pending None None {'cpu': '1'}",
        "py-besteffort BestEffort Pending None None None",
      ]);

      const k8s = await import("@kubernetes/client-node");
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(gateway(preset).kubeconfig);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const read = await core.readNamespacedPod({ name: "py-guaranteed", namespace: "default" });
      assert.equal(read.status?.qosClass, "Guaranteed");
      assert.equal(read.metadata?.labels, undefined);
      const svc = await core.createNamespacedService({
        namespace: "default",
        body: { metadata: { name: "node-svc" }, spec: { ports: [{ port: 80 }] } },
      });
      assert.deepEqual(JSON.parse(JSON.stringify(svc.status)), { loadBalancer: {} });
    });
  });
}
