// Watches over WebSocket, as browsers and web consoles open them: the real gateway started as
// README says, driven by Node's own WebSocket client (the bearer token in the subprotocol, as a
// browser must send it) and by a raw TLS client that checks the handshake and the frames byte by
// byte (RFC 6455: unmasked server frames, one message per event, pings answered, closes echoed).
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect, type TLSSocket } from "node:tls";
import { Agent, request } from "undici";
import { clientNames, naming as namingPreset } from "../backends/naming/index.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const TOKENS = [
  'admin-token-0123456789,admin,admin-uid,"system:masters"',
  "reader-token-0123456789,reader,reader-uid",
  "nobody-token-0123456789,nobody,nobody-uid",
  "",
].join("\n");

const ORIGIN = "https://console.example";
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

/** The subprotocol a browser carries its bearer token in. */
const bearerProtocol = (token: string) =>
  `${clientNames.webSocketBearerProtocolPrefix}${Buffer.from(token).toString("base64url")}`;

interface Started {
  gw: GatewayProcess;
  dir: string;
  agent: Agent;
  caPem: string;
}

/** A gateway with static tokens; `reader` may list and watch ConfigMaps in default, `nobody` nothing. */
async function gatewayWithReader(preset: "cluster" | "kubernetes"): Promise<Started> {
  const naming = namingPreset(preset);
  const dir = await mkdtemp(join(tmpdir(), "cg-ws-watch-"));
  await writeFile(join(dir, "tokens.csv"), TOKENS);
  const gw = await startGateway([`--api-naming=${preset}`, `--token-auth-file=${join(dir, "tokens.csv")}`]);
  const caPem = await readFile(join(gw.dataDir, "pki", "ca.crt"), "utf8");
  const agent = new Agent({ connect: { ca: caPem } });
  const rbac = `/apis/${naming.group("rbac.authorization")}/v1/namespaces/default`;
  const post = async (path: string, body: unknown) => {
    const r = await adminCall({ gw, dir, agent, caPem }, "POST", path, body);
    assert.equal(r.status, 201, r.text);
  };
  await post(`${rbac}/roles`, {
    metadata: { name: "configmap-reader" },
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch"] }],
  });
  await post(`${rbac}/rolebindings`, {
    metadata: { name: "reader" },
    roleRef: { apiGroup: naming.group("rbac.authorization"), kind: "Role", name: "configmap-reader" },
    subjects: [{ apiGroup: naming.group("rbac.authorization"), kind: "User", name: "reader" }],
  });
  return { gw, dir, agent, caPem };
}

async function adminCall(
  s: Started,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const res = await request(`https://127.0.0.1:${s.gw.port}${path}`, {
    method: method as "POST",
    headers: { authorization: "Bearer admin-token-0123456789", "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    dispatcher: s.agent,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

async function stop(s: Started | undefined): Promise<void> {
  if (!s) return;
  await s.gw.stop();
  await s.agent.close();
  await rm(s.gw.dataDir, { recursive: true, force: true });
  await rm(s.dir, { recursive: true, force: true });
}

/** Messages of a WebSocket as they arrive, and its close. */
function collect(ws: WebSocket): {
  messages: unknown[];
  opened: Promise<void>;
  closed: Promise<CloseEvent>;
} {
  const messages: unknown[] = [];
  ws.addEventListener("message", (e) => messages.push(e.data));
  const opened = new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve());
    ws.addEventListener("error", () => reject(new Error("the WebSocket failed to open")));
  });
  const closed = new Promise<CloseEvent>((resolve) => ws.addEventListener("close", (e) => resolve(e)));
  return { messages, opened, closed };
}

// ---- a raw client: the handshake and frames as bytes ----------------------------------------

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  socket: TLSSocket;
  /** Bytes after the head (frames, or a refusal's body). */
  rest: Buffer[];
  ended: Promise<void>;
}

async function rawUpgrade(
  s: Started,
  path: string,
  headers: Record<string, string>,
  key = "dGhlIHNhbXBsZSBub25jZQ==",
): Promise<RawAnswer> {
  const socket = connect({ host: "127.0.0.1", port: s.gw.port, ca: s.caPem, servername: "localhost" });
  await once(socket, "secureConnect");
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${s.gw.port}`,
    "Connection: Upgrade",
    "Upgrade: websocket",
    `Sec-WebSocket-Key: ${key}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  const rest: Buffer[] = [];
  let head = Buffer.alloc(0);
  const ended = new Promise<void>((resolve) => {
    socket.once("close", () => resolve());
  });
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      if (head.length > end + 4) rest.push(head.subarray(end + 4));
      head = head.subarray(0, end);
      socket.on("data", (c: Buffer) => rest.push(c));
      resolve();
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.once("end", () => reject(new Error(`closed before an answer: ${head.toString()}`)));
  });
  const [statusLine, ...headerLines] = head.toString("latin1").split("\r\n");
  const parsed: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine?.split(" ")[1]), headers: parsed, socket, rest, ended };
}

/** A refused handshake's Status body (the connection closes after it). */
async function refusal(answer: RawAnswer): Promise<{ code: number; reason: string; message: string }> {
  await answer.ended;
  const body = Buffer.concat(answer.rest).toString();
  // Without a Content-Length the body may come chunked: take the JSON inside.
  const json = body.slice(body.indexOf("{"), body.lastIndexOf("}") + 1);
  return JSON.parse(json);
}

interface Frame {
  fin: boolean;
  masked: boolean;
  opcode: number;
  payload: Buffer;
}

/** Server frames, in order, from what the raw client has read so far; waits for `count`. */
async function frames(answer: RawAnswer, count: number, what: string): Promise<Frame[]> {
  let parsed: Frame[] = [];
  await eventually(
    () => {
      parsed = [];
      let data = Buffer.concat(answer.rest);
      while (data.length >= 2) {
        const b0 = data[0] as number;
        const b1 = data[1] as number;
        let length = b1 & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (data.length < 4) break;
          length = data.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (data.length < 10) break;
          length = Number(data.readBigUInt64BE(2));
          offset = 10;
        }
        const masked = (b1 & 0x80) !== 0;
        if (masked) offset += 4;
        if (data.length < offset + length) break;
        parsed.push({
          fin: (b0 & 0x80) !== 0,
          masked,
          opcode: b0 & 0x0f,
          payload: data.subarray(offset, offset + length),
        });
        data = data.subarray(offset + length);
      }
      return parsed.length >= count;
    },
    20_000,
    what,
  );
  return parsed;
}

/** A client frame: masked, as RFC 6455 requires of clients. */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const mask = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);
  const masked = Buffer.from(payload.map((b, i) => b ^ (mask[i % 4] as number)));
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), mask, masked]);
}

describe("watch over WebSocket (default naming)", () => {
  let s: Started;
  before(async () => {
    s = await gatewayWithReader("cluster");
  });
  after(async () => {
    await stop(s);
  });

  const url = (query: string) => `wss://127.0.0.1:${s.gw.port}${CONFIGMAPS}?watch=true&${query}`;

  it("sends each event as one text message to a browser-style client, the token in its subprotocol", async () => {
    const ws = new WebSocket(url("labelSelector=app%3Dweb"), {
      protocols: [bearerProtocol("reader-token-0123456789"), "watch.console.example"],
      dispatcher: s.agent,
      headers: { origin: ORIGIN },
    } as unknown as string[]);
    const { messages, opened, closed } = collect(ws);
    await opened;
    // The token's subprotocol is never echoed; the other one is.
    assert.equal(ws.protocol, "watch.console.example");
    // The selector holds: only the labelled ConfigMap's events arrive.
    assert.equal((await adminCall(s, "POST", CONFIGMAPS, { metadata: { name: "plain" } })).status, 201);
    const web = { metadata: { name: "web", labels: { app: "web" } }, data: { a: "1" } };
    assert.equal((await adminCall(s, "POST", CONFIGMAPS, web)).status, 201);
    const patch = await request(`https://127.0.0.1:${s.gw.port}${CONFIGMAPS}/web`, {
      method: "PATCH",
      headers: {
        authorization: "Bearer admin-token-0123456789",
        "content-type": "application/merge-patch+json",
      },
      body: JSON.stringify({ data: { a: "2" } }),
      dispatcher: s.agent,
    });
    assert.equal(patch.statusCode, 200, await patch.body.text());
    await eventually(() => messages.length >= 2, 20_000, "two messages");
    const events = messages.map((m) => {
      assert.equal(typeof m, "string", "a text message");
      assert.ok((m as string).endsWith("}\n"), "one whole JSON event per message");
      return JSON.parse(m as string) as {
        type: string;
        object: { metadata: { name: string }; data: object };
      };
    });
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name, e.object.data]),
      [
        ["ADDED", "web", { a: "1" }],
        ["MODIFIED", "web", { a: "2" }],
      ],
    );
    ws.close(1000);
    const close = await closed;
    assert.equal(close.code, 1000);
    assert.equal(close.wasClean, true);
  });

  it("ends the stream with a close frame when timeoutSeconds passes", async () => {
    const ws = new WebSocket(url("timeoutSeconds=1"), {
      protocols: [bearerProtocol("reader-token-0123456789"), "watch.console.example"],
      dispatcher: s.agent,
      headers: { origin: ORIGIN },
    } as unknown as string[]);
    const { messages, opened, closed } = collect(ws);
    await opened;
    const close = await closed;
    assert.equal(close.code, 1000);
    assert.equal(close.wasClean, true);
    // The initial events of the list came first, one message each.
    assert.ok(messages.length >= 2, `initial events: ${messages.length}`);
  });

  it("answers the handshake, pings and a close as RFC 6455 says, in unmasked frames", async () => {
    const key = "x3JJHMbDL1EzLkh9GBhXDw==";
    const answer = await rawUpgrade(
      s,
      `${CONFIGMAPS}?watch=1&fieldSelector=metadata.name%3Dweb`,
      {
        "Sec-WebSocket-Version": "13",
        Origin: ORIGIN,
        Authorization: "Bearer reader-token-0123456789",
      },
      key,
    );
    assert.equal(answer.status, 101);
    assert.equal(answer.headers.upgrade?.toLowerCase(), "websocket");
    assert.equal(answer.headers.connection?.toLowerCase(), "upgrade");
    // RFC 6455's own example key and answer.
    assert.equal(answer.headers["sec-websocket-accept"], "HSmrc0sMlYUkAGmm5OPpG2HaGWk=");
    assert.equal(answer.headers["sec-websocket-protocol"], undefined);
    const [added] = await frames(answer, 1, "the ADDED event");
    assert.ok(added);
    assert.equal(added.fin, true);
    assert.equal(added.masked, false);
    assert.equal(added.opcode, 0x1);
    assert.equal(JSON.parse(added.payload.toString()).object.metadata.name, "web");
    answer.socket.write(clientFrame(0x9, Buffer.from("are you there")));
    const pong = (await frames(answer, 2, "a pong"))[1];
    assert.equal(pong?.opcode, 0xa);
    assert.equal(pong?.payload.toString(), "are you there");
    const code = Buffer.alloc(2);
    code.writeUInt16BE(1001, 0);
    answer.socket.write(clientFrame(0x8, code));
    const closeFrame = (await frames(answer, 3, "the close frame"))[2];
    assert.equal(closeFrame?.opcode, 0x8);
    assert.equal(closeFrame?.payload.readUInt16BE(0), 1001);
    await answer.ended;
  });

  it("refuses handshakes upstream refuses, with a Status", async () => {
    const path = `${CONFIGMAPS}?watch=1`;
    const good = { "Sec-WebSocket-Version": "13", Origin: ORIGIN };
    const reader = { Authorization: "Bearer reader-token-0123456789" };

    // No Origin: upstream's watch server takes browser handshakes only.
    const noOrigin = await rawUpgrade(s, path, { "Sec-WebSocket-Version": "13", ...reader });
    assert.equal(noOrigin.status, 403);
    assert.equal((await refusal(noOrigin)).reason, "Forbidden");

    const oldVersion = await rawUpgrade(s, path, { ...good, ...reader, "Sec-WebSocket-Version": "8" });
    assert.equal(oldVersion.status, 400);
    assert.equal(oldVersion.headers["sec-websocket-version"], "13");
    assert.equal((await refusal(oldVersion)).reason, "BadRequest");

    // The server echoes one subprotocol or none: it cannot choose among several.
    const two = await rawUpgrade(s, path, { ...good, ...reader, "Sec-WebSocket-Protocol": "a, b" });
    assert.equal(two.status, 400);
    await refusal(two);

    // The token's subprotocol needs another beside it (the one echoed back).
    const alone = await rawUpgrade(s, path, {
      ...good,
      "Sec-WebSocket-Protocol": bearerProtocol("reader-token-0123456789"),
    });
    assert.equal(alone.status, 401);
    assert.equal((await refusal(alone)).reason, "Unauthorized");

    for (const bad of [
      bearerProtocol("wrong-token"),
      `${clientNames.webSocketBearerProtocolPrefix}not=base64`,
    ]) {
      const wrong = await rawUpgrade(s, path, { ...good, "Sec-WebSocket-Protocol": `${bad}, x` });
      assert.equal(wrong.status, 401, bad);
      await refusal(wrong);
    }

    // Authorization applies as to any watch.
    const nobody = await rawUpgrade(s, path, {
      ...good,
      "Sec-WebSocket-Protocol": `${bearerProtocol("nobody-token-0123456789")}, x`,
    });
    assert.equal(nobody.status, 403);
    const denied = await refusal(nobody);
    assert.match(denied.message, /User "nobody" cannot watch resource "configmaps"/);
  });
});

describe("watch over WebSocket (kubernetes naming)", () => {
  let s: Started;
  before(async () => {
    s = await gatewayWithReader("kubernetes");
  });
  after(async () => {
    await stop(s);
  });

  it("takes the token in upstream's subprotocol spelling too", async () => {
    assert.equal((await adminCall(s, "POST", CONFIGMAPS, { metadata: { name: "seen" } })).status, 201);
    const ws = new WebSocket(`wss://127.0.0.1:${s.gw.port}${CONFIGMAPS}?watch=true`, {
      protocols: [bearerProtocol("reader-token-0123456789"), "watch.console.example"],
      dispatcher: s.agent,
      headers: { origin: ORIGIN },
    } as unknown as string[]);
    const { messages, opened, closed } = collect(ws);
    await opened;
    assert.equal(ws.protocol, "watch.console.example");
    await eventually(
      () => messages.some((m) => JSON.parse(String(m)).object?.metadata?.name === "seen"),
      20_000,
      "the ConfigMap's ADDED event",
    );
    ws.close();
    await closed;
  });
});
