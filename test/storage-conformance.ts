// The storage conformance suite: every backend runs the same cases (CRUD with preconditions,
// concurrent compare-and-swap, watch order and resumption, compaction) and the watch cache's
// resourceVersion rules on top of it. A backend's test file calls `storageConformance`.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import {
  Cacher,
  type CacheWatcher,
  ExpiredError,
  InvalidRequestError,
  TooLargeResourceVersionError,
  type WatchDelivery,
} from "../backends/cacher/index.ts";
import {
  AlreadyExistsError,
  ConflictError,
  eventRevision,
  NotFoundError,
  type Revision,
  type Storage,
  TooOldError,
  type WatchEvent,
} from "../backends/contract/index.ts";
import { parseFieldSelector, parseLabelSelector } from "../backends/selection/index.ts";
import { eventually, nextWithin, take } from "./support/watch.ts";

export interface BackendHarness {
  /** A storage handle; tests use fresh key prefixes, so one backend instance may be shared. */
  open(): Promise<Storage>;
  /** Release what `open` returned (close the storage; the harness may stop servers later). */
  release(storage: Storage): Promise<void>;
}

const obj = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ kind: "Thing", apiVersion: "v1", metadata: { name, namespace: "ns", ...extra } });

function uniquePrefix(): string {
  return `/test/${randomUUID().slice(0, 8)}/`;
}

async function withStorage(harness: BackendHarness, fn: (s: Storage, prefix: string) => Promise<void>) {
  const storage = await harness.open();
  try {
    await fn(storage, uniquePrefix());
  } finally {
    await harness.release(storage);
  }
}

async function withCacher(
  harness: BackendHarness,
  options: Partial<ConstructorParameters<typeof Cacher>[0]>,
  fn: (c: Cacher, s: Storage, prefix: string) => Promise<void>,
) {
  await withStorage(harness, async (storage, prefix) => {
    const cacher = new Cacher({ storage, prefix, waitTimeoutMs: 500, ...options });
    await cacher.start();
    try {
      await fn(cacher, storage, prefix);
    } finally {
      await cacher.stop();
    }
  });
}

function names(items: { json: string }[]): string[] {
  return items.map((i) => (JSON.parse(i.json) as { metadata: { name: string } }).metadata.name);
}

function deliveryName(d: WatchDelivery): string | undefined {
  return d.type === "ADDED" || d.type === "MODIFIED" || d.type === "DELETED"
    ? (JSON.parse(d.item.json) as { metadata: { name: string } }).metadata.name
    : undefined;
}

export function storageConformance(backend: string, harness: BackendHarness): void {
  describe(`storage conformance: ${backend}`, () => {
    it("creates, reads and lists with revisions", async () => {
      await withStorage(harness, async (s, p) => {
        const before = await s.currentRevision();
        const a = await s.create(`${p}ns/a`, obj("a"));
        assert.ok(a.modRevision > before);
        assert.equal(a.createRevision, a.modRevision);
        const b = await s.create(`${p}ns/b`, obj("b"));
        assert.ok(b.modRevision > a.modRevision, "revisions strictly increase");
        assert.deepEqual(await s.get(`${p}ns/a`), a);
        assert.equal(await s.get(`${p}ns/missing`), undefined);
        await s.create(`${p.slice(0, -1)}x/ns/c`, obj("c")); // a sibling prefix stays out of the list
        const list = await s.list(p);
        assert.deepEqual(
          list.items.map((i) => i.key),
          [`${p}ns/a`, `${p}ns/b`],
        );
        assert.ok(list.revision >= b.modRevision);
        assert.equal((await s.currentRevision()) >= list.revision, true);
      });
    });

    it("enforces create, update and delete preconditions", async () => {
      await withStorage(harness, async (s, p) => {
        const key = `${p}ns/a`;
        const a = await s.create(key, obj("a"));
        await assert.rejects(s.create(key, obj("a")), AlreadyExistsError);
        const b = await s.update(key, obj("a", { labels: { v: "2" } }), a.modRevision);
        assert.equal(b.createRevision, a.createRevision);
        assert.ok(b.modRevision > a.modRevision);
        const conflict = await s.update(key, obj("a"), a.modRevision).then(
          () => assert.fail("stale update succeeded"),
          (err: unknown) => err,
        );
        assert.ok(conflict instanceof ConflictError);
        assert.deepEqual(conflict.current, b);
        await assert.rejects(s.update(`${p}ns/none`, obj("none"), 1), NotFoundError);
        await assert.rejects(s.delete(key, a.modRevision), ConflictError);
        assert.deepEqual(await s.get(key), b, "a failed precondition changes nothing");
        const del = await s.delete(key, b.modRevision);
        assert.deepEqual(del.prev, b);
        assert.ok(del.revision > b.modRevision);
        await assert.rejects(s.delete(key), NotFoundError);
        assert.equal(await s.get(key), undefined);
        const again = await s.create(key, obj("a"));
        assert.ok(again.createRevision > del.revision, "a deleted name can be reused");
        await s.delete(key); // without a precondition
      });
    });

    it("loses no update under concurrent compare-and-swap writers", async () => {
      await withStorage(harness, async (s, p) => {
        const key = `${p}ns/counter`;
        await s.create(key, JSON.stringify({ n: 0 }));
        const writers = 16;
        const perWriter = 10;
        let conflicts = 0;
        const writer = async () => {
          for (let done = 0; done < perWriter; ) {
            const cur = await s.get(key);
            assert.ok(cur);
            const n = (JSON.parse(cur.value) as { n: number }).n;
            try {
              await s.update(key, JSON.stringify({ n: n + 1 }), cur.modRevision);
              done++;
            } catch (err) {
              if (!(err instanceof ConflictError)) throw err;
              conflicts++;
            }
          }
        };
        await Promise.all(Array.from({ length: writers }, writer));
        const final = await s.get(key);
        assert.equal((JSON.parse(final?.value ?? "{}") as { n: number }).n, writers * perWriter);
        assert.ok(conflicts >= 0);
      });
    });

    it("delivers every change in order with previous values, and resumes after a reconnect", async () => {
      await withStorage(harness, async (s, p) => {
        const start = await s.currentRevision();
        const ac = new AbortController();
        const stream = s.watch(p, start, ac.signal);
        const iterator = stream[Symbol.asyncIterator]();
        // 40 concurrent writers, each creating, updating, then deleting its own key.
        const acked: Revision[] = [];
        await Promise.all(
          Array.from({ length: 40 }, async (_, i) => {
            const key = `${p}ns/k${i}`;
            const c = await s.create(key, obj(`k${i}`));
            const u = await s.update(key, obj(`k${i}`, { labels: { u: "1" } }), c.modRevision);
            const d = await s.delete(key, u.modRevision);
            acked.push(c.modRevision, u.modRevision, d.revision);
          }),
        );
        const events: WatchEvent[] = [];
        const firstHalf = acked.length / 2;
        while (events.length < firstHalf) {
          const step = await nextWithin(iterator, 5_000);
          assert.ok(step && !step.done, "watch delivered within 5 s");
          if (step.value.type !== "progress") events.push(step.value);
        }
        ac.abort(); // disconnect half way, then resume from the last revision seen
        await iterator.return?.();
        const resumeFrom = eventRevision(events[events.length - 1] as WatchEvent);
        const ac2 = new AbortController();
        const rest = s.watch(p, resumeFrom, ac2.signal)[Symbol.asyncIterator]();
        while (events.length < acked.length) {
          const step = await nextWithin(rest, 5_000);
          assert.ok(step && !step.done, "resumed watch delivered within 5 s");
          if (step.value.type !== "progress") events.push(step.value);
        }
        ac2.abort();
        await rest.return?.();
        const revs = events.map(eventRevision);
        for (let i = 1; i < revs.length; i++)
          assert.ok((revs[i] as number) > (revs[i - 1] as number), "in order");
        assert.deepEqual(
          [...revs].sort((a, b) => a - b),
          [...acked].sort((a, b) => a - b),
          "complete, no duplicates",
        );
        for (const e of events) {
          if (e.type === "put" && e.kv.createRevision !== e.kv.modRevision) {
            assert.ok(e.prev, "an update carries the previous value");
            assert.equal(e.prev.modRevision, e.kv.createRevision);
          }
          if (e.type === "delete")
            assert.ok(e.prev.value.includes('"u":"1"'), "a delete carries the last value");
        }
      });
    });

    it("answers a progress request with a revision covering every earlier write", async () => {
      await withStorage(harness, async (s, p) => {
        const ac = new AbortController();
        const stream = s.watch(p, await s.currentRevision(), ac.signal);
        const iterator = stream[Symbol.asyncIterator]();
        // A write elsewhere moves the store's revision without an event on this prefix.
        const other = await s.create(`${uniquePrefix()}ns/x`, obj("x"));
        stream.requestProgress();
        let progress: Revision | undefined;
        while (progress === undefined || progress < other.modRevision) {
          const step = await nextWithin(iterator, 5_000);
          assert.ok(step && !step.done, "progress arrives");
          if (step.value.type === "progress") progress = step.value.revision;
          if (progress !== undefined && progress < other.modRevision) stream.requestProgress();
        }
        ac.abort();
        await iterator.return?.();
      });
    });

    it("reports TooOld for a watch below the compacted revision", async () => {
      await withStorage(harness, async (s, p) => {
        const a = await s.create(`${p}ns/a`, obj("a"));
        const b = await s.update(`${p}ns/a`, obj("a", { labels: { x: "y" } }), a.modRevision);
        await s.create(`${p}ns/b`, obj("b"));
        await s.compact(b.modRevision);
        const ac = new AbortController();
        const old = s.watch(p, a.modRevision - 1, ac.signal)[Symbol.asyncIterator]();
        await assert.rejects(old.next(), TooOldError);
        // Latest state survives compaction, and watching from the compacted revision works.
        assert.equal((await s.get(`${p}ns/a`))?.modRevision, b.modRevision);
        const ok = s.watch(p, b.modRevision, ac.signal)[Symbol.asyncIterator]();
        const first = await nextWithin(ok, 5_000);
        assert.ok(first && !first.done && first.value.type === "put");
        assert.equal(first.value.kv.key, `${p}ns/b`);
        ac.abort();
        await ok.return?.();
      });
    });

    describe("watch cache over this backend", () => {
      it("get: unset is most recent, 0 is any, a number is not older than", async () => {
        await withCacher(harness, {}, async (c, s, p) => {
          const a = await s.create(`${p}ns/a`, obj("a"));
          // Most recent: a write acknowledged before the read is always seen.
          const got = await c.get(`${p}ns/a`);
          assert.equal(got?.revision, a.modRevision);
          assert.equal(JSON.parse(got?.json ?? "{}").metadata.resourceVersion, String(a.modRevision));
          assert.ok(await c.get(`${p}ns/a`, "0"));
          assert.equal((await c.get(`${p}ns/a`, String(a.modRevision)))?.revision, a.modRevision);
          const future = (await s.currentRevision()) + 1000;
          await assert.rejects(c.get(`${p}ns/a`, String(future)), TooLargeResourceVersionError);
          await assert.rejects(c.get(`${p}ns/a`, "abc"), InvalidRequestError);
        });
      });

      it("list: every cell of the resourceVersion table", async () => {
        await withCacher(harness, {}, async (c, s, p) => {
          const a = await s.create(`${p}ns/a`, obj("a"));
          const b = await s.create(`${p}ns/b`, obj("b"));
          const atB = await s.currentRevision();
          await s.update(`${p}ns/a`, obj("a", { labels: { v: "2" } }), a.modRevision);
          await s.delete(`${p}ns/b`, b.modRevision);
          const cc = await s.create(`${p}ns/c`, obj("c"));
          const keyPrefix = p;
          // No match, no limit: unset = most recent, 0 = any, n = not older than.
          let r = await c.list({ keyPrefix });
          assert.deepEqual(names(r.items), ["a", "c"]);
          assert.ok(r.revision >= cc.modRevision);
          r = await c.list({ keyPrefix, resourceVersion: "0" });
          assert.deepEqual(names(r.items), ["a", "c"]);
          r = await c.list({ keyPrefix, resourceVersion: String(atB) });
          assert.ok(r.revision >= atB, "not older than");
          assert.deepEqual(names(r.items), ["a", "c"]);
          // No match, limit: n = exact.
          r = await c.list({ keyPrefix, resourceVersion: String(atB), limit: 10 });
          assert.equal(r.revision, atB);
          assert.deepEqual(names(r.items), ["a", "b"]);
          assert.equal(JSON.parse(r.items[0]?.json ?? "{}").metadata.labels, undefined, "a as it was");
          r = await c.list({ keyPrefix, limit: 1 });
          assert.deepEqual(names(r.items), ["a"]);
          assert.equal(r.remainingItemCount, 1);
          assert.ok(r.continue);
          // Continue: exact at the token's revision; rv=0 is ignored; another rv is a 400.
          const next = await c.list({ keyPrefix, limit: 1, continue: r.continue });
          assert.deepEqual(names(next.items), ["c"]);
          assert.equal(next.continue, undefined);
          assert.equal(next.remainingItemCount, undefined);
          const zero = await c.list({ keyPrefix, limit: 1, continue: r.continue, resourceVersion: "0" });
          assert.deepEqual(names(zero.items), ["c"]);
          await assert.rejects(
            c.list({ keyPrefix, limit: 1, continue: r.continue, resourceVersion: String(atB) }),
            /specifying resource version is not allowed when using continue/,
          );
          // resourceVersionMatch=Exact.
          r = await c.list({ keyPrefix, resourceVersion: String(atB), resourceVersionMatch: "Exact" });
          assert.deepEqual(names(r.items), ["a", "b"]);
          assert.equal(r.revision, atB);
          await assert.rejects(c.list({ keyPrefix, resourceVersionMatch: "Exact" }), InvalidRequestError);
          await assert.rejects(
            c.list({ keyPrefix, resourceVersion: "0", resourceVersionMatch: "Exact" }),
            InvalidRequestError,
          );
          // resourceVersionMatch=NotOlderThan.
          await assert.rejects(
            c.list({ keyPrefix, resourceVersionMatch: "NotOlderThan" }),
            InvalidRequestError,
          );
          r = await c.list({ keyPrefix, resourceVersion: "0", resourceVersionMatch: "NotOlderThan" });
          assert.deepEqual(names(r.items), ["a", "c"]);
          r = await c.list({
            keyPrefix,
            resourceVersion: String(atB),
            resourceVersionMatch: "NotOlderThan",
            limit: 5,
          });
          assert.ok(r.revision >= atB);
          assert.deepEqual(names(r.items), ["a", "c"]);
          await assert.rejects(
            c.list({ keyPrefix, resourceVersion: String(atB), resourceVersionMatch: "Bogus" }),
            /Unsupported value/,
          );
          await assert.rejects(
            c.list({
              keyPrefix,
              resourceVersion: "0",
              resourceVersionMatch: "NotOlderThan",
              continue: r.continue ?? "x",
            }),
            /forbidden when continue is provided/,
          );
          // A revision the store has not reached: 504 after the wait.
          const future = String((await s.currentRevision()) + 1000);
          await assert.rejects(c.list({ keyPrefix, resourceVersion: future }), TooLargeResourceVersionError);
          await assert.rejects(
            c.list({ keyPrefix, resourceVersion: future, limit: 1 }),
            TooLargeResourceVersionError,
          );
        });
      });

      it("list: an exact revision or continue token older than the history window is 410", async () => {
        await withCacher(harness, { maxHistory: 2 }, async (c, s, p) => {
          for (const n of ["a", "b", "c"]) await s.create(`${p}ns/${n}`, obj(n));
          const first = await c.list({ keyPrefix: p, limit: 1 });
          for (const n of ["d", "e", "f"]) await s.create(`${p}ns/${n}`, obj(n));
          await c.list({ keyPrefix: p }); // catch up
          const err = await c.list({ keyPrefix: p, limit: 1, continue: first.continue }).then(
            () => assert.fail("expired token accepted"),
            (e: unknown) => e,
          );
          assert.ok(err instanceof ExpiredError);
          assert.ok(err.continueToken, "offers a token that continues at the latest revision");
          const inconsistent = await c.list({ keyPrefix: p, limit: 10, continue: err.continueToken });
          assert.deepEqual(names(inconsistent.items), ["b", "c", "d", "e", "f"]);
          await assert.rejects(
            c.list({ keyPrefix: p, resourceVersion: String(first.revision), resourceVersionMatch: "Exact" }),
            /too old/,
          );
          for (const bad of [
            "%%%",
            "eyJ2IjoiYzEifQ",
            Buffer.from('{"v":"c1","rv":5,"after":"../x"}').toString("base64url"),
          ]) {
            await assert.rejects(c.list({ keyPrefix: p, limit: 1, continue: bad }), InvalidRequestError);
          }
        });
      });

      it("list: label and field selectors, namespaces, no remainingItemCount with selectors", async () => {
        await withCacher(harness, {}, async (c, s, p) => {
          for (let i = 0; i < 6; i++) {
            const ns = i % 2 ? "odd" : "even";
            await s.create(
              `${p}${ns}/o${i}`,
              JSON.stringify({
                metadata: { name: `o${i}`, namespace: ns, labels: { tier: i < 3 ? "web" : "db" } },
              }),
            );
          }
          const fields = new Set(["metadata.name", "metadata.namespace"]);
          let r = await c.list({ keyPrefix: `${p}odd/` });
          assert.deepEqual(names(r.items), ["o1", "o3", "o5"]);
          r = await c.list({ keyPrefix: p, labelSelector: parseLabelSelector("tier=web") });
          assert.deepEqual(new Set(names(r.items)), new Set(["o0", "o1", "o2"]));
          r = await c.list({
            keyPrefix: p,
            labelSelector: parseLabelSelector("tier in (db),tier!=web"),
            limit: 1,
          });
          assert.equal(r.items.length, 1);
          assert.equal(r.remainingItemCount, undefined, "omitted with a selector");
          r = await c.list({ keyPrefix: p, fieldSelector: parseFieldSelector("metadata.name=o4", fields) });
          assert.deepEqual(names(r.items), ["o4"]);
          r = await c.list({
            keyPrefix: p,
            fieldSelector: parseFieldSelector("metadata.namespace!=odd", fields),
          });
          assert.deepEqual(new Set(names(r.items)), new Set(["o0", "o2", "o4"]));
        });
      });

      it("list: pages stay one consistent snapshot while writes continue", async () => {
        await withCacher(harness, {}, async (c, s, p) => {
          const state = new Map<string, { rev: Revision; value: string } | null>();
          for (let i = 0; i < 120; i++) {
            const key = `${p}ns/o${String(i).padStart(3, "0")}`;
            const kv = await s.create(key, obj(`o${i}`));
            state.set(key, { rev: kv.modRevision, value: kv.value });
          }
          const writes: { key: string; rev: Revision; value: string | null }[] = [];
          let stop = false;
          const churn = (async () => {
            let i = 0;
            while (!stop) {
              // Yield to timers: an in-memory store completes every call in microtasks.
              await new Promise((resolve) => setImmediate(resolve));
              const n = i++ % 120;
              const key = `${p}ns/o${String(n).padStart(3, "0")}`;
              const cur = await s.get(key);
              if (cur && n % 3 === 0) {
                const d = await s.delete(key, cur.modRevision).catch(() => undefined);
                if (d) writes.push({ key, rev: d.revision, value: null });
              } else if (cur) {
                const u = await s
                  .update(key, obj(`o${n}`, { labels: { w: String(i) } }), cur.modRevision)
                  .catch(() => undefined);
                if (u) writes.push({ key, rev: u.modRevision, value: u.value });
              } else {
                const cr = await s.create(key, obj(`o${n}`)).catch(() => undefined);
                if (cr) writes.push({ key, rev: cr.modRevision, value: cr.value });
              }
            }
          })();
          // Each page is read after at least one more write has landed, so the paging always races
          // with writes.
          const aWriteLands = async () => {
            const seen = writes.length;
            await eventually(() => writes.length > seen, 10_000, "a concurrent write");
          };
          await aWriteLands();
          const pages: { key: string; revision: Revision }[] = [];
          let r = await c.list({ keyPrefix: p, limit: 17 });
          const snapshot = r.revision;
          for (;;) {
            assert.equal(r.revision, snapshot, "every page is served at the first page's revision");
            for (const item of r.items) pages.push({ key: item.key, revision: item.revision });
            if (!r.continue) break;
            await aWriteLands();
            r = await c.list({ keyPrefix: p, limit: 17, continue: r.continue });
          }
          stop = true;
          await churn;
          const expected = new Map(state);
          for (const w of writes) {
            if (w.rev <= snapshot)
              expected.set(w.key, w.value === null ? null : { rev: w.rev, value: w.value });
          }
          const want = [...expected]
            .filter(([, v]) => v !== null)
            .map(([key, v]) => ({ key, revision: v?.rev ?? 0 }));
          want.sort((x, y) => (x.key < y.key ? -1 : 1));
          assert.ok(
            writes.some((w) => w.rev > snapshot),
            "writes continued during paging",
          );
          assert.deepEqual(pages, want);
        });
      });

      it("watch: unset and 0 start with the current state, a number starts after it", async () => {
        await withCacher(harness, {}, async (c, s, p) => {
          await s.create(`${p}ns/a`, obj("a"));
          const b = await s.create(`${p}ns/b`, obj("b"));
          const fromUnset = await c.watch({ keyPrefix: p });
          const fromZero = await c.watch({ keyPrefix: p, resourceVersion: "0" });
          const fromB = await c.watch({ keyPrefix: p, resourceVersion: String(b.modRevision) });
          const fromA = await c.watch({ keyPrefix: p, resourceVersion: String(b.modRevision - 1) });
          const cc = await s.create(`${p}ns/c`, obj("c"));
          await s.delete(`${p}ns/a`);
          for (const w of [fromUnset, fromZero]) {
            const got = await take(w, 4);
            assert.deepEqual(
              got.map((d) => `${d.type} ${deliveryName(d)}`),
              ["ADDED a", "ADDED b", "ADDED c", "DELETED a"],
            );
            w.close("stopped");
          }
          const after = await take(fromB, 2);
          assert.deepEqual(
            after.map((d) => `${d.type} ${deliveryName(d)}`),
            ["ADDED c", "DELETED a"],
          );
          assert.equal(after[0]?.type !== "ERROR" && after[0]?.revision, cc.modRevision);
          const replay = await take(fromA, 3);
          assert.deepEqual(
            replay.map((d) => `${d.type} ${deliveryName(d)}`),
            ["ADDED b", "ADDED c", "DELETED a"],
          );
          const deleted = replay[2];
          assert.ok(deleted && deleted.type === "DELETED");
          assert.equal(JSON.parse(deleted.item.json).metadata.resourceVersion, String(deleted.revision));
          fromB.close("stopped");
          fromA.close("stopped");
        });
      });

      it("watch: a start revision older than the window is an ERROR event with 410", async () => {
        await withCacher(harness, { maxHistory: 1 }, async (c, s, p) => {
          const a = await s.create(`${p}ns/a`, obj("a"));
          await s.create(`${p}ns/b`, obj("b"));
          await s.create(`${p}ns/c`, obj("c"));
          await c.list({ keyPrefix: p });
          const w = await c.watch({ keyPrefix: p, resourceVersion: String(a.modRevision) });
          const [first] = await take(w, 1);
          assert.ok(first?.type === "ERROR" && first.error instanceof ExpiredError);
          assert.match(first.error.message, /too old resource version/);
        });
      });

      it("watch: selectors turn changes into ADDED and DELETED for the watcher", async () => {
        await withCacher(harness, {}, async (c, s, p) => {
          const w = await c.watch({
            keyPrefix: p,
            labelSelector: parseLabelSelector("app=web"),
            resourceVersion: "0",
          });
          const a = await s.create(`${p}ns/a`, obj("a"));
          const a2 = await s.update(`${p}ns/a`, obj("a", { labels: { app: "web" } }), a.modRevision);
          const a3 = await s.update(`${p}ns/a`, obj("a", { labels: { app: "web", x: "1" } }), a2.modRevision);
          await s.update(`${p}ns/a`, obj("a", { labels: { app: "db" } }), a3.modRevision);
          const got = await take(w, 3);
          assert.deepEqual(
            got.map((d) => d.type),
            ["ADDED", "MODIFIED", "DELETED"],
          );
          w.close("stopped");
        });
      });

      it("watch: sendInitialEvents ends the initial state with a marked BOOKMARK; bookmarks arrive", async () => {
        await withCacher(harness, { watchListEnabled: true, bookmarkIntervalMs: 50 }, async (c, s, p) => {
          await s.create(`${p}ns/a`, obj("a"));
          const w = await c.watch({
            keyPrefix: p,
            sendInitialEvents: true,
            resourceVersionMatch: "NotOlderThan",
            allowWatchBookmarks: true,
          });
          const [added, end] = await take(w, 2);
          assert.equal(added?.type, "ADDED");
          assert.ok(end?.type === "BOOKMARK" && end.initialEventsEnd);
          // Periodic bookmarks follow writes elsewhere in the store.
          const other = await s.create(`${uniquePrefix()}ns/x`, obj("x"));
          let bookmark: WatchDelivery | undefined;
          for (;;) {
            [bookmark] = await take(w, 1);
            if (bookmark?.type === "BOOKMARK" && bookmark.revision >= other.modRevision) break;
          }
          assert.ok(!bookmark.initialEventsEnd);
          w.close("stopped");
          await assert.rejects(
            c.watch({ keyPrefix: p, sendInitialEvents: true }),
            /requires setting resourceVersionMatch/,
          );
          await assert.rejects(
            c.watch({ keyPrefix: p, resourceVersionMatch: "NotOlderThan" }),
            /unless sendInitialEvents/,
          );
        });
      });

      it("closes a watcher that falls behind and keeps the others whole", async () => {
        await withCacher(harness, { watcherBufferSize: 10 }, async (c, s, p) => {
          const stalled: CacheWatcher = await c.watch({ keyPrefix: p, resourceVersion: "0" });
          const healthy = await c.watch({ keyPrefix: p, resourceVersion: "0" });
          const reading = take(healthy, 30, 10_000);
          for (let i = 0; i < 30; i++) await s.create(`${p}ns/o${i}`, obj(`o${i}`));
          assert.equal((await reading).length, 30);
          assert.equal(stalled.closeReason, "overflow");
          assert.ok(stalled.buffered <= 10);
          const rest = await take(stalled, 0);
          assert.equal(rest.length, 0);
          healthy.close("stopped");
        });
      });
    });
  });
}
