import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Pool } from "undici";
import { RemoteTimeoutError, RemoteUnavailableError } from "../backends/aggregator/errors.ts";
import { type ClientSide, ProxyCall } from "../backends/aggregator/proxy-call.ts";

/** A plain HTTP peer: /small answers at once, /large streams 200 KiB, /hang holds until released. */
describe("ProxyCall", () => {
  const seen: string[] = [];
  const hanging: ServerResponse[] = [];
  let hangArrived: (() => void) | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.url ?? "");
    if (req.url === "/small") {
      res.writeHead(201, { "content-type": "application/json", "x-from": "peer", connection: "keep-alive" });
      res.end('{"ok":true}');
    } else if (req.url === "/large") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      for (let i = 0; i < 200; i++) res.write(Buffer.alloc(1024, i));
      res.end();
    } else {
      hanging.push(res);
      hangArrived?.();
    }
  });
  let origin = "";
  before(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const res of hanging) res.end();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /** Runs one call through `pool`; what the client side was given, and the bytes sent to it. */
  function call(
    pool: Pool,
    path: string,
    options: { timeoutMs?: number; leave?: AbortSignal } = {},
  ): { done: Promise<void>; heads: [number, Record<string, string | string[]>][]; body: () => Buffer } {
    const heads: [number, Record<string, string | string[]>][] = [];
    const chunks: Buffer[] = [];
    let following: { clientLeft(): void } | undefined;
    options.leave?.addEventListener("abort", () => following?.clientLeft());
    const client: ClientSide = {
      begin(status, headers) {
        heads.push([status, headers]);
        const out = new PassThrough();
        out.on("data", (c: Buffer) => chunks.push(c));
        return out;
      },
      follow(c) {
        following = c;
      },
    };
    const done = new Promise<void>((resolve, reject) => {
      const handler = new ProxyCall("v1.example.com", client, options.timeoutMs, resolve, reject);
      pool.dispatch({ path, method: "GET", headersTimeout: 0, bodyTimeout: 0 }, handler);
    });
    return { done, heads, body: () => Buffer.concat(chunks) };
  }

  it("sends a small answer on whole, without hop-by-hop headers", async () => {
    const pool = new Pool(origin);
    try {
      const c = call(pool, "/small", { timeoutMs: 10_000 });
      await c.done;
      assert.equal(c.heads.length, 1);
      const [status, headers] = c.heads[0] as [number, Record<string, string | string[]>];
      assert.equal(status, 201);
      assert.equal(headers["x-from"], "peer");
      assert.equal(headers["content-type"], "application/json");
      assert.equal(headers.connection, undefined);
      assert.equal(c.body().toString(), '{"ok":true}');
    } finally {
      await pool.close();
    }
  });

  it("streams an answer of unknown length as it comes", async () => {
    const pool = new Pool(origin);
    try {
      const c = call(pool, "/large");
      await c.done;
      assert.equal(c.heads[0]?.[0], 200);
      assert.equal(c.body().length, 200 * 1024);
      assert.equal(c.body()[150 * 1024], 150);
    } finally {
      await pool.close();
    }
  });

  it("a deadline that passes while the request waits for a connection fails it at once, and it is never sent", async () => {
    const pool = new Pool(origin, { connections: 1 });
    try {
      const arrived = new Promise<void>((r) => {
        hangArrived = r;
      });
      const first = call(pool, "/hang");
      await arrived;
      const queued = call(pool, "/queued-deadline", { timeoutMs: 20 });
      await assert.rejects(queued.done, RemoteTimeoutError);
      const left = new AbortController();
      const abandoned = call(pool, "/queued-left", { leave: left.signal });
      left.abort();
      await assert.rejects(abandoned.done, (err: unknown) => {
        assert.ok(err instanceof RemoteUnavailableError);
        assert.equal(err.apiService, "v1.example.com");
        assert.match(err.message, /^error trying to reach service: /);
        return true;
      });
      // The connection frees up: neither queued request reaches the peer, and the pool carries on.
      hanging.shift()?.end("done");
      await first.done;
      await call(pool, "/small").done;
      assert.deepEqual(
        seen.filter((p) => p.startsWith("/queued")),
        [],
      );
    } finally {
      await pool.close();
    }
  });

  it("a deadline that passes before the extension answers is a timeout, and the call to it ends", async () => {
    const pool = new Pool(origin);
    try {
      const arrived = new Promise<void>((r) => {
        hangArrived = r;
      });
      const c = call(pool, "/hang", { timeoutMs: 50 });
      await arrived;
      const res = hanging.at(-1) as ServerResponse;
      const closed = new Promise((r) => res.on("close", r));
      await assert.rejects(c.done, RemoteTimeoutError);
      await closed;
      assert.equal(c.heads.length, 0);
    } finally {
      await pool.close();
    }
  });
});
