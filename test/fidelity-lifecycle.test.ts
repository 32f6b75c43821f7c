// Objects upstream's API server creates and lifecycles it runs (issue 25, items 9, 10, 11, 17),
// through the real gateway with kubectl 1.27 and 1.33 and @kubernetes/client-node:
// - the `kubernetes` Service in `default` (first IP of the service range, 443 to the secure
//   port) and its Endpoints and EndpointSlice at the advertised address, kept current;
// - the PriorityClasses and the flow-control bootstrap configuration, kept by upstream's rules
//   (mandatory objects always restored, suggested ones only while apf.<domain>/autoupdate-spec
//   says "true", foreign objects claiming the annotation deleted);
// - graceful deletion of pods on a node, ended by a grace-0 delete as a kubelet's;
// - controllers' writes recorded under kube-controller-manager / kube-apiserver.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { networkInterfaces } from "node:os";
import { after, before, describe, it } from "node:test";
import { naming as namingPreset } from "../backends/naming/index.ts";
import {
  type GatewayProcess,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const binaries = oldestAndNewestKubectl();
const newest = binaries.at(-1);

// biome-ignore lint/suspicious/noExplicitAny: kubectl's JSON is inspected field by field
type Json = any;

const WAIT_MS = 30_000;

function kubectlOn(gw: () => GatewayProcess) {
  const run = async (args: string[], input?: string, bin = newest as string) => {
    const r = await kubectlRun(bin, gw().kubeconfig, args, input);
    return { code: r.code, out: r.stdout, err: r.stderr };
  };
  const ok = async (args: string[], input?: string, bin?: string): Promise<string> => {
    const r = await run(args, input, bin);
    assert.equal(r.code, 0, `kubectl ${args.join(" ")}:\n${r.out}${r.err}`);
    return r.out;
  };
  const json = async (args: string[], bin?: string): Promise<Json> =>
    JSON.parse(await ok([...args, "-o", "json", "--show-managed-fields"], undefined, bin));
  /** The object, or undefined when kubectl says NotFound. */
  const maybe = async (args: string[]): Promise<Json | undefined> => {
    const r = await run([...args, "-o", "json"]);
    if (r.code !== 0 && /NotFound/.test(r.err)) return undefined;
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out);
  };
  return { run, ok, json, maybe };
}

const managers = (object: Json): string[] =>
  ((object.metadata.managedFields ?? []) as { manager: string }[]).map((m) => m.manager);

/** The host's global IPv4 addresses: where the gateway advertises itself when bound to loopback. */
function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => a.family === "IPv4" && !a.internal && !a.address.startsWith("169.254."))
    .map((a) => a.address);
}

for (const preset of ["cluster", "kubernetes"] as const) {
  describe(`objects the API server keeps (${preset} naming)`, { skip: newest ? false : NO_KUBECTL }, () => {
    const n = namingPreset(preset);
    // The cluster preset runs with the defaults (loopback bind: the host's address is advertised);
    // the kubernetes preset with an explicit range and --advertise-address.
    const explicit = preset === "kubernetes";
    const serviceIp = explicit ? "10.96.0.1" : "10.0.0.1";
    const advertised = "192.0.2.10";
    const annotation = `apf.${n.labelDomain}/autoupdate-spec`;
    const flowcontrol = `${n.group("flowcontrol")}`;
    let gw: GatewayProcess;
    const k = kubectlOn(() => gw);

    before(async () => {
      gw = await startGateway(
        explicit
          ? [
              "--api-naming=kubernetes",
              "--service-cluster-ip-range=10.96.0.0/12",
              `--advertise-address=${advertised}`,
            ]
          : [],
      );
    });
    after(async () => {
      await gw?.stop();
      if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    });

    const endpointIp = (): string | undefined => {
      if (explicit) return advertised;
      return undefined;
    };

    /** The endpoint address: the advertised one, or one of the host's when bound to loopback. */
    const checkAddress = (ip: string) => {
      const want = endpointIp();
      if (want) assert.equal(ip, want);
      else assert.ok(hostAddresses().includes(ip), `${ip} is one of the host's addresses ${hostAddresses()}`);
    };

    it("serves the kubernetes Service at the first IP of the range, 443 to the secure port", async () => {
      for (const bin of binaries) {
        const svc = await k.json(["get", "service", "kubernetes", "-n", "default"], bin);
        assert.equal(svc.spec.type, "ClusterIP");
        assert.equal(svc.spec.clusterIP, serviceIp);
        assert.deepEqual(svc.spec.clusterIPs, [serviceIp]);
        assert.equal(svc.spec.sessionAffinity, "None");
        assert.equal(svc.spec.selector, undefined);
        assert.deepEqual(svc.spec.ports, [
          { name: "https", protocol: "TCP", port: 443, targetPort: gw.port },
        ]);
        assert.deepEqual(svc.metadata.labels, { component: "apiserver", provider: n.productName });
        assert.deepEqual(managers(svc), ["kube-apiserver"]);
      }
      if (explicit) {
        const table = await k.ok(["get", "svc", "kubernetes"]);
        assert.match(
          table,
          new RegExp(
            `^kubernetes\\s+ClusterIP\\s+${serviceIp.replaceAll(".", "\\.")}\\s+<none>\\s+443/TCP`,
            "m",
          ),
        );
      }
    });

    it("points its Endpoints and EndpointSlice at the gateway's address and secure port", async () => {
      if (!explicit && hostAddresses().length === 0) {
        // Nothing to advertise: the Service has no endpoints (README).
        assert.equal(await k.maybe(["get", "endpoints", "kubernetes"]), undefined);
        return;
      }
      for (const bin of binaries) {
        const ep = await k.json(["get", "endpoints", "kubernetes", "-n", "default"], bin);
        assert.equal(ep.subsets.length, 1);
        assert.equal(ep.subsets[0].addresses.length, 1);
        checkAddress(ep.subsets[0].addresses[0].ip);
        assert.deepEqual(ep.subsets[0].ports, [{ name: "https", port: gw.port, protocol: "TCP" }]);
        assert.deepEqual(ep.metadata.labels, { [`endpointslice.${n.labelDomain}/skip-mirror`]: "true" });
        const slice = await k.json(["get", "endpointslices", "kubernetes", "-n", "default"], bin);
        assert.equal(slice.addressType, "IPv4");
        assert.deepEqual(slice.metadata.labels, { [`${n.labelDomain}/service-name`]: "kubernetes" });
        assert.equal(slice.endpoints.length, 1);
        assert.deepEqual(slice.endpoints[0].addresses, [ep.subsets[0].addresses[0].ip]);
        assert.equal(slice.endpoints[0].conditions.ready, true);
        assert.deepEqual(slice.ports, [{ name: "https", port: gw.port, protocol: "TCP" }]);
        assert.deepEqual(managers(slice), ["kube-apiserver"]);
      }
      if (explicit) {
        const table = await k.ok(["get", "endpoints", "kubernetes"]);
        assert.match(
          table,
          new RegExp(`^kubernetes\\s+${advertised.replaceAll(".", "\\.")}:${gw.port}\\s`, "m"),
        );
      }
    });

    it("keeps them current: changed or deleted endpoints come back, a deleted Service is created again", async () => {
      if (!explicit && hostAddresses().length === 0) return;
      const epIp = async () =>
        (await k.maybe(["get", "endpoints", "kubernetes"]))?.subsets?.[0]?.addresses?.[0]?.ip;
      const want = (await epIp()) as string;
      const before = await k.json(["get", "endpoints", "kubernetes"]);
      await k.ok(["delete", "endpoints", "kubernetes"]);
      await eventually(
        async () =>
          (await k.maybe(["get", "endpoints", "kubernetes"]))?.metadata.uid !== undefined &&
          (await k.json(["get", "endpoints", "kubernetes"])).metadata.uid !== before.metadata.uid,
        WAIT_MS,
        "endpoints again",
      );
      assert.equal(await epIp(), want);
      await k.ok([
        "patch",
        "endpointslice",
        "kubernetes",
        "--type=merge",
        "-p",
        JSON.stringify({ endpoints: [{ addresses: ["192.0.2.99"], conditions: { ready: true } }] }),
      ]);
      await eventually(
        async () => (await k.json(["get", "endpointslice", "kubernetes"])).endpoints[0].addresses[0] === want,
        WAIT_MS,
        "the endpoint slice restored",
      );
      await k.ok([
        "patch",
        "endpoints",
        "kubernetes",
        "--type=merge",
        "-p",
        JSON.stringify({
          subsets: [{ addresses: [{ ip: "192.0.2.98" }], ports: [{ name: "https", port: 1 }] }],
        }),
      ]);
      await eventually(
        async () => {
          const s = (await k.json(["get", "endpoints", "kubernetes"])).subsets[0];
          return s.addresses[0].ip === want && s.ports[0].port === gw.port;
        },
        WAIT_MS,
        "the endpoints restored",
      );
      const svc = await k.json(["get", "service", "kubernetes"]);
      await k.ok(["delete", "service", "kubernetes"]);
      await eventually(
        async () => {
          const again = await k.maybe(["get", "service", "kubernetes"]);
          return again !== undefined && again.metadata.uid !== svc.metadata.uid;
        },
        WAIT_MS,
        "the service again",
      );
      assert.equal((await k.json(["get", "service", "kubernetes"])).spec.clusterIP, serviceIp);
    });

    it("creates the PriorityClasses system-cluster-critical and system-node-critical", async () => {
      for (const bin of binaries) {
        const list = await k.json(["get", "priorityclasses"], bin);
        const byName = new Map((list.items as Json[]).map((pc) => [pc.metadata.name, pc]));
        const cluster = byName.get("system-cluster-critical");
        const node = byName.get("system-node-critical");
        assert.equal(cluster?.value, 2000000000);
        assert.equal(node?.value, 2000001000);
        assert.equal(
          cluster.description,
          "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
        );
        assert.equal(
          node.description,
          "Used for system critical pods that must not be moved from their current node.",
        );
        for (const pc of [cluster, node]) {
          assert.equal(pc.preemptionPolicy, "PreemptLowerPriority");
          assert.notEqual(pc.globalDefault, true);
          assert.deepEqual(managers(pc), ["kube-apiserver"]);
        }
      }
    });

    it("creates upstream's mandatory and suggested FlowSchemas and priority levels", async () => {
      const schemas = new Map(
        ((await k.json(["get", `flowschemas.${flowcontrol}`])).items as Json[]).map((o) => [
          o.metadata.name,
          o,
        ]),
      );
      const levels = new Map(
        ((await k.json(["get", `prioritylevelconfigurations.${flowcontrol}`])).items as Json[]).map((o) => [
          o.metadata.name,
          o,
        ]),
      );
      assert.deepEqual(
        [...schemas.keys()].sort(),
        [
          "catch-all",
          "endpoint-controller",
          "exempt",
          "global-default",
          "kube-controller-manager",
          "kube-scheduler",
          `${n.systemNamespace}-service-accounts`,
          "probes",
          "service-accounts",
          "system-leader-election",
          "system-node-high",
          "system-nodes",
          "workload-leader-election",
        ].sort(),
      );
      assert.deepEqual([...levels.keys()].sort(), [
        "catch-all",
        "exempt",
        "global-default",
        "leader-election",
        "node-high",
        "system",
        "workload-high",
        "workload-low",
      ]);
      for (const o of [...schemas.values(), ...levels.values()]) {
        assert.equal(o.metadata.annotations[annotation], "true", o.metadata.name);
        assert.deepEqual(managers(o), ["api-priority-and-fairness-config-producer-v1"], o.metadata.name);
      }
      assert.deepEqual(schemas.get("exempt").spec, {
        matchingPrecedence: 1,
        priorityLevelConfiguration: { name: "exempt" },
        rules: [
          {
            subjects: [{ kind: "Group", group: { name: "system:masters" } }],
            resourceRules: [
              { verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] },
            ],
            nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
          },
        ],
      });
      assert.deepEqual(schemas.get("probes").spec.rules[0].nonResourceRules, [
        { verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] },
      ]);
      const leader = schemas.get("system-leader-election").spec;
      assert.equal(leader.matchingPrecedence, 100);
      assert.deepEqual(leader.distinguisherMethod, { type: "ByUser" });
      assert.deepEqual(leader.rules[0].resourceRules[0].apiGroups, [n.group("coordination")]);
      assert.deepEqual(leader.rules[0].subjects.at(-1), {
        kind: "ServiceAccount",
        serviceAccount: { name: "*", namespace: n.systemNamespace },
      });
      assert.deepEqual(schemas.get("catch-all").spec.distinguisherMethod, { type: "ByUser" });
      assert.equal(schemas.get("catch-all").spec.matchingPrecedence, 10000);
      assert.deepEqual(levels.get("exempt").spec, { type: "Exempt" });
      assert.deepEqual(levels.get("catch-all").spec.limited, {
        nominalConcurrencyShares: 5,
        lendablePercent: 0,
        limitResponse: { type: "Reject" },
      });
      assert.deepEqual(levels.get("leader-election").spec.limited, {
        nominalConcurrencyShares: 10,
        lendablePercent: 0,
        limitResponse: { type: "Queue", queuing: { queues: 16, handSize: 4, queueLengthLimit: 50 } },
      });
      assert.deepEqual(levels.get("workload-low").spec.limited, {
        nominalConcurrencyShares: 100,
        lendablePercent: 90,
        limitResponse: { type: "Queue", queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
      });
      if (explicit) {
        const table = await k.ok(["get", "flowschemas"]);
        assert.match(table, /^global-default\s+global-default\s+9900\s+ByUser\s/m);
      }
    });

    const level = (name: string) => k.json(["get", `prioritylevelconfigurations.${flowcontrol}`, name]);
    const schema = (name: string) => k.maybe(["get", `flowschemas.${flowcontrol}`, name]);
    const patchLevel = (name: string, patch: Json) =>
      k.ok([
        "patch",
        `prioritylevelconfigurations.${flowcontrol}`,
        name,
        "--type=merge",
        "-p",
        JSON.stringify(patch),
      ]);
    /** Deletes the `probes` schema and waits for it: a pass of the configuration keeper ran since. */
    const passRan = async () => {
      const uid = (await schema("probes")).metadata.uid;
      await k.ok(["delete", `flowschemas.${flowcontrol}`, "probes"]);
      await eventually(
        async () => {
          const again = await schema("probes");
          return again !== undefined && again.metadata.uid !== uid;
        },
        WAIT_MS,
        "probes again",
      );
    };

    it("restores mandatory objects whatever their annotation says", async () => {
      const uid = (await schema("exempt")).metadata.uid;
      await k.ok(["delete", `flowschemas.${flowcontrol}`, "exempt"]);
      await eventually(
        async () => {
          const again = await schema("exempt");
          return again !== undefined && again.metadata.uid !== uid;
        },
        WAIT_MS,
        "the exempt flow schema again",
      );
      await patchLevel("catch-all", {
        metadata: { annotations: { [annotation]: "false" } },
        spec: { limited: { nominalConcurrencyShares: 99 } },
      });
      await eventually(
        async () => {
          const o = await level("catch-all");
          return (
            o.spec.limited.nominalConcurrencyShares === 5 && o.metadata.annotations[annotation] === "true"
          );
        },
        WAIT_MS,
        "catch-all restored",
      );
    });

    it("keeps suggested objects only while their annotation says true", async () => {
      const uid = (await schema("global-default")).metadata.uid;
      await k.ok(["delete", `flowschemas.${flowcontrol}`, "global-default"]);
      await eventually(
        async () => {
          const again = await schema("global-default");
          return again !== undefined && again.metadata.uid !== uid;
        },
        WAIT_MS,
        "global-default again",
      );
      // Annotation "true": the spec is put back.
      await patchLevel("global-default", { spec: { limited: { nominalConcurrencyShares: 77 } } });
      await eventually(
        async () => (await level("global-default")).spec.limited.nominalConcurrencyShares === 20,
        WAIT_MS,
        "global-default's shares restored",
      );
      // Annotation "false": the operator's spec stays.
      await patchLevel("workload-low", {
        metadata: { annotations: { [annotation]: "false" } },
        spec: { limited: { nominalConcurrencyShares: 55 } },
      });
      // No annotation, spec unchanged (generation 1): marked "true" again.
      await patchLevel("node-high", { metadata: { annotations: { [annotation]: null } } });
      // No annotation and a changed spec (generation 2): marked "false", the spec kept.
      await patchLevel("system", {
        metadata: { annotations: { [annotation]: null } },
        spec: { limited: { nominalConcurrencyShares: 31 } },
      });
      await passRan();
      const workloadLow = await level("workload-low");
      assert.equal(workloadLow.spec.limited.nominalConcurrencyShares, 55);
      assert.equal(workloadLow.metadata.annotations[annotation], "false");
      assert.equal((await level("node-high")).metadata.annotations[annotation], "true");
      const system = await level("system");
      assert.equal(system.metadata.annotations[annotation], "false");
      assert.equal(system.spec.limited.nominalConcurrencyShares, 31);
    });

    it("deletes objects that claim the annotation but are not part of the configuration", async () => {
      const fs = (name: string, value: string) =>
        JSON.stringify({
          apiVersion: `${flowcontrol}/v1beta3`,
          kind: "FlowSchema",
          metadata: { name, annotations: { [annotation]: value } },
          spec: { priorityLevelConfiguration: { name: "global-default" }, matchingPrecedence: 5000 },
        });
      await k.ok(["create", "-f", "-"], fs("mine-kept", "false"));
      await k.ok(["create", "-f", "-"], fs("mine-auto", "true"));
      await eventually(async () => (await schema("mine-auto")) === undefined, WAIT_MS, "mine-auto deleted");
      assert.ok(await schema("mine-kept"));
    });

    it("records controllers' writes under kube-controller-manager and the server's own under kube-apiserver", async () => {
      for (const bin of binaries) {
        const rootCa = await k.json(["get", "configmap", n.rootCaConfigMap, "-n", "default"], bin);
        assert.deepEqual(managers(rootCa), ["kube-controller-manager"]);
        const sa = await k.json(["get", "serviceaccount", "default", "-n", "default"], bin);
        assert.ok(!managers(sa).includes("unknown"), String(managers(sa)));
        const trust = await k.json(
          ["get", "configmap", "extension-apiserver-authentication", "-n", n.systemNamespace],
          bin,
        );
        assert.deepEqual(managers(trust), ["kube-apiserver"]);
        const apiService = await k.json(["get", `apiservices.${n.group("apiregistration")}`, "v1."], bin);
        assert.ok(
          managers(apiService).every((m) => m === "kube-apiserver"),
          String(managers(apiService)),
        );
      }
    });
  });
}

describe("graceful deletion of pods", { skip: newest ? false : NO_KUBECTL }, () => {
  let gw: GatewayProcess;
  const k = kubectlOn(() => gw);
  let core: import("@kubernetes/client-node").CoreV1Api;

  before(async () => {
    gw = await startGateway(["--api-naming=kubernetes"]);
    const k8s = await import("@kubernetes/client-node");
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(gw.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });
  after(async () => {
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  });

  const podJson = (name: string, spec: Json = {}, namespace = "default") =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace },
      spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
    });
  const pod = (name: string, namespace = "default") => k.maybe(["get", "pod", name, "-n", namespace]);
  /** What a kubelet does once the containers have stopped. */
  const kubeletDelete = (name: string, namespace = "default") =>
    core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });

  it("keeps a pod on a node Terminating until a grace-0 delete; a second delete may only shorten the wait", async () => {
    for (const bin of binaries) {
      await k.ok(["create", "-f", "-"], podJson("web", { nodeName: "node-1" }));
      const out = await k.ok(["delete", "pod", "web", "--wait=false"], undefined, bin);
      assert.match(out, /pod "web" deleted/);
      const marked = await pod("web");
      assert.ok(marked, "still there");
      assert.equal(marked.metadata.deletionGracePeriodSeconds, 30);
      assert.ok(!Number.isNaN(Date.parse(marked.metadata.deletionTimestamp)));
      assert.match(await k.ok(["get", "pod", "web"]), /^web\s+0\/1\s+Terminating\s/m);
      // Longer than what is left: nothing changes.
      await k.ok(["delete", "pod", "web", "--wait=false", "--grace-period=60"], undefined, bin);
      assert.equal((await pod("web")).metadata.deletionTimestamp, marked.metadata.deletionTimestamp);
      // Shorter: the deadline moves back by the difference.
      await k.ok(["delete", "pod", "web", "--wait=false", "--grace-period=10"], undefined, bin);
      const shorter = (await pod("web")).metadata;
      assert.equal(shorter.deletionGracePeriodSeconds, 10);
      assert.equal(
        (Date.parse(marked.metadata.deletionTimestamp) - Date.parse(shorter.deletionTimestamp)) / 1000,
        20,
      );
      await kubeletDelete("web");
      assert.equal(await pod("web"), undefined);
    }
  });

  it("takes the period from the request, else from terminationGracePeriodSeconds", async () => {
    await k.ok(
      ["create", "-f", "-"],
      podJson("own", { nodeName: "node-1", terminationGracePeriodSeconds: 5 }),
    );
    await k.ok(["create", "-f", "-"], podJson("asked", { nodeName: "node-1" }));
    await k.ok(["delete", "pod", "own", "--wait=false"]);
    await k.ok(["delete", "pod", "asked", "--wait=false", "--grace-period=12"]);
    assert.equal((await pod("own")).metadata.deletionGracePeriodSeconds, 5);
    assert.equal((await pod("asked")).metadata.deletionGracePeriodSeconds, 12);
    await kubeletDelete("own");
    await kubeletDelete("asked");
  });

  it("removes at once with --force --grace-period=0, and unscheduled or finished pods at once", async () => {
    for (const bin of binaries) {
      await k.ok(["create", "-f", "-"], podJson("forced", { nodeName: "node-1" }));
      await k.ok(["delete", "pod", "forced", "--force", "--grace-period=0"], undefined, bin);
      assert.equal(await pod("forced"), undefined);
      await k.ok(["create", "-f", "-"], podJson("pending"));
      await k.ok(["delete", "pod", "pending"], undefined, bin);
      assert.equal(await pod("pending"), undefined);
      await k.ok(["create", "-f", "-"], podJson("done", { nodeName: "node-1" }));
      await k.ok([
        "patch",
        "pod",
        "done",
        "--subresource=status",
        "--type=merge",
        "-p",
        '{"status":{"phase":"Succeeded"}}',
      ]);
      await k.ok(["delete", "pod", "done"], undefined, bin);
      assert.equal(await pod("done"), undefined);
    }
  });

  it("lets kubectl delete wait until the kubelet's delete removes the pod", async () => {
    await k.ok(["create", "-f", "-"], podJson("waited", { nodeName: "node-1" }));
    const deleting = k.run(["delete", "pod", "waited"]);
    await eventually(
      async () => Boolean((await pod("waited"))?.metadata.deletionTimestamp),
      WAIT_MS,
      "marked",
    );
    await kubeletDelete("waited");
    const r = await deleting;
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /pod "waited" deleted/);
  });

  it("finishes deleting a namespace once its terminating pods are gone", async () => {
    await k.ok(["create", "namespace", "doomed"]);
    await k.ok(["create", "-f", "-"], podJson("resident", { nodeName: "node-1" }, "doomed"));
    await k.ok(["delete", "namespace", "doomed", "--wait=false"]);
    // The namespace controller deletes the pod gracefully, as upstream's does.
    await eventually(
      async () => Boolean((await pod("resident", "doomed"))?.metadata.deletionTimestamp),
      WAIT_MS,
      "the pod terminating",
    );
    assert.equal((await k.json(["get", "namespace", "doomed"])).status.phase, "Terminating");
    await kubeletDelete("resident", "doomed");
    await eventually(
      async () => (await k.maybe(["get", "namespace", "doomed"])) === undefined,
      WAIT_MS,
      "namespace gone",
    );
  });
});
