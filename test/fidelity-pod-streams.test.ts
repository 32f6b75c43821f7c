// Pod logs, exec, attach and port-forward (issue 25, item 12) end to end: the server started as
// README says, a test-started HTTPS "kubelet" on a non-loopback address of this machine (Nodes may
// not name loopback addresses, and upstream's kubelet client is refused anything but global
// unicast here too), driven by kubectl 1.27 and 1.33, python3-kubernetes, @kubernetes/client-node
// and a raw TLS client. The kubelet peer speaks no SPDY: the gateway only joins connections, so
// the peer answers the upgrade with 101 and then echoes bytes.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { after, before, describe, it } from "node:test";
import { connect, type TLSSocket } from "node:tls";
import { promisify } from "node:util";
import { Agent, request } from "undici";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import {
  type GatewayProcess,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { outsideAddress } from "./support/outside-address.ts";
import { PYTHON, pythonSkip } from "./support/python.ts";
import { skipReason } from "./support/service-process.ts";
import { eventually } from "./support/watch.ts";

const IP = outsideAddress();
const NO_ADDRESS = "this machine has no non-loopback IPv4 address to serve the kubelet peer on";
const KUBECTLS = oldestAndNewestKubectl();
const PODS = "/api/v1/namespaces/default/pods";

interface SeenUpgrade {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The kubelet: containerLogs answers with what it was asked (a `follow` holds its second line
 * until released; container `waiting` is the kubelet's 400); an upgrade to /exec, /attach or
 * /portForward is answered 101, greeted, and echoed back prefixed (a WebSocket one in one frame,
 * as the kubelet's channel protocol would carry stdout); exec or attach without a stream is the
 * kubelet's 400.
 */
function kubelet(state: { release?: () => void; upgrades: SeenUpgrade[] }) {
  const server = (tls: { cert: string; key: string }): Server => {
    const s = createHttpsServer(tls, (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? "/", "https://kubelet");
      const [, kind, , pod, container] = url.pathname.split("/");
      if (kind !== "containerLogs") {
        res.writeHead(404).end("not found");
        return;
      }
      if (container === "waiting") {
        res.writeHead(400, { "content-type": "text/plain" });
        res.end(`container "waiting" in pod "${pod}" is waiting to start: ContainerCreating`);
        return;
      }
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      if (url.searchParams.get("follow") === "true") {
        res.write("line 1\n");
        state.release = () => res.end("line 2\n");
        return;
      }
      res.end(`log of ${url.pathname} ${url.search}\n`);
    });
    s.on("upgrade", (req: IncomingMessage, socket: Socket) => {
      state.upgrades.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
      const asked = new URL(req.url ?? "/", "https://kubelet").searchParams;
      if (!req.url?.startsWith("/portForward/") && !["input", "output", "error"].some((p) => asked.has(p))) {
        const body = "you must specify at least 1 of stdin, stdout, stderr";
        socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        return;
      }
      if (String(req.headers.upgrade).toLowerCase() === "websocket") {
        const accept = createHash("sha1")
          .update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
          .digest("base64");
        const protocol = String(req.headers["sec-websocket-protocol"]).split(",")[0]?.trim();
        socket.write(
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            `Sec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
        );
        // Channel 1 (stdout) carries the greeting; then a normal close.
        const payload = Buffer.concat([Buffer.from([1]), Buffer.from("hello from kubelet\n")]);
        socket.write(Buffer.concat([Buffer.from([0x82, payload.length]), payload]));
        socket.end(Buffer.from([0x88, 2, 0x03, 0xe8]));
        return;
      }
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${req.headers.upgrade}\r\n\r\n`,
      );
      socket.write("hello from kubelet");
      socket.on("data", (chunk: Buffer) => socket.write(`peer:${chunk}`));
    });
    return s;
  };
  return server;
}

async function listen(server: Server | ReturnType<typeof createNetServer>, host: string): Promise<number> {
  server.listen(0, host);
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** A raw upgrade through the gateway: its answer head, then whatever follows. */
async function rawUpgrade(
  port: number,
  caPem: string,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{
  status: number;
  head: string;
  socket: TLSSocket;
  received: () => string;
  ended: Promise<void>;
}> {
  const socket = connect({ host: "127.0.0.1", port, ca: caPem, servername: "localhost" });
  await once(socket, "secureConnect");
  const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  let data = Buffer.alloc(0);
  socket.on("data", (c: Buffer) => {
    data = Buffer.concat([data, c]);
  });
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await eventually(() => data.includes("\r\n\r\n"), 20_000, `an answer to ${path}`);
  const end = data.indexOf("\r\n\r\n");
  const head = data.subarray(0, end).toString("latin1");
  return {
    status: Number(head.split(" ")[1]),
    head,
    socket,
    received: () => data.subarray(end + 4).toString(),
    ended,
  };
}

for (const preset of ["cluster", "kubernetes"] as const) {
  describe(`pod streams through the kubelet (${preset} naming)`, {
    skip: skipReason(IP !== undefined, NO_ADDRESS),
  }, () => {
    const ip = IP as string;
    const state: { release?: () => void; upgrades: SeenUpgrade[] } = { upgrades: [] };
    let gw: GatewayProcess;
    let dir: string;
    let agent: Agent;
    let caPem: string;
    let peer: Server;
    let peerPort: number;
    let closedPort: number;

    const call = async (method: string, path: string, body?: unknown) => {
      const res = await request(`https://127.0.0.1:${gw.port}${path}`, {
        method: method as "GET",
        headers: {
          authorization: "Bearer admin-token-0123456789",
          ...(body !== undefined
            ? { "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json" }
            : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        dispatcher: agent,
      });
      const text = await res.body.text();
      let json: { message?: string; reason?: string; code?: number } = {};
      try {
        json = JSON.parse(text);
      } catch {}
      return { status: res.statusCode, text, json, headers: res.headers };
    };
    const kubectl = (bin: string, args: string[]) => kubectlRun(bin, gw.kubeconfig, args);

    before(async () => {
      const ca = await createAuthority("kubelet-peer-ca");
      const leaf = await issueCertificate(ca, { commonName: ip, usage: "server", altNames: [ip] });
      peer = kubelet(state)({ cert: leaf.certPem, key: leaf.keyPem });
      peerPort = await listen(peer, ip);
      const closed = createNetServer();
      closedPort = await listen(closed, ip);
      closed.close();
      await once(closed, "close");

      dir = await mkdtemp(join(tmpdir(), "cg-pod-streams-"));
      const tokens = join(dir, "tokens.csv");
      await writeFile(tokens, 'admin-token-0123456789,admin,admin-uid,"system:masters"\n');
      gw = await startGateway([`--api-naming=${preset}`, `--token-auth-file=${tokens}`]);
      caPem = await readFile(join(gw.dataDir, "pki", "ca.crt"), "utf8");
      agent = new Agent({ connect: { ca: caPem } });

      for (const [node, port] of [
        ["kubelet-node", peerPort],
        ["dead-node", closedPort],
      ] as const) {
        const created = await call("POST", "/api/v1/nodes", { metadata: { name: node } });
        assert.equal(created.status, 201, created.text);
        const status = await call("PATCH", `/api/v1/nodes/${node}/status`, {
          status: {
            addresses: [{ type: "InternalIP", address: ip }],
            daemonEndpoints: { kubeletEndpoint: { Port: port } },
          },
        });
        assert.equal(status.status, 200, status.text);
      }
      // Pods wait for the namespace's default service account (admission asks for it).
      await eventually(
        async () => (await call("GET", "/api/v1/namespaces/default/serviceaccounts/default")).status === 200,
        20_000,
        "the default service account",
      );
      const pod = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec });
      const one = (name: string) => [{ name, image: "busybox" }];
      for (const body of [
        pod("web", { nodeName: "kubelet-node", containers: one("app") }),
        pod("pending", { containers: one("app") }),
        pod("stuck", { nodeName: "dead-node", containers: one("app") }),
        pod("slow", { nodeName: "kubelet-node", containers: one("waiting") }),
        pod("two", {
          nodeName: "kubelet-node",
          initContainers: one("setup"),
          containers: [...one("a"), ...one("b")],
        }),
      ]) {
        const r = await request(`https://127.0.0.1:${gw.port}${PODS}`, {
          method: "POST",
          headers: { authorization: "Bearer admin-token-0123456789", "content-type": "application/json" },
          body: JSON.stringify(body),
          dispatcher: agent,
        });
        assert.equal(r.statusCode, 201, await r.body.text());
        await r.body.dump();
      }
    });
    after(async () => {
      state.release?.();
      await gw?.stop();
      await agent?.close();
      peer?.close();
      peer?.closeAllConnections();
      if (gw) await rm(gw.dataDir, { recursive: true, force: true });
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    for (const bin of KUBECTLS) {
      const v = bin.split(".").slice(-2).join(".");
      it(`kubectl ${v} logs: the kubelet's containerLogs, an unscheduled pod, the kubelet's and the server's errors`, {
        skip: bin ? false : NO_KUBECTL,
      }, async () => {
        const logs = await kubectl(bin, ["logs", "web", "--tail=2", "--timestamps"]);
        assert.equal(logs.code, 0, logs.stderr);
        assert.equal(logs.stdout, "log of /containerLogs/default/web/app ?tailLines=2&timestamps=true\n");
        // A pod on no node has no log yet: upstream answers 204, and kubectl prints nothing.
        const pending = await kubectl(bin, ["logs", "pending"]);
        assert.equal(pending.code, 0, pending.stderr);
        assert.equal(pending.stdout, "");
        // The kubelet's refusal comes back as a BadRequest Status with its text.
        const slow = await kubectl(bin, ["logs", "slow"]);
        assert.notEqual(slow.code, 0);
        assert.match(
          slow.stderr,
          /Error from server \(BadRequest\): container "waiting" in pod "slow" is waiting to start: ContainerCreating/,
        );
        // A kubelet nobody answers for: upstream's 500 naming the call.
        const stuck = await kubectl(bin, ["logs", "stuck"]);
        assert.notEqual(stuck.code, 0);
        assert.match(
          stuck.stderr,
          new RegExp(
            `Error from server: Get "https://${ip}:${closedPort}/containerLogs/default/stuck/app": dial tcp ${ip}:${closedPort}: connect: connection refused`,
          ),
        );
      });

      it(`kubectl ${v} logs -f follows the kubelet's stream`, {
        skip: bin ? false : NO_KUBECTL,
      }, async () => {
        state.release = undefined;
        const child = spawn(bin, [`--kubeconfig=${gw.kubeconfig}`, "logs", "-f", "web"]);
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c;
        });
        const exited = once(child, "exit");
        try {
          await eventually(() => out === "line 1\n" && state.release !== undefined, 20_000, "the first line");
          // The kubelet's handler set it meanwhile (the compiler only saw it cleared above).
          (state.release as (() => void) | undefined)?.();
          const [code] = await exited;
          assert.equal(code, 0);
          assert.equal(out, "line 1\nline 2\n");
        } finally {
          if (child.exitCode === null) child.kill();
        }
      });

      it(`kubectl ${v} exec: upstream's errors for an unscheduled pod, a missing container, a dead kubelet`, {
        skip: bin ? false : NO_KUBECTL,
      }, async () => {
        const pending = await kubectl(bin, ["exec", "pending", "--", "true"]);
        assert.notEqual(pending.code, 0);
        assert.match(
          pending.stderr,
          /Error from server \(BadRequest\): pod pending does not have a host assigned/,
        );
        const missing = await kubectl(bin, ["exec", "web", "-c", "nope", "--", "true"]);
        assert.notEqual(missing.code, 0);
        assert.match(
          missing.stderr,
          /Error from server \(BadRequest\): container nope is not valid for pod web/,
        );
        const stuck = await kubectl(bin, ["exec", "stuck", "--", "true"]);
        assert.notEqual(stuck.code, 0);
        assert.match(
          stuck.stderr,
          new RegExp(`error dialing backend: dial tcp ${ip}:${closedPort}: connect: connection refused`),
        );
      });
    }

    it("validates PodLogOptions and the container as upstream does", async () => {
      const invalid = await call("GET", `${PODS}/web/log?tailLines=-1&limitBytes=0`);
      assert.equal(invalid.status, 422);
      assert.equal(
        invalid.json.message,
        'PodLogOptions "web" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]',
      );
      const both = await call("GET", `${PODS}/web/log?sinceSeconds=5&sinceTime=2024-01-02T03:04:05Z`);
      assert.equal(both.status, 422);
      assert.equal(
        both.json.message,
        'PodLogOptions "web" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
      );
      const notANumber = await call("GET", `${PODS}/web/log?tailLines=ten`);
      assert.equal(notANumber.status, 400);
      assert.equal(notANumber.json.message, 'strconv.ParseInt: parsing "ten": invalid syntax');
      const badTime = await call("GET", `${PODS}/web/log?sinceTime=yesterday`);
      assert.equal(badTime.status, 400);
      assert.equal(
        badTime.json.message,
        'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
      );
      const ambiguous = await call("GET", `${PODS}/two/log`);
      assert.equal(ambiguous.status, 400);
      assert.equal(
        ambiguous.json.message,
        "a container name must be specified for pod two, choose one of: [setup a b]",
      );
      const missing = await call("GET", `${PODS}/web/log?container=nope`);
      assert.equal(missing.json.message, "container nope is not valid for pod web");
      // An init container is a container too; the kubelet is sent upstream's query.
      const init = await call(
        "GET",
        `${PODS}/two/log?container=setup&sinceTime=2024-01-02T05:04:05%2B02:00&follow=0`,
      );
      assert.equal(init.status, 200, init.text);
      assert.equal(init.headers["content-type"], "text/plain");
      assert.equal(
        init.text,
        "log of /containerLogs/default/two/setup ?sinceTime=2024-01-02T03%3A04%3A05Z\n",
      );
      assert.equal((await call("GET", `${PODS}/ghost/log`)).status, 404);
      assert.equal((await call("POST", `${PODS}/web/log`, {})).status, 405);
    });

    it("passes exec and port-forward upgrades through to the kubelet, bytes both ways", async () => {
      state.upgrades.length = 0;
      const exec = await rawUpgrade(
        gw.port,
        caPem,
        "POST",
        `${PODS}/web/exec?command=echo&command=a%20b&stdin=true&stdout=1&stderr=false&tty=true`,
        {
          Authorization: "Bearer admin-token-0123456789",
          Connection: "Upgrade",
          Upgrade: "SPDY/3.1",
          "X-Stream-Protocol-Version": "v4.channel.example",
        },
      );
      assert.equal(exec.status, 101, exec.head);
      await eventually(() => exec.received() === "hello from kubelet", 20_000, "the kubelet's greeting");
      exec.socket.write("from the client");
      await eventually(
        () => exec.received() === "hello from kubeletpeer:from the client",
        20_000,
        "the kubelet's echo",
      );
      exec.socket.end();
      const seen = state.upgrades[0];
      assert.ok(seen);
      assert.equal(seen.method, "POST");
      assert.equal(seen.url, "/exec/default/web/app?command=echo&command=a+b&input=1&output=1&tty=1");
      assert.equal(seen.headers.upgrade, "SPDY/3.1");
      assert.equal(seen.headers["x-stream-protocol-version"], "v4.channel.example");
      // The caller's credential stays with the gateway.
      assert.equal(seen.headers.authorization, undefined);
      assert.equal(seen.headers.host, `${ip}:${peerPort}`);

      const forward = await rawUpgrade(gw.port, caPem, "GET", `${PODS}/web/portforward?ports=8080,9090`, {
        Authorization: "Bearer admin-token-0123456789",
        Connection: "Upgrade",
        Upgrade: "SPDY/3.1",
      });
      assert.equal(forward.status, 101, forward.head);
      forward.socket.write("x");
      await eventually(() => forward.received() === "hello from kubeletpeer:x", 20_000, "port-forward bytes");
      forward.socket.end();
      assert.equal(state.upgrades[1]?.url, "/portForward/default/web?port=8080%2C9090");

      // A kubelet that declines: its answer comes back as it sent it.
      const refused = await rawUpgrade(gw.port, caPem, "POST", `${PODS}/web/attach`, {
        Authorization: "Bearer admin-token-0123456789",
        Connection: "Upgrade",
        Upgrade: "SPDY/3.1",
      });
      assert.equal(refused.status, 400);
      await refused.ended;
      assert.equal(refused.received(), "you must specify at least 1 of stdin, stdout, stderr");

      // Not an upgrade at all: upstream's 400.
      const plain = await call("POST", `${PODS}/web/exec?command=true&stdout=1`);
      assert.equal(plain.status, 400);
      assert.equal(plain.json.message, "Upgrade request required");
      const dry = await call("POST", `${PODS}/web/exec?command=true&dryRun=All`);
      assert.equal(dry.json.message, "dryRun is not supported");
      const badPort = await call("POST", `${PODS}/web/portforward?ports=http`);
      assert.equal(
        badPort.json.message,
        'cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax',
      );
    });

    it("python3-kubernetes reads logs and gets upstream's Status for an ambiguous container", {
      skip: pythonSkip,
    }, async () => {
      const script = `
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
core = client.CoreV1Api()
print(json.dumps(core.read_namespaced_pod_log("web", "default", tail_lines=3)))
print(json.dumps(core.read_namespaced_pod_log("pending", "default")))
try:
    core.read_namespaced_pod_log("two", "default")
    raise AssertionError("expected 400")
except client.exceptions.ApiException as e:
    print(e.status, json.loads(e.body)["message"])
`;
      const { stdout } = await promisify(execFile)(PYTHON, ["-c", script, gw.kubeconfig]);
      const [log, pending, error] = stdout.trim().split("\n");
      assert.equal(JSON.parse(log as string), "log of /containerLogs/default/web/app ?tailLines=3\n");
      assert.equal(JSON.parse(pending as string), "");
      assert.equal(error, "400 a container name must be specified for pod two, choose one of: [setup a b]");
    });

    it("@kubernetes/client-node execs over WebSocket through the gateway", async () => {
      const k8s = await import("@kubernetes/client-node");
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(gw.kubeconfig);
      const stdout = new PassThrough();
      let out = "";
      stdout.on("data", (c: Buffer) => {
        out += c;
      });
      state.upgrades.length = 0;
      const ws = await new k8s.Exec(kc).exec(
        "default",
        "web",
        "app",
        ["cat", "/etc/hostname"],
        stdout,
        null,
        null,
        false,
      );
      await once(ws as unknown as NodeJS.EventEmitter, "close");
      assert.equal(out, "hello from kubelet\n");
      const seen = state.upgrades[0];
      assert.equal(seen?.method, "GET");
      assert.equal(seen?.url, "/exec/default/web/app?command=cat&command=%2Fetc%2Fhostname&output=1");
      // Its typed API gets the Status of an ambiguous container.
      await assert.rejects(
        kc.makeApiClient(k8s.CoreV1Api).readNamespacedPodLog({ name: "two", namespace: "default" }),
        (e: { code?: number; body?: string }) =>
          e.code === 400 &&
          JSON.parse(e.body ?? "{}").message ===
            "a container name must be specified for pod two, choose one of: [setup a b]",
      );
    });
  });
}
