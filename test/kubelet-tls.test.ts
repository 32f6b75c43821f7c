// The kubelet client's TLS (--kubelet-certificate-authority, --kubelet-client-certificate,
// --kubelet-client-key) end to end: a test-started HTTPS "kubelet" on a non-loopback address of this
// machine (Nodes may not name loopback addresses) that requires a client certificate from its own
// CA and records who called. Pod logs (kubectl and HTTP), an exec upgrade and the Node proxy at the
// kubelet port present the configured certificate and check the kubelet's against the configured
// CA; a kubelet whose certificate that CA did not sign is refused unless the log asks for
// insecureSkipTLSVerifyBackend; without the flags no certificate is presented, so the kubelet
// refuses; bad flag combinations stop the server at start.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { TLSSocket } from "node:tls";
import { Agent, request, upgrade } from "undici";
import { type Authority, createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import {
  type GatewayProcess,
  kubectlRun,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { outsideAddress } from "./support/outside-address.ts";
import { skipReason } from "./support/service-process.ts";
import { eventually } from "./support/watch.ts";

const IP = outsideAddress();
const NO_ADDRESS = "this machine has no non-loopback IPv4 address to serve the kubelet peer on";

/** The common name of the certificate the caller presented, or "" for none. */
function callerOf(socket: Socket): string {
  const cert = (socket as TLSSocket).getPeerCertificate();
  return cert && typeof cert.subject?.CN === "string" ? cert.subject.CN : "";
}

/**
 * A kubelet that asks for a client certificate from `clientCa` (and refuses a request without one,
 * as a kubelet with client-certificate authentication does), answering logs and the proxied
 * /healthz with the caller's name, and an exec upgrade with 101 and the caller's name.
 */
function kubelet(serving: { cert: string; key: string }, clientCa: string, callers: string[]): Server {
  const server = createServer(
    { ...serving, ca: clientCa, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const who = callerOf(req.socket);
      callers.push(`${who} ${req.url}`);
      if (!(req.socket as TLSSocket).authorized) {
        res.writeHead(401, { "content-type": "text/plain" }).end("Unauthorized");
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" }).end(`hello ${who} at ${req.url?.split("?")[0]}\n`);
    },
  );
  server.on("upgrade", (req, socket: Socket) => {
    const who = callerOf(req.socket);
    callers.push(`${who} upgrade ${req.url}`);
    if (!(req.socket as TLSSocket).authorized) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${req.headers.upgrade}\r\n\r\nhello ${who}`,
    );
    socket.end();
  });
  return server;
}

async function listen(server: Server, host: string): Promise<number> {
  server.listen(0, host);
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

describe("kubelet client TLS", { skip: skipReason(IP !== undefined, NO_ADDRESS) }, () => {
  const ip = IP ?? "";
  let dir: string;
  let kubeletCa: Authority;
  let clientCa: Authority;
  let trusted: Server;
  let untrusted: Server;
  const callers: string[] = [];
  let gw: GatewayProcess;
  let plain: GatewayProcess;
  let caPem: string;
  let agent: Agent;

  const call = async (g: GatewayProcess, path: string) => {
    const res = await request(`https://127.0.0.1:${g.port}${path}`, {
      dispatcher: agent,
      headers: { authorization: "Bearer admin-token-0123456789" },
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
  const send = async (g: GatewayProcess, method: string, path: string, body: unknown) => {
    const res = await request(`https://127.0.0.1:${g.port}${path}`, {
      method,
      dispatcher: agent,
      headers: {
        authorization: "Bearer admin-token-0123456789",
        "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json",
      },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode} ${text}`);
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "cg-kubelet-tls-"));
    kubeletCa = await createAuthority("kubelet-ca");
    clientCa = await createAuthority("kubelet-client-ca");
    const other = await createAuthority("someone-else");
    const serving = await issueCertificate(kubeletCa, { commonName: ip, usage: "server", altNames: [ip] });
    const foreign = await issueCertificate(other, { commonName: ip, usage: "server", altNames: [ip] });
    const client = await issueCertificate(clientCa, {
      commonName: "kube-apiserver-kubelet-client",
      usage: "client",
    });
    trusted = kubelet({ cert: serving.certPem, key: serving.keyPem }, clientCa.certPem, callers);
    untrusted = kubelet({ cert: foreign.certPem, key: foreign.keyPem }, clientCa.certPem, callers);
    const ports = { trusted: await listen(trusted, ip), untrusted: await listen(untrusted, ip) };

    const files = {
      tokens: join(dir, "tokens.csv"),
      ca: join(dir, "kubelet-ca.crt"),
      cert: join(dir, "client.crt"),
      key: join(dir, "client.key"),
    };
    await writeFile(files.tokens, 'admin-token-0123456789,admin,admin-uid,"system:masters"\n');
    await writeFile(files.ca, kubeletCa.certPem);
    await writeFile(files.cert, client.certPem);
    await writeFile(files.key, client.keyPem);
    const common = ["--api-naming=kubernetes", `--token-auth-file=${files.tokens}`];
    gw = await startGateway([
      ...common,
      `--kubelet-certificate-authority=${files.ca}`,
      `--kubelet-client-certificate=${files.cert}`,
      `--kubelet-client-key=${files.key}`,
    ]);
    plain = await startGateway(common);
    caPem = await readFile(join(gw.dataDir, "pki", "ca.crt"), "utf8");
    const plainCa = await readFile(join(plain.dataDir, "pki", "ca.crt"), "utf8");
    agent = new Agent({ connect: { ca: [caPem, plainCa] } });

    for (const g of [gw, plain]) {
      for (const [node, port] of [
        ["good-kubelet", ports.trusted],
        ["foreign-kubelet", ports.untrusted],
      ] as const) {
        await send(g, "POST", "/api/v1/nodes", { metadata: { name: node } });
        await send(g, "PATCH", `/api/v1/nodes/${node}/status`, {
          status: {
            addresses: [{ type: "InternalIP", address: ip }],
            daemonEndpoints: { kubeletEndpoint: { Port: port } },
          },
        });
      }
      // Pods wait for the namespace's default service account (admission asks for it).
      await eventually(
        async () => (await call(g, "/api/v1/namespaces/default/serviceaccounts/default")).status === 200,
        20_000,
        "the default service account",
      );
      for (const [pod, node] of [
        ["web", "good-kubelet"],
        ["other", "foreign-kubelet"],
      ] as const) {
        await send(g, "POST", "/api/v1/namespaces/default/pods", {
          metadata: { name: pod },
          spec: { nodeName: node, containers: [{ name: "app", image: "busybox" }] },
        });
      }
    }
  });

  after(async () => {
    await gw?.stop();
    await plain?.stop();
    trusted?.close();
    untrusted?.close();
    await agent?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("presents the client certificate and checks the kubelet's against the CA: logs through kubectl and HTTP", async () => {
    for (const bin of oldestAndNewestKubectl()) {
      const out = await kubectlRun(bin, gw.kubeconfig, ["logs", "web"]);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, "hello kube-apiserver-kubelet-client at /containerLogs/default/web/app\n");
    }
    const log = await call(gw, "/api/v1/namespaces/default/pods/web/log");
    assert.equal(log.status, 200, log.text);
    assert.match(log.text, /^hello kube-apiserver-kubelet-client /);
  });

  it("reaches the Node proxy at the kubelet port, and an exec upgrade, as the kubelet client", async () => {
    const proxied = await call(gw, "/api/v1/nodes/good-kubelet/proxy/healthz");
    assert.equal(proxied.status, 200, proxied.text);
    assert.equal(proxied.text, "hello kube-apiserver-kubelet-client at /healthz\n");

    const up = await upgrade(
      `https://127.0.0.1:${gw.port}/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true`,
      {
        dispatcher: agent,
        method: "GET",
        protocol: "SPDY/3.1",
        headers: { authorization: "Bearer admin-token-0123456789" },
      },
    );
    const chunks: Buffer[] = [];
    up.socket.on("data", (c: Buffer) => chunks.push(c));
    await once(up.socket, "close");
    assert.equal(Buffer.concat(chunks).toString(), "hello kube-apiserver-kubelet-client");
  });

  it("refuses a kubelet whose certificate the CA did not sign, unless the log skips the check", async () => {
    const refused = await call(gw, "/api/v1/namespaces/default/pods/other/log");
    assert.equal(refused.status, 500, refused.text);
    assert.match(refused.text, /certificate/i);
    const skipped = await call(
      gw,
      "/api/v1/namespaces/default/pods/other/log?insecureSkipTLSVerifyBackend=true",
    );
    assert.equal(skipped.status, 200, skipped.text);
    assert.match(skipped.text, /^hello kube-apiserver-kubelet-client /);
  });

  it("without the flags presents no certificate (the kubelet refuses) and checks none", async () => {
    const before = callers.length;
    const log = await call(plain, "/api/v1/namespaces/default/pods/other/log");
    assert.equal(log.status, 401, log.text);
    assert.ok(callers.slice(before).includes(" /containerLogs/default/other/app"), callers.join("\n"));
  });

  it("refuses to start with a certificate and no key, a key that does not match, or an unreadable CA", async () => {
    const a = await createAuthority("a");
    const b = await createAuthority("b");
    await writeFile(join(dir, "a.crt"), a.certPem);
    await writeFile(join(dir, "b.key"), b.keyPem);
    await assert.rejects(
      startGateway([`--kubelet-client-certificate=${join(dir, "a.crt")}`]),
      /--kubelet-client-certificate and --kubelet-client-key must be given together/,
    );
    await assert.rejects(
      startGateway([
        `--kubelet-client-certificate=${join(dir, "a.crt")}`,
        `--kubelet-client-key=${join(dir, "b.key")}`,
      ]),
      /--kubelet-client-key: .*b\.key does not match the certificate in .*a\.crt/,
    );
    await assert.rejects(
      startGateway([`--kubelet-certificate-authority=${join(dir, "none.crt")}`]),
      /--kubelet-certificate-authority: cannot read .*none\.crt/,
    );
  });
});
