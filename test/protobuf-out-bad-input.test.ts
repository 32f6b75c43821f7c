// Bad Protobuf bodies and hostile Accept headers, sent over a raw TLS socket so that nothing in
// a client library tidies them: every broken body is a 400 Status and writes nothing; Accept
// lists with unknown parameters, q weights or 500 entries get the right choice or a 406.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { connect } from "node:tls";
import { load } from "js-yaml";
import protobuf from "protobufjs";
import { naming } from "../backends/naming/index.ts";
import { encodeProtobufObject } from "../gateway/protobuf/codec.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";

const PB = naming("kubernetes").protobufMediaType;
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** One request on a fresh TLS connection with the kubeconfig's client certificate. */
async function raw(
  gw: GatewayProcess,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<RawAnswer> {
  const config = load(readFileSync(gw.kubeconfig, "utf8")) as {
    clusters: { cluster: { "certificate-authority-data": string } }[];
    users: { user: { "client-certificate-data": string; "client-key-data": string } }[];
  };
  const b64 = (s: string) => Buffer.from(s, "base64").toString("utf8");
  const socket = connect({
    host: "127.0.0.1",
    port: gw.port,
    servername: "localhost",
    ca: b64(config.clusters[0]!.cluster["certificate-authority-data"]),
    cert: b64(config.users[0]!.user["client-certificate-data"]),
    key: b64(config.users[0]!.user["client-key-data"]),
  });
  const chunks: Buffer[] = [];
  socket.on("data", (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    socket.on("end", resolve);
    socket.on("close", () => resolve());
    socket.on("error", reject);
  });
  const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${gw.port}`, "Connection: close"];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body) lines.push(`Content-Length: ${body.length}`);
  socket.write(Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), body ?? Buffer.alloc(0)]));
  await ended;
  const all = Buffer.concat(chunks);
  const split = all.indexOf("\r\n\r\n");
  const head = all.subarray(0, split).toString("latin1").split("\r\n");
  const status = Number(head[0]!.split(" ")[1]);
  const answerHeaders: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    answerHeaders[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let rest = all.subarray(split + 4);
  if (answerHeaders["transfer-encoding"] === "chunked") {
    const parts: Buffer[] = [];
    for (;;) {
      const nl = rest.indexOf("\r\n");
      const size = Number.parseInt(rest.subarray(0, nl).toString(), 16);
      if (!size) break;
      parts.push(rest.subarray(nl + 2, nl + 2 + size));
      rest = rest.subarray(nl + 4 + size);
    }
    rest = Buffer.concat(parts);
  }
  return { status, headers: answerHeaders, body: rest };
}

function json(answer: RawAnswer): Record<string, unknown> {
  return JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>;
}

/** A body of hand-made envelope fields around `raw`. */
function envelope(apiVersion: string, kind: string, message: Uint8Array): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).ldelim();
  w.uint32(0x12).bytes(message);
  return Buffer.concat([MAGIC, w.finish()]);
}

describe("bad Protobuf bodies over a raw socket: 400, nothing written", () => {
  let gw: GatewayProcess;

  before(async () => {
    gw = await startGateway(["--api-naming=kubernetes"]);
  });
  after(async () => {
    await gw?.stop();
  });

  const good = encodeProtobufObject({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "bad" },
    data: { a: "b" },
  });
  // ConfigMap.metadata (field 1) as a varint instead of a message.
  const wrongWireType = envelope("v1", "ConfigMap", Uint8Array.of(0x08, 0x01));
  // ConfigMap.metadata claims 100 bytes; 2 follow.
  const pastEnd = envelope("v1", "ConfigMap", Uint8Array.of(0x0a, 0x64, 0x0a, 0x00));
  const cases: [string, Buffer, RegExp][] = [
    ["truncated", good.subarray(0, good.length - 5), /end of data|past the end/],
    [
      "wrong magic",
      Buffer.concat([Buffer.from("k9s\0"), good.subarray(4)]),
      /does not appear to be a protobuf message/,
    ],
    [
      "an unknown kind",
      envelope("v1", "Gadget", Uint8Array.of()),
      /kind "Gadget" of version "v1" has no Protobuf form/,
    ],
    [
      "a kind that does not match the URL",
      encodeProtobufObject({ apiVersion: "v1", kind: "Secret", metadata: { name: "bad" } }),
      /the kind in the data \(Secret\) does not match the expected kind \(ConfigMap\)/,
    ],
    ["a field of the wrong wire type", wrongWireType, /wrong wire type/],
    ["a length past the end", pastEnd, /runs past the end/],
  ];

  for (const [name, body, message] of cases) {
    it(`create with ${name}`, async () => {
      const r = await raw(gw, "POST", CONFIGMAPS, { "content-type": PB }, body);
      assert.equal(r.status, 400, r.body.toString());
      const status = json(r);
      assert.equal(status.kind, "Status");
      assert.equal(status.reason, "BadRequest");
      assert.match(String(status.message), message);
      const after = await raw(gw, "GET", `${CONFIGMAPS}/bad`, {});
      assert.equal(after.status, 404, "nothing was written");
    });
  }

  it("the 400 is Protobuf for a client that asks for Protobuf first", async () => {
    const r = await raw(
      gw,
      "POST",
      CONFIGMAPS,
      { "content-type": PB, accept: `${PB}, application/json` },
      pastEnd,
    );
    assert.equal(r.status, 400);
    assert.equal(r.headers["content-type"], PB);
    assert.deepEqual(r.body.subarray(0, 4), MAGIC);
    assert.ok(r.body.includes(Buffer.from("BadRequest")));
  });

  it("a DELETE with a broken Protobuf DeleteOptions body: 400, the object kept", async () => {
    const made = await raw(gw, "POST", CONFIGMAPS, { "content-type": PB }, good);
    assert.equal(made.status, 201, made.body.toString());
    const deleteOptions = encodeProtobufObject({
      apiVersion: "v1",
      kind: "DeleteOptions",
      propagationPolicy: "Orphan",
    });
    for (const body of [
      deleteOptions.subarray(0, deleteOptions.length - 3),
      Buffer.concat([Buffer.from("xxxx"), deleteOptions.subarray(4)]),
      encodeProtobufObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bad" } }),
    ]) {
      const r = await raw(gw, "DELETE", `${CONFIGMAPS}/bad`, { "content-type": PB }, body);
      assert.equal(r.status, 400, r.body.toString());
      assert.equal(json(r).reason, "BadRequest");
      assert.equal((await raw(gw, "GET", `${CONFIGMAPS}/bad`, {})).status, 200, "still there");
    }
  });

  it("a DELETE body in a type nobody reads: 415 naming the Protobuf types too", async () => {
    const r = await raw(
      gw,
      "DELETE",
      `${CONFIGMAPS}/bad`,
      { "content-type": "text/plain" },
      Buffer.from("x"),
    );
    assert.equal(r.status, 415, r.body.toString());
    assert.match(
      String(json(r).message),
      /application\/json, application\/yaml, application\/vnd\.kubernetes\.protobuf/,
    );
    assert.equal((await raw(gw, "GET", `${CONFIGMAPS}/bad`, {})).status, 200, "still there");
  });

  describe("Accept headers", () => {
    it("unknown parameters are ignored; q weights order the clauses", async () => {
      const a = await raw(gw, "GET", CONFIGMAPS, { accept: `${PB};foo=bar;charset=x, application/json` });
      assert.equal(a.status, 200);
      assert.equal(a.headers["content-type"], PB);
      const b = await raw(gw, "GET", CONFIGMAPS, { accept: `${PB};q=0.1, application/json;q=0.8` });
      assert.match(b.headers["content-type"] ?? "", /^application\/json/);
      const c = await raw(gw, "GET", CONFIGMAPS, { accept: `application/json;q=0, ${PB};q=0.001` });
      assert.equal(c.headers["content-type"], PB);
    });

    it("500 entries: the one that fits, or 406", async () => {
      const noise = Array.from({ length: 499 }, (_, i) => `application/x-${i};q=0.${(i % 9) + 1};v=${i}`);
      const fits = await raw(gw, "GET", CONFIGMAPS, { accept: [...noise, PB].join(",") });
      assert.equal(fits.status, 200);
      assert.equal(fits.headers["content-type"], PB);
      const none = await raw(gw, "GET", CONFIGMAPS, { accept: [...noise, "text/html"].join(",") });
      assert.equal(none.status, 406);
      assert.equal(json(none).reason, "NotAcceptable");
      // 500 wildcard clauses with conversions nobody serves.
      const conversions = Array.from({ length: 500 }, (_, i) => `*/*;as=Nope${i};g=x;v=v1`).join(",");
      const refused = await raw(gw, "GET", CONFIGMAPS, { accept: conversions });
      assert.equal(refused.status, 406);
    });
  });
});
