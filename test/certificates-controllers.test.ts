// The certificate controllers against a real gateway: auto-approval of node client requests by
// SubjectAccessReview, signing by the built-in signers (and their refusals as Failed conditions),
// the signing flags, and the cleaner with a moved clock. Requests are made with openssl.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Agent, request } from "undici";
import { naming as namingPreset } from "../backends/naming/index.ts";
import { createAuthority } from "../gateway/pki/certificates.ts";
import { ControllerClient, CsrCleaner } from "../plugins/controllers/index.ts";
import { ApiClient } from "./support/api-client.ts";
import { csrObject, makeCsr } from "./support/csr.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

// biome-ignore lint/suspicious/noExplicitAny: API bodies are inspected field by field
type Any = any;

const GROUP = "certificates.k8s.io";
const BASE = `/apis/${GROUP}/v1/certificatesigningrequests`;
const KUBELET_CLIENT = "kubernetes.io/kube-apiserver-client-kubelet";
const NODE_USAGES = ["digital signature", "key encipherment", "client auth"];

function leaf(csr: Any): X509Certificate {
  const pem = Buffer.from(csr.status.certificate, "base64").toString();
  return new X509Certificate(pem.slice(0, pem.indexOf("-----END CERTIFICATE-----") + 25));
}

async function settled(api: ApiClient, name: string): Promise<Any> {
  let csr: Any;
  await eventually(
    async () => {
      csr = (await api.call("GET", `${BASE}/${name}`)).body;
      const types = (csr?.status?.conditions ?? []).map((c: Any) => c.type);
      return Boolean(csr?.status?.certificate) || types.includes("Failed");
    },
    15_000,
    `${name} signed or failed`,
  );
  return csr;
}

async function approve(api: ApiClient, name: string): Promise<void> {
  const csr = (await api.call("GET", `${BASE}/${name}`)).body;
  csr.status.conditions = [{ type: "Approved", status: "True", reason: "Test", message: "by the test" }];
  const res = await api.call("PUT", `${BASE}/${name}/approval`, { body: csr });
  assert.equal(res.status, 200, res.text);
}

describe("certificate controllers, kubernetes naming", () => {
  let gw: GatewayProcess;
  let api: ApiClient;
  before(async () => {
    gw = await startGateway(["--api-naming=kubernetes", "--cluster-signing-duration=2h"]);
    api = new ApiClient(gw.kubeconfig);
  });
  after(async () => {
    await api?.close();
    await gw?.stop();
  });

  it("auto-approves a bootstrap node client request the requester may make, signs it, and the node authenticates with it", async () => {
    const rbac = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
    const bind = (name: string, role: string, group: string) =>
      api.call("POST", rbac, {
        body: {
          metadata: { name },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
          subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: group }],
        },
      });
    for (const role of [
      "system:node-bootstrapper",
      "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
    ])
      assert.equal((await bind(`test-${role.replaceAll(":", "-")}`, role, "test:joiners")).status, 201);
    assert.equal(
      (await bind("test-bootstrapper-only", "system:node-bootstrapper", "test:outsiders")).status,
      201,
    );

    // An outsider may create requests but not have them approved automatically.
    const outsider = await makeCsr({ subject: "/CN=system:node:n2/O=system:nodes" });
    let res = await api.call("POST", BASE, {
      body: csrObject("outsider", GROUP, outsider.pem, KUBELET_CLIENT, NODE_USAGES),
      headers: { "Impersonate-User": "system:bootstrap:zzzzzz", "Impersonate-Group": "test:outsiders" },
    });
    assert.equal(res.status, 201, res.text);
    const node = await makeCsr({ subject: "/CN=system:node:n1/O=system:nodes" });
    res = await api.call("POST", BASE, {
      body: csrObject("joiner", GROUP, node.pem, KUBELET_CLIENT, NODE_USAGES),
      headers: { "Impersonate-User": "system:bootstrap:abcdef", "Impersonate-Group": "test:joiners" },
    });
    assert.equal(res.status, 201, res.text);
    const signed = await settled(api, "joiner");
    const approvedBy = signed.status.conditions.find((c: Any) => c.type === "Approved");
    assert.equal(approvedBy.reason, "AutoApproved");
    assert.equal(approvedBy.message, "Auto approving kubelet client certificate after SubjectAccessReview.");
    const cert = leaf(signed);
    assert.match(cert.subject, /CN=system:node:n1/);
    assert.match(cert.subject, /O=system:nodes/);
    const ca = new X509Certificate(await readFile(join(gw.dataDir, "pki", "ca.crt")));
    assert.ok(cert.verify(ca.publicKey), "issued by the cluster CA");
    assert.equal(cert.ca, false);
    assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.2"]);
    // --cluster-signing-duration=2h, plus the 5 minute backdate.
    assert.equal(Date.parse(cert.validTo) - Date.parse(cert.validFrom), (2 * 60 + 5) * 60_000);

    // The outsider's request came first and was turned down (the controller works in order).
    const pending = (await api.call("GET", `${BASE}/outsider`)).body;
    assert.equal(pending.status.conditions, undefined);

    // The certificate authenticates as the node.
    const agent = new Agent({
      connect: {
        ca: ca.toString(),
        cert: Buffer.from(signed.status.certificate, "base64").toString(),
        key: node.keyPem,
      },
    });
    try {
      const who = await request(`${api.server}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
        method: "POST",
        dispatcher: agent,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
      });
      const review = (await who.body.json()) as Any;
      assert.equal(who.statusCode, 201, JSON.stringify(review));
      assert.equal(review.status.userInfo.username, "system:node:n1");
      assert.deepEqual(review.status.userInfo.groups, ["system:nodes", "system:authenticated"]);
    } finally {
      await agent.close();
    }
  });

  it("signs within each signer's rules and fails requests against them with upstream's reason", async () => {
    const cases: {
      name: string;
      subject: string;
      signer: string;
      usages: string[];
      alt?: string[];
      failed?: string;
      extra?: Any;
    }[] = [
      {
        name: "client-ok",
        subject: "/CN=jane/O=devs",
        signer: "kubernetes.io/kube-apiserver-client",
        usages: ["client auth"],
        extra: { expirationSeconds: 600 },
      },
      {
        name: "client-serving",
        subject: "/CN=jane",
        signer: "kubernetes.io/kube-apiserver-client",
        usages: ["client auth", "server auth"],
        failed: "invalid usage for client certificate: server auth",
      },
      {
        name: "client-no-auth",
        subject: "/CN=jane",
        signer: "kubernetes.io/kube-apiserver-client",
        usages: ["digital signature"],
        failed: "invalid usage for client certificate: missing required usage: client auth",
      },
      {
        name: "kubelet-org",
        subject: "/CN=system:node:n3/O=devs",
        signer: KUBELET_CLIENT,
        usages: NODE_USAGES,
        failed: "subject organization is not system:nodes",
      },
      {
        name: "kubelet-san",
        subject: "/CN=system:node:n3/O=system:nodes",
        signer: KUBELET_CLIENT,
        usages: NODE_USAGES,
        alt: ["DNS:n3.example"],
        failed: "DNS subjectAltNames are not allowed",
      },
      {
        name: "kubelet-cn",
        subject: "/CN=n3/O=system:nodes",
        signer: KUBELET_CLIENT,
        usages: NODE_USAGES,
        failed: "subject common name does not begin with system:node:",
      },
      {
        name: "serving-ok",
        subject: "/CN=system:node:n4/O=system:nodes",
        signer: "kubernetes.io/kubelet-serving",
        usages: ["digital signature", "server auth"],
        alt: ["DNS:n4.example", "IP:10.0.0.4"],
      },
      {
        name: "serving-nosan",
        subject: "/CN=system:node:n4/O=system:nodes",
        signer: "kubernetes.io/kubelet-serving",
        usages: ["digital signature", "server auth"],
        failed: "DNS or IP subjectAltName is required",
      },
      {
        name: "serving-client",
        subject: "/CN=system:node:n4/O=system:nodes",
        signer: "kubernetes.io/kubelet-serving",
        usages: ["digital signature", "client auth"],
        alt: ["DNS:n4.example"],
        failed: "usages did not match [digital signature key encipherment server auth]",
      },
    ];
    for (const c of cases) {
      const made = await makeCsr({ subject: c.subject, ...(c.alt ? { altNames: c.alt } : {}) });
      const res = await api.call("POST", BASE, {
        body: csrObject(c.name, GROUP, made.pem, c.signer, c.usages, c.extra ?? {}),
      });
      assert.equal(res.status, 201, `${c.name}: ${res.text}`);
      await approve(api, c.name);
    }
    for (const c of cases) {
      const csr = await settled(api, c.name);
      const failed = (csr.status.conditions ?? []).find((x: Any) => x.type === "Failed");
      if (c.failed) {
        assert.equal(failed?.reason, "SignerValidationFailure", c.name);
        assert.equal(failed?.message, c.failed, c.name);
        assert.equal(csr.status.certificate, undefined, c.name);
      } else {
        assert.equal(failed, undefined, `${c.name}: ${JSON.stringify(csr.status)}`);
        const cert = leaf(csr);
        if (c.name === "client-ok")
          assert.equal(Date.parse(cert.validTo) - Date.parse(cert.validFrom), (10 + 5) * 60_000);
        if (c.name === "serving-ok") {
          assert.equal(cert.subjectAltName, "DNS:n4.example, IP Address:10.0.0.4");
          assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.1"]);
        }
      }
    }
  });

  it("leaves other signers' requests alone and approved-but-unsigned requests of a denied kind unsigned", async () => {
    const made = await makeCsr({ subject: "/CN=x" });
    assert.equal(
      (
        await api.call("POST", BASE, {
          body: csrObject("custom", GROUP, made.pem, "example.com/mine", ["client auth"]),
        })
      ).status,
      201,
    );
    await approve(api, "custom");
    // A later request to a built-in signer is signed: by then the custom one was passed over.
    const probe = await makeCsr({ subject: "/CN=probe" });
    await api.call("POST", BASE, {
      body: csrObject("probe", GROUP, probe.pem, "kubernetes.io/kube-apiserver-client", ["client auth"]),
    });
    await approve(api, "probe");
    await settled(api, "probe");
    const custom = (await api.call("GET", `${BASE}/custom`)).body;
    assert.equal(custom.status.certificate, undefined);
    assert.equal(custom.status.conditions.length, 1);
  });

  it("the cleaner deletes finished requests after an hour, pending ones after a day", async () => {
    const made = await makeCsr({ subject: "/CN=old" });
    for (const name of ["gc-pending", "gc-approved", "gc-denied"]) {
      const res = await api.call("POST", BASE, {
        body: csrObject(name, GROUP, made.pem, "example.com/gc", ["client auth"]),
      });
      assert.equal(res.status, 201, res.text);
    }
    await approve(api, "gc-approved");
    const denied = (await api.call("GET", `${BASE}/gc-denied`)).body;
    denied.status.conditions = [{ type: "Denied", status: "True", reason: "Test" }];
    assert.equal((await api.call("PUT", `${BASE}/gc-denied/approval`, { body: denied })).status, 200);
    const client = ControllerClient.fromKubeconfig(gw.kubeconfig);
    const exists = async (name: string) => (await api.call("GET", `${BASE}/${name}`)).status === 200;
    const errors: unknown[] = [];
    const at = (offsetMs: number) =>
      new CsrCleaner(client, namingPreset("kubernetes"), (e) => errors.push(e), {
        now: () => Date.now() + offsetMs,
      });
    await at(0).pass();
    assert.ok((await exists("gc-pending")) && (await exists("gc-approved")) && (await exists("gc-denied")));
    await at(61 * 60_000).pass();
    assert.equal(await exists("gc-approved"), false);
    assert.equal(await exists("gc-denied"), false);
    assert.equal(await exists("gc-pending"), true);
    await at(23 * 3_600_000).pass();
    assert.equal(await exists("gc-pending"), true);
    await at(24 * 3_600_000 + 60_000).pass();
    assert.equal(await exists("gc-pending"), false);
    // An issued certificate that has expired goes at once (--cluster-signing-duration=2h here).
    await api.call("POST", BASE, {
      body: csrObject("gc-issued", GROUP, made.pem, "kubernetes.io/kube-apiserver-client", ["client auth"]),
    });
    await approve(api, "gc-issued");
    await settled(api, "gc-issued");
    await at(30 * 60_000).pass();
    assert.equal(await exists("gc-issued"), true);
    await at(2 * 3_600_000 + 60_000).pass();
    assert.equal(await exists("gc-issued"), false);
    assert.deepEqual(errors, []);
  });
});

describe("cluster signing flags", () => {
  it("a per-signer CA signs that signer's requests; the others use the cluster CA", async () => {
    const d = await mkdtemp(join(tmpdir(), "signers-"));
    const other = await createAuthority("client-signer-ca");
    await writeFile(join(d, "client.crt"), other.certPem);
    await writeFile(join(d, "client.key"), other.keyPem);
    const gw = await startGateway([
      "--api-naming=kubernetes",
      `--cluster-signing-kube-apiserver-client-cert-file=${join(d, "client.crt")}`,
      `--cluster-signing-kube-apiserver-client-key-file=${join(d, "client.key")}`,
    ]);
    const api = new ApiClient(gw.kubeconfig);
    try {
      const made = await makeCsr({ subject: "/CN=someone" });
      await api.call("POST", BASE, {
        body: csrObject("own-ca", GROUP, made.pem, "kubernetes.io/kube-apiserver-client", ["client auth"]),
      });
      await approve(api, "own-ca");
      const cert = leaf(await settled(api, "own-ca"));
      assert.ok(cert.verify(new X509Certificate(other.certPem).publicKey));
      assert.match(cert.issuer, /CN=client-signer-ca/);
    } finally {
      await api.close();
      await gw.stop();
    }
  });

  it("refuses to start with a key that does not match its certificate, or an unreadable key", async () => {
    const d = await mkdtemp(join(tmpdir(), "signers-"));
    const a = await createAuthority("a");
    const b = await createAuthority("b");
    await writeFile(join(d, "a.crt"), a.certPem);
    await writeFile(join(d, "b.key"), b.keyPem);
    await assert.rejects(
      startGateway([
        `--cluster-signing-cert-file=${join(d, "a.crt")}`,
        `--cluster-signing-key-file=${join(d, "b.key")}`,
      ]),
      /the private key does not match the certificate's public key/,
    );
    await assert.rejects(
      startGateway([
        `--cluster-signing-cert-file=${join(d, "a.crt")}`,
        `--cluster-signing-key-file=${join(d, "none.key")}`,
      ]),
      /--cluster-signing-key-file: cannot read .*none\.key/,
    );
    await assert.rejects(
      startGateway([
        `--cluster-signing-cert-file=${join(d, "a.crt")}`,
        `--cluster-signing-key-file=${join(d, "b.key")}`,
        `--cluster-signing-kubelet-serving-cert-file=${join(d, "a.crt")}`,
        `--cluster-signing-kubelet-serving-key-file=${join(d, "b.key")}`,
      ]),
      /cannot specify --cluster-signing-\{cert,key\}-file and other --cluster-signing-\*-file flags at the same time/,
    );
  });
});
