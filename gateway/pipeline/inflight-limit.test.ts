import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { it } from "node:test";
import { ApiError } from "../request/api-error.ts";
import type { RequestContext } from "./context.ts";
import { inflightLimitStage } from "./inflight-limit.ts";

// Only the fields the stage reads: the verb, and the response's close event.
function request(verb: string): { ctx: RequestContext; finish(): void } {
  const raw = new EventEmitter();
  const ctx = { info: { verb }, reply: { raw } } as unknown as RequestContext;
  return { ctx, finish: () => raw.emit("close") };
}

it("refuses requests beyond the limits with 429 until earlier ones finish; watches do not count", () => {
  const stage = inflightLimitStage({ readOnly: 2, mutating: 1 });
  const a = request("get");
  const b = request("list");
  stage.run(a.ctx);
  stage.run(b.ctx);
  assert.throws(
    () => stage.run(request("get").ctx),
    (e: unknown) => e instanceof ApiError && e.code === 429 && e.details?.retryAfterSeconds === 1,
  );
  for (let i = 0; i < 5; i++) stage.run(request("watch").ctx);
  const w = request("create");
  stage.run(w.ctx);
  assert.throws(() => stage.run(request("delete").ctx), ApiError);
  a.finish();
  w.finish();
  stage.run(request("get").ctx);
  stage.run(request("patch").ctx);
  assert.deepEqual(stage.inflight(), { readOnly: 2, mutating: 1 });
});

it("0 disables a limit", () => {
  const stage = inflightLimitStage({ readOnly: 0, mutating: 0 });
  for (let i = 0; i < 1000; i++) stage.run(request(i % 2 ? "get" : "create").ctx);
  assert.deepEqual(stage.inflight(), { readOnly: 500, mutating: 500 });
});
