// Admission end to end: the server started as README says with extra plugins and an
// AdmissionConfiguration file, driven by kubectl (oldest and newest), with webhook peers served
// over TLS by this test, and a ValidatingAdmissionPolicy.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import {
  type GatewayProcess,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const bins = oldestAndNewestKubectl();
type Obj = Record<string, unknown>;

let gw: GatewayProcess;
let dir: string;
let peer: Server;
let peerCaPem: string;
let peerPort: number;
const reviews: Obj[] = [];

/** A webhook peer: mutates pods by adding a label, refuses those labelled `deny: "yes"`. */
async function startPeer(): Promise<void> {
  const ca = await createAuthority("webhook-peer-ca");
  const leaf = await issueCertificate(ca, {
    commonName: "127.0.0.1",
    usage: "server",
    altNames: ["127.0.0.1"],
  });
  peerCaPem = ca.certPem;
  peer = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as { apiVersion: string; request: Obj };
      reviews.push(review.request);
      const object = review.request.object as { metadata?: { labels?: Record<string, string> } } | null;
      const response: Obj = { uid: review.request.uid, allowed: true };
      // The server asks for its timeout in the query, as upstream does.
      const path = new URL(req.url ?? "/", "https://peer").pathname;
      if (path === "/validate" && object?.metadata?.labels?.deny === "yes") {
        response.allowed = false;
        response.status = { code: 403, message: "pods labelled deny=yes are not welcome" };
      }
      if (path === "/mutate") {
        const patch = object?.metadata?.labels
          ? [{ op: "add", path: "/metadata/labels/mutated", value: "by-webhook" }]
          : [{ op: "add", path: "/metadata/labels", value: { mutated: "by-webhook" } }];
        response.patchType = "JSONPatch";
        response.patch = Buffer.from(JSON.stringify(patch)).toString("base64");
        response.warnings = ["the webhook was here"];
      }
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: "AdmissionReview", response }));
    });
  });
  await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
  peerPort = (peer.address() as AddressInfo).port;
}

describe("admission end to end", { skip: bins.length > 0 ? false : NO_KUBECTL }, () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "admission-e2e-"));
    await startPeer();
    await writeFile(
      join(dir, "admission.yaml"),
      [
        "apiVersion: apiserver.config.k8s.io/v1",
        "kind: AdmissionConfiguration",
        "plugins:",
        "- name: EventRateLimit",
        "  configuration:",
        "    apiVersion: eventratelimit.admission.k8s.io/v1alpha1",
        "    kind: Configuration",
        "    limits:",
        "    - type: Namespace",
        "      qps: 1",
        "      burst: 3",
        "      cacheSize: 100",
      ].join("\n"),
    );
    gw = await startGateway([
      "--api-naming=kubernetes",
      "--enable-admission-plugins=NamespaceAutoProvision,DenyServiceExternalIPs,EventRateLimit",
      `--admission-control-config-file=${join(dir, "admission.yaml")}`,
      "--feature-gates=ValidatingAdmissionPolicy=true",
      "--runtime-config=admissionregistration.k8s.io/v1alpha1=true",
    ]);
  });
  after(async () => {
    await gw?.stop();
    peer?.close();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const bin of bins) {
    const version = bin.split("kubectl.")[1] as string;
    const ns = `adm-${version.replace(".", "-")}`;
    const k = async (args: string[], input?: string) => {
      const r = await kubectlRun(bin, gw.kubeconfig, args, input);
      return { code: r.code, out: r.stdout, err: r.stderr };
    };
    const ok = async (args: string[], input?: string) => {
      const r = await k(args, input);
      assert.equal(r.code, 0, `kubectl ${version} ${args.join(" ")}:\n${r.out}${r.err}`);
      return r;
    };
    const refused = async (args: string[], input: string | undefined, pattern: RegExp) => {
      const r = await k(args, input);
      assert.notEqual(r.code, 0, `kubectl ${version} ${args.join(" ")} should fail:\n${r.out}`);
      assert.match(r.err, pattern);
      return r;
    };
    const pod = (name: string, extra: Obj = {}, labels: Record<string, string> = {}) =>
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: ns, labels: { app: name, ...labels } },
        spec: { containers: [{ name: "c", image: "busybox:1", ...extra }] },
      });
    const getJson = async (args: string[]) => JSON.parse((await ok([...args, "-o", "json"])).out) as Obj;

    describe(`kubectl ${version}`, () => {
      it("NamespaceAutoProvision creates the namespace of a create", async () => {
        await ok(["-n", ns, "create", "configmap", "first", "--from-literal=a=1"]);
        const created = await getJson(["get", "namespace", ns]);
        assert.equal((created.metadata as Obj).name, ns);
      });

      it("ServiceAccount: the default account and its token volume", async () => {
        // The service account controller makes `default` shortly after the namespace.
        await eventually(
          async () => (await k(["-n", ns, "get", "serviceaccount", "default"])).code === 0,
          20_000,
          "the default service account",
        );
        await ok(["apply", "-f", "-"], pod("sa"));
        const p = await getJson(["-n", ns, "get", "pod", "sa"]);
        const spec = p.spec as { serviceAccountName: string; volumes: Obj[]; containers: Obj[] };
        assert.equal(spec.serviceAccountName, "default");
        const volume = spec.volumes.find((v) => String(v.name).startsWith("kube-api-access-"));
        assert.ok(volume, JSON.stringify(spec.volumes));
        const mounts = spec.containers[0]?.volumeMounts as Obj[];
        assert.ok(mounts.some((m) => m.mountPath === "/var/run/secrets/kubernetes.io/serviceaccount"));
        await refused(
          ["apply", "-f", "-"],
          JSON.stringify({
            ...JSON.parse(pod("nosa")),
            spec: { serviceAccountName: "ghost", containers: [{ name: "c", image: "busybox:1" }] },
          }),
          /serviceaccount "ghost" not found/,
        );
      });

      it("PodSecurity: enforce refuses, warn warns", async () => {
        await ok(["label", "namespace", ns, "pod-security.kubernetes.io/warn=baseline", "--overwrite"]);
        const warned = await ok(
          ["apply", "-f", "-"],
          pod("warned", { securityContext: { privileged: true } }),
        );
        assert.match(warned.err, /would violate PodSecurity "baseline:latest": privileged/);
        await ok(["label", "namespace", ns, "pod-security.kubernetes.io/enforce=baseline", "--overwrite"]);
        await refused(
          ["apply", "-f", "-"],
          pod("privileged", { securityContext: { privileged: true } }),
          /pods "privileged" is forbidden: violates PodSecurity "baseline:latest": privileged \(container "c" must not set securityContext.privileged=true\)/,
        );
        await ok([
          "label",
          "namespace",
          ns,
          "pod-security.kubernetes.io/enforce-",
          "pod-security.kubernetes.io/warn-",
        ]);
      });

      it("LimitRanger fills default requests and limits; ResourceQuota counts and refuses", async () => {
        await ok(
          ["apply", "-f", "-"],
          JSON.stringify({
            apiVersion: "v1",
            kind: "LimitRange",
            metadata: { name: "defaults", namespace: ns },
            spec: {
              limits: [{ type: "Container", default: { cpu: "200m" }, defaultRequest: { cpu: "100m" } }],
            },
          }),
        );
        await ok(["apply", "-f", "-"], pod("limited"));
        const limited = await getJson(["-n", ns, "get", "pod", "limited"]);
        const resources = ((limited.spec as { containers: Obj[] }).containers[0] as Obj).resources;
        assert.deepEqual(resources, { limits: { cpu: "200m" }, requests: { cpu: "100m" } });

        await ok(
          ["apply", "-f", "-"],
          JSON.stringify({
            apiVersion: "v1",
            kind: "ResourceQuota",
            metadata: { name: "few", namespace: ns },
            spec: { hard: { configmaps: "3" } },
          }),
        );
        await eventually(
          async () => {
            const quota = await getJson(["-n", ns, "get", "resourcequota", "few"]);
            return (quota.status as { used?: Obj } | undefined)?.used !== undefined;
          },
          20_000,
          "the quota's first count",
        );
        // kube-root-ca.crt and "first" exist; one more fits, the next does not.
        await ok(["-n", ns, "create", "configmap", "second"]);
        await refused(
          ["-n", ns, "create", "configmap", "third"],
          undefined,
          /exceeded quota: few, requested: configmaps=1, used: configmaps=3, limited: configmaps=3/,
        );
      });

      it("EventRateLimit refuses events beyond the namespace's burst with 429", async () => {
        const events = Array.from({ length: 6 }, (_, i) => ({
          apiVersion: "v1",
          kind: "Event",
          metadata: { name: `burst-${i}`, namespace: ns },
          involvedObject: { kind: "Pod", name: "sa", namespace: ns },
          reason: "Test",
          message: "one of a burst",
        }));
        const r = await k(
          ["create", "-f", "-"],
          JSON.stringify({ apiVersion: "v1", kind: "List", items: events }),
        );
        assert.notEqual(r.code, 0, r.out);
        assert.match(r.err, /Too many requests: limit reached on type Namespace for key adm-/);
      });

      it("DenyServiceExternalIPs refuses new external IPs", async () => {
        const svc = (ips?: string[]) =>
          JSON.stringify({
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "web", namespace: ns },
            spec: { ports: [{ port: 80 }], ...(ips ? { externalIPs: ips } : {}) },
          });
        await refused(
          ["apply", "-f", "-"],
          svc(["192.0.2.10"]),
          /use of external IPs is denied by admission control/,
        );
        await ok(["apply", "-f", "-"], svc());
      });

      it("webhooks: a mutating peer adds a label and a warning, a validating peer refuses", async () => {
        const caBundle = Buffer.from(peerCaPem).toString("base64");
        const hook = (path: string) => ({
          name: `${path.slice(1)}.${ns}.example.com`,
          clientConfig: { url: `https://127.0.0.1:${peerPort}${path}`, caBundle },
          rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
          timeoutSeconds: 5,
        });
        await ok(
          ["apply", "-f", "-"],
          JSON.stringify({
            apiVersion: "admissionregistration.k8s.io/v1",
            kind: "MutatingWebhookConfiguration",
            metadata: { name: `mutate-${ns}` },
            webhooks: [hook("/mutate")],
          }),
        );
        await ok(
          ["apply", "-f", "-"],
          JSON.stringify({
            apiVersion: "admissionregistration.k8s.io/v1",
            kind: "ValidatingWebhookConfiguration",
            metadata: { name: `validate-${ns}` },
            webhooks: [hook("/validate")],
          }),
        );
        let created = { code: 1, out: "", err: "" };
        for (let i = 0; i < 50; i++) {
          created = await ok(["apply", "-f", "-"], pod(`hooked-${i}`));
          const p = await getJson(["-n", ns, "get", "pod", `hooked-${i}`]);
          if ((p.metadata as { labels: Record<string, string> }).labels.mutated === "by-webhook") break;
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.match(created.err, /the webhook was here/);
        await refused(
          ["apply", "-f", "-"],
          pod("denied", {}, { deny: "yes" }),
          /admission webhook "validate\.adm-[0-9-]+\.example\.com" denied the request: pods labelled deny=yes are not welcome/,
        );
        const seen = reviews.find(
          (r) => (r.object as { metadata?: { name?: string } } | null)?.metadata?.name === "denied",
        );
        assert.equal((seen?.userInfo as { username?: string } | undefined)?.username, "cluster-admin");
        await ok(["delete", "mutatingwebhookconfiguration", `mutate-${ns}`]);
        await ok(["delete", "validatingwebhookconfiguration", `validate-${ns}`]);
      });
      it("ValidatingAdmissionPolicy refuses what its CEL expression does not allow", async () => {
        await ok(
          ["apply", "-f", "-"],
          JSON.stringify({
            apiVersion: "admissionregistration.k8s.io/v1alpha1",
            kind: "ValidatingAdmissionPolicy",
            metadata: { name: `no-forbidden-${ns}` },
            spec: {
              failurePolicy: "Fail",
              matchConstraints: {
                resourceRules: [
                  {
                    apiGroups: [""],
                    apiVersions: ["v1"],
                    operations: ["CREATE", "UPDATE"],
                    resources: ["configmaps"],
                  },
                ],
              },
              validations: [
                {
                  expression: "!has(object.data) || !('forbidden' in object.data)",
                  message: "no forbidden keys",
                },
              ],
            },
          }),
        );
        await ok(
          ["apply", "-f", "-"],
          JSON.stringify({
            apiVersion: "admissionregistration.k8s.io/v1alpha1",
            kind: "ValidatingAdmissionPolicyBinding",
            metadata: { name: `no-forbidden-${ns}` },
            spec: {
              policyName: `no-forbidden-${ns}`,
              validationActions: ["Deny"],
              matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } } },
            },
          }),
        );
        let r = { code: 0, out: "", err: "" };
        for (let i = 0; i < 50 && r.code === 0; i++) {
          r = await k(["-n", ns, "create", "configmap", `bad-${i}`, "--from-literal=forbidden=1"]);
          if (r.code === 0) await new Promise((res) => setTimeout(res, 100));
        }
        assert.match(r.err, /denied request: no forbidden keys/);
        await ok(["delete", "validatingadmissionpolicybinding", `no-forbidden-${ns}`]);
        await ok(["delete", "validatingadmissionpolicy", `no-forbidden-${ns}`]);
      });
    });
  }
});
