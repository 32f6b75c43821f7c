import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { it } from "node:test";
import { ApiError } from "../request/api-error.ts";
import { parseRequestInfo } from "../request/request-info.ts";
import type { RequestContext } from "./context.ts";
import { inflightLimitStage, isLongRunning } from "./inflight-limit.ts";

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

// A request as the request-info stage classifies it.
function classified(method: string, url: string): { ctx: RequestContext; finish(): void } {
  const raw = new EventEmitter();
  const parsed = new URL(url, "https://gateway");
  const info = parseRequestInfo(method, parsed.pathname, parsed.searchParams);
  return { ctx: { info, reply: { raw } } as unknown as RequestContext, finish: () => raw.emit("close") };
}

it("exempts what upstream's long-running check does: watch and proxy verbs, and the attach, exec, proxy, log and portforward subresources, extension servers' included", () => {
  const stage = inflightLimitStage({ readOnly: 1, mutating: 1 });
  const held = [
    classified("GET", "/api/v1/namespaces/default/configmaps/a"),
    classified("POST", "/api/v1/namespaces/default/configmaps"),
  ];
  for (const r of held) stage.run(r.ctx);
  const longRunning = [
    ["GET", "/api/v1/namespaces/default/pods/p/proxy/metrics"],
    ["POST", "/api/v1/namespaces/default/services/https:s:443/proxy/x"],
    ["GET", "/api/v1/nodes/n/proxy/"],
    ["POST", "/api/v1/namespaces/default/pods/p/exec?command=ls"],
    ["POST", "/api/v1/namespaces/default/pods/p/attach"],
    ["GET", "/api/v1/namespaces/default/pods/p/log?follow=true"],
    ["POST", "/api/v1/namespaces/default/pods/p/portforward"],
    ["GET", "/api/v1/watch/namespaces/default/configmaps"],
    ["GET", "/apis/ext.example.com/v1/namespaces/default/widgets?watch=1"],
    ["GET", "/apis/ext.example.com/v1/widgets?watch=true&resourceVersion=0"],
  ] as const;
  for (const [method, url] of longRunning) {
    const r = classified(method, url);
    assert.equal(isLongRunning(r.ctx.info), true, `${method} ${url}`);
    stage.run(r.ctx);
  }
  // Everything else still counts, an extension's reads and writes included.
  for (const [method, url] of [
    ["GET", "/apis/ext.example.com/v1/namespaces/default/widgets"],
    ["GET", "/apis/ext.example.com/v1/namespaces/default/widgets/w/status"],
    ["POST", "/apis/ext.example.com/v1/namespaces/default/widgets"],
    ["GET", "/api/v1/namespaces/default/pods/p/status"],
    ["GET", "/apis/ext.example.com/v1"],
  ] as const) {
    assert.equal(isLongRunning(classified(method, url).ctx.info), false, `${method} ${url}`);
    assert.throws(() => stage.run(classified(method, url).ctx), ApiError, `${method} ${url}`);
  }
  assert.deepEqual(stage.inflight(), { readOnly: 1, mutating: 1 });
});
