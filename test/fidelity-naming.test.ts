// Issue 25, naming: real clients under the default naming (`cluster`) and under
// `--api-naming=kubernetes`. kubectl's client-side apply annotation is recognised as kubectl
// spells it; upstream's spellings of names the server reads get a Warning instead of silence; and
// the client features that send upstream's group names fail under the default naming and work
// under the kubernetes one, as README and the start-up log say.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { basename } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { type NamingPreset, naming } from "../backends/naming/index.ts";
import { PRESETS, presetGateways } from "./support/file-gateways.ts";
import { kubectlRun, NO_KUBECTL, oldestAndNewestKubectl } from "./support/gateway-process.ts";
import { PYTHON, pythonSkip } from "./support/python.ts";

const kubectls = oldestAndNewestKubectl();
const newest = kubectls.at(-1);
const noKubectl = kubectls.length === 0 && NO_KUBECTL;

const gateway = presetGateways();

/** `kubectl` of release `binary` against the gateway of `preset`. */
function run(binary: string, preset: NamingPreset, args: string[], input?: string) {
  return kubectlRun(binary, gateway(preset).kubeconfig, args, input);
}

const release = (binary: string) =>
  basename(binary)
    .replace(/^kubectl\./, "")
    .replace(".", "-");

describe("from client-side to server-side apply", { skip: noKubectl }, () => {
  for (const preset of PRESETS) {
    for (const binary of kubectls) {
      it(`${basename(binary)}, ${preset} naming: apply, then apply --server-side with a changed field`, async () => {
        const name = `csa-${release(binary)}`;
        const manifest = (a: string) =>
          JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a, b: "2" } });
        const first = await run(binary, preset, ["apply", "-f", "-"], manifest("1"));
        assert.equal(first.code, 0, first.stderr);
        const second = await run(binary, preset, ["apply", "--server-side", "-f", "-"], manifest("3"));
        assert.equal(second.code, 0, second.stderr);
        const got = await run(binary, preset, [
          "get",
          "configmap",
          name,
          "-o",
          "json",
          "--show-managed-fields",
        ]);
        assert.equal(got.code, 0, got.stderr);
        const cm = JSON.parse(got.stdout);
        assert.deepEqual(cm.data, { a: "3", b: "2" });
        const lastApplied = JSON.parse(
          cm.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"],
        );
        assert.deepEqual(lastApplied.data, { a: "3", b: "2" });
        assert.ok(
          cm.metadata.managedFields.some(
            (m: { manager: string; operation: string }) => m.manager === "kubectl" && m.operation === "Apply",
          ),
        );
      });
    }
  }
});

describe("upstream's spellings of names the server reads", { skip: noKubectl }, () => {
  // As a manifest written for upstream carries them; the StorageClass's group is the server's.
  const manifest = (preset: NamingPreset) =>
    [
      {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: {
          name: "psa",
          labels: { "pod-security.kubernetes.io/enforce": "restricted", "app.kubernetes.io/name": "demo" },
        },
      },
      {
        apiVersion: `${naming(preset).group("storage")}/v1`,
        kind: "StorageClass",
        metadata: { name: "fast", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
        provisioner: "example.com/fast",
      },
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "tls", namespace: "default" },
        type: "kubernetes.io/tls",
        data: { "tls.crt": "Y2VydA==", "tls.key": "a2V5" },
      },
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "sys", namespace: "kube-system" } },
    ]
      .map((o) => JSON.stringify(o))
      .join("\n---\n");
  const expected = [
    "Warning: label pod-security.kubernetes.io/enforce is not read by this server: it reads pod-security.cluster.io/enforce (--api-naming=cluster)",
    "Warning: annotation storageclass.kubernetes.io/is-default-class is not read by this server: it reads storageclass.cluster.io/is-default-class (--api-naming=cluster)",
    "Warning: secret type kubernetes.io/tls is not read by this server: it reads cluster.io/tls (--api-naming=cluster)",
    "Warning: namespace kube-system is not this server's system namespace: it uses cluster-system (--api-naming=cluster)",
  ];
  const warnings = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("Warning:"));

  it(`${basename(newest ?? "kubectl")}, cluster naming: create, apply --server-side and replace warn`, async () => {
    const binary = newest as string;
    const create = await run(binary, "cluster", ["apply", "-f", "-"], manifest("cluster"));
    // The ConfigMap's namespace does not exist here: the warning comes with the refusal.
    assert.match(create.stderr, /namespaces "kube-system" not found/);
    assert.deepEqual(warnings(create.stderr).sort(), [...expected].sort());
    for (const args of [
      ["apply", "--server-side", "-f", "-"],
      ["replace", "-f", "-"],
    ]) {
      const again = await run(binary, "cluster", args, manifest("cluster"));
      assert.deepEqual(warnings(again.stderr).sort(), [...expected].sort(), args.join(" "));
    }
    // A patch warns about what the patched object carries.
    const label = await run(binary, "cluster", ["label", "namespace", "psa", "team=a"]);
    assert.equal(label.code, 0, label.stderr);
    assert.deepEqual(warnings(label.stderr), [expected[0]]);
    const plain = await run(binary, "cluster", ["create", "configmap", "plain", "-n", "default"]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual(warnings(plain.stderr), []);
  });

  it(`${basename(newest ?? "kubectl")}, kubernetes naming: the same writes warn of nothing`, async () => {
    const binary = newest as string;
    for (const args of [
      ["apply", "-f", "-"],
      ["apply", "--server-side", "-f", "-"],
      ["replace", "-f", "-"],
    ]) {
      const write = await run(binary, "kubernetes", args, manifest("kubernetes"));
      assert.equal(write.code, 0, write.stderr);
      assert.deepEqual(warnings(write.stderr), [], args.join(" "));
    }
    const label = await run(binary, "kubernetes", ["label", "namespace", "psa", "team=a"]);
    assert.equal(label.code, 0, label.stderr);
    assert.deepEqual(warnings(label.stderr), []);
  });
});

describe("client features that need --api-naming=kubernetes (README)", () => {
  const role = JSON.stringify({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "reconciled" },
    rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
  });
  const features = (v: string): [string[], string?][] => [
    [["create", "role", `r-${v}`, "--verb=get", "--resource=pods"]],
    [["create", "rolebinding", `rb-${v}`, "--role=r", "--user=u"]],
    [["create", "clusterrole", `cr-${v}`, "--verb=get", "--resource=pods"]],
    [["create", "clusterrolebinding", `crb-${v}`, "--clusterrole=cr", "--user=u"]],
    [["create", "priorityclass", `pc-${v}`, "--value=10"]],
    [["create", "ingress", `ing-${v}`, "--rule=example.com/=svc:80"]],
    [["create", "token", `sa-${v}`]],
    [["auth", "can-i", "get", "pods"]],
    [["auth", "whoami"]],
    [["auth", "reconcile", "-f", "-"], role],
    [
      ["apply", "--prune", `-l=app=prune-${v}`, "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `prune-${v}`, labels: { app: `prune-${v}` } },
      }),
    ],
  ];

  for (const binary of kubectls) {
    it(`${basename(binary)}: they fail under the cluster naming and work under the kubernetes one`, async () => {
      const v = release(binary);
      for (const preset of PRESETS) {
        const sa = await run(binary, preset, ["create", "serviceaccount", `sa-${v}`]);
        assert.equal(sa.code, 0, sa.stderr);
        for (const [args, input] of features(v)) {
          const result = await run(binary, preset, args, input);
          const what = `${preset}: kubectl ${args.join(" ")}: ${result.stderr}`;
          if (preset === "cluster") assert.notEqual(result.code, 0, what);
          else assert.equal(result.code, 0, what);
        }
      }
      // With an allowlist, pruning works under the default naming too.
      const pruned = await run(
        binary,
        "cluster",
        ["apply", "--prune", `-l=app=prune-${v}`, "--prune-allowlist=core/v1/ConfigMap", "-f", "-"],
        JSON.stringify({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `prune-${v}`, labels: { app: `prune-${v}` } },
        }),
      );
      assert.equal(pruned.code, 0, pruned.stderr);
    });
  }

  it("python3-kubernetes: the typed APIs of the product's groups fail under the cluster naming", {
    skip: pythonSkip,
  }, async () => {
    const script = [
      "import sys",
      "from kubernetes import client, config",
      "config.load_kube_config(config_file=sys.argv[1])",
      "calls = [",
      "  ('core', lambda: client.CoreV1Api().list_namespace()),",
      "  ('apps', lambda: client.AppsV1Api().list_deployment_for_all_namespaces()),",
      "  ('rbac', lambda: client.RbacAuthorizationV1Api().list_cluster_role()),",
      "  ('scheduling', lambda: client.SchedulingV1Api().list_priority_class()),",
      "  ('networking', lambda: client.NetworkingV1Api().list_ingress_for_all_namespaces()),",
      "  ('storage', lambda: client.StorageV1Api().list_storage_class()),",
      "]",
      "for name, call in calls:",
      "  try:",
      "    call(); print(name, 'ok')",
      "  except client.exceptions.ApiException as e:",
      "    print(name, e.status)",
    ].join("\n");
    const answers: Record<string, string[]> = {};
    for (const preset of PRESETS) {
      const { stdout } = await promisify(execFile)(PYTHON, ["-c", script, gateway(preset).kubeconfig], {
        timeout: 60_000,
      });
      answers[preset] = stdout.trim().split("\n");
    }
    assert.deepEqual(answers, {
      cluster: ["core ok", "apps ok", "rbac 404", "scheduling 404", "networking 404", "storage 404"],
      kubernetes: ["core ok", "apps ok", "rbac ok", "scheduling ok", "networking ok", "storage ok"],
    });
  });

  it("the start-up log names them once under the cluster naming, and not under the kubernetes one", () => {
    const line = "these client features need --api-naming=kubernetes";
    const logged = (preset: NamingPreset) =>
      gateway(preset)
        .output()
        .split("\n")
        .filter((l) => l.includes(line));
    const [entry, ...more] = logged("cluster");
    assert.deepEqual(more, []);
    assert.ok(entry);
    const features = JSON.parse(entry).features as string[];
    assert.ok(features.some((f) => f.includes("kubectl create token")));
    assert.ok(features.some((f) => f.includes("kubectl auth can-i|whoami|reconcile")));
    assert.deepEqual(logged("kubernetes"), []);
  });
});
