import assert from "node:assert/strict";
import { test } from "node:test";
import type { AuthenticationResult, TokenAuthenticator } from "./authenticator.ts";
import { cachedTokenAuthenticator } from "./token-cache.ts";

function counting(answer: (token: string) => AuthenticationResult) {
  const calls: string[] = [];
  const inner: TokenAuthenticator = {
    name: "inner",
    async authenticateToken(token) {
      calls.push(token);
      await new Promise((r) => setTimeout(r, 1));
      return answer(token);
    },
  };
  return { inner, calls };
}

const user: AuthenticationResult = {
  kind: "user",
  user: { username: "u", uid: "", groups: [], extra: {} },
};

test("answers are kept for their TTL, per token and audiences", async () => {
  let clock = 1000;
  const { inner, calls } = counting((t) =>
    t === "good" ? user : t === "bad" ? { kind: "rejected", reason: "no" } : { kind: "none" },
  );
  const cache = cachedTokenAuthenticator(inner, { successTtlMs: 100, failureTtlMs: 50, now: () => clock });
  assert.equal((await cache.authenticateToken("good", ["a"])).kind, "user");
  assert.equal((await cache.authenticateToken("good", ["a"])).kind, "user");
  assert.deepEqual(calls, ["good"]);
  await cache.authenticateToken("good", ["b"]);
  assert.equal(calls.length, 2, "other audiences are another entry");
  await cache.authenticateToken("bad", []);
  await cache.authenticateToken("bad", []);
  await cache.authenticateToken("other", []);
  await cache.authenticateToken("other", []);
  assert.deepEqual(calls.slice(2), ["bad", "other", "other"], "rejections kept, not-mine answers not");
  clock += 60;
  await cache.authenticateToken("bad", []);
  await cache.authenticateToken("good", ["a"]);
  assert.deepEqual(calls.slice(5), ["bad"], "the rejection expired first");
  clock += 50;
  await cache.authenticateToken("good", ["a"]);
  assert.deepEqual(calls.slice(6), ["good"]);
});

test("concurrent lookups of one token share one verification; the bound holds", async () => {
  const { inner, calls } = counting(() => user);
  const cache = cachedTokenAuthenticator(inner, { successTtlMs: 1000, failureTtlMs: 1000, maxEntries: 2 });
  await Promise.all([1, 2, 3].map(() => cache.authenticateToken("t", [])));
  assert.deepEqual(calls, ["t"]);
  await cache.authenticateToken("t2", []);
  await cache.authenticateToken("t3", []);
  await cache.authenticateToken("t", []);
  assert.deepEqual(calls, ["t", "t2", "t3", "t"], "the oldest entry was dropped");
});

test("an inner failure is not cached and reaches the caller", async () => {
  let fail = true;
  const inner: TokenAuthenticator = {
    name: "flaky",
    authenticateToken() {
      if (fail) throw new Error("down");
      return user;
    },
  };
  const cache = cachedTokenAuthenticator(inner, { successTtlMs: 1000, failureTtlMs: 1000 });
  await assert.rejects(Promise.resolve(cache.authenticateToken("t", [])), /down/);
  fail = false;
  assert.equal((await cache.authenticateToken("t", [])).kind, "user");
});
