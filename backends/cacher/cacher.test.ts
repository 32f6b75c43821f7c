import assert from "node:assert/strict";
import { it } from "node:test";
import { eventually } from "../../test/support/watch.ts";
import type { Storage } from "../contract/index.ts";
import { MemoryStorage } from "../memory/index.ts";
import { Cacher } from "./cacher.ts";
import { encodeOnce, type WatchDelivery } from "./watcher.ts";

async function first(w: AsyncIterable<WatchDelivery>): Promise<WatchDelivery> {
  for await (const d of w) return d;
  throw new Error("watch ended");
}

it("encodes each change once per media type, whatever the number of watchers", async () => {
  const storage = new MemoryStorage();
  const cacher = new Cacher({ storage, prefix: "/x/" });
  await cacher.start();
  const watchers = await Promise.all(
    Array.from({ length: 50 }, () => cacher.watch({ keyPrefix: "/x/", resourceVersion: "0" })),
  );
  await storage.create("/x/ns/a", JSON.stringify({ metadata: { name: "a" } }));
  let calls = 0;
  const encode = (d: WatchDelivery) => {
    calls++;
    return d.type;
  };
  for (const w of watchers) {
    const d = await first(w);
    assert.equal(encodeOnce(d, "json", encode), "ADDED");
    assert.equal(encodeOnce(d, "json", encode), "ADDED");
    encodeOnce(d, "protobuf", encode);
  }
  assert.equal(calls, 2, "one encoding per media type");
  await cacher.stop();
  await storage.close();
});

it("stamps resourceVersion, keeps DELETED objects at the deletion revision, and survives undecodable values", async () => {
  const storage = new MemoryStorage();
  const errors: string[] = [];
  const cacher = new Cacher({ storage, prefix: "/x/", onError: (_e, where) => errors.push(where) });
  await cacher.start();
  const w = await cacher.watch({ keyPrefix: "/x/", resourceVersion: "0" });
  await storage.create("/x/ns/bad", "{not json");
  const a = await storage.create("/x/ns/a", JSON.stringify({ metadata: { name: "a" } }));
  const del = await storage.delete("/x/ns/a");
  const got: WatchDelivery[] = [];
  for await (const d of w) {
    got.push(d);
    if (got.length === 2) break;
  }
  assert.deepEqual(
    got.map((d) =>
      d.type === "ADDED" || d.type === "DELETED"
        ? [d.type, JSON.parse(d.item.json).metadata.resourceVersion]
        : [],
    ),
    [
      ["ADDED", String(a.modRevision)],
      ["DELETED", String(del.revision)],
    ],
  );
  assert.equal(await cacher.get("/x/ns/bad"), undefined);
  assert.deepEqual(errors, ["undecodable value at /x/ns/bad"]);
  await cacher.stop();
  await storage.close();
});

it("asks for progress again when the store reported a revision before publishing it", async () => {
  const inner = new MemoryStorage();
  // A store whose current revision runs one write ahead of its feed for a moment, as lmdb's
  // snapshot can run ahead of the published events.
  let ahead = false;
  let progressAsked = 0;
  const storage: Storage = {
    name: inner.name,
    get: (k) => inner.get(k),
    list: (p) => inner.list(p),
    create: (k, v) => inner.create(k, v),
    update: (k, v, r) => inner.update(k, v, r),
    delete: (k, r) => inner.delete(k, r),
    watch: (p, a, s) => {
      const stream = inner.watch(p, a, s);
      return {
        [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator](),
        requestProgress: () => {
          progressAsked++;
          stream.requestProgress();
        },
      };
    },
    currentRevision: async () => (await inner.currentRevision()) + (ahead ? 1 : 0),
    compact: (r) => inner.compact(r),
    close: () => inner.close(),
  };
  const cacher = new Cacher({ storage, prefix: "/x/", waitTimeoutMs: 60_000 });
  await cacher.start();
  ahead = true;
  const asked = progressAsked;
  const read = cacher.list({ keyPrefix: "/x/" });
  // The first progress answer falls short of the reported revision; the read must ask again.
  await eventually(() => progressAsked >= asked + 2, 10_000, "a second progress request");
  ahead = false;
  // The write lands outside the cache's prefix: only progress can carry its revision here.
  await inner.create("/elsewhere/ns/a", "{}");
  // Resolves once the cache reaches the revision (a wait that ran out would throw).
  await read;
  await cacher.stop();
  await inner.close();
});
