import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  AlreadyExistsError,
  ConflictError,
  eventRevision,
  NotFoundError,
  type Revision,
  type Storage,
  TooOldError,
  UnavailableError,
  type WatchEvent,
} from "../contract/index.ts";
import { openEmbeddedStorage } from "./index.ts";
import { openDatabases } from "./lmdb-env.ts";

const root = await mkdtemp(join(tmpdir(), "embedded-test-"));
after(() => rm(root, { recursive: true, force: true }));

let dirs = 0;
const freshDir = () => join(root, `store-${++dirs}`);

/** Read `count` non-progress events, failing after 5 s. */
async function collect(iterator: AsyncIterator<WatchEvent>, count: number): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const deadline = Date.now() + 5_000;
  while (events.length < count) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${events.length} of ${count} events`)),
        deadline - Date.now(),
      );
    });
    const step = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
    assert.ok(!step.done, "watch ended early");
    if (step.value.type !== "progress") events.push(step.value);
  }
  return events;
}

/** How many records the log holds, read with lmdb directly (the store must be closed). */
async function logRecords(dir: string): Promise<number> {
  const dbs = openDatabases(dir, true);
  try {
    return dbs.log.getKeysCount();
  } finally {
    await dbs.env.close();
  }
}

describe("embedded storage", () => {
  it("creates, reads, updates and deletes with preconditions", async () => {
    const s = await openEmbeddedStorage({ dir: freshDir() });
    try {
      assert.equal(s.name, "embedded");
      assert.equal(await s.currentRevision(), 0);
      const a = await s.create("/g/r/ns/a", "A1");
      assert.deepEqual(a, { key: "/g/r/ns/a", value: "A1", createRevision: 1, modRevision: 1 });
      await assert.rejects(s.create("/g/r/ns/a", "again"), AlreadyExistsError);
      const b = await s.create("/g/r/ns/b", "B1");
      await s.create("/g/r/other/c", "C1");
      assert.deepEqual(await s.get("/g/r/ns/a"), a);
      assert.equal(await s.get("/g/r/ns/zzz"), undefined);

      const a2 = await s.update("/g/r/ns/a", "A2", a.modRevision);
      assert.equal(a2.createRevision, a.createRevision);
      assert.ok(a2.modRevision > b.modRevision);
      const conflict = await s.update("/g/r/ns/a", "A3", a.modRevision).catch((err: unknown) => err);
      assert.ok(conflict instanceof ConflictError);
      assert.deepEqual(conflict.current, a2);
      assert.equal(conflict.expectedRevision, a.modRevision);
      await assert.rejects(s.update("/g/r/ns/none", "x", 1), NotFoundError);
      await assert.rejects(s.delete("/g/r/ns/a", a.modRevision), ConflictError);
      await assert.rejects(s.delete("/g/r/ns/none"), NotFoundError);
      assert.deepEqual(await s.get("/g/r/ns/a"), a2, "failed preconditions change nothing");

      const list = await s.list("/g/r/ns/");
      assert.deepEqual(list.items, [a2, b]);
      assert.equal(list.revision, a2.modRevision);
      assert.deepEqual(
        (await s.list("")).items.map((i) => i.key),
        ["/g/r/ns/a", "/g/r/ns/b", "/g/r/other/c"],
      );
      assert.deepEqual((await s.list("/nothing/")).items, []);

      const del = await s.delete("/g/r/ns/a", a2.modRevision);
      assert.deepEqual(del.prev, a2);
      assert.ok(del.revision > a2.modRevision);
      assert.equal(await s.get("/g/r/ns/a"), undefined);
      await assert.rejects(s.update("/g/r/ns/a", "x", a2.modRevision), NotFoundError);
      const again = await s.create("/g/r/ns/a", "A-new");
      assert.equal(again.createRevision, del.revision + 1);
      const unconditional = await s.delete("/g/r/ns/a");
      assert.deepEqual(unconditional.prev, again);
      assert.equal(await s.currentRevision(), unconditional.revision);
      // Non-ASCII values and keys round-trip.
      const u = await s.create("/g/r/ns/ünï", '{"name":"ünïcode ✓"}');
      assert.deepEqual(await s.get("/g/r/ns/ünï"), u);
    } finally {
      await s.close();
    }
  });

  it("ends watches and refuses calls after close", async () => {
    const s = await openEmbeddedStorage({ dir: freshDir() });
    await s.create("/a/1", "x");
    const ac = new AbortController();
    const iterator = s.watch("/a/", 1, ac.signal)[Symbol.asyncIterator]();
    const pending = iterator.next();
    await s.close();
    await assert.rejects(pending, UnavailableError);
    await assert.rejects(s.get("/a/1"), UnavailableError);
    await assert.rejects(s.list("/a/"), UnavailableError);
    await assert.rejects(s.create("/a/2", "x"), UnavailableError);
    await assert.rejects(s.update("/a/1", "x", 1), UnavailableError);
    await assert.rejects(s.delete("/a/1"), UnavailableError);
    await assert.rejects(s.currentRevision(), UnavailableError);
    await assert.rejects(s.compact(1), UnavailableError);
    await s.close(); // idempotent
  });

  it("continues revisions and keeps history across a reopen", async () => {
    const dir = freshDir();
    let s: Storage = await openEmbeddedStorage({ dir });
    const a = await s.create("/h/a", "a1");
    const a2 = await s.update("/h/a", "a2", a.modRevision);
    const b = await s.create("/h/b", "b1");
    const del = await s.delete("/h/b");
    await s.close();

    s = await openEmbeddedStorage({ dir });
    try {
      assert.equal(await s.currentRevision(), del.revision);
      assert.deepEqual(await s.get("/h/a"), a2);
      const c = await s.create("/h/c", "c1");
      assert.equal(c.modRevision, del.revision + 1);

      const ac = new AbortController();
      const events = await collect(s.watch("/h/", 0, ac.signal)[Symbol.asyncIterator](), 5);
      ac.abort();
      assert.deepEqual(events, [
        { type: "put", kv: a },
        { type: "put", kv: a2, prev: a },
        { type: "put", kv: b },
        { type: "delete", key: "/h/b", revision: del.revision, prev: b },
        { type: "put", kv: c },
      ]);
    } finally {
      await s.close();
    }
  });

  it("compacts history, keeps the latest state, and stays compacted after a reopen", async () => {
    const dir = freshDir();
    let s: Storage = await openEmbeddedStorage({ dir });
    const a = await s.create("/c/a", "a1");
    const a2 = await s.update("/c/a", "a2", a.modRevision);
    const b = await s.create("/c/b", "b1");
    const gone = await s.create("/c/gone", "g");
    await s.delete("/c/gone", gone.modRevision);
    const mid = await s.currentRevision();
    // After the compaction point: an update whose prev lies below it, and a delete likewise.
    const a3 = await s.update("/c/a", "a3", a2.modRevision);
    const delB = await s.delete("/c/b", b.modRevision);
    await s.compact(mid);

    const ac = new AbortController();
    await assert.rejects(
      s
        .watch("/c/", mid - 1, ac.signal)
        [Symbol.asyncIterator]()
        .next(),
      TooOldError,
    );
    const tail = await collect(s.watch("/c/", mid, ac.signal)[Symbol.asyncIterator](), 2);
    assert.deepEqual(tail, [
      { type: "put", kv: a3, prev: a2 },
      { type: "delete", key: "/c/b", revision: delB.revision, prev: b },
    ]);
    assert.deepEqual((await s.list("/c/")).items, [a3]);
    await s.close();

    s = await openEmbeddedStorage({ dir });
    try {
      assert.equal(await s.currentRevision(), delB.revision);
      await assert.rejects(
        s
          .watch("/c/", mid - 1, ac.signal)
          [Symbol.asyncIterator]()
          .next(),
        TooOldError,
      );
      const again = await collect(s.watch("/c/", mid, ac.signal)[Symbol.asyncIterator](), 2);
      assert.deepEqual(again, tail);
      // Compacting everything leaves the live value alone.
      await s.compact(await s.currentRevision());
      assert.deepEqual(await s.get("/c/a"), a3);
      const next = await s.update("/c/a", "a4", a3.modRevision);
      assert.equal(next.modRevision, delB.revision + 1);
      await s.compact(10); // below the compaction point: nothing to do
    } finally {
      ac.abort();
      await s.close();
    }
    assert.equal(await logRecords(dir), 1, "only the record holding the live value remains");
  });

  it("compacts a long history in batches while writes go on", async () => {
    const dir = freshDir();
    const s = await openEmbeddedStorage({ dir });
    try {
      const keys = 20;
      const current = await Promise.all(Array.from({ length: keys }, (_, i) => s.create(`/big/${i}`, "v0")));
      for (let round = 1; round <= 150; round++) {
        await Promise.all(
          current.map(async (kv, i) => {
            current[i] = await s.update(kv.key, `v${round}`, kv.modRevision);
          }),
        );
      }
      const target = await s.currentRevision();
      const writes = Promise.all(
        current.map(async (kv, i) => {
          current[i] = await s.update(kv.key, "after", kv.modRevision);
        }),
      );
      await Promise.all([s.compact(target), writes]);
      for (const kv of current) assert.deepEqual(await s.get(kv.key), kv);
      const ac = new AbortController();
      const events = await collect(s.watch("/big/", target, ac.signal)[Symbol.asyncIterator](), keys);
      ac.abort();
      for (const e of events) {
        assert.equal(e.type, "put");
        if (e.type === "put") assert.equal(e.prev?.value, "v150");
      }
    } finally {
      await s.close();
    }
    // The 20 records holding the values before the compaction point, as prevs, and the 20 after.
    assert.equal(await logRecords(dir), 40);
  });

  it("finishes an interrupted cleanup when reopened", async () => {
    const dir = freshDir();
    let s: Storage = await openEmbeddedStorage({ dir });
    let kv = await s.create("/i/a", "0");
    for (let i = 1; i <= 10; i++) kv = await s.update("/i/a", String(i), kv.modRevision);
    await s.close();
    // A crash right after the compaction point was made durable, before any record was removed.
    const dbs = openDatabases(dir, true);
    await dbs.meta.put("compacted", kv.modRevision);
    await dbs.env.close();
    assert.equal(await logRecords(dir), 11);

    s = await openEmbeddedStorage({ dir });
    try {
      await s.compact(0); // waits for the cleanup already under way
      assert.deepEqual(await s.get("/i/a"), kv);
      const ac = new AbortController();
      await assert.rejects(s.watch("/i/", 0, ac.signal)[Symbol.asyncIterator]().next(), TooOldError);
    } finally {
      await s.close();
    }
    assert.equal(await logRecords(dir), 1);
  });

  it("loses no update under 64 concurrent compare-and-swap writers", async () => {
    const s = await openEmbeddedStorage({ dir: freshDir() });
    try {
      const key = "/cas/counter";
      await s.create(key, "0");
      const writers = 64;
      const perWriter = 5;
      let conflicts = 0;
      await Promise.all(
        Array.from({ length: writers }, async () => {
          for (let done = 0; done < perWriter; ) {
            const cur = await s.get(key);
            assert.ok(cur);
            try {
              await s.update(key, String(Number(cur.value) + 1), cur.modRevision);
              done++;
            } catch (err) {
              if (!(err instanceof ConflictError)) throw err;
              conflicts++;
            }
          }
        }),
      );
      assert.equal((await s.get(key))?.value, String(writers * perWriter));
      assert.ok(conflicts > 0, "the writers raced");
    } finally {
      await s.close();
    }
  });

  it("delivers every committed event exactly once, in order, under concurrent writes", async () => {
    const s = await openEmbeddedStorage({ dir: freshDir() });
    try {
      await s.create("/w/seed", "s");
      const start = await s.currentRevision();
      const ac = new AbortController();
      const iterator = s.watch("/w/", start, ac.signal)[Symbol.asyncIterator]();
      const first = iterator.next(); // subscribe before the writes start
      const acked: Revision[] = [];
      const writes = Promise.all(
        Array.from({ length: 32 }, async (_, i) => {
          const key = `/w/k${i}`;
          let kv = await s.create(key, "0");
          acked.push(kv.modRevision);
          for (let n = 1; n <= 5; n++) {
            kv = await s.update(key, String(n), kv.modRevision);
            acked.push(kv.modRevision);
          }
          acked.push((await s.delete(key, kv.modRevision)).revision);
          // Writes outside the prefix must not show up.
          await s.create(`/elsewhere/${i}`, "x");
        }),
      );
      const step = await first;
      assert.ok(!step.done);
      await writes;
      const events = [step.value, ...(await collect(iterator, acked.length - 1))];
      ac.abort();
      const revisions = events.map(eventRevision);
      assert.deepEqual(
        revisions,
        [...acked].sort((x, y) => x - y),
      );
      for (const e of events) {
        if (e.type === "put" && e.kv.value !== "0")
          assert.equal(Number(e.prev?.value), Number(e.kv.value) - 1);
        if (e.type === "delete") assert.equal(e.prev.value, "5");
      }
    } finally {
      await s.close();
    }
  });

  it("refuses a second instance on an open directory", async () => {
    const dir = freshDir();
    const s = await openEmbeddedStorage({ dir });
    await assert.rejects(openEmbeddedStorage({ dir: `${dir}/.` }), /already open/);
    await s.close();
    await (await openEmbeddedStorage({ dir })).close();
  });

  it("works without fsync when sync is false", async () => {
    const dir = freshDir();
    let s: Storage = await openEmbeddedStorage({ dir, sync: false });
    const a = await s.create("/ns/a", "1");
    await s.close();
    s = await openEmbeddedStorage({ dir, sync: false });
    try {
      assert.deepEqual(await s.get("/ns/a"), a);
    } finally {
      await s.close();
    }
  });
});
