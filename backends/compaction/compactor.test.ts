import assert from "node:assert/strict";
import { it } from "node:test";
import { TooOldError } from "../contract/index.ts";
import { MemoryStorage } from "../memory/index.ts";
import { startCompactor } from "./compactor.ts";

it("compacts to the revision seen one tick earlier", async () => {
  const storage = new MemoryStorage();
  const compactor = startCompactor(storage, 0);
  const a = await storage.create("/k/a", "1");
  await compactor.tick(); // remembers a's revision, compacts nothing yet
  const b = await storage.create("/k/b", "2");
  const ac = new AbortController();
  const early = storage.watch("/k/", 0, ac.signal)[Symbol.asyncIterator]();
  assert.equal((await early.next()).done, false, "nothing compacted after one tick");
  await early.return?.();
  await compactor.tick(); // compacts up to a's revision
  await assert.rejects(
    storage
      .watch("/k/", a.modRevision - 1, ac.signal)
      [Symbol.asyncIterator]()
      .next(),
    TooOldError,
  );
  const fromA = storage.watch("/k/", a.modRevision, ac.signal)[Symbol.asyncIterator]();
  const next = await fromA.next();
  assert.ok(!next.done && next.value.type === "put" && next.value.kv.modRevision === b.modRevision);
  ac.abort();
  await fromA.return?.();
  compactor.stop();
  await storage.close();
});
