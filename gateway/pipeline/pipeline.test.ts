import assert from "node:assert/strict";
import { it } from "node:test";
import type { RequestContext } from "./context.ts";
import { Pipeline } from "./pipeline.ts";

const context = () => ({ warnings: [], done: false }) as unknown as RequestContext;

it("runs synchronous stages one after another without waiting a turn between them", () => {
  const ran: string[] = [];
  const stage = (name: string) => ({ name, run: () => void ran.push(name) });
  void new Pipeline([stage("a"), stage("b"), stage("c")]).run(context());
  assert.deepEqual(ran, ["a", "b", "c"]);
});

it("waits for an asynchronous stage before the next, and stops once a stage answers", async () => {
  const ran: string[] = [];
  const ctx = context();
  const pipeline = new Pipeline([
    { name: "a", run: () => void ran.push("a") },
    {
      name: "b",
      run: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        ran.push("b");
      },
    },
    {
      name: "c",
      run: (c) => {
        ran.push("c");
        c.done = true;
      },
    },
    { name: "d", run: () => void ran.push("d") },
  ]);
  const running = pipeline.run(ctx);
  assert.deepEqual(ran, ["a"]);
  await running;
  assert.deepEqual(ran, ["a", "b", "c"]);
});

it("ends with the error a stage throws, synchronous or not", async () => {
  const boom = new Error("boom");
  await assert.rejects(
    new Pipeline([
      {
        name: "a",
        run: () => {
          throw boom;
        },
      },
    ]).run(context()),
    boom,
  );
  await assert.rejects(
    new Pipeline([
      {
        name: "a",
        run: async () => {
          throw boom;
        },
      },
    ]).run(context()),
    boom,
  );
});
