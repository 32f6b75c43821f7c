// The audit webhook backend against a real HTTPS peer the test starts: EventList v1 bodies in
// batch and blocking modes (kubernetes naming, so audit.k8s.io/v1), and the peer gone: the API
// keeps serving and the lost events are counted in apiserver_audit_error_total{plugin="webhook"}.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import { ApiClient } from "./support/api-client.ts";
import { startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

interface EventList {
  kind: string;
  apiVersion: string;
  items: {
    auditID: string;
    stage: string;
    objectRef?: { name?: string };
    requestObject?: unknown;
    responseObject?: unknown;
    annotations?: Record<string, string>;
  }[];
}

let dir: string;
let peer: Server;
let port: number;
const received: EventList[] = [];
let kubeconfig: string;
let policyFile: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "cg-audit-webhook-"));
  const ca = await createAuthority("audit-peer-ca");
  const cert = await issueCertificate(ca, {
    commonName: "audit-peer",
    usage: "server",
    altNames: ["127.0.0.1"],
  });
  peer = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      received.push(JSON.parse(body) as EventList);
      res.writeHead(200).end();
    });
  });
  peer.listen(0, "127.0.0.1");
  await once(peer, "listening");
  port = (peer.address() as AddressInfo).port;
  kubeconfig = join(dir, "webhook.kubeconfig");
  await writeFile(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{name: peer, cluster: {server: "https://127.0.0.1:${port}/audit", certificate-authority-data: ${Buffer.from(ca.certPem).toString("base64")}}}]
users: [{name: gw, user: {}}]
contexts: [{name: peer, context: {cluster: peer, user: gw}}]
current-context: peer
`,
  );
  policyFile = join(dir, "policy.yaml");
  await writeFile(
    policyFile,
    'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n    resources: [{group: "", resources: ["configmaps"]}]\n',
  );
});
after(async () => {
  peer?.close();
  await rm(dir, { recursive: true, force: true });
});

async function errorCount(api: ApiClient): Promise<number> {
  const res = await api.call("GET", "/metrics");
  const line = res.text
    .split("\n")
    .find((l) => l.startsWith('apiserver_audit_error_total{plugin="webhook"}'));
  return line ? Number(line.split(" ")[1]) : 0;
}

const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name } });

for (const mode of ["batch", "blocking"]) {
  describe(`--audit-webhook-mode=${mode}`, () => {
    it("EventList bodies reach the peer; with the peer down the API keeps serving and the loss is counted", async () => {
      if (!peer.listening) {
        peer.listen(port, "127.0.0.1");
        await once(peer, "listening");
      }
      const gw = await startGateway([
        "--api-naming=kubernetes",
        "--storage-backend=memory",
        `--audit-policy-file=${policyFile}`,
        `--audit-webhook-config-file=${kubeconfig}`,
        `--audit-webhook-mode=${mode}`,
        "--audit-webhook-batch-max-wait=100ms",
        "--audit-webhook-initial-backoff=20ms",
      ]);
      try {
        const api = new ApiClient(gw.kubeconfig);
        const res = await api.call("POST", "/api/v1/namespaces/default/configmaps", {
          body: cm(`up-${mode}`),
        });
        assert.equal(res.status, 201);
        const id = String(res.headers["audit-id"]);
        await eventually(
          () => received.some((l) => l.items.some((e) => e.auditID === id && e.stage === "ResponseComplete")),
          10_000,
          "the event at the peer",
        );
        const list = received.find((l) =>
          l.items.some((e) => e.auditID === id && e.stage === "ResponseComplete"),
        );
        assert.equal(list?.kind, "EventList");
        assert.equal(list?.apiVersion, "audit.k8s.io/v1");
        const complete = list?.items.find((e) => e.auditID === id && e.stage === "ResponseComplete");
        assert.equal(complete?.objectRef?.name, `up-${mode}`);

        peer.close();
        peer.closeAllConnections();
        const before = await errorCount(api);
        const down = await api.call("POST", "/api/v1/namespaces/default/configmaps", {
          body: cm(`down-${mode}`),
        });
        assert.equal(down.status, 201, "the API keeps serving without its audit peer");
        const get = await api.call("GET", `/api/v1/namespaces/default/configmaps/down-${mode}`);
        assert.equal(get.status, 200);
        await eventually(async () => (await errorCount(api)) > before, 20_000, "the lost events counted");
        assert.ok(!received.some((l) => l.items.some((e) => e.auditID === down.headers["audit-id"])));
      } finally {
        await gw.stop();
        await rm(gw.dataDir, { recursive: true, force: true });
      }
    });
  });
}

describe("--audit-webhook-truncate-*", () => {
  it("the peer gets a too-big event without its bodies, annotated audit.k8s.io/truncated, and small ones whole", async () => {
    if (!peer.listening) {
      peer.listen(port, "127.0.0.1");
      await once(peer, "listening");
    }
    const rrPolicy = join(dir, "policy-rr.yaml");
    await writeFile(
      rrPolicy,
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: RequestResponse\n    resources: [{group: "", resources: ["configmaps"]}]\n',
    );
    const gw = await startGateway([
      "--api-naming=kubernetes",
      "--storage-backend=memory",
      `--audit-policy-file=${rrPolicy}`,
      `--audit-webhook-config-file=${kubeconfig}`,
      "--audit-webhook-batch-max-wait=100ms",
      "--audit-webhook-truncate-enabled",
      "--audit-webhook-truncate-max-event-size=8000",
    ]);
    try {
      const api = new ApiClient(gw.kubeconfig);
      const sent = async (name: string, size: number) => {
        const res = await api.call("POST", "/api/v1/namespaces/default/configmaps", {
          body: { ...cm(name), data: { k: "v".repeat(size) } },
        });
        assert.equal(res.status, 201);
        const id = String(res.headers["audit-id"]);
        let found: EventList["items"][number] | undefined;
        await eventually(
          () => {
            found = received
              .flatMap((l) => l.items)
              .find((e) => e.auditID === id && e.stage === "ResponseComplete");
            return found !== undefined;
          },
          10_000,
          `the event of ${name} at the peer`,
        );
        return found;
      };
      const small = await sent("trunc-small", 100);
      assert.ok(small?.requestObject && small.responseObject, "bodies kept");
      assert.equal(small?.annotations?.["audit.k8s.io/truncated"], undefined);
      const big = await sent("trunc-big", 10_000);
      assert.equal(big?.requestObject, undefined);
      assert.equal(big?.responseObject, undefined);
      assert.equal(big?.annotations?.["audit.k8s.io/truncated"], "true");
      assert.equal(big?.objectRef?.name, "trunc-big");
    } finally {
      await gw.stop();
      await rm(gw.dataDir, { recursive: true, force: true });
    }
  });
});
