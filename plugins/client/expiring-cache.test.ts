import assert from "node:assert/strict";
import { test } from "node:test";
import { ExpiringCache } from "./expiring-cache.ts";

test("entries expire after their TTL; zero TTL keeps nothing", () => {
  let now = 0;
  const cache = new ExpiringCache<string>(10, () => now);
  cache.set("a", "A", 100);
  cache.set("b", "B", 0);
  assert.equal(cache.get("a"), "A");
  assert.equal(cache.get("b"), undefined);
  now = 99;
  assert.equal(cache.get("a"), "A");
  now = 100;
  assert.equal(cache.get("a"), undefined);
  assert.equal(cache.size, 0);
});

test("the least recently used entry goes first when full", () => {
  const cache = new ExpiringCache<number>(2, () => 0);
  cache.set("a", 1, 1000);
  cache.set("b", 2, 1000);
  cache.get("a");
  cache.set("c", 3, 1000);
  assert.equal(cache.get("b"), undefined);
  assert.equal(cache.get("a"), 1);
  assert.equal(cache.get("c"), 3);
  assert.equal(cache.size, 2);
});
