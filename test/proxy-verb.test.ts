// The `proxy` subresource end to end: the server started as README says, Services, Pods and Nodes
// pointing at HTTP and HTTPS peers this test serves on a non-loopback address of this machine
// (upstream refuses to proxy to loopback, and EndpointSlice validation refuses loopback
// addresses), driven over HTTPS with static tokens, and through `kubectl proxy`.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, request as httpsRequest } from "node:https";
import type { AddressInfo, Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Agent, request } from "undici";
import { naming as namingPreset } from "../backends/naming/index.ts";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import { freePort, type GatewayProcess, kubectlVersions, startGateway } from "./support/gateway-process.ts";
import { outsideAddress } from "./support/outside-address.ts";
import { skipReason } from "./support/service-process.ts";
import { eventually } from "./support/watch.ts";

const IP = outsideAddress();
const NO_ADDRESS = "this machine has no non-loopback IPv4 address to serve the proxy's peers on";

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  tls: boolean;
}

/** Answers every request with what it saw; `/redirect` redirects, `/stream` holds its second half. */
function peerHandler(tls: boolean, held: { release?: () => void }) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/redirect") {
        res.writeHead(302, { location: "/landing?from=peer" });
        res.end();
        return;
      }
      if (req.url === "/stream") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("first\n");
        held.release = () => res.end("second\n");
        return;
      }
      const seen: Seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        tls,
      };
      res.writeHead(200, {
        "content-type": "application/json",
        "access-control-allow-origin": "*",
        "x-peer": tls ? "https" : "http",
      });
      res.end(JSON.stringify(seen));
    });
  };
}

async function listen(server: Server, host: string): Promise<number> {
  server.listen(0, host);
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are inspected field by field
  body: any;
}

/** A gateway with an admin token, a user allowed to proxy to services and one allowed nothing. */
async function gatewayWithTokens(
  preset: string,
): Promise<{ gw: GatewayProcess; dir: string; agent: Agent; caPem: string }> {
  const dir = await mkdtemp(join(tmpdir(), "cg-proxy-"));
  const tokens = join(dir, "tokens.csv");
  await writeFile(
    tokens,
    [
      'admin-token-0123456789,admin,admin-uid,"system:masters"',
      "proxier-token-0123456789,proxier,proxier-uid",
      "nobody-token-0123456789,nobody,nobody-uid",
      "",
    ].join("\n"),
  );
  const gw = await startGateway([`--api-naming=${preset}`, `--token-auth-file=${tokens}`]);
  const caPem = await readFile(join(gw.dataDir, "pki", "ca.crt"), "utf8");
  return { gw, dir, agent: new Agent({ connect: { ca: caPem } }), caPem };
}

function caller(gwPort: () => number, agent: () => Agent) {
  return async (
    token: string,
    method: string,
    path: string,
    options: { body?: string | Buffer; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const res = await request(`https://127.0.0.1:${gwPort()}${path}`, {
      method: method as "GET",
      headers: { authorization: `Bearer ${token}-token-0123456789`, ...(options.headers ?? {}) },
      ...(options.body !== undefined ? { body: options.body } : {}),
      dispatcher: agent(),
    });
    const text = await res.body.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, body };
  };
}

describe("the proxy verb", { skip: skipReason(IP !== undefined, NO_ADDRESS) }, () => {
  const naming = namingPreset("kubernetes");
  const ip = IP as string;
  const held: { release?: () => void } = {};
  let gw: GatewayProcess;
  let dir: string;
  let agent: Agent;
  let caPem: string;
  let httpPeer: Server;
  let httpsPeer: Server;
  let httpPort: number;
  let httpsPort: number;
  let closedPort: number;
  const call = caller(
    () => gw.port,
    () => agent,
  );
  const admin = (method: string, path: string, body?: unknown) =>
    call("admin", method, path, {
      ...(body !== undefined
        ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } }
        : {}),
    });
  const created = async (path: string, body: unknown) => {
    const r = await admin("POST", path, body);
    assert.equal(r.status, 201, r.text);
  };
  const statusPatched = async (path: string, status: unknown) => {
    const r = await call("admin", "PATCH", `${path}/status`, {
      body: JSON.stringify({ status }),
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(r.status, 200, r.text);
  };
  const slice = (name: string, service: string, ports: { name: string; port: number }[]) => ({
    apiVersion: `${naming.group("discovery")}/v1`,
    kind: "EndpointSlice",
    metadata: { name, labels: { [naming.label("service-name")]: service } },
    addressType: "IPv4",
    endpoints: [{ addresses: [ip], conditions: { ready: true } }],
    ports: ports.map((p) => ({ ...p, protocol: "TCP" })),
  });
  /** The gateway follows EndpointSlices through its watch cache: wait until the proxy reaches the peer. */
  const reached = async (path: string): Promise<Answer> => {
    let last: Answer | undefined;
    await eventually(
      async () => {
        last = await call("admin", "GET", path);
        return last.status === 200;
      },
      20_000,
      `${path} to answer 200 (last: ${last?.status} ${last?.text})`,
    );
    return last as Answer;
  };
  const SERVICES = "/api/v1/namespaces/default/services";

  before(async () => {
    const ca = await createAuthority("proxy-peer-ca");
    const leaf = await issueCertificate(ca, { commonName: ip, usage: "server", altNames: [ip] });
    httpPeer = createHttpServer(peerHandler(false, held));
    httpsPeer = createHttpsServer({ cert: leaf.certPem, key: leaf.keyPem }, peerHandler(true, held));
    httpPort = await listen(httpPeer, ip);
    httpsPort = await listen(httpsPeer, ip);
    // A port nobody listens on: taken, then given back.
    const closed = createHttpServer();
    closedPort = await listen(closed, ip);
    closed.close();
    await once(closed, "close");

    ({ gw, dir, agent, caPem } = await gatewayWithTokens("kubernetes"));
    await created(SERVICES, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      spec: {
        ports: [
          { name: "http", port: 80 },
          { name: "https", port: 443 },
        ],
      },
    });
    await created(
      `/apis/${naming.group("discovery")}/v1/namespaces/default/endpointslices`,
      slice("web-1", "web", [
        { name: "http", port: httpPort },
        { name: "https", port: httpsPort },
      ]),
    );
    await created(SERVICES, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "plain" },
      spec: { ports: [{ port: 8080 }] },
    });
    await created(
      `/apis/${naming.group("discovery")}/v1/namespaces/default/endpointslices`,
      slice("plain-1", "plain", [{ name: "", port: httpPort }]),
    );
    await created(SERVICES, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "empty" },
      spec: { ports: [{ name: "http", port: 80 }] },
    });
    await created(SERVICES, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "refused" },
      spec: { ports: [{ name: "http", port: 80 }] },
    });
    await created(
      `/apis/${naming.group("discovery")}/v1/namespaces/default/endpointslices`,
      slice("refused-1", "refused", [{ name: "http", port: closedPort }]),
    );
    // The proxier may proxy to services in default, and nothing else.
    const rbac = `/apis/${naming.group("rbac.authorization")}/v1/namespaces/default`;
    await created(`${rbac}/roles`, {
      metadata: { name: "service-proxy" },
      rules: [{ apiGroups: [""], resources: ["services/proxy"], verbs: ["get", "create"] }],
    });
    await created(`${rbac}/rolebindings`, {
      metadata: { name: "proxier" },
      roleRef: { apiGroup: naming.group("rbac.authorization"), kind: "Role", name: "service-proxy" },
      subjects: [{ apiGroup: naming.group("rbac.authorization"), kind: "User", name: "proxier" }],
    });
    await reached(`${SERVICES}/web:http/proxy/ready`);
  });
  after(async () => {
    held.release?.();
    await gw?.stop();
    await agent?.close();
    httpPeer?.close();
    httpsPeer?.close();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("reaches a service by name and named port, with the path below proxy/ and the query", async () => {
    const r = await call("admin", "GET", `${SERVICES}/web:http/proxy/hello/there?a=1&b=two%20words&a=3`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.tls, false);
    assert.equal(r.body.method, "GET");
    assert.equal(r.body.url, "/hello/there?a=1&b=two%20words&a=3");
    assert.equal(
      r.body.headers["x-forwarded-uri"],
      "/api/v1/namespaces/default/services/web:http/proxy/hello/there",
    );
    // A trailing slash stays; `..` does not climb above the target's root.
    assert.equal((await call("admin", "GET", `${SERVICES}/web:http/proxy/dir/`)).body.url, "/dir/");
    // Sent as written: URL parsers would resolve the dots before they left.
    const climb = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: "127.0.0.1",
          port: gw.port,
          path: `${SERVICES}/web:http/proxy/a/../%2E%2E/../b`,
          headers: { authorization: "Bearer admin-token-0123456789" },
          ca: caPem,
        },
        (res) => {
          let text = "";
          res.on("data", (c: Buffer) => {
            text += c;
          });
          res.on("end", () => resolve(text));
        },
      );
      req.on("error", reject);
      req.end();
    });
    assert.equal(JSON.parse(climb).url, "/b", climb);
  });

  it("reaches a service as scheme:name:port, the port by number or by name", async () => {
    for (const id of ["https:web:443", "https:web:https"]) {
      const r = await call("admin", "GET", `${SERVICES}/${id}/proxy/secure`);
      assert.equal(r.status, 200, `${id}: ${r.text}`);
      assert.equal(r.body.tls, true, id);
      assert.equal(r.body.url, "/secure");
    }
    const byNumber = await call("admin", "GET", `${SERVICES}/web:80/proxy/n`);
    assert.equal(byNumber.body.tls, false);
    // No port named: the Service's unnamed port.
    assert.equal((await call("admin", "GET", `${SERVICES}/plain/proxy/p`)).body.url, "/p");
    const noSuchPort = await call("admin", "GET", `${SERVICES}/web:81/proxy/`);
    assert.equal(noSuchPort.status, 503);
    assert.equal(noSuchPort.body.message, 'no service port 81 found for service "web"');
    const badScheme = await call("admin", "GET", `${SERVICES}/ftp:web:80/proxy/`);
    assert.equal(badScheme.status, 400);
    assert.equal(badScheme.body.message, 'invalid service request "ftp:web:80"');
  });

  it("forwards every method with its body, and answers as the peer does", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const r = await call("admin", method, `${SERVICES}/web:http/proxy/items?x=1`, {
        body: `payload of ${method}`,
        headers: { "content-type": "text/plain" },
      });
      assert.equal(r.status, 200, `${method}: ${r.text}`);
      assert.equal(r.body.method, method);
      assert.equal(r.body.body, `payload of ${method}`);
      assert.equal(r.body.headers["content-type"], "text/plain");
      assert.equal(r.body.url, "/items?x=1");
    }
    const head = await call("admin", "HEAD", `${SERVICES}/web:http/proxy/items`);
    assert.equal(head.status, 200);
    assert.equal(head.headers["x-peer"], "http");
    assert.equal(head.text, "");
    const options = await call("admin", "OPTIONS", `${SERVICES}/web:http/proxy/items`);
    assert.equal(options.status, 200, options.text);
    assert.equal(options.body.method, "OPTIONS");
  });

  it("leaves the caller's credentials and hop-by-hop headers behind, and the peer's CORS headers", async () => {
    const r = await call("proxier", "GET", `${SERVICES}/web:http/proxy/headers`, {
      headers: { "x-custom": "kept", "x-forwarded-for": "10.9.9.9" },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.headers.authorization, undefined);
    assert.equal(r.body.headers["x-custom"], "kept");
    assert.match(r.body.headers["x-forwarded-for"], /^10\.9\.9\.9, \S+$/);
    assert.equal(r.headers["access-control-allow-origin"], undefined);
    assert.equal(r.headers["x-peer"], "http");
    // An impersonating caller's Impersonate-* headers were the gateway's to act on, not the peer's.
    const as = await call("admin", "GET", `${SERVICES}/web:http/proxy/headers`, {
      headers: { "impersonate-user": "proxier", "impersonate-extra-scope": "x" },
    });
    assert.equal(as.status, 200, as.text);
    assert.equal(as.body.headers["impersonate-user"], undefined);
    assert.equal(as.body.headers["impersonate-extra-scope"], undefined);
    assert.equal(as.body.headers.authorization, undefined);
  });

  it("streams the answer as it comes", async () => {
    const res = await request(`https://127.0.0.1:${gw.port}${SERVICES}/web:http/proxy/stream`, {
      headers: { authorization: "Bearer admin-token-0123456789" },
      dispatcher: agent,
    });
    assert.equal(res.statusCode, 200);
    const reader = res.body[Symbol.asyncIterator]();
    // The first half arrives while the peer still holds the second.
    const first = await reader.next();
    assert.equal(String(first.value), "first\n");
    assert.ok(held.release, "the peer holds the rest");
    held.release?.();
    let rest = "";
    for (let next = await reader.next(); !next.done; next = await reader.next()) rest += String(next.value);
    assert.equal(rest, "second\n");
  });

  it("passes redirects back unfollowed, pointed through the proxy path", async () => {
    const r = await call("admin", "GET", `${SERVICES}/web:http/proxy/redirect`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.location, "/api/v1/namespaces/default/services/web:http/proxy/landing?from=peer");
  });

  it("allows a user with services/proxy and refuses one without it", async () => {
    const path = `${SERVICES}/web:http/proxy/who`;
    const denied = await call("nobody", "GET", path);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.reason, "Forbidden");
    assert.match(denied.body.message, /cannot get resource "services\/proxy"/);
    const deniedPost = await call("nobody", "POST", path, {
      body: "x",
      headers: { "content-type": "text/plain" },
    });
    assert.equal(deniedPost.status, 403);
    assert.match(deniedPost.body.message, /cannot create resource "services\/proxy"/);
    const allowed = await call("proxier", "GET", path);
    assert.equal(allowed.status, 200, allowed.text);
    // The grant is for services only.
    const pods = await call("proxier", "GET", "/api/v1/namespaces/default/pods/any/proxy/");
    assert.equal(pods.status, 403);
    const put = await call("proxier", "PUT", path, { body: "x", headers: { "content-type": "text/plain" } });
    assert.equal(put.status, 403);
  });

  it("answers 503 when no endpoint is ready or the peer refuses the connection", async () => {
    const none = await call("admin", "GET", `${SERVICES}/empty:http/proxy/`);
    assert.equal(none.status, 503);
    assert.equal(none.body.reason, "ServiceUnavailable");
    assert.equal(none.body.message, 'no endpoints available for service "empty"');
    const missing = await call("admin", "GET", `${SERVICES}/absent/proxy/`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'services "absent" not found');
    // The slice appears through the watch cache; until then the answer is the same 503 wording.
    let refused: Answer | undefined;
    await eventually(
      async () => {
        refused = await call("admin", "GET", `${SERVICES}/refused:http/proxy/`);
        return refused.body?.message !== 'no endpoints available for service "refused"';
      },
      20_000,
      "the refused service's slice",
    );
    assert.equal(refused?.status, 503);
    assert.equal(refused?.body.reason, "ServiceUnavailable");
    assert.equal(
      refused?.body.message,
      `error trying to reach service: dial tcp ${ip}:${closedPort}: connect: connection refused`,
    );
  });

  it("reaches a pod at its IP, on the named port or its first container port", async () => {
    const PODS = "/api/v1/namespaces/default/pods";
    const pod = (name: string, port: number) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name },
      spec: { containers: [{ name: "c", image: "peer", ports: [{ containerPort: port }] }] },
    });
    await created(PODS, pod("peer", httpPort));
    await statusPatched(`${PODS}/peer`, { podIP: ip, podIPs: [{ ip }] });
    const r = await call("admin", "GET", `${PODS}/peer/proxy/pod-path?q=1`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.url, "/pod-path?q=1");
    assert.equal(r.body.tls, false);
    const secure = await call("admin", "GET", `${PODS}/https:peer:${httpsPort}/proxy/s`);
    assert.equal(secure.status, 200, secure.text);
    assert.equal(secure.body.tls, true);
    // A bare proxy path is sent to the one with a slash, as upstream does.
    const bare = await call("admin", "GET", `${PODS}/peer/proxy?q=2`);
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.location, `${PODS}/peer/proxy/?q=2`);
    assert.equal((await call("admin", "GET", `${PODS}/peer/proxy/`)).body.url, "/");

    // No IP yet, or one the gateway must not be pointed at: refused before any connection.
    await created(PODS, pod("pending", httpPort));
    const pending = await call("admin", "GET", `${PODS}/pending/proxy/`);
    assert.equal(pending.status, 400);
    assert.equal(pending.body.message, "address not allowed");
    await created(PODS, pod("local", httpPort));
    await statusPatched(`${PODS}/local`, { podIP: "127.0.0.1", podIPs: [{ ip: "127.0.0.1" }] });
    const local = await call("admin", "GET", `${PODS}/local/proxy/`);
    assert.equal(local.status, 400);
    assert.equal(local.body.message, "address not allowed");
    assert.equal((await call("admin", "GET", `${PODS}/nope/proxy/`)).status, 404);
  });

  it("reaches a node's kubelet port at its address, or another port when named", async () => {
    await created("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "peer-node" } });
    const noAddress = await call("admin", "GET", "/api/v1/nodes/peer-node/proxy/");
    assert.equal(noAddress.status, 503);
    assert.equal(noAddress.body.message, "no preferred addresses found; known addresses: []");
    await statusPatched("/api/v1/nodes/peer-node", {
      addresses: [
        { type: "ExternalIP", address: "203.0.113.9" },
        { type: "InternalIP", address: ip },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: httpsPort } },
    });
    const kubelet = await call("admin", "GET", "/api/v1/nodes/peer-node/proxy/metrics?x=y");
    assert.equal(kubelet.status, 200, kubelet.text);
    assert.equal(kubelet.body.tls, true);
    assert.equal(kubelet.body.url, "/metrics?x=y");
    const other = await call("admin", "GET", `/api/v1/nodes/http:peer-node:${httpPort}/proxy/other`);
    assert.equal(other.status, 200, other.text);
    assert.equal(other.body.tls, false);
    assert.equal((await call("admin", "GET", "/api/v1/nodes/peer-node/proxy")).status, 301);
  });

  it("runs admission with a CONNECT of the proxy options", async () => {
    const reviews: { operation: string; kind: { kind: string }; name: string; object: { path?: string } }[] =
      [];
    const ca = await createAuthority("proxy-webhook-ca");
    const leaf = await issueCertificate(ca, {
      commonName: "127.0.0.1",
      usage: "server",
      altNames: ["127.0.0.1"],
    });
    const hook = createHttpsServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const review = JSON.parse(Buffer.concat(chunks).toString());
        reviews.push(review.request);
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            apiVersion: review.apiVersion,
            kind: "AdmissionReview",
            response: {
              uid: review.request.uid,
              allowed: false,
              status: { code: 403, message: "no proxying here" },
            },
          }),
        );
      });
    });
    const hookPort = await listen(hook, "127.0.0.1");
    try {
      await created("/api/v1/namespaces", { metadata: { name: "guarded", labels: { guard: "yes" } } });
      await created(`/apis/${naming.group("admissionregistration")}/v1/validatingwebhookconfigurations`, {
        metadata: { name: "deny-proxy" },
        webhooks: [
          {
            name: "deny-proxy.example.com",
            clientConfig: {
              url: `https://127.0.0.1:${hookPort}/validate`,
              caBundle: Buffer.from(ca.certPem).toString("base64"),
            },
            rules: [
              {
                apiGroups: [""],
                apiVersions: ["v1"],
                operations: ["CONNECT"],
                resources: ["services/proxy"],
              },
            ],
            namespaceSelector: { matchLabels: { guard: "yes" } },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      });
      let denied: Answer | undefined;
      await eventually(
        async () => {
          denied = await call("admin", "GET", "/api/v1/namespaces/guarded/services/web:http/proxy/some/path");
          return denied.status === 403;
        },
        20_000,
        "the webhook to refuse",
      );
      assert.equal(
        denied?.body.message,
        'admission webhook "deny-proxy.example.com" denied the request: no proxying here',
      );
      const review = reviews.at(-1);
      assert.equal(review?.operation, "CONNECT");
      assert.equal(review?.kind.kind, "ServiceProxyOptions");
      assert.equal(review?.name, "web:http");
      assert.equal(review?.object.path, "/some/path");
      // Namespaces the webhook does not select still proxy.
      assert.equal((await call("admin", "GET", `${SERVICES}/web:http/proxy/open`)).status, 200);
    } finally {
      await admin(
        "DELETE",
        `/apis/${naming.group("admissionregistration")}/v1/validatingwebhookconfigurations/deny-proxy`,
      );
      hook.close();
    }
  });

  it("does not serve the root /proxy/ paths removed in 1.10", async () => {
    const r = await call("admin", "GET", "/api/v1/proxy/namespaces/default/services/web:http/hello");
    assert.equal(r.status, 404);
  });

  const kubectlBin = kubectlVersions().at(-1);
  it("works through kubectl proxy", { skip: kubectlBin ? false : "no kubectl" }, async () => {
    const port = await freePort();
    const child: ChildProcess = spawn(
      kubectlBin as string,
      [`--kubeconfig=${gw.kubeconfig}`, "proxy", `--port=${port}`, "--address=127.0.0.1"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      let r: { statusCode: number; text: string } | undefined;
      await eventually(
        async () => {
          try {
            const res = await request(`http://127.0.0.1:${port}${SERVICES}/web:http/proxy/hello?via=kubectl`);
            r = { statusCode: res.statusCode, text: await res.body.text() };
            return true;
          } catch {
            return false;
          }
        },
        20_000,
        "kubectl proxy to listen",
      );
      assert.equal(r?.statusCode, 200, r?.text);
      const seen = JSON.parse(r?.text ?? "{}") as Seen;
      assert.equal(seen.url, "/hello?via=kubectl");
      assert.equal(seen.headers.authorization, undefined);
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    }
  });
});

describe("the proxy verb with the default naming preset", {
  skip: skipReason(IP !== undefined, NO_ADDRESS),
}, () => {
  const naming = namingPreset("cluster");
  let gw: GatewayProcess;
  let dir: string;
  let agent: Agent;
  let peer: Server;
  const call = caller(
    () => gw.port,
    () => agent,
  );
  before(async () => {
    peer = createHttpServer(peerHandler(false, {}));
    const port = await listen(peer, IP as string);
    ({ gw, dir, agent } = await gatewayWithTokens("cluster"));
    const post = async (path: string, body: unknown) => {
      const r = await call("admin", "POST", path, {
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
      assert.equal(r.status, 201, r.text);
    };
    await post("/api/v1/namespaces/default/services", {
      metadata: { name: "web" },
      spec: { ports: [{ name: "http", port: 80 }] },
    });
    await post(`/apis/${naming.group("discovery")}/v1/namespaces/default/endpointslices`, {
      metadata: { name: "web-1", labels: { [naming.label("service-name")]: "web" } },
      addressType: "IPv4",
      endpoints: [{ addresses: [IP], conditions: { ready: true } }],
      ports: [{ name: "http", port }],
    });
  });
  after(async () => {
    await gw?.stop();
    await agent?.close();
    peer?.close();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("reaches a service through its EndpointSlice", async () => {
    let r: Answer | undefined;
    await eventually(
      async () => {
        r = await call("admin", "GET", "/api/v1/namespaces/default/services/web:http/proxy/x?y=1");
        return r.status === 200;
      },
      20_000,
      "the service proxy to answer",
    );
    assert.equal(r?.body.url, "/x?y=1");
  });
});
