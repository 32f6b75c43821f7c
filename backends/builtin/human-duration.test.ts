import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ageColumn, humanDuration, timestampAge } from "./human-duration.ts";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe("humanDuration", () => {
  const cases: [number, string][] = [
    [-2 * S, "<invalid>"],
    [-1999, "0s"],
    [-500, "0s"],
    [0, "0s"],
    [999, "0s"],
    [10 * S, "10s"],
    [119 * S, "119s"],
    [2 * M, "2m"],
    [5 * M + 30 * S, "5m30s"],
    [9 * M + 59 * S, "9m59s"],
    [10 * M + 30 * S, "10m"],
    [179 * M, "179m"],
    [3 * H, "3h"],
    [3 * H + 15 * M, "3h15m"],
    [7 * H + 59 * M, "7h59m"],
    [8 * H + 30 * M, "8h"],
    [47 * H, "47h"],
    [2 * D, "2d"],
    [4 * D + 5 * H, "4d5h"],
    [7 * D + 23 * H, "7d23h"],
    [8 * D + 5 * H, "8d"],
    [729 * D, "729d"],
    [2 * Y, "2y"],
    [2 * Y + 10 * D, "2y10d"],
    [7 * Y + 364 * D, "7y364d"],
    [8 * Y + 100 * D, "8y"],
    [20 * Y, "20y"],
  ];
  for (const [ms, want] of cases) it(`${ms}ms is ${want}`, () => assert.equal(humanDuration(ms), want));
});

describe("timestampAge", () => {
  const now = Date.parse("2024-05-01T12:00:00Z");
  it("measures from the timestamp to now", () => {
    assert.equal(timestampAge("2024-05-01T11:55:00Z", now), "5m");
    assert.equal(timestampAge("2024-04-27T07:00:00Z", now), "4d5h");
  });
  it("is <unknown> without a timestamp", () => {
    for (const t of [undefined, null, "", "not a time", 5]) assert.equal(timestampAge(t, now), "<unknown>");
  });
});

describe("ageColumn", () => {
  it("reads metadata.creationTimestamp", () => {
    const col = ageColumn();
    assert.equal(col.name, "Age");
    assert.equal(col.type, "string");
    assert.equal(col.priority, 0);
    assert.equal(col.cell({ metadata: {} }), "<unknown>");
    assert.match(
      String(col.cell({ metadata: { creationTimestamp: new Date(Date.now() - 30_000).toISOString() } })),
      /^(29|30|31)s$/,
    );
  });
});
