import assert from "node:assert/strict";
import { it } from "node:test";
import { MemoryStorage } from "../memory/index.ts";
import { Cacher } from "./cacher.ts";
import { ExpiredError } from "./errors.ts";
import { History, HistoryBudget, type HistoryEntry } from "./history.ts";
import { encodeOnce, type WatchDelivery } from "./watcher.ts";

const change = (revision: number, key: string, bytes: number): HistoryEntry => ({
  revision,
  type: "ADDED",
  key,
  item: { key, json: "x".repeat(bytes), revision, labels: undefined, fields: {} },
  prev: undefined,
  time: 0,
});

it("a shared byte budget drops the oldest changes of the largest history, keeping the newest", () => {
  const budget = new HistoryBudget(1_000);
  const busy = new History(0, budget);
  const quiet = new History(0, budget);
  quiet.push(change(1, "/q/a", 100));
  for (let r = 2; r <= 11; r++) busy.push(change(r, "/b/a", 100));
  assert.equal(budget.bytes, 1_000);
  assert.equal(busy.length, 9);
  assert.equal(busy.oldestRevision, 2, "revisions after 2 can still be rebuilt");
  busy.push(change(12, "/b/a", 300));
  assert.equal(budget.bytes, 1_000);
  assert.deepEqual(
    busy.after(0).map((e) => e.revision),
    [6, 7, 8, 9, 10, 11, 12],
  );
  assert.equal(busy.oldestRevision, 5);
  assert.equal(quiet.length, 1, "the quiet history keeps its change");
  // A change larger than the whole budget leaves nothing behind, itself included.
  busy.push(change(13, "/b/a", 5_000));
  assert.equal(busy.length, 0);
  assert.equal(busy.oldestRevision, 13);
  assert.equal(budget.bytes, 100);
  quiet.close();
  assert.equal(budget.bytes, 0);
});

it("cached frames are charged to the history while it holds the change, and given back when it goes", () => {
  const budget = new HistoryBudget(10_000);
  const history = new History(0, budget);
  const e = change(1, "/x/a", 100);
  history.push(e);
  const delivery: WatchDelivery = { type: "ADDED", item: e.item, revision: 1, entry: e };
  encodeOnce(delivery, "json", () => "f".repeat(150));
  encodeOnce(delivery, "json", () => "never encoded again");
  assert.equal(history.bytes, 250);
  assert.equal(budget.bytes, 250);
  history.trim(Number.NEGATIVE_INFINITY, 0);
  assert.equal(budget.bytes, 0);
  // A watcher still holding the change may encode it for another media type: not charged.
  encodeOnce(delivery, "yaml", () => "y".repeat(150));
  assert.equal(budget.bytes, 0);
});

it("a cache whose history passed its byte budget answers older revisions with 410", async () => {
  const storage = new MemoryStorage();
  const budget = new HistoryBudget(4 * 1024);
  const cacher = new Cacher({ storage, prefix: "/x/", historyBudget: budget });
  await cacher.start();
  const value = (n: number) =>
    JSON.stringify({ metadata: { name: "a" }, data: { n, blob: "x".repeat(1024) } });
  const first = await storage.create("/x/ns/a", value(0));
  let last = first.modRevision;
  for (let n = 1; n <= 10; n++) last = (await storage.update("/x/ns/a", value(n), last)).modRevision;
  await cacher.list({
    keyPrefix: "/x/",
    resourceVersion: String(last),
    resourceVersionMatch: "NotOlderThan",
  });
  assert.ok(budget.bytes <= 4 * 1024, `${budget.bytes} bytes kept`);

  await assert.rejects(
    cacher.list({
      keyPrefix: "/x/",
      resourceVersion: String(first.modRevision),
      resourceVersionMatch: "Exact",
    }),
    ExpiredError,
  );
  const old = await cacher.watch({ keyPrefix: "/x/", resourceVersion: String(first.modRevision) });
  const got: WatchDelivery[] = [];
  for await (const d of old) got.push(d);
  assert.equal(got[0]?.type, "ERROR");
  // The newest changes are still there: a watch from just before the last one replays it.
  const recent = await cacher.watch({ keyPrefix: "/x/", resourceVersion: String(last - 1) });
  for await (const d of recent) {
    assert.equal(d.type === "MODIFIED" && d.revision, last);
    break;
  }
  await cacher.stop();
  assert.equal(budget.bytes, 0, "a stopped cache gives its bytes back");
  await storage.close();
});
