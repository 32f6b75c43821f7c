import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { clientNames } from "../../backends/naming/index.ts";
import { eventually } from "../../test/support/watch.ts";
import { acceptKey, checkHandshake, encodeFrame, parseFrameHead, WebSocketConnection } from "./websocket.ts";

const handshake = (headers: Record<string, string>, method = "GET") => {
  const set: Record<string, string> = {};
  try {
    return { ok: checkHandshake(method, headers, (n, v) => (set[n] = v)), set };
  } catch (err) {
    return { err: err as { code: number; message: string }, set };
  }
};

describe("WebSocket handshake", () => {
  const base = {
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    "sec-websocket-version": "13",
    origin: "https://a",
  };

  it("answers RFC 6455's example key", () => {
    assert.equal(acceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    assert.deepEqual(handshake(base).ok, { accept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" });
  });

  it("echoes the one subprotocol left once the token's entry is set aside", () => {
    const token = `${clientNames.webSocketBearerProtocolPrefix}dDE`;
    assert.equal(handshake({ ...base, "sec-websocket-protocol": `${token}, chat` }).ok?.protocol, "chat");
    assert.equal(handshake({ ...base, "sec-websocket-protocol": "a, b" }).err?.code, 400);
  });

  it("refuses what upstream's watch server refuses", () => {
    assert.equal(handshake(base, "POST").err?.code, 405);
    assert.equal(handshake({ ...base, "sec-websocket-key": "" }).err?.code, 400);
    const version = handshake({ ...base, "sec-websocket-version": "8" });
    assert.equal(version.err?.code, 400);
    assert.deepEqual(version.set, { "sec-websocket-version": "13" });
    assert.equal(handshake({ ...base, origin: "" }).err?.code, 403);
    assert.equal(handshake({ ...base, origin: "null" }).err?.code, 403);
    assert.ok(handshake({ ...base, origin: "/relative" }).ok);
  });
});

describe("WebSocket frames", () => {
  it("encodes each payload length in its shortest form, unmasked", () => {
    for (const [length, headerLength] of [
      [0, 2],
      [125, 2],
      [126, 4],
      [65535, 4],
      [65536, 10],
    ] as const) {
      const frame = encodeFrame(0x2, Buffer.alloc(length, 7));
      const head = parseFrameHead(frame);
      assert.deepEqual(head, { fin: true, rsv: 0, opcode: 2, masked: false, length, headerLength });
      assert.equal(frame.length, headerLength + length);
    }
    // Text is written as UTF-8 bytes.
    assert.equal(parseFrameHead(encodeFrame(0x1, "é"))?.length, 2);
  });

  it("waits for a whole head", () => {
    const frame = encodeFrame(0x1, "x".repeat(200));
    assert.equal(parseFrameHead(frame.subarray(0, 3)), undefined);
    assert.equal(parseFrameHead(frame.subarray(0, 4))?.length, 200);
  });
});

/** A client frame, masked. */
function masked(opcode: number, payload: Buffer, fin = true): Buffer {
  const mask = Buffer.from([1, 2, 3, 4]);
  const body = Buffer.from(payload.map((b, i) => b ^ (mask[i % 4] as number)));
  const len = payload.length < 126 ? Buffer.from([0x80 | payload.length]) : Buffer.from([0x80 | 126, 0, 0]);
  if (payload.length >= 126) len.writeUInt16BE(payload.length, 1);
  return Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode]), len, mask, body]);
}

describe("WebSocketConnection", () => {
  let server: Server;
  before(async () => {
    server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
  });
  after(() => server.close());

  /** A connection on the server's side and the raw client socket with what it received. */
  async function pair(
    binary = false,
  ): Promise<{ conn: WebSocketConnection; client: Socket; got: () => Buffer }> {
    const accepted = once(server, "connection").then(([s]) => s as Socket);
    const client = connect((server.address() as { port: number }).port, "127.0.0.1");
    const chunks: Buffer[] = [];
    client.on("data", (c: Buffer) => chunks.push(c));
    const conn = new WebSocketConnection(await accepted, binary);
    return { conn, client, got: () => Buffer.concat(chunks) };
  }

  it("drops client messages, answers a ping cut across reads, and echoes a close", async () => {
    const { conn, client, got } = await pair();
    const ended = once(client, "end");
    // A fragmented message of 300 bytes, then a ping whose bytes arrive one at a time.
    client.write(masked(0x1, Buffer.alloc(200, 97), false));
    client.write(masked(0x0, Buffer.alloc(100, 98)));
    for (const byte of masked(0x9, Buffer.from("hi"))) client.write(Buffer.from([byte]));
    await eventually(() => got().length >= 4, 5_000, "the pong");
    assert.deepEqual([...got().subarray(0, 4)], [0x8a, 2, 0x68, 0x69]);
    assert.equal(conn.write("event"), true);
    const code = Buffer.alloc(2);
    code.writeUInt16BE(1000, 0);
    client.write(masked(0x8, code));
    await ended;
    assert.deepEqual([...got().subarray(4)], [0x81, 5, ...Buffer.from("event"), 0x88, 2, 0x03, 0xe8]);
    // Nothing more goes out once closed.
    assert.equal(conn.write("late"), false);
    client.destroy();
  });

  it("closes with 1002 on an unmasked client frame", async () => {
    const { client, got } = await pair();
    const ended = once(client, "end");
    client.write(Buffer.from([0x81, 1, 0x41]));
    await ended;
    assert.deepEqual([...got()], [0x88, 2, 0x03, 0xea]);
    client.destroy();
  });

  it("sends binary frames when made so, and a close of 1000 on end", async () => {
    const { conn, client, got } = await pair(true);
    conn.write(Buffer.from([1, 2]));
    conn.end();
    await eventually(() => got().length >= 8, 5_000, "the frames");
    assert.deepEqual([...got()], [0x82, 2, 1, 2, 0x88, 2, 0x03, 0xe8]);
    assert.equal(conn.writableEnded, true);
    client.destroy();
  });
});
