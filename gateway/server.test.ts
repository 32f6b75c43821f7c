// The listener's header timeout over real TLS sockets: a client slower than the timeout is
// closed, but a request whose bytes arrived in time is served even when the event loop stalled
// past the timeout before it could read them (the check then runs before the pending read).
import assert from "node:assert/strict";
import { once } from "node:events";
import { after, before, describe, it } from "node:test";
import { connect, type TLSSocket } from "node:tls";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { createAuthority, issueCertificate } from "./pki/certificates.ts";
import { createServer } from "./server.ts";

const HEADERS_TIMEOUT_MS = 500;
let app: FastifyInstance;
let port: number;
/** The socket whose remaining bytes the stalling route sends while it holds the event loop. */
let pending: { socket: TLSSocket; rest: string } | undefined;
/** Lets the /held request answer. */
let release: (() => void) | undefined;
/** Client ports whose connection the server's header timeout check has reported. */
const timedOut = new Set<number>();
/** Bytes the server has read, by the client's port. */
const serverRead = new Map<number, number>();

before(async () => {
  const ca = await createAuthority("test-ca");
  const serving = await issueCertificate(ca, { commonName: "s", usage: "server", altNames: ["127.0.0.1"] });
  app = createServer({ certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem: ca.certPem }, false, {
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    checkIntervalMs: 50,
  });
  app.get("/fast", async () => "fast");
  // Answers once the test lets it: an earlier request on a connection, still being answered.
  app.get("/held", async () => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return "held";
  });
  // Holds the event loop past the header timeout, as a long GC pause would; the waiting client's
  // last bytes reach the kernel meanwhile.
  app.get("/stall", async () => {
    pending?.socket.write(pending.rest);
    const end = Date.now() + HEADERS_TIMEOUT_MS * 4;
    while (Date.now() < end);
    return "stalled";
  });
  app.server.on("clientError", (err: Error & { code?: string }, socket: TLSSocket) => {
    if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") timedOut.add(socket.remotePort ?? 0);
  });
  app.server.on("secureConnection", (socket: TLSSocket) => {
    const client = socket.remotePort ?? 0;
    socket.on("data", (d: Buffer) => serverRead.set(client, (serverRead.get(client) ?? 0) + d.length));
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  port = (app.server.address() as { port: number }).port;
});

after(() => app?.close());

async function open(): Promise<{ socket: TLSSocket; received: () => string; closed: Promise<unknown> }> {
  const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
  await once(socket, "secureConnect");
  let text = "";
  socket.on("data", (d: Buffer) => {
    text += d.toString();
  });
  socket.on("error", () => {});
  return { socket, received: () => text, closed: once(socket, "close") };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("header timeout", () => {
  it("closes a connection whose headers do not arrive in time", async () => {
    const slow = await open();
    slow.socket.write("GET /fast HTTP/1.1\r\nHo");
    await slow.closed;
    assert.equal(slow.received(), "");
  });

  it("serves a request whose headers arrived in time while the event loop was stalled", async () => {
    const waiting = await open();
    const staller = await open();
    // The request begins (the server has read its start); its end arrives during the stall,
    // which outlasts the timeout.
    waiting.socket.write("GET /fast HTTP/1.1\r\nHo");
    await until(
      () => (serverRead.get(waiting.socket.localPort ?? 0) ?? 0) > 0,
      "the server to read the start",
    );
    pending = { socket: waiting.socket, rest: "st: x\r\n\r\n" };
    staller.socket.write("GET /stall HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => staller.received().endsWith("stalled"), "the stalling request");
    await until(() => waiting.received().endsWith("fast") || waiting.socket.destroyed, "the waiting request");
    assert.match(waiting.received(), /^HTTP\/1\.1 200 OK/);
    waiting.socket.destroy();
    staller.socket.destroy();
  });

  it("serves a pipelined request whose headers finish after the response before it, however long that took", async () => {
    const client = await open();
    // The second request begins behind the first; its headers end only once the first is answered.
    client.socket.write("GET /held HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHo");
    await until(() => release !== undefined, "the first request to be held");
    // The server's check has found the second request's headers late.
    await until(() => timedOut.has(client.socket.localPort ?? 0), "the header timeout to fire");
    (release as () => void)();
    await until(() => client.received().includes("held") || client.socket.destroyed, "the first answer");
    client.socket.write("st: x\r\n\r\n");
    await until(() => client.received().endsWith("fast") || client.socket.destroyed, "the second answer");
    assert.match(client.received(), /held[\s\S]*HTTP\/1\.1 200 OK[\s\S]*fast$/);
    client.socket.destroy();
  });
});

describe("request loggers", () => {
  it("are made for a request only when it logs, bound to its request id", async () => {
    const lines: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
    let children = 0;
    const child = log.child.bind(log);
    log.child = ((...args: Parameters<typeof child>) => {
      children++;
      return child(...args);
    }) as typeof log.child;
    const ca = await createAuthority("test-ca");
    const serving = await issueCertificate(ca, { commonName: "s", usage: "server", altNames: ["127.0.0.1"] });
    const logged = createServer(
      { certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem: ca.certPem },
      log,
    );
    logged.get("/quiet", async () => "quiet");
    logged.get("/loud", async (req) => {
      req.log.info({ level: req.log.level }, "loud");
      return "loud";
    });
    await logged.listen({ host: "127.0.0.1", port: 0 });
    try {
      const loggedPort = (logged.server.address() as { port: number }).port;
      const get = async (path: string) => {
        const socket = connect({ host: "127.0.0.1", port: loggedPort, rejectUnauthorized: false });
        await once(socket, "secureConnect");
        let text = "";
        socket.on("data", (d: Buffer) => {
          text += d.toString();
        });
        socket.end(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        await once(socket, "close");
        return text;
      };
      const before = children;
      assert.match(await get("/quiet"), /quiet$/);
      assert.match(await get("/quiet"), /quiet$/);
      assert.equal(children, before, "no logger made for requests that do not log");
      assert.match(await get("/loud"), /loud$/);
      assert.equal(children, before + 1);
      const line = JSON.parse(lines.find((l) => l.includes('"loud"')) ?? "{}") as Record<string, unknown>;
      assert.equal(line.msg, "loud");
      assert.equal(typeof line.reqId, "string");
    } finally {
      await logged.close();
    }
  });
});
