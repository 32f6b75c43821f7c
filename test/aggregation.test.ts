// Aggregation with a real extension API server: a second gateway, serving a group that exists only
// there (from a CRD created on it), authenticating the first gateway by its front-proxy client
// certificate and asking it back for authorization (SubjectAccessReview webhook). The first gateway
// routes that group/version there through an APIService whose Service points at the second's port.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpsServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { load } from "js-yaml";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import { ApiClient } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { apiService, localService, startExtensionGateway } from "./support/extension-servers.ts";
import {
  type GatewayProcess,
  kubectlRun,
  kubectlVersions,
  NO_KUBECTL,
  startGateway,
} from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const GROUP = "ext.example.com";
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const ALICE = "alice-token-0123456789";
const RBAC = "rbac.authorization.k8s.io";

let dir: string;
let main: GatewayProcess;
let ext: GatewayProcess;
let admin: ApiClient;
let extAdmin: ApiClient;
let anonymous: ApiClient;
let hang: Server;
let echo: Server;
let auditPath: string;

const alice = (method: string, path: string, options: Parameters<ApiClient["call"]>[2] = {}) =>
  anonymous.call(method, path, {
    ...options,
    headers: { authorization: `Bearer ${ALICE}`, ...options.headers },
  });

/** A Service in ext-system for a server on this machine, or with no `port`, one with no endpoints. */
async function service(name: string, port: number | undefined): Promise<void> {
  if (port !== undefined) return localService(admin, "ext-system", name);
  const made = await admin.call("POST", "/api/v1/namespaces/ext-system/services", {
    body: { metadata: { name }, spec: { ports: [{ name: "https", port: 443, targetPort: 443 }] } },
  });
  assert.equal(made.status, 201, made.text);
}

/** An APIService for `group`/v1 served by `serviceName` at `port` (the server's own, for an ExternalName). */
function apiServiceFor(group: string, serviceName: string, caPem: string, port = 443): Promise<void> {
  return apiService(admin, {
    apiregistration: "apiregistration.k8s.io",
    group,
    namespace: "ext-system",
    service: serviceName,
    port,
    caPem,
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "cg-aggregation-"));
  const tokens = join(dir, "tokens.csv");
  await writeFile(tokens, `${ALICE},alice,alice-uid,"devs"\n`);
  main = await startGateway(["--api-naming=kubernetes", `--token-auth-file=${tokens}`]);
  admin = new ApiClient(main.kubeconfig);
  anonymous = new ApiClient(main.kubeconfig, { anonymous: true });

  auditPath = join(dir, "ext-audit.log");
  ext = await startExtensionGateway(main, {
    preset: "kubernetes",
    authorizationGroup: "authorization.k8s.io",
    dir,
    args: [`--audit-log-path=${auditPath}`, "--audit-policy-file=config/audit-policy.kubernetes.yaml"],
  });
  extAdmin = new ApiClient(ext.kubeconfig);
  await createServedCrd(extAdmin, {
    apiextensions: "apiextensions.k8s.io",
    group: GROUP,
    kind: "Widget",
    schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
  });

  const ns = await admin.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "ext-system" } } });
  assert.equal(ns.status, 201, ns.text);
  await service("ext", ext.port);
  await apiServiceFor(GROUP, "ext", await readFile(join(ext.dataDir, "pki", "ca.crt"), "utf8"), ext.port);

  // alice may read and create widgets in default, nothing else.
  for (const [path, body] of [
    [
      `/apis/${RBAC}/v1/namespaces/default/roles`,
      {
        metadata: { name: "widgets" },
        rules: [{ apiGroups: [GROUP], resources: ["widgets"], verbs: ["get", "list", "watch", "create"] }],
      },
    ],
    [
      `/apis/${RBAC}/v1/namespaces/default/rolebindings`,
      {
        metadata: { name: "alice-widgets" },
        roleRef: { apiGroup: RBAC, kind: "Role", name: "widgets" },
        subjects: [{ apiGroup: RBAC, kind: "User", name: "alice" }],
      },
    ],
  ] as const) {
    const made = await admin.call("POST", path, { body });
    assert.equal(made.status, 201, made.text);
  }
  await eventually(
    async () => (await admin.call("GET", WIDGETS)).status === 200,
    30_000,
    "the group proxied",
  );
});

after(async () => {
  await admin?.close();
  await anonymous?.close();
  await extAdmin?.close();
  hang?.close();
  echo?.closeAllConnections?.();
  echo?.close();
  for (const gw of [main, ext]) {
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("an extension API server behind an APIService", () => {
  it("serves its group through the gateway: writes land in the extension, reads and errors come back", async () => {
    const made = await admin.call("POST", WIDGETS, {
      body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w1" }, spec: { size: 3 } },
    });
    assert.equal(made.status, 201, made.text);
    // The object is the extension's: its own store has it.
    const there = await extAdmin.call("GET", `${WIDGETS}/w1`);
    assert.equal(there.status, 200, there.text);
    assert.equal(there.body.spec.size, 3);
    const listed = await admin.call("GET", WIDGETS);
    assert.deepEqual(
      listed.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["w1"],
    );
    // The extension's own Status answers pass through unchanged.
    const missing = await admin.call("GET", `${WIDGETS}/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, `widgets.${GROUP} "nope" not found`);
    // The group version's discovery document is the extension's.
    const discovery = await admin.call("GET", `/apis/${GROUP}/v1`);
    assert.equal(discovery.status, 200, discovery.text);
    assert.equal(discovery.body.kind, "APIResourceList");
    assert.ok(discovery.body.resources.some((r: { name: string }) => r.name === "widgets"));
  });

  it("carries the effective user in front-proxy headers, never one a client sends", async () => {
    type AuditEvent = {
      verb: string;
      requestURI: string;
      user: { username: string; groups?: string[]; extra?: Record<string, string[]> };
    };
    const creates = async () =>
      (await readFile(auditPath, "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as AuditEvent)
        .filter((e) => e.verb === "create" && e.requestURI.startsWith(WIDGETS));
    const before = (await creates()).length;
    const made = await alice("POST", WIDGETS, {
      body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "from-alice" } },
      headers: {
        "x-remote-user": "mallory",
        "x-remote-group": "system:masters",
        "x-remote-extra-scopes": "all",
      },
    });
    assert.equal(made.status, 201, made.text);
    await eventually(async () => (await creates()).length > before, 10_000, "the extension's audit event");
    const [event] = (await creates()).slice(before);
    assert.equal(event?.user.username, "alice");
    assert.deepEqual(event?.user.groups, ["devs", "system:authenticated"]);
    assert.equal(event?.user.extra?.scopes, undefined, "a client's X-Remote-Extra-* never passes");
  });

  it("authorizes in the gateway before proxying: a verb the user may not use never reaches the extension", async () => {
    const denied = await alice("DELETE", `${WIDGETS}/w1`);
    assert.equal(denied.status, 403, denied.text);
    assert.equal((await extAdmin.call("GET", `${WIDGETS}/w1`)).status, 200);
  });

  it("streams a watch through, event by event", async () => {
    const watch = await admin.watch(`${WIDGETS}?watch=1&resourceVersion=0`);
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of watch.events) {
        seen.push(`${event.type} ${(event.object.metadata as { name: string }).name}`);
        if (seen.includes("ADDED late")) break;
      }
    })();
    await eventually(() => seen.includes("ADDED w1"), 10_000, "the initial events");
    const made = await extAdmin.call("POST", WIDGETS, {
      body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "late" } },
    });
    assert.equal(made.status, 201, made.text);
    await reading;
    watch.close();
    assert.ok(seen.includes("ADDED late"));
  });

  it("answers 503 naming the APIService when the extension cannot be reached", async () => {
    await service("gone", undefined);
    await apiServiceFor(
      "gone.example.com",
      "gone",
      await readFile(join(ext.dataDir, "pki", "ca.crt"), "utf8"),
    );
    const path = "/apis/gone.example.com/v1/namespaces/default/things";
    await eventually(async () => (await admin.call("GET", path)).status === 503, 10_000, "the route");
    const res = await admin.call("GET", path);
    assert.equal(res.body.kind, "Status");
    assert.equal(res.body.reason, "ServiceUnavailable");
    assert.match(
      res.body.message,
      /APIService "v1\.gone\.example\.com" is unavailable: cannot find endpoints for service\/gone/,
    );
  });

  it("refuses an extension whose serving certificate the caBundle does not vouch for", async () => {
    // The extension's certificate is signed by its own CA; this APIService trusts another one.
    const other = await createAuthority("other-ca");
    await service("untrusted", ext.port);
    await apiServiceFor("untrusted.example.com", "untrusted", other.certPem, ext.port);
    const path = "/apis/untrusted.example.com/v1/namespaces/default/widgets";
    await eventually(async () => (await admin.call("GET", path)).status === 503, 10_000, "the route");
  });

  it("answers 504 when the extension does not answer within the request's timeout", async () => {
    const ca = await createAuthority("hang-ca");
    const leaf = await issueCertificate(ca, {
      commonName: "hang",
      usage: "server",
      altNames: ["hang.ext-system.svc"],
    });
    const received: string[] = [];
    hang = createHttpsServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
      // Answers the availability probe (so the APIService stays available), never a resource request.
      if (req.url === "/apis/hang.example.com/v1") {
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            kind: "APIResourceList",
            apiVersion: "v1",
            groupVersion: "hang.example.com/v1",
            resources: [],
          }),
        );
        return;
      }
      received.push(req.url ?? "");
    });
    hang.listen(0, "127.0.0.1");
    await once(hang, "listening");
    const hangPort = (hang.address() as { port: number }).port;
    await service("hang", hangPort);
    await apiServiceFor("hang.example.com", "hang", ca.certPem, hangPort);
    const path = "/apis/hang.example.com/v1/namespaces/default/things?timeout=1s";
    await eventually(async () => (await admin.call("GET", path)).status === 504, 30_000, "a 504");
    const res = await admin.call("GET", path);
    assert.equal(res.body.reason, "Timeout");
    assert.match(res.body.message, /^Timeout: request did not complete within requested timeout/);
    assert.ok(received.length > 0, "the request reached the extension");
  });

  it("keeps each APIService's Available condition, with upstream's reasons, and counts the unavailable", async () => {
    const condition = async (name: string) => {
      const got = await admin.call("GET", `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
      return (got.body.status?.conditions ?? []).find((c: { type: string }) => c.type === "Available") as
        | { status: string; reason: string; message: string }
        | undefined;
    };
    await eventually(
      async () => (await condition(`v1.${GROUP}`))?.status === "True",
      30_000,
      "ext available",
    );
    assert.equal((await condition(`v1.${GROUP}`))?.reason, "Passed");
    await eventually(
      async () => (await condition("v1.gone.example.com"))?.status === "False",
      30_000,
      "gone",
    );
    const gone = await condition("v1.gone.example.com");
    assert.equal(gone?.reason, "EndpointsNotFound");
    assert.equal(gone?.message, 'cannot find endpoints for service/gone in "ext-system"');
    await eventually(
      async () => (await condition("v1.untrusted.example.com"))?.reason === "FailedDiscoveryCheck",
      30_000,
      "untrusted",
    );
    assert.match(
      (await condition("v1.untrusted.example.com"))?.message ?? "",
      /^failing or missing response from https:\/\/localhost:\d+\/apis\/untrusted\.example\.com\/v1: /,
    );
    const metrics = (await admin.call("GET", "/metrics")).text;
    assert.match(metrics, /aggregator_unavailable_apiservice\{name="v1\.gone\.example\.com"\} 1/);
    assert.match(metrics, /aggregator_unavailable_apiservice\{name="v1\.ext\.example\.com"\} 0/);
    assert.match(
      metrics,
      /aggregator_unavailable_apiservice_total\{name="v1\.gone\.example\.com",reason="EndpointsNotFound"\} 1/,
    );
    // Once known unavailable, its requests fail at once with that reason's message.
    const res = await admin.call("GET", "/apis/gone.example.com/v1/namespaces/default/things");
    assert.equal(res.status, 503);
    assert.equal(
      res.body.message,
      'APIService "v1.gone.example.com" is unavailable: cannot find endpoints for service/gone in "ext-system"',
    );
  });

  it("lists the extension's group in discovery, legacy and aggregated, so kubectl finds its resources", async () => {
    const groups = await admin.call("GET", "/apis");
    const entry = groups.body.groups.find((g: { name: string }) => g.name === GROUP);
    assert.deepEqual(entry, {
      name: GROUP,
      versions: [{ groupVersion: `${GROUP}/v1`, version: "v1" }],
      preferredVersion: { groupVersion: `${GROUP}/v1`, version: "v1" },
    });
    const group = await admin.call("GET", `/apis/${GROUP}`);
    assert.equal(group.body.kind, "APIGroup");
    const aggregated = await admin.call("GET", "/apis", {
      accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    });
    const item = aggregated.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === GROUP);
    assert.equal(item?.versions[0]?.freshness, "Current");
    assert.equal(item?.versions[0]?.resources?.[0]?.resource, "widgets");
    const kubectl = kubectlVersions().at(-1);
    assert.ok(kubectl, NO_KUBECTL);
    const got = await kubectlRun(kubectl, main.kubeconfig, ["get", "widgets", "-n", "default", "-o", "name"]);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, new RegExp(`widget\\.${GROUP.replaceAll(".", "\\.")}/w1`));
  });

  it("passes connection upgrades through both ways, and an extension's refusal back as it is", async () => {
    const ca = await createAuthority("echo-ca");
    const leaf = await issueCertificate(ca, {
      commonName: "echo",
      usage: "server",
      altNames: ["echo.ext-system.svc"],
    });
    const users: string[] = [];
    echo = createHttpsServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          kind: "APIResourceList",
          apiVersion: "v1",
          groupVersion: "echo.example.com/v1",
          resources: [],
        }),
      );
      void req;
    });
    // Upgrades: 101 and an upper-casing echo, or a refusal with a body for paths ending in /deny.
    echo.on("upgrade", (req, socket: import("node:net").Socket) => {
      users.push(String(req.headers["x-remote-user"]));
      if (req.url?.endsWith("/deny")) {
        socket.end("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nnot so");
        return;
      }
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${req.headers.upgrade}\r\n\r\n`,
      );
      socket.on("data", (d: Buffer) => socket.write(d.toString().toUpperCase()));
    });
    echo.listen(0, "127.0.0.1");
    await once(echo, "listening");
    const port = (echo.address() as { port: number }).port;
    await service("echo", port);
    await apiServiceFor("echo.example.com", "echo", ca.certPem, port);
    const config = load(await readFile(main.kubeconfig, "utf8")) as {
      clusters: { cluster: Record<string, string> }[];
      users: { user: Record<string, string> }[];
    };
    const pem = (k: string, from: Record<string, string> | undefined) =>
      Buffer.from(from?.[k] ?? "", "base64");
    const open = async (path: string) => {
      const socket = tlsConnect({
        host: "127.0.0.1",
        port: main.port,
        ca: pem("certificate-authority-data", config.clusters[0]?.cluster),
        cert: pem("client-certificate-data", config.users[0]?.user),
        key: pem("client-key-data", config.users[0]?.user),
        servername: "localhost",
      });
      await once(socket, "secureConnect");
      let text = "";
      socket.on("data", (d: Buffer) => {
        text += d.toString();
      });
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Remote-User: mallory\r\n\r\n`,
      );
      return { socket, text: () => text };
    };
    const base = "/apis/echo.example.com/v1/namespaces/default/things/x";
    // The route is in place once the group version's discovery document comes from the echo peer.
    await eventually(
      async () =>
        (await admin.call("GET", "/apis/echo.example.com/v1")).body?.groupVersion === "echo.example.com/v1",
      30_000,
      "the route",
    );
    const client = await open(`${base}/exec`);
    await eventually(() => client.text().includes("\r\n\r\n"), 10_000, "an answer to the upgrade");
    assert.match(client.text(), /^HTTP\/1\.1 101 Switching Protocols\r\n/);
    client.socket.write("hello through");
    await eventually(() => client.text().endsWith("HELLO THROUGH"), 10_000, "the echo");
    client.socket.destroy();
    assert.ok(users.length > 0 && users.every((u) => u !== "mallory"), JSON.stringify(users));

    const refused = await open(`${base}/deny`);
    await eventually(() => refused.text().endsWith("not so"), 10_000, "the refusal");
    assert.match(refused.text(), /^HTTP\/1\.1 403 Forbidden\r\n/);
    refused.socket.destroy();

    // An upgrade the gateway itself has no route for gets an ordinary Status.
    const local = await open("/api/v1/namespaces/default/pods/nope/exec");
    await eventually(() => local.text().includes('"kind":"Status"'), 10_000, "a Status");
    assert.match(local.text(), /^HTTP\/1\.1 404 /);
    local.socket.destroy();
  });
});
