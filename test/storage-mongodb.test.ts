// The storage conformance suite on the MongoDB backend against jongodb (started here, a
// MongoDB-wire server without change streams, so watches follow the log by polling), a
// SIGKILLed writer process (MongoDB keeps running), and hand-edited documents; and the
// backend's retry counter moving when two clients' transactions collide.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { Registry } from "prom-client";
import { AlreadyExistsError } from "../backends/contract/index.ts";
import { openMongoStorage } from "../backends/mongodb/index.ts";
import { storageConformance } from "./storage-conformance.ts";
import { jongodbSkipReason, type MongoServer, startJongodb } from "./support/mongodb.ts";
import { eventually } from "./support/watch.ts";

const skip = jongodbSkipReason();
let server: MongoServer | undefined;
const database = `conformance_${randomUUID().slice(0, 8)}`;
const open = (prefix = "registry") =>
  openMongoStorage({ uri: (server as MongoServer).uri, database, prefix, pollIntervalMs: 20 });

if (!skip) {
  before(async () => {
    server = await startJongodb();
  });
  after(async () => {
    await server?.stop();
  });

  storageConformance("mongodb (jongodb, polling)", {
    open: () => open(),
    release: (storage) => storage.close(),
  });
}

describe("mongodb backend on jongodb", { skip }, () => {
  it("detects that jongodb has no change streams and follows the log by polling", async () => {
    const storage = await open();
    try {
      assert.equal(storage.followMode, "poll");
    } finally {
      await storage.close();
    }
  });

  it("counts the transactions it runs again after colliding with another client's", async () => {
    const metrics = new Registry();
    const prefix = `collide_${randomUUID().slice(0, 8)}`;
    const first = await openMongoStorage({ uri: (server as MongoServer).uri, database, prefix, metrics });
    const second = await openMongoStorage({ uri: (server as MongoServer).uri, database, prefix, metrics });
    const clients = [first, second];
    const retries = async () => {
      const text = await metrics.getSingleMetricAsString("mongodb_transaction_retries_total");
      return Number(/\{operation="create",reason="conflict"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    try {
      assert.equal(await retries(), 0);
      let round = 0;
      // Two clients take the same counter value now and then: the loser's log entry collides
      // and its transaction runs again. (jongodb keeps what a failed commit wrote, so a retried
      // create may then find its own object: AlreadyExists there is jongodb's, not the test's.)
      await eventually(
        async () => {
          round++;
          await Promise.all(
            clients.flatMap((storage, c) =>
              Array.from({ length: 5 }, (_, i) =>
                storage.create(`/core/configmaps/ns/r${round}-${c}-${i}`, "{}").catch((err: unknown) => {
                  if (!(err instanceof AlreadyExistsError)) throw err;
                }),
              ),
            ),
          );
          return (await retries()) > 0;
        },
        60_000,
        "a counted retry",
      );
      assert.equal(await retries(), first.retries + second.retries);
    } finally {
      for (const storage of clients) await storage.close();
    }
  });
});
