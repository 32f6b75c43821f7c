import assert from "node:assert/strict";
import { it } from "node:test";
import { MemoryStorage } from "../memory/index.ts";
import { parseLabelSelector } from "../selection/index.ts";
import { Cacher } from "./cacher.ts";
import { ExpiredError } from "./errors.ts";
import type { HistoryEntry } from "./history.ts";
import type { CachedItem } from "./item.ts";
import { CacheWatcher, encodeOnce, type WatchDelivery } from "./watcher.ts";

const item = (key: string, revision: number, labels?: Record<string, string>): CachedItem => ({
  key,
  json: "{}",
  revision,
  labels,
  fields: {},
});
const entry = (
  revision: number,
  key: string,
  prev?: CachedItem,
  labels?: Record<string, string>,
): HistoryEntry => ({
  revision,
  type: prev ? "MODIFIED" : "ADDED",
  key,
  item: item(key, revision, labels),
  prev,
  time: 0,
});
const watcher = (opts: Partial<ConstructorParameters<typeof CacheWatcher>[0]> = {}) =>
  new CacheWatcher({
    filter: { keyPrefix: "/x/", labelSelector: undefined, fieldSelector: undefined },
    allowBookmarks: true,
    maxBuffer: 10,
    startRevision: 0,
    ...opts,
  });
const rev = (d: WatchDelivery | undefined) => (d && d.type !== "ERROR" ? d.revision : undefined);

it("serves initial deliveries, then queued ones, then parked next() calls in order", async () => {
  const w = watcher({ initial: [{ type: "BOOKMARK", revision: 1, initialEventsEnd: true }] });
  w.offer(entry(2, "/x/a"));
  const it = w[Symbol.asyncIterator]();
  assert.equal(rev((await it.next()).value), 1);
  assert.equal(rev((await it.next()).value), 2);
  const a = it.next();
  const b = it.next();
  const c = it.next();
  w.offer(entry(3, "/x/b"));
  w.offer(entry(4, "/x/c"));
  w.offer(entry(5, "/x/d"));
  assert.deepEqual([rev((await a).value), rev((await b).value), rev((await c).value)], [3, 4, 5]);
  assert.equal(w.buffered, 0);
  const d = it.next();
  w.close("stopped");
  assert.deepEqual(await d, { done: true, value: undefined });
  assert.equal((await it.next()).done, true);
});

it("a parked call of an abandoned iterator does not take deliveries from a newer one", async () => {
  const w = watcher();
  const old = w[Symbol.asyncIterator]();
  let oldGot = false;
  void old.next().then(() => {
    oldGot = true;
  });
  const fresh = w[Symbol.asyncIterator]();
  const p = fresh.next();
  w.offer(entry(7, "/x/a"));
  assert.equal(rev((await p).value), 7);
  await new Promise((r) => setImmediate(r));
  assert.equal(oldGot, false);
});

it("ends after an ERROR, closing as expired; break closes as stopped", async () => {
  const error = new ExpiredError("too old");
  const w = watcher({ initial: [{ type: "ERROR", error }] });
  const got: WatchDelivery[] = [];
  for await (const d of w) got.push(d);
  assert.equal(got.length, 1);
  assert.equal(w.closeReason, "expired");
  const w2 = watcher();
  w2.offer(entry(1, "/x/a"));
  for await (const _ of w2) break;
  assert.equal(w2.closeReason, "stopped");
});

it("closes on overflow and resolves a parked next() with done", async () => {
  const w = watcher({ maxBuffer: 2 });
  for (let r = 1; r <= 3; r++) w.offer(entry(r, `/x/${r}`));
  assert.equal(w.closeReason, "overflow");
  assert.equal((await w[Symbol.asyncIterator]().next()).done, true);
  const w2 = watcher();
  const p = w2[Symbol.asyncIterator]().next();
  w2.close("reset");
  assert.equal((await p).done, true);
});

it("drain and wait read batches", async () => {
  const w = watcher({ initial: [{ type: "BOOKMARK", revision: 1, initialEventsEnd: true }] });
  for (let r = 2; r <= 6; r++) w.offer(entry(r, `/x/${r}`));
  assert.deepEqual(w.drain(3).map(rev), [1, 2, 3]);
  assert.deepEqual(w.drain().map(rev), [4, 5, 6]);
  assert.deepEqual(w.drain(), []);
  let woke = false;
  const waiting = w.wait().then(() => {
    woke = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(woke, false);
  w.offer(entry(7, "/x/7"));
  await waiting;
  assert.equal(rev(w.poll()), 7);
  assert.equal(w.poll(), undefined);
  w.close("stopped");
  await w.wait();
  assert.deepEqual(w.drain(), []);
});

it("shares deliveries and frames among watchers that see a change alike, and keeps views apart", () => {
  const selector = parseLabelSelector("app=web");
  const plain1 = watcher();
  const plain2 = watcher();
  const selected = watcher({
    filter: { keyPrefix: "/x/", labelSelector: selector, fieldSelector: undefined },
  });
  const prev = item("/x/a", 1);
  const e = entry(2, "/x/a", prev, { app: "web" });
  const d1 = plain1.view(e) as WatchDelivery;
  const d2 = plain2.view(e) as WatchDelivery;
  const d3 = selected.view(e) as WatchDelivery;
  assert.equal(d1, d2);
  assert.equal(d1.type, "MODIFIED");
  assert.equal(d3.type, "ADDED");
  let calls = 0;
  const encode = (d: WatchDelivery) => `${d.type}#${++calls}`;
  assert.equal(encodeOnce(d1, "json", encode), "MODIFIED#1");
  assert.equal(encodeOnce(d2, "json", encode), "MODIFIED#1");
  assert.equal(encodeOnce(d3, "json", encode), "ADDED#2");
  assert.equal(encodeOnce(d3, "json", encode), "ADDED#2");
  assert.equal(encodeOnce(d1, "yaml", encode), "MODIFIED#3");
  assert.equal(
    encodeOnce({ type: "BOOKMARK", revision: 2, initialEventsEnd: false }, "json", encode),
    "BOOKMARK#4",
  );
});

it("get with resourceVersion 0 reads a ready cache in the same turn; other modes still wait", async () => {
  const storage = new MemoryStorage();
  await storage.create("/x/a", JSON.stringify({ metadata: { name: "a" } }));
  const cacher = new Cacher({ storage, prefix: "/x/" });
  await cacher.start();
  assert.equal((await cacher.get("/x/a", "0"))?.key, "/x/a");
  assert.equal(await cacher.get("/x/b", "0"), undefined);
  assert.equal((await cacher.get("/x/a"))?.key, "/x/a");
  await assert.rejects(cacher.get("/x/a", "x"), /invalid resource version/);
  await cacher.stop();
  await storage.close();
});

it("a failing initial source ends the iteration with its error and closes the watcher", async () => {
  const w = watcher({
    initial: {
      *[Symbol.iterator]() {
        yield { type: "BOOKMARK", revision: 1, initialEventsEnd: false } as WatchDelivery;
        throw new Error("boom");
      },
    },
  });
  const got: WatchDelivery[] = [];
  await assert.rejects(async () => {
    for await (const d of w) got.push(d);
  }, /boom/);
  assert.equal(got.length, 1);
  assert.equal(w.closeReason, "stopped");
});

it("closes when its queued bytes pass the bound; one change always fits, whatever its size", async () => {
  const sized = (revision: number, bytes: number): HistoryEntry => ({
    ...entry(revision, `/x/${revision}`),
    item: { ...item(`/x/${revision}`, revision), json: "x".repeat(bytes) },
  });
  const big = watcher({ maxBufferBytes: 100 });
  big.offer(sized(1, 500));
  assert.equal(big.closeReason, undefined, "a lone change larger than the bound is queued");
  assert.equal(big.bufferedBytes, 500);
  big.offer(sized(2, 1));
  assert.equal(big.closeReason, "overflow");
  assert.equal(big.bufferedBytes, 0);
  assert.equal(await big.whenClosed, "overflow");

  const w = watcher({ maxBufferBytes: 100 });
  for (let r = 1; r <= 4; r++) w.offer(sized(r, 25));
  assert.equal(w.bufferedBytes, 100);
  w.bookmark(5);
  assert.equal(w.closeReason, undefined, "bookmarks carry no object");
  assert.equal(rev(w.poll()), 1);
  assert.equal(w.bufferedBytes, 75);
  w.offer(sized(6, 25));
  assert.equal(w.closeReason, undefined, "reading made room");
  w.offer(sized(7, 1));
  assert.equal(w.closeReason, "overflow");
});

it("whenClosed resolves with the reason, also when asked after the close", async () => {
  const w = watcher();
  const pending = w.whenClosed;
  w.close("reset");
  assert.equal(await pending, "reset");
  assert.equal(await w.whenClosed, "reset");
  const later = watcher();
  later.close("stopped");
  assert.equal(await later.whenClosed, "stopped");
});
