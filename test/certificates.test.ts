// CertificateSigningRequests end to end: the resource with its approval and status subresources,
// as kubectl (oldest and newest), raw HTTPS and openssl-made requests see it, under both naming
// presets. Requests name a signer of the test's own domain here, so no controller acts on them.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import { ApiClient } from "./support/api-client.ts";
import { csrObject, makeCsr } from "./support/csr.ts";
import {
  type GatewayProcess,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";

const bins = oldestAndNewestKubectl();
const SIGNER = "example.com/test-signer";
const CLIENT_USAGES = ["digital signature", "key encipherment", "client auth"];

type Obj = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: API bodies are inspected field by field
type Any = any;

function as(user: string, groups: string[] = []): Record<string, string> {
  const headers: Record<string, string> = { "Impersonate-User": user };
  // undici sends one header per name: the first group is enough for these tests.
  if (groups[0]) headers["Impersonate-Group"] = groups[0];
  return headers;
}

function approved(csr: Any, type = "Approved", reason = "TestApprove"): Any {
  const copy = structuredClone(csr);
  copy.status ??= {};
  copy.status.conditions = [
    ...(copy.status.conditions ?? []),
    { type, status: "True", reason, message: `${type} by the test` },
  ];
  return copy;
}

describe("CertificateSigningRequests, kubernetes naming", () => {
  let gw: GatewayProcess;
  let api: ApiClient;
  const base = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
  const group = "certificates.k8s.io";

  before(async () => {
    gw = await startGateway(["--api-naming=kubernetes"]);
    api = new ApiClient(gw.kubeconfig);
  });
  after(async () => {
    await api?.close();
    await gw?.stop();
  });

  async function create(name: string, extra: Obj = {}, headers: Record<string, string> = {}) {
    const { pem } = await makeCsr({ subject: `/CN=${name}/O=testers` });
    return api.call("POST", base, {
      body: csrObject(name, group, pem, SIGNER, CLIENT_USAGES, extra),
      headers,
    });
  }

  it("fills the requester from the caller, clears status, and keeps spec and status on updates", async () => {
    const { pem } = await makeCsr({ subject: "/CN=alice" });
    const body: Any = csrObject("who", group, pem, SIGNER, CLIENT_USAGES, {
      username: "mallory",
      uid: "u-1",
      groups: ["system:masters"],
      extra: { scopes: ["all"] },
    });
    body.status = { conditions: [{ type: "Approved", status: "True" }] };
    const res = await api.call("POST", base, {
      body,
      headers: {
        ...as("alice", ["system:masters"]),
        "Impersonate-Uid": "alice-uid",
        "Impersonate-Extra-Scopes": "read",
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.spec.username, "alice");
    assert.equal(res.body.spec.uid, "alice-uid");
    assert.deepEqual(res.body.spec.groups, ["system:masters", "system:authenticated"]);
    assert.deepEqual(res.body.spec.extra, { scopes: ["read"] });
    assert.deepEqual(res.body.status, {});

    // The main resource changes neither spec nor status (upstream's strategy drops such changes).
    const changed = structuredClone(res.body);
    changed.spec.signerName = "example.com/other";
    changed.spec.usages = ["client auth"];
    changed.spec.username = "mallory";
    changed.metadata.labels = { touched: "yes" };
    changed.status = approved(changed).status;
    const put = await api.call("PUT", `${base}/who`, { body: changed });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.metadata.labels.touched, "yes");
    assert.deepEqual(put.body.spec, res.body.spec);
    assert.deepEqual(put.body.status, {});
  });

  it("refuses bad requests with 422 naming the field", async () => {
    const { pem } = await makeCsr({ subject: "/CN=bad" });
    const cases: { name: string; body: Any; field: string; message: RegExp }[] = [];
    const good = () => csrObject("bad", group, pem, SIGNER, CLIENT_USAGES) as Any;
    let b = good();
    b.spec.request = Buffer.from(
      "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n",
    ).toString("base64");
    cases.push({ name: "malformed DER", body: b, field: "spec.request", message: /malformed/ });
    b = good();
    b.spec.request = Buffer.from("not pem at all").toString("base64");
    cases.push({ name: "no PEM", body: b, field: "spec.request", message: /CERTIFICATE REQUEST/ });
    // One bit of the signature flipped: the request parses but does not verify.
    const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s/g, ""), "base64");
    der[der.length - 3] = (der[der.length - 3] as number) ^ 0x01;
    b = good();
    const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
    b.spec.request = Buffer.from(
      `-----BEGIN CERTIFICATE REQUEST-----\n${lines.join("\n")}\n-----END CERTIFICATE REQUEST-----\n`,
    ).toString("base64");
    cases.push({ name: "bad signature", body: b, field: "spec.request", message: /verification/ });
    b = good();
    b.spec.signerName = "no-domain";
    cases.push({
      name: "signer name",
      body: b,
      field: "spec.signerName",
      message: /example.com\/signer-name/,
    });
    b = good();
    b.spec.signerName = "kubernetes.io/legacy-unknown";
    cases.push({ name: "legacy signer", body: b, field: "spec.signerName", message: /legacy signerName/ });
    b = good();
    b.spec.expirationSeconds = 599;
    cases.push({
      name: "short expiration",
      body: b,
      field: "spec.expirationSeconds",
      message: /600 seconds/,
    });
    b = good();
    b.spec.usages = ["client auth", "client auth"];
    cases.push({ name: "duplicate usage", body: b, field: "spec.usages[1]", message: /Duplicate/ });
    b = good();
    b.spec.usages = ["flying"];
    cases.push({ name: "unknown usage", body: b, field: "spec.usages[0]", message: /Unsupported value/ });
    for (const c of cases) {
      const res = await api.call("POST", base, { body: c.body });
      assert.equal(res.status, 422, `${c.name}: ${res.text}`);
      assert.equal(res.body.reason, "Invalid", c.name);
      const causes = res.body.details.causes as { field: string; message: string }[];
      assert.ok(
        causes.some((cause) => cause.field === c.field && c.message.test(cause.message)),
        `${c.name}: ${res.text}`,
      );
    }
    for (const key of ["rsa", "ed25519"] as const) {
      const made = await makeCsr({ subject: `/CN=${key}`, key });
      const ok = await api.call("POST", base, {
        body: csrObject(`key-${key}`, group, made.pem, SIGNER, CLIENT_USAGES),
      });
      assert.equal(ok.status, 201, `${key}: ${ok.text}`);
    }
  });

  it("approval: conditions only, Approved and Denied exclusive, never removed", async () => {
    const res = await create("appr");
    assert.equal(res.status, 201, res.text);
    // The approval subresource changes nothing but conditions.
    const sent = approved(res.body);
    sent.spec.signerName = "example.com/elsewhere";
    sent.metadata.labels = { via: "approval" };
    const ok = await api.call("PUT", `${base}/appr/approval`, { body: sent });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.spec.signerName, SIGNER);
    const condition = ok.body.status.conditions[0];
    assert.equal(condition.type, "Approved");
    assert.match(condition.lastUpdateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(condition.lastTransitionTime, /Z$/);

    const both = await api.call("PUT", `${base}/appr/approval`, { body: approved(ok.body, "Denied") });
    assert.equal(both.status, 422, both.text);
    assert.match(both.body.message, /Approved and Denied conditions are mutually exclusive/);

    const removed = structuredClone(ok.body);
    removed.status.conditions = [];
    const rm = await api.call("PUT", `${base}/appr/approval`, { body: removed });
    assert.equal(rm.status, 422, rm.text);
    assert.match(rm.body.message, /updates may not remove a condition of type "Approved"/);

    // The status subresource cannot add approval conditions: Denied is dropped... but counted.
    const viaStatus = await api.call("PUT", `${base}/appr/status`, { body: approved(ok.body, "Denied") });
    assert.equal(viaStatus.status, 422, viaStatus.text);
    assert.match(viaStatus.body.message, /updates may not add a condition of type "Denied"/);

    // Failed is the signer's: allowed through status, True only.
    const failed = await api.call("PUT", `${base}/appr/status`, {
      body: approved(ok.body, "Failed", "SignerValidationFailure"),
    });
    assert.equal(failed.status, 200, failed.text);
    const notTrue = structuredClone(failed.body);
    notTrue.status.conditions[1].status = "False";
    const bad = await api.call("PUT", `${base}/appr/status`, { body: notTrue });
    assert.equal(bad.status, 422, bad.text);
    assert.match(bad.body.message, /status\.conditions\[1\]\.status: Unsupported value: "False"/);
  });

  it("status.certificate: PEM certificates only, once, after approval, only through status", async () => {
    const ca = await createAuthority("test-signer-ca");
    const leaf = await issueCertificate(ca, { commonName: "certy", usage: "client" });
    const certificate = Buffer.from(leaf.certPem + ca.certPem).toString("base64");
    const res = await create("certy");
    assert.equal(res.status, 201, res.text);
    const early = structuredClone(res.body);
    early.status = { certificate };
    const before = await api.call("PUT", `${base}/certy/status`, { body: early });
    assert.equal(before.status, 422, before.text);
    assert.match(
      before.body.message,
      /status\.certificate: Forbidden: a certificate may only be set on an approved request/,
    );

    const ok = await api.call("PUT", `${base}/certy/approval`, { body: approved(res.body) });
    assert.equal(ok.status, 200, ok.text);
    const notCert = structuredClone(ok.body);
    notCert.status.certificate = Buffer.from(leaf.keyPem).toString("base64");
    const wrong = await api.call("PUT", `${base}/certy/status`, { body: notCert });
    assert.equal(wrong.status, 422, wrong.text);
    assert.match(wrong.body.message, /only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"/);

    const viaMain = structuredClone(ok.body);
    viaMain.status.certificate = certificate;
    const main = await api.call("PUT", `${base}/certy`, { body: viaMain });
    assert.equal(main.status, 200, main.text);
    assert.equal(main.body.status.certificate, undefined);

    const signed = structuredClone(main.body);
    signed.status.certificate = certificate;
    const set = await api.call("PUT", `${base}/certy/status`, { body: signed });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.status.certificate, certificate);
    const again = structuredClone(set.body);
    again.status.certificate = Buffer.from(ca.certPem).toString("base64");
    const reset = await api.call("PUT", `${base}/certy/status`, { body: again });
    assert.equal(reset.status, 422, reset.text);
    assert.match(reset.body.message, /updates may not modify existing certificate content/);
  });

  it("selects on spec.signerName", async () => {
    const res = await api.call(
      "GET",
      `${base}?fieldSelector=${encodeURIComponent(`spec.signerName=${SIGNER}`)}`,
    );
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.items.length > 0);
    const none = await api.call("GET", `${base}?fieldSelector=spec.signerName%3Dexample.com%2Fnone`);
    assert.equal(none.body.items.length, 0);
  });

  describe("kubectl", { skip: bins.length > 0 ? false : NO_KUBECTL }, () => {
    for (const bin of bins) {
      const v = bin.slice(bin.lastIndexOf(".") + 1);
      it(`kubectl 1.${v}: get csr columns, certificate approve and deny`, async () => {
        const a = `kc-a-${v}`;
        const d = `kc-d-${v}`;
        assert.equal((await create(a, { expirationSeconds: 3600 })).status, 201);
        assert.equal((await create(d)).status, 201);
        const approve = await kubectlRun(bin, gw.kubeconfig, ["certificate", "approve", a]);
        assert.equal(approve.code, 0, approve.stderr);
        assert.match(
          approve.stdout,
          new RegExp(`certificatesigningrequest.certificates.k8s.io/${a} approved`),
        );
        const deny = await kubectlRun(bin, gw.kubeconfig, ["certificate", "deny", d]);
        assert.equal(deny.code, 0, deny.stderr);
        const got = await kubectlRun(bin, gw.kubeconfig, ["get", "csr", a, d]);
        assert.equal(got.code, 0, got.stderr);
        const [header, ...rows] = got.stdout.trim().split("\n");
        assert.deepEqual(header?.split(/\s+/), [
          "NAME",
          "AGE",
          "SIGNERNAME",
          "REQUESTOR",
          "REQUESTEDDURATION",
          "CONDITION",
        ]);
        const row = (name: string) => rows.find((r) => r.startsWith(`${name} `))?.split(/\s+/) ?? [];
        assert.deepEqual(row(a).slice(2), [SIGNER, row(a)[3] ?? "", "60m", "Approved"]);
        assert.deepEqual(row(d).slice(2).slice(-2), ["<none>", "Denied"]);
        // A denied request stays denied: the approval subresource refuses the flip.
        const flip = await kubectlRun(bin, gw.kubeconfig, ["certificate", "approve", "--force", d]);
        assert.notEqual(flip.code, 0, flip.stdout);
      });
    }
  });

  it("approving, denying and signing need the signer's verbs (403 otherwise)", async () => {
    const res = await create("perm");
    assert.equal(res.status, 201, res.text);
    const rbac = "/apis/rbac.authorization.k8s.io/v1";
    const role = (name: string, rules: Obj[]) =>
      api.call("POST", `${rbac}/clusterroles`, { body: { metadata: { name }, rules } });
    const bind = (name: string, user: string, roleName = name) =>
      api.call("POST", `${rbac}/clusterrolebindings`, {
        body: {
          metadata: { name },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
          subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
        },
      });
    const csrRules = [
      { apiGroups: [group], resources: ["certificatesigningrequests"], verbs: ["get", "list", "watch"] },
      {
        apiGroups: [group],
        resources: ["certificatesigningrequests/approval", "certificatesigningrequests/status"],
        verbs: ["update"],
      },
    ];
    assert.equal((await role("csr-writer", csrRules)).status, 201);
    assert.equal((await bind("csr-writer", "bob")).status, 201);
    assert.equal((await bind("csr-writer-2", "carol", "csr-writer")).status, 201);
    assert.equal(
      (
        await role("csr-approver", [
          {
            apiGroups: [group],
            resources: ["signers"],
            verbs: ["approve", "sign"],
            resourceNames: ["example.com/*"],
          },
        ])
      ).status,
      201,
    );
    assert.equal((await bind("csr-approver", "carol")).status, 201);

    const denied = await api.call("PUT", `${base}/perm/approval`, {
      body: approved(res.body),
      headers: as("bob"),
    });
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.body.reason, "Forbidden");
    assert.match(
      denied.body.message,
      /user not permitted to approve requests with signerName "example.com\/test-signer"/,
    );
    const denial = await api.call("PUT", `${base}/perm/approval`, {
      body: approved(res.body, "Denied"),
      headers: as("bob"),
    });
    assert.equal(denial.status, 403, denial.text);

    let current: Any;
    const { eventually } = await import("./support/watch.ts");
    await eventually(
      async () => {
        const r = await api.call("PUT", `${base}/perm/approval`, {
          body: approved(res.body),
          headers: as("carol"),
        });
        current = r.body;
        return r.status === 200;
      },
      10_000,
      "carol's approval (RBAC caught up)",
    );
    const ca = await createAuthority("perm-ca");
    const leaf = await issueCertificate(ca, { commonName: "perm", usage: "client" });
    const signed = structuredClone(current);
    signed.status.certificate = Buffer.from(leaf.certPem).toString("base64");
    const notSigner = await api.call("PUT", `${base}/perm/status`, { body: signed, headers: as("bob") });
    assert.equal(notSigner.status, 403, notSigner.text);
    assert.match(
      notSigner.body.message,
      /user not permitted to sign requests with signerName "example.com\/test-signer"/,
    );
    const signer = await api.call("PUT", `${base}/perm/status`, { body: signed, headers: as("carol") });
    assert.equal(signer.status, 200, signer.text);
  });

  it("refuses system:masters for the API server client signer (CertificateSubjectRestriction)", async () => {
    const { pem } = await makeCsr({ subject: "/CN=root/O=system:masters" });
    const res = await api.call("POST", base, {
      body: csrObject("masters", group, pem, "kubernetes.io/kube-apiserver-client", CLIENT_USAGES),
    });
    assert.equal(res.status, 403, res.text);
    assert.match(
      res.body.message,
      /use of kubernetes.io\/kube-apiserver-client signer with system:masters group is not allowed/,
    );
    const other = await api.call("POST", base, {
      body: csrObject("masters-elsewhere", group, pem, SIGNER, CLIENT_USAGES),
    });
    assert.equal(other.status, 201, other.text);
  });
});

describe("CertificateSigningRequests, cluster naming", () => {
  let gw: GatewayProcess;
  let api: ApiClient;
  before(async () => {
    gw = await startGateway();
    api = new ApiClient(gw.kubeconfig);
  });
  after(async () => {
    await api?.close();
    await gw?.stop();
  });

  it("serves the kind in certificates.cluster.io with the preset's legacy signer refused", async () => {
    const base = "/apis/certificates.cluster.io/v1/certificatesigningrequests";
    const { pem } = await makeCsr({ subject: "/CN=c" });
    const res = await api.call("POST", base, {
      body: csrObject("c", "certificates.cluster.io", pem, SIGNER, CLIENT_USAGES),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.apiVersion, "certificates.cluster.io/v1");
    const legacy = await api.call("POST", base, {
      body: csrObject("l", "certificates.cluster.io", pem, "cluster.io/legacy-unknown", CLIENT_USAGES),
    });
    assert.equal(legacy.status, 422, legacy.text);
    assert.match(legacy.text, /legacy signerName/);
    // The Table the server prints, in the preset's meta group.
    const table = await api.call("GET", `${base}/c`, {
      accept: "application/json;as=Table;v=v1;g=meta.cluster.io",
    });
    assert.equal(table.status, 200, table.text);
    assert.deepEqual(
      table.body.columnDefinitions.map((c: { name: string }) => c.name),
      ["Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"],
    );
    assert.deepEqual(table.body.rows[0].cells.slice(2), [SIGNER, "cluster-admin", "<none>", "Pending"]);
  });
});
