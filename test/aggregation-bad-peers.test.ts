// Extension API servers that misbehave, through the real gateway: one HTTPS peer started here (its
// own CA; one ExternalName Service for `localhost` per APIService) answers each group in its own
// bad way. Discovery answered with garbage, or never: the APIService turns unavailable
// (FailedDiscoveryCheck) and its requests get 503 Status; the gateway stays ready meanwhile. An
// answer cut off mid-stream ends the client's stream and nothing else. A very large answer streams
// through under backpressure: to a client that reads nothing the extension gets to send only what
// the buffers hold, and the gateway's memory stays bounded either way.
import assert from "node:assert/strict";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer, type Server } from "node:https";
import { after, before, describe, it } from "node:test";
import { connect } from "node:tls";
import { load } from "js-yaml";
import { Agent, request } from "undici";
import { naming } from "../backends/naming/index.ts";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import { ApiClient } from "./support/api-client.ts";
import { registerLocalExtension } from "./support/extension-servers.ts";
import type { GatewayProcess } from "./support/gateway-process.ts";
import { rssBytes, settledRss, startGatewayWithInspector } from "./support/process-memory.ts";
import { eventually } from "./support/watch.ts";

const n = naming("cluster");
const APIREG = n.group("apiregistration");
const NS = "bad-peers";
/** The gateway's discovery probe timeout (upstream's 5 s) and some room. */
const PROBE_WAIT_MS = 30_000;

/** The large answer: streamed at full speed in 1 MiB writes, each awaited when the socket is full. */
const BIG_BYTES = 512 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, "x");
/**
 * What the extension may get to send to a client that reads nothing: the kernel's socket buffers
 * on both hops (a few MiB each with autotuning) and the streams' high-water marks. Observed
 * 8 MiB; with the proxy writing without waiting for drain, the extension is never held back.
 */
const STALLED_SENT_BOUND = 32 * 1024 * 1024;
/**
 * The gateway's RSS growth (after a full GC) while it holds a client that reads nothing, and its
 * peak (sampled, no GC) while it streams the 512 MiB to a client that reads: socket and TLS
 * buffers, undici's chunks not yet collected. Observed under 1 MiB settled, 40-72 MiB peak.
 */
const STALLED_RSS_BOUND = 48 * 1024 * 1024;
const STREAMING_RSS_BOUND = 128 * 1024 * 1024;

let main: GatewayProcess;
let inspector: number;
let admin: ApiClient;
let peer: Server;
let peerPort: number;
let peerCa: string;
let streamAgent: Agent;

/** What the peer saw: discovery requests still unanswered, and each large answer's progress. */
const hangingDiscovery = new Set<unknown>();
interface BigStream {
  written: number;
  blocked: boolean;
  closed: boolean;
  finished: boolean;
}
const bigStreams: BigStream[] = [];
const endlessDiscovery: BigStream[] = [];
const quietWatches: { closed: boolean }[] = [];

function resourceList(group: string): string {
  return JSON.stringify({
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: `${group}/v1`,
    resources: [
      { name: "things", singularName: "thing", namespaced: true, kind: "Thing", verbs: ["get", "list"] },
    ],
  });
}

/** Writes `BIG_BYTES` as fast as the connection takes them, recording how far it got. */
async function streamBig(res: import("node:http").ServerResponse, streams: BigStream[]): Promise<void> {
  const state: BigStream = { written: 0, blocked: false, closed: false, finished: false };
  streams.push(state);
  res.on("close", () => {
    state.closed = true;
  });
  res.writeHead(200, { "content-type": "application/json" });
  while (state.written < BIG_BYTES && !state.closed) {
    state.written += CHUNK.length;
    if (!res.write(CHUNK)) {
      state.blocked = true;
      await new Promise<void>((resolve) => {
        const go = () => {
          res.off("drain", go);
          res.off("close", go);
          resolve();
        };
        res.on("drain", go);
        res.on("close", go);
      });
      state.blocked = false;
    }
  }
  state.finished = state.written >= BIG_BYTES;
  res.end();
}

/** The peer: each group misbehaves in its own way (`ok.example.com` does not). */
function answer(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): void {
  const url = req.url ?? "";
  const m = /^\/apis\/([^/]+)\/v1(\/[^?]*)?/.exec(url);
  const group = m?.[1] ?? "";
  const rest = m?.[2] ?? "";
  const discovery = rest === "";
  switch (group) {
    case "garbage.example.com":
      if (discovery) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("\u0000{{not json");
        return;
      }
      break;
    case "wrongkind.example.com":
      if (discovery) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Success" }));
        return;
      }
      break;
    case "badlist.example.com":
      // An APIResourceList in name only: fields of the wrong types.
      if (discovery) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            kind: "APIResourceList",
            apiVersion: "v1",
            groupVersion: "badlist.example.com/v1",
            resources: [{ name: "things", namespaced: "yes", kind: 3, verbs: 7, shortNames: "th" }, 42, null],
          }),
        );
        return;
      }
      break;
    case "nothttp.example.com":
      // Bytes that are no HTTP answer at all, then the connection ends.
      req.socket.end("SSH-2.0-OpenSSH_9.2\r\n\r\n");
      return;
    case "endless.example.com":
      if (discovery) {
        void streamBig(res, endlessDiscovery);
        return;
      }
      break;
    case "hang.example.com":
      if (discovery) {
        hangingDiscovery.add(req);
        res.on("close", () => hangingDiscovery.delete(req));
        return;
      }
      break;
    case "cut.example.com":
      if (rest.endsWith("/early")) {
        req.socket.destroy();
        return;
      }
      if (rest.endsWith("/short")) {
        // A tenth of the body it announces, then the connection breaks.
        res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
        res.write("x".repeat(100), () => setImmediate(() => res.socket?.destroy()));
        return;
      }
      if (rest.endsWith("/quiet") && url.includes("watch=")) {
        // A watch that has nothing to say yet: the head, and then nothing until the client leaves.
        quietWatches.push({ closed: false });
        const state = quietWatches.at(-1) as { closed: boolean };
        res.on("close", () => {
          state.closed = true;
        });
        res.writeHead(200, { "content-type": "application/json" });
        res.flushHeaders();
        return;
      }
      if (!discovery) {
        // Half a list (or one watch event), then the connection breaks.
        res.writeHead(200, { "content-type": "application/json" });
        res.write(
          url.includes("watch=")
            ? `${JSON.stringify({ type: "ADDED", object: { kind: "Thing", apiVersion: "cut.example.com/v1", metadata: { name: "a" } } })}\n`
            : '{"kind":"ThingList","apiVersion":"cut.example.com/v1","items":[{"metadata":{"name":"a"}},',
          () => setImmediate(() => res.socket?.destroy()),
        );
        return;
      }
      break;
    case "big.example.com":
      if (!discovery) {
        void streamBig(res, bigStreams);
        return;
      }
      break;
  }
  if (discovery) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(resourceList(group));
    return;
  }
  res.writeHead(404, { "content-type": "application/json" });
  res.end(
    JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 }),
  );
}

const GROUPS = [
  "ok.example.com",
  "garbage.example.com",
  "wrongkind.example.com",
  "badlist.example.com",
  "nothttp.example.com",
  "endless.example.com",
  "hang.example.com",
  "cut.example.com",
  "big.example.com",
];
const serviceOf = (group: string) => group.split(".")[0] as string;

/** An ExternalName Service for `localhost` and an APIService for `group`/v1 served by the peer. */
function register(group: string): Promise<void> {
  return registerLocalExtension(admin, {
    apiregistration: APIREG,
    group,
    namespace: NS,
    service: serviceOf(group),
    port: peerPort,
    caPem: peerCa,
  });
}

async function condition(group: string) {
  const got = await admin.call("GET", `/apis/${APIREG}/v1/apiservices/v1.${group}`);
  return (got.body?.status?.conditions ?? []).find((c: { type: string }) => c.type === "Available") as
    | { status: string; reason: string; message: string }
    | undefined;
}

async function readyz(): Promise<number> {
  return (await admin.call("GET", "/readyz")).status;
}

before(async () => {
  ({ gw: main, inspector } = await startGatewayWithInspector([]));
  admin = new ApiClient(main.kubeconfig);
  const config = load(readFileSync(main.kubeconfig, "utf8")) as {
    clusters: { cluster: Record<string, string> }[];
    users: { user: Record<string, string> }[];
  };
  const b64 = (s: string | undefined) => Buffer.from(s ?? "", "base64").toString("utf8");
  streamAgent = new Agent({
    connect: {
      ca: b64(config.clusters[0]?.cluster["certificate-authority-data"]),
      cert: b64(config.users[0]?.user["client-certificate-data"]),
      key: b64(config.users[0]?.user["client-key-data"]),
    },
  });

  const ca = await createAuthority("bad-peers-ca");
  const leaf = await issueCertificate(ca, {
    commonName: "bad-peer",
    usage: "server",
    altNames: GROUPS.map((g) => `${serviceOf(g)}.${NS}.svc`),
  });
  peerCa = ca.certPem;
  peer = createHttpsServer({ cert: leaf.certPem, key: leaf.keyPem }, answer);
  peer.listen(0, "127.0.0.1");
  await once(peer, "listening");
  peerPort = (peer.address() as { port: number }).port;

  const ns = await admin.call("POST", "/api/v1/namespaces", { body: { metadata: { name: NS } } });
  assert.equal(ns.status, 201, ns.text);
  // The hanging one is registered by its own test, which watches the gateway meanwhile.
  for (const group of GROUPS) if (group !== "hang.example.com") await register(group);
  await eventually(async () => (await condition("ok.example.com"))?.status === "True", PROBE_WAIT_MS, "ok");
});

after(async () => {
  await admin?.close();
  await streamAgent?.close();
  peer?.closeAllConnections();
  peer?.close();
  await main?.stop();
});

describe("extension servers that misbehave", () => {
  it("answering discovery with garbage makes the APIService unavailable (FailedDiscoveryCheck); its requests get 503 and discovery leaves it out", async () => {
    const expected: Record<string, RegExp> = {
      "garbage.example.com": /: not an APIResourceList$/,
      "wrongkind.example.com": /: not an APIResourceList$/,
      "badlist.example.com": /: not an APIResourceList: /,
      "nothttp.example.com":
        /^failing or missing response from https:\/\/localhost:\d+\/apis\/nothttp\.example\.com\/v1: /,
      "endless.example.com": /the answer is larger than \d+ bytes/,
    };
    for (const [group, message] of Object.entries(expected)) {
      await eventually(
        async () => (await condition(group))?.reason === "FailedDiscoveryCheck",
        PROBE_WAIT_MS,
        `${group} unavailable`,
      );
      const c = await condition(group);
      assert.equal(c?.status, "False");
      assert.match(c?.message ?? "", message, group);
      const res = await admin.call("GET", `/apis/${group}/v1/namespaces/default/things`);
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.kind, "Status");
      assert.equal(res.body.reason, "ServiceUnavailable");
      assert.match(
        res.body.message,
        new RegExp(`^APIService "v1\\.${group.replaceAll(".", "\\.")}" is unavailable`),
      );
    }
    // The endless answer was dropped at the probe's limit, not read to its end.
    assert.ok(endlessDiscovery.length > 0 && endlessDiscovery.every((s) => !s.finished));
    const groups = await admin.call("GET", "/apis");
    assert.equal(groups.status, 200, groups.text);
    const names = groups.body.groups.map((g: { name: string }) => g.name);
    assert.ok(names.includes("ok.example.com"));
    for (const group of Object.keys(expected)) assert.ok(!names.includes(group), group);
    const aggregated = await admin.call("GET", "/apis", {
      accept: `application/json;g=apidiscovery.${n.groupSuffix};v=v2;as=APIGroupDiscoveryList`,
    });
    assert.equal(aggregated.status, 200, aggregated.text);
    assert.equal(await readyz(), 200);
  });

  it("hanging on discovery: FailedDiscoveryCheck after the probe's timeout, and the gateway stays ready meanwhile", async () => {
    await register("hang.example.com");
    let answeredWhileHanging = 0;
    await eventually(
      async () => {
        const pending = hangingDiscovery.size > 0;
        assert.equal(await readyz(), 200);
        if (pending) answeredWhileHanging++;
        return (await condition("hang.example.com"))?.reason === "FailedDiscoveryCheck";
      },
      PROBE_WAIT_MS,
      "hang unavailable",
    );
    assert.ok(answeredWhileHanging > 0, "/readyz was asked while the probe hung");
    const c = await condition("hang.example.com");
    assert.match(
      c?.message ?? "",
      /^failing or missing response from https:\/\/localhost:\d+\/apis\/hang\.example\.com\/v1: /,
    );
    const res = await admin.call("GET", "/apis/hang.example.com/v1/namespaces/default/things");
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.reason, "ServiceUnavailable");
    // Other groups and the gateway's own are served meanwhile.
    assert.equal((await admin.call("GET", "/apis/ok.example.com/v1")).status, 200);
    assert.equal((await admin.call("GET", "/api/v1/namespaces/default/configmaps")).status, 200);
  });

  it("closing mid-stream ends the client's list or watch; closing before answering is a 503; the gateway stays healthy", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(`${admin.server}/apis/cut.example.com/v1/namespaces/default/things`, {
        dispatcher: streamAgent,
      });
      assert.equal(res.statusCode, 200);
      let text = "";
      const read = await (async () => {
        for await (const chunk of res.body) text += chunk;
      })().then(
        () => "ended",
        (err: Error) => `failed: ${err.message}`,
      );
      assert.match(read, /^failed: /, "the broken answer does not end as a whole one");
      assert.ok(text.startsWith('{"kind":"ThingList"'), text);
    }
    const watch = await admin.watch("/apis/cut.example.com/v1/namespaces/default/things?watch=1");
    const seen: string[] = [];
    const ended = await (async () => {
      for await (const event of watch.events) seen.push(event.type);
    })().then(
      () => "ended",
      () => "failed",
    );
    watch.close();
    assert.deepEqual(seen, ["ADDED"]);
    assert.ok(ended === "ended" || ended === "failed");

    // A short answer of announced length is read whole before it is sent on: cut, it is a 503.
    const short = await admin.call("GET", "/apis/cut.example.com/v1/namespaces/default/things/short");
    assert.equal(short.status, 503, short.text);
    assert.equal(short.body.reason, "ServiceUnavailable");
    assert.match(
      short.body.message,
      /^APIService "v1\.cut\.example\.com" is unavailable: error trying to reach service: /,
    );

    const early = await admin.call("GET", "/apis/cut.example.com/v1/namespaces/default/things/early");
    assert.equal(early.status, 503, early.text);
    assert.equal(early.body.reason, "ServiceUnavailable");
    assert.match(
      early.body.message,
      /^APIService "v1\.cut\.example\.com" is unavailable: error trying to reach service: /,
    );

    assert.equal(await readyz(), 200);
    assert.equal((await admin.call("GET", "/apis/cut.example.com/v1")).status, 200);
    assert.equal((await condition("cut.example.com"))?.status, "True");
  });

  it("a watch's head reaches the client before any event, and the call to the extension ends when the client leaves", async () => {
    const leave = new AbortController();
    const res = await request(`${admin.server}/apis/cut.example.com/v1/namespaces/default/quiet?watch=1`, {
      dispatcher: streamAgent,
      signal: AbortSignal.any([leave.signal, AbortSignal.timeout(20_000)]),
    });
    assert.equal(res.statusCode, 200);
    assert.equal(quietWatches.length, 1);
    assert.equal(quietWatches[0]?.closed, false);
    res.body.on("error", () => {});
    leave.abort();
    await eventually(() => quietWatches[0]?.closed === true, 10_000, "the extension's watch to be closed");
  });

  it("a 512 MiB answer streams under backpressure: a client that reads nothing holds the extension back, one that reads gets it all; the gateway's memory stays bounded", async () => {
    const path = "/apis/big.example.com/v1/namespaces/default/things";
    const rssBefore = await settledRss(inspector, main);

    // A client that sends its request and then reads nothing.
    const config = load(readFileSync(main.kubeconfig, "utf8")) as {
      users: { user: Record<string, string> }[];
    };
    const user = config.users[0]?.user ?? {};
    const stalled = connect({
      host: "127.0.0.1",
      port: main.port,
      ca: readFileSync(`${main.dataDir}/pki/ca.crt`),
      cert: Buffer.from(user["client-certificate-data"] ?? "", "base64"),
      key: Buffer.from(user["client-key-data"] ?? "", "base64"),
      servername: "localhost",
    });
    await once(stalled, "secureConnect");
    const held = bigStreams.length;
    stalled.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n`);
    const [head] = (await once(stalled, "data")) as [Buffer];
    stalled.pause();
    assert.match(head.toString("latin1"), /^HTTP\/1\.1 200 /);
    await eventually(() => bigStreams.length > held, 10_000, "the large answer to start");
    const stalledStream = bigStreams[held] as BigStream;
    // The extension is held back: blocked on a full connection and sending nothing more.
    let last = -1;
    let still = 0;
    await eventually(
      () => {
        still = stalledStream.blocked && stalledStream.written === last ? still + 1 : 0;
        last = stalledStream.written;
        return still >= 20;
      },
      60_000,
      "the extension to be held back",
    );
    const stalledGrowth = (await settledRss(inspector, main)) - rssBefore;
    console.log(
      `client reading nothing: the extension sent ${(stalledStream.written / 2 ** 20).toFixed(1)} MiB of 512; ` +
        `gateway RSS +${(stalledGrowth / 2 ** 20).toFixed(1)} MiB`,
    );
    assert.ok(stalledStream.written < STALLED_SENT_BOUND, `sent ${stalledStream.written}`);
    assert.ok(stalledGrowth < STALLED_RSS_BOUND, `RSS grew ${(stalledGrowth / 2 ** 20).toFixed(1)} MiB`);

    // A client that reads everything, meanwhile.
    const pid = main.child.pid as number;
    let peak = rssBytes(pid);
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes(pid));
    }, 20);
    let received = 0;
    try {
      const res = await request(`${admin.server}${path}`, { dispatcher: streamAgent });
      assert.equal(res.statusCode, 200);
      for await (const chunk of res.body) received += (chunk as Buffer).length;
    } finally {
      clearInterval(sampler);
    }
    const streamingGrowth = peak - rssBefore;
    console.log(
      `client reading: received ${(received / 2 ** 20).toFixed(1)} MiB; gateway peak RSS +${(streamingGrowth / 2 ** 20).toFixed(1)} MiB`,
    );
    assert.equal(received, BIG_BYTES);
    assert.ok(
      streamingGrowth < STREAMING_RSS_BOUND,
      `peak RSS grew ${(streamingGrowth / 2 ** 20).toFixed(1)} MiB`,
    );

    // The client that read nothing goes away: the call to the extension ends with it.
    assert.equal(stalledStream.closed, false);
    stalled.destroy();
    await eventually(() => stalledStream.closed, 10_000, "the extension's answer to be closed");
    assert.equal(stalledStream.finished, false);
    assert.equal(await readyz(), 200);
  });
});
