import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WorkQueue } from "./work-queue.ts";

describe("garbage collector work queue", () => {
  it("holds an item once however often it is added", async () => {
    const q = new WorkQueue<string>();
    q.add("a");
    q.add("a");
    q.add("b");
    assert.equal(q.length, 2);
    assert.equal(await q.get(), "a");
    assert.equal(await q.get(), "b");
    assert.equal(q.length, 0);
  });

  it("an item added while it is processed comes back after, never twice at once", async () => {
    const q = new WorkQueue<string>();
    q.add("a");
    const item = await q.get();
    assert.equal(item, "a");
    q.add("a");
    assert.equal(q.length, 0, "not handed out while in process");
    q.done("a");
    assert.equal(q.length, 1);
    assert.equal(await q.get(), "a");
  });

  it("a waiting get ends with the item added, or with undefined once closed", async () => {
    const q = new WorkQueue<string>();
    const waiting = q.get();
    q.add("x");
    assert.equal(await waiting, "x");
    const pending = q.get();
    q.close();
    assert.equal(await pending, undefined);
  });

  it("retry brings the item back after a delay", async () => {
    const q = new WorkQueue<string>();
    q.retry("r");
    assert.equal(q.length, 0);
    assert.equal(await q.get(), "r");
    q.close();
  });
});
