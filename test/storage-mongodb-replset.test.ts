// What jongodb cannot show, against a real replica set named by MONGODB_URI (skipped otherwise):
// the conformance suite with watches following a change stream, and writers in two storages
// (as two gateways would be) whose transactions collide on the revision counter and run again,
// with no update lost and every revision assigned once.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { ConflictError, type Storage } from "../backends/contract/index.ts";
import { type MongoStorage, openMongoStorage } from "../backends/mongodb/index.ts";
import { storageConformance } from "./storage-conformance.ts";
import { realReplicaSet } from "./support/mongodb.ts";

const uri = realReplicaSet();
const skip = uri
  ? false
  : "MONGODB_URI is not set: change streams and write conflicts need a real replica set";
const database = `replset_${randomUUID().slice(0, 8)}`;
const open = () => openMongoStorage({ uri: uri as string, database, follow: "changeStream" });

if (uri) {
  storageConformance("mongodb (real replica set, change streams)", {
    open: () => open(),
    release: (storage) => storage.close(),
  });
}

describe("mongodb backend on a real replica set", { skip }, () => {
  it("detects change streams", async () => {
    const s = await openMongoStorage({ uri: uri as string, database });
    try {
      assert.equal(s.followMode, "changeStream");
    } finally {
      await s.close();
    }
  });

  it("retries transactions that collide across processes: no lost update, no duplicate revision", async () => {
    const stores: MongoStorage[] = [await open(), await open()];
    try {
      const key = `/conflict/${randomUUID().slice(0, 8)}/ns/n`;
      await (stores[0] as Storage).create(key, JSON.stringify({ n: 0 }));
      const revisions: number[] = [];
      await Promise.all(
        stores.flatMap((s) =>
          Array.from({ length: 4 }, async () => {
            for (let done = 0; done < 10; ) {
              const cur = await s.get(key);
              assert.ok(cur);
              try {
                const n = (JSON.parse(cur.value) as { n: number }).n;
                revisions.push(
                  (await s.update(key, JSON.stringify({ n: n + 1 }), cur.modRevision)).modRevision,
                );
                done++;
              } catch (err) {
                if (!(err instanceof ConflictError)) throw err;
              }
            }
          }),
        ),
      );
      assert.equal(JSON.parse((await stores[0]?.get(key))?.value ?? "{}").n, 80);
      assert.equal(new Set(revisions).size, revisions.length, "every revision assigned once");
      assert.ok(
        stores.some((s) => s.retries > 0),
        "the two storages' transactions collided and ran again",
      );
    } finally {
      for (const s of stores) await s.close();
    }
  });
});
