import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Cacher } from "../backends/cacher/index.ts";
import type { Storage } from "../backends/contract/index.ts";
import { createEtcdStorage } from "../backends/etcd/index.ts";
import { storageConformance } from "./storage-conformance.ts";
import { type EtcdServer, etcdSkipReason, startEtcd } from "./support/etcd.ts";
import { eventually, take } from "./support/watch.ts";

const skip = etcdSkipReason();
let etcd: EtcdServer | undefined;

if (!skip) {
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  storageConformance("etcd", {
    open: () => createEtcdStorage({ endpoints: [(etcd as EtcdServer).endpoint] }),
    release: (storage) => storage.close(),
  });
}

describe("a live watch cache across an etcd restart", { skip }, () => {
  it("reports the outage, then recovers by rewatching and serves changes made after", async () => {
    const server = etcd as EtcdServer;
    const storage: Storage = await createEtcdStorage({ endpoints: [server.endpoint], connectTimeoutMs: 500 });
    const prefix = "/restart/things/";
    const cacher = new Cacher({ storage, prefix, waitTimeoutMs: 500 });
    try {
      await cacher.start();
      await storage.create(`${prefix}ns/a`, JSON.stringify({ metadata: { name: "a" } }));
      const watcher = await cacher.watch({ keyPrefix: prefix, resourceVersion: "0" });
      await take(watcher, 1);
      await server.restart({
        signal: "SIGKILL",
        whileDown: async () => {
          await eventually(() => !cacher.ready, 10_000, "readiness to report the outage");
          await assert.rejects(cacher.list({ keyPrefix: prefix }), (e: unknown) =>
            (e as Error).name.includes("Unavailable"),
          );
        },
      });
      await eventually(() => cacher.ready, 15_000, "the cache to recover");
      await storage.create(`${prefix}ns/b`, JSON.stringify({ metadata: { name: "b" } }));
      const listed = await cacher.list({ keyPrefix: prefix });
      assert.deepEqual(
        listed.items.map((i) => i.key),
        [`${prefix}ns/a`, `${prefix}ns/b`],
      );
      // The watcher either continues (rewatched without a gap) or was closed for its client to relist.
      if (!watcher.closeReason) {
        const [added] = await take(watcher, 1, 10_000);
        assert.equal(added?.type, "ADDED");
      }
    } finally {
      await cacher.stop();
      await storage.close();
    }
  });
});
