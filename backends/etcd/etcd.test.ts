// etcd-specific behaviour against a real etcd server: error mapping, watch payloads, progress,
// compaction, paged lists, and what happens when etcd is missing or restarts. The shared
// conformance suite covers the rest of the contract.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type EtcdServer, etcdSkipReason, startEtcd } from "../../test/support/etcd.ts";
import { eventually, nextWithin, take } from "../../test/support/watch.ts";
import {
  AlreadyExistsError,
  ConflictError,
  isStorageError,
  NotFoundError,
  type Storage,
  TooOldError,
  UnavailableError,
  type WatchEvent,
} from "../contract/index.ts";
import { createEtcdStorage, type EtcdStorageOptions } from "./index.ts";

const prefix = () => `/test/${randomUUID().slice(0, 8)}/`;

/** Reads events until a progress at or above `revision` arrives; returns everything read. */
async function untilProgress(iterator: AsyncIterator<WatchEvent>, revision: number): Promise<WatchEvent[]> {
  const seen: WatchEvent[] = [];
  for (;;) {
    const step = await nextWithin(iterator, 5_000);
    assert.ok(step && !step.done, `no progress >= ${revision} arrived; saw ${JSON.stringify(seen)}`);
    seen.push(step.value);
    if (step.value.type === "progress" && step.value.revision >= revision) return seen;
  }
}

/** Writes `key` and reads the watch until its event: the watch is open and delivering. */
async function seenOpen(s: Storage, iterator: AsyncIterator<WatchEvent>, key: string): Promise<number> {
  const kv = await s.create(key, "open");
  for (;;) {
    const step = await nextWithin(iterator, 5_000);
    assert.ok(step && !step.done, `no event for ${key}`);
    if (step.value.type === "put" && step.value.kv.key === key) return kv.modRevision;
  }
}

/** A port where nothing listens (it was free a moment ago). */
async function deadEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address && typeof address === "object");
  return `http://127.0.0.1:${address.port}`;
}

describe("etcd storage", { skip: etcdSkipReason() }, () => {
  let etcd: EtcdServer;
  const opened: Storage[] = [];

  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    for (const storage of opened) await storage.close();
    await etcd?.stop();
  });

  async function open(options: Partial<EtcdStorageOptions> = {}): Promise<Storage> {
    const storage = await createEtcdStorage({ endpoints: [etcd.endpoint], ...options });
    opened.push(storage);
    return storage;
  }

  it("is named etcd and uses etcd's revisions", async () => {
    const s = await open();
    assert.equal(s.name, "etcd");
    const start = await s.currentRevision();
    const kv = await s.create(`${prefix()}a`, "v1");
    assert.equal(kv.createRevision, start + 1);
    assert.equal(kv.modRevision, start + 1);
    assert.equal(await s.currentRevision(), start + 1);
    assert.deepEqual(await s.get(kv.key), kv);
    assert.equal(await s.get(`${prefix()}missing`), undefined);
  });

  it("maps failed preconditions to AlreadyExists, Conflict and NotFound", async () => {
    const s = await open();
    const p = prefix();
    const v1 = await s.create(`${p}a`, "v1");
    await assert.rejects(s.create(`${p}a`, "again"), AlreadyExistsError);

    const v2 = await s.update(`${p}a`, "v2", v1.modRevision);
    assert.equal(v2.createRevision, v1.createRevision);
    assert.ok(v2.modRevision > v1.modRevision);

    await assert.rejects(s.update(`${p}a`, "stale", v1.modRevision), (err: unknown) => {
      assert.ok(err instanceof ConflictError);
      assert.deepEqual(err.current, v2);
      assert.equal(err.expectedRevision, v1.modRevision);
      return true;
    });
    await assert.rejects(s.update(`${p}nope`, "x", v1.modRevision), NotFoundError);
    // Revision 0 must not turn an update into a create (etcd reports 0 for absent keys).
    await assert.rejects(s.update(`${p}nope`, "x", 0), NotFoundError);
    assert.equal(await s.get(`${p}nope`), undefined);
    await assert.rejects(s.update(`${p}a`, "x", 0), ConflictError);

    await assert.rejects(s.delete(`${p}a`, v1.modRevision), (err: unknown) => {
      assert.ok(err instanceof ConflictError);
      assert.deepEqual(err.current, v2);
      return true;
    });
    await assert.rejects(s.delete(`${p}nope`), NotFoundError);
    await assert.rejects(s.delete(`${p}nope`, 7), NotFoundError);

    const removed = await s.delete(`${p}a`, v2.modRevision);
    assert.deepEqual(removed.prev, v2);
    assert.equal(removed.revision, await s.currentRevision());
    await assert.rejects(s.delete(`${p}a`), NotFoundError);
  });

  it("watches puts and deletes with their previous values", async () => {
    const s = await open();
    const p = prefix();
    const start = await s.currentRevision();
    const ac = new AbortController();
    const watch = s.watch(p, start, ac.signal);
    const a1 = await s.create(`${p}a`, "1");
    const a2 = await s.update(`${p}a`, "2", a1.modRevision);
    await s.create(`/elsewhere/${randomUUID()}`, "not watched");
    const removed = await s.delete(`${p}a`);
    const events = await take(watch, 3);
    ac.abort();
    assert.deepEqual(events, [
      { type: "put", kv: a1 },
      { type: "put", kv: a2, prev: a1 },
      { type: "delete", key: `${p}a`, revision: removed.revision, prev: a2 },
    ]);
  });

  it("delivers a progress event on request after the events committed before it", async () => {
    const s = await open();
    const p = prefix();
    const start = await s.currentRevision();
    const written = [];
    for (let i = 0; i < 5; i++) written.push(await s.create(`${p}${i}`, `v${i}`));
    await s.create(`/elsewhere/${randomUUID()}`, "moves the store revision only");
    const target = await s.currentRevision();

    // Starting in the past makes etcd replay history; the progress must not overtake it.
    const ac = new AbortController();
    const watch = s.watch(p, start, ac.signal);
    watch.requestProgress();
    const seen = await untilProgress(watch[Symbol.asyncIterator](), target);
    const puts = seen.filter((e) => e.type === "put").map((e) => (e.type === "put" ? e.kv : undefined));
    assert.deepEqual(puts, written);
    assert.equal(seen.at(-1)?.type, "progress");

    // Idle and in sync: a second request reports the store revision with no events.
    await s.create(`/elsewhere/${randomUUID()}`, "x");
    const later = await s.currentRevision();
    watch.requestProgress();
    const again = await untilProgress(watch[Symbol.asyncIterator](), later);
    assert.deepEqual(
      again.map((e) => e.type),
      again.map(() => "progress"),
    );
    ac.abort();
  });

  it("keeps progress behind events under a stream of writes", async () => {
    const s = await open();
    const p = prefix();
    const ac = new AbortController();
    const watch = s.watch(p, await s.currentRevision(), ac.signal);
    const iterator = watch[Symbol.asyncIterator]();
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) await s.create(`${p}${i}`, "x".repeat(100));
    })();
    let last = 0;
    try {
      for (let round = 0; round < 20; round++) {
        const target = await s.currentRevision();
        watch.requestProgress();
        let events: WatchEvent[];
        try {
          events = await untilProgress(iterator, target);
        } catch (err) {
          // etcd before 3.4.31 can answer a progress request ahead of events it still owes; the
          // backend notices and ends the watch with TooOld so its consumer re-lists. That is the
          // one acceptable way out; a silent out-of-order delivery fails below.
          assert.ok(err instanceof TooOldError, String(err));
          assert.match(err.message, /after reporting progress/);
          return;
        }
        for (const event of events) {
          const revision = event.type === "put" ? event.kv.modRevision : event.revision;
          assert.ok(revision >= last, `revision ${revision} after ${last}`);
          if (event.type !== "progress") assert.ok(revision > last, `event ${revision} not after ${last}`);
          last = revision;
        }
      }
    } finally {
      writing = false;
      await writer;
      ac.abort();
    }
  });

  it("fails watches below the compacted revision with TooOld", async () => {
    const s = await open();
    const p = prefix();
    const a = await s.create(`${p}a`, "1");
    const b = await s.update(`${p}a`, "2", a.modRevision);
    await s.compact(b.modRevision);

    const ac = new AbortController();
    await assert.rejects(take(s.watch(p, b.modRevision - 1, ac.signal), 1), (err: unknown) => {
      assert.ok(err instanceof TooOldError);
      assert.equal(err.requested, b.modRevision - 1);
      assert.equal(err.oldest, b.modRevision);
      return true;
    });
    await assert.rejects(take(s.watch(p, 0, ac.signal), 1), TooOldError);

    // At the compacted revision itself the watch works.
    const watch = s.watch(p, b.modRevision, ac.signal);
    const c = await s.update(`${p}a`, "3", b.modRevision);
    assert.deepEqual(await take(watch, 1), [{ type: "put", kv: c, prev: b }]);
    ac.abort();

    // Compacting again at or below, or beyond the last write, is not an error.
    await s.compact(a.modRevision);
    await s.compact(b.modRevision);
    await s.compact((await s.currentRevision()) + 100);
    await assert.rejects(take(s.watch(p, c.modRevision - 1, new AbortController().signal), 1), TooOldError);
  });

  it("lists a prefix in pages from one snapshot", async () => {
    const s = await open({ pageSize: 3 });
    const p = prefix();
    const written = new Map<string, number>();
    for (let i = 0; i < 10; i++) {
      const kv = await s.create(`${p}${String(i).padStart(2, "0")}`, `v${i}`);
      written.set(kv.key, kv.modRevision);
    }
    await s.create(`${p.slice(0, -1)}0/outside`, "just after the prefix range");
    const all = await s.list(p);
    assert.equal(all.revision, await s.currentRevision());
    assert.deepEqual(
      all.items.map((kv) => kv.key),
      [...written.keys()],
    );

    // Writes racing with the paging must not leak into the snapshot.
    const single = await open({ pageSize: 1 });
    let writing = true;
    const writer = (async () => {
      for (let i = 10; writing; i++) {
        const kv = await s.create(`${p}${String(i).padStart(2, "0")}`, `v${i}`);
        written.set(kv.key, kv.modRevision);
      }
    })();
    let listed: Awaited<ReturnType<Storage["list"]>>;
    try {
      const before = written.size;
      await eventually(() => written.size > before, 10_000, "the writer under way");
      listed = await single.list(p);
    } finally {
      writing = false;
      await writer;
    }
    const expected = [...written].filter(([, rev]) => rev <= listed.revision).map(([key]) => key);
    assert.deepEqual(
      listed.items.map((kv) => kv.key),
      expected.sort(),
    );
    assert.ok(expected.length < written.size, "the writer should have outrun the snapshot");
  });

  it("delivers catch-up batches larger than gRPC's default message limit", async () => {
    const s = await open();
    const p = prefix();
    const start = await s.currentRevision();
    const value = "y".repeat(16 * 1024);
    for (let i = 0; i < 400; i++) await s.create(`${p}${i}`, value);
    const ac = new AbortController();
    const events = await take(s.watch(p, start, ac.signal), 400, 30_000);
    ac.abort();
    assert.equal(events.length, 400);
    assert.ok(events.every((e) => e.type === "put" && e.kv.value === value));
  });

  it("ends iteration cleanly when the signal aborts", async () => {
    const s = await open();
    const ac = new AbortController();
    const p = prefix();
    const iterator = s.watch(p, await s.currentRevision(), ac.signal)[Symbol.asyncIterator]();
    await seenOpen(s, iterator, `${p}open`);
    const pending = iterator.next();
    ac.abort();
    assert.deepEqual(await pending, { done: true, value: undefined });
  });

  it("keeps each prefix's keys apart, and hands keys back without the prefix", async () => {
    const a = await open({ keyPrefix: "/gw-a/" });
    const sibling = await open({ keyPrefix: "/gw-a2" });
    const top = await open({ keyPrefix: "" });
    const ac = new AbortController();
    const events = a.watch("", await a.currentRevision(), ac.signal)[Symbol.asyncIterator]();
    const kv = await a.create("/core/configmaps/ns/one", "v1");
    assert.equal(kv.key, "/core/configmaps/ns/one");
    await sibling.create("/core/configmaps/ns/two", "v2");
    const updated = await a.update(kv.key, "v1b", kv.modRevision);

    assert.deepEqual(
      (await a.list("")).items.map((i) => [i.key, i.value]),
      [["/core/configmaps/ns/one", "v1b"]],
    );
    assert.deepEqual(
      (await sibling.list("/core/")).items.map((i) => i.key),
      ["/core/configmaps/ns/two"],
    );
    assert.deepEqual(await a.get(kv.key), updated);
    assert.equal(await a.get("/core/configmaps/ns/two"), undefined);
    // In etcd itself the keys sit under their prefixes.
    assert.deepEqual(
      (await top.list("/gw-a")).items.map((i) => i.key),
      ["/gw-a/core/configmaps/ns/one", "/gw-a2/core/configmaps/ns/two"],
    );
    await assert.rejects(a.update(kv.key, "stale", kv.modRevision), (err: unknown) => {
      assert.ok(err instanceof ConflictError);
      assert.equal(err.current.key, kv.key);
      return true;
    });
    const removed = await a.delete(kv.key);
    assert.equal(removed.prev.key, kv.key);

    const seen: string[] = [];
    while (seen.length < 3) {
      const step = await nextWithin(events, 5_000);
      assert.ok(step && !step.done);
      const e = step.value;
      if (e.type === "put") seen.push(`put ${e.kv.key} ${e.kv.value} prev=${e.prev?.key ?? "-"}`);
      if (e.type === "delete") seen.push(`delete ${e.key} prev=${e.prev.key}`);
    }
    ac.abort();
    assert.deepEqual(seen, [
      "put /core/configmaps/ns/one v1 prev=-",
      "put /core/configmaps/ns/one v1b prev=/core/configmaps/ns/one",
      "delete /core/configmaps/ns/one prev=/core/configmaps/ns/one",
    ]);
  });

  it("refuses a prefix that is not a path", async () => {
    await assert.rejects(
      createEtcdStorage({ endpoints: [etcd.endpoint], keyPrefix: "registry" }),
      /must start with "\/"/,
    );
  });

  it("fails calls and watches with Unavailable after close", async () => {
    const s = await createEtcdStorage({ endpoints: [etcd.endpoint] });
    const ac = new AbortController();
    const p = prefix();
    const iterator = s.watch(p, await s.currentRevision(), ac.signal)[Symbol.asyncIterator]();
    await seenOpen(s, iterator, `${p}open`);
    const pending = iterator.next();
    await s.close();
    await assert.rejects(pending, UnavailableError);
    await assert.rejects(s.get("/a"), UnavailableError);
    await assert.rejects(take(s.watch("/", 0, ac.signal), 1), UnavailableError);
  });
});

describe("etcd storage with a small request limit", { skip: etcdSkipReason() }, () => {
  let etcd: EtcdServer;
  let s: Storage;

  before(async () => {
    // 64 KiB instead of the default 1.5 MiB; gRPC's own receive limit is 512 KiB above it.
    etcd = await startEtcd({ args: ["--max-request-bytes=65536"] });
    s = await createEtcdStorage({ endpoints: [etcd.endpoint] });
  });
  after(async () => {
    await s?.close();
    await etcd?.stop();
  });

  it("refuses values over etcd's limit with TooLarge, and keeps working", async () => {
    const p = prefix();
    const isTooLarge = (err: unknown) => isStorageError(err, "TooLarge");
    // Over --max-request-bytes: etcd's own refusal.
    await assert.rejects(s.create(`${p}big`, "x".repeat(100_000)), isTooLarge);
    // Over gRPC's receive limit as well: refused before etcd sees it.
    await assert.rejects(s.create(`${p}huge`, "x".repeat(1_000_000)), isTooLarge);
    const small = await s.create(`${p}big`, "small");
    await assert.rejects(s.update(`${p}big`, "x".repeat(100_000), small.modRevision), isTooLarge);
    assert.deepEqual(await s.get(`${p}big`), small, "nothing of a refused write is stored");
    const next = await s.update(`${p}big`, "still fine", small.modRevision);
    assert.equal(next.value, "still fine");
  });
});

// No etcd needed: these talk to ports where etcd is not.
describe("etcd storage without a server", () => {
  it("fails every call with Unavailable when nothing listens", { timeout: 20_000 }, async () => {
    const s = await createEtcdStorage({ endpoints: [await deadEndpoint()] });
    try {
      for (const call of [
        () => s.get("/a"),
        () => s.list("/"),
        () => s.create("/a", "v"),
        () => s.update("/a", "v", 3),
        () => s.delete("/a"),
        () => s.currentRevision(),
        () => s.compact(5),
        () => take(s.watch("/", 0, new AbortController().signal), 1),
      ]) {
        await assert.rejects(call(), (err: unknown) => isStorageError(err, "Unavailable"));
      }
    } finally {
      await s.close();
    }
  });

  it("fails with Unavailable when the server accepts but never answers", { timeout: 20_000 }, async () => {
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    assert.ok(address && typeof address === "object");
    const s = await createEtcdStorage({
      endpoints: [`http://127.0.0.1:${address.port}`],
      connectTimeoutMs: 1000,
    });
    try {
      await assert.rejects(s.get("/a"), UnavailableError);
      await assert.rejects(take(s.watch("/", 0, new AbortController().signal), 1), UnavailableError);
    } finally {
      await s.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

/** A CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl. */
function makeCertificates(
  dir: string,
): Record<"ca" | "serverCert" | "serverKey" | "clientCert" | "clientKey", string> {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.crt"),
    "-subj",
    "/CN=test-ca",
    "-days",
    "2",
  );
  for (const [name, usage] of [
    ["server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth"],
    ["client", "extendedKeyUsage=clientAuth"],
  ] as const) {
    openssl(
      "req",
      ...ec,
      "-keyout",
      file(`${name}.key`),
      "-out",
      file(`${name}.csr`),
      "-subj",
      `/CN=${name}`,
    );
    writeFileSync(file(`${name}.ext`), usage);
    openssl(
      "x509",
      "-req",
      "-in",
      file(`${name}.csr`),
      "-CA",
      file("ca.crt"),
      "-CAkey",
      file("ca.key"),
      "-CAcreateserial",
      "-out",
      file(`${name}.crt`),
      "-days",
      "2",
      "-extfile",
      file(`${name}.ext`),
    );
  }
  return {
    ca: file("ca.crt"),
    serverCert: file("server.crt"),
    serverKey: file("server.key"),
    clientCert: file("client.crt"),
    clientKey: file("client.key"),
  };
}

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("etcd storage over TLS", {
  skip: etcdSkipReason() || (!hasOpenssl() && "openssl not found"),
}, () => {
  it("connects with a CA and a client certificate", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "etcd-tls-"));
    let etcd: EtcdServer | undefined;
    try {
      const certs = makeCertificates(dir);
      etcd = await startEtcd({
        tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.ca },
      });
      assert.match(etcd.endpoint, /^https:/);
      const s = await createEtcdStorage({
        endpoints: [etcd.endpoint],
        caFile: certs.ca,
        certFile: certs.clientCert,
        keyFile: certs.clientKey,
      });
      try {
        const p = prefix();
        const ac = new AbortController();
        const watch = s.watch(p, await s.currentRevision(), ac.signal);
        const kv = await s.create(`${p}a`, "over tls");
        assert.deepEqual(await s.get(kv.key), kv);
        assert.deepEqual(await take(watch, 1), [{ type: "put", kv }]);
        ac.abort();
      } finally {
        await s.close();
      }
      // Without a client certificate etcd refuses the connection.
      const anonymous = await createEtcdStorage({ endpoints: [etcd.endpoint], caFile: certs.ca });
      try {
        await assert.rejects(anonymous.get("/a"), UnavailableError);
      } finally {
        await anonymous.close();
      }
    } finally {
      await etcd?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("etcd storage across an etcd restart", { skip: etcdSkipReason() }, () => {
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`survives a restart (${signal})`, { timeout: 60_000 }, async () => {
      const etcd = await startEtcd();
      const s = await createEtcdStorage({ endpoints: [etcd.endpoint] });
      try {
        const p = prefix();
        const a = await s.create(`${p}a`, "1");
        const ac = new AbortController();
        const iterator = s.watch(p, a.modRevision, ac.signal)[Symbol.asyncIterator]();
        const open = await seenOpen(s, iterator, `${p}open`);
        // Settled as soon as etcd goes away, which may be before `whileDown` runs.
        const broken = iterator.next().then(
          () => assert.fail("the watch should have failed"),
          (err: unknown) => err,
        );
        await etcd.restart({
          signal,
          whileDown: async () => {
            assert.ok((await broken) instanceof UnavailableError);
            await assert.rejects(s.get(`${p}a`), UnavailableError);
          },
        });
        // The first call after etcd is back succeeds: no lingering reconnect back-off.
        assert.deepEqual(await s.get(`${p}a`), a);
        const watch = s.watch(p, open, ac.signal);
        const b = await s.update(`${p}a`, "2", a.modRevision);
        assert.deepEqual(await take(watch, 1), [{ type: "put", kv: b, prev: a }]);
        ac.abort();
      } finally {
        await s.close();
        await etcd.stop();
      }
    });
  }
});
