import assert from "node:assert/strict";
import { test } from "node:test";
import { microTime } from "./audit-stage.ts";

test("microTime writes RFC 3339 with microseconds, whatever second came before", () => {
  const base = Date.UTC(2026, 10, 28, 23, 59, 59);
  // Fractions of one, two and three digits, a second and a day boundary, and an earlier second
  // again after a later one (the formatted second is kept between calls).
  const times = [base, base + 7, base + 42, base + 999, base + 1000, base + 1001, base + 5, 0, 86_399_999];
  for (const ms of times)
    assert.equal(microTime(ms), new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z"), String(ms));
  assert.equal(microTime(base + 7), "2026-11-28T23:59:59.007000Z");
});
