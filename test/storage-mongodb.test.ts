// The storage conformance suite on the MongoDB backend against jongodb (started here, a
// MongoDB-wire server without change streams, so watches follow the log by polling), a
// SIGKILLed writer process (MongoDB keeps running), and hand-edited documents.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { openMongoStorage } from "../backends/mongodb/index.ts";
import { storageConformance } from "./storage-conformance.ts";
import { jongodbSkipReason, type MongoServer, startJongodb } from "./support/mongodb.ts";

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
});
