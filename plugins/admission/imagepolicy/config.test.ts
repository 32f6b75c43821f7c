import assert from "node:assert/strict";
import { test } from "node:test";
import { goDuration, ImagePolicyConfigError, parseConfig } from "./config.ts";

test("durations print as Go's time.Duration does", () => {
  const cases: [bigint, string][] = [
    [0n, "0s"],
    [1n, "1ns"],
    [1_500n, "1.5µs"],
    [5_000_000n, "5ms"],
    [1_000_000_000n, "1s"],
    [1_500_000_000n, "1.5s"],
    [300_001_000_000n, "5m0.001s"],
    [1_800_000_000_000n, "30m0s"],
    [3_600_000_000_000n, "1h0m0s"],
    [-5_000_000_000n, "-5s"],
  ];
  for (const [ns, text] of cases) assert.equal(goDuration(ns), text, String(ns));
});

test("defaults, units and sentinels as upstream", () => {
  const table: [Record<string, unknown>, Partial<ReturnType<typeof parseConfig>>][] = [
    [{}, { allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 500, defaultAllow: false }],
    [
      { allowTTL: 0, denyTTL: 0, retryBackoff: 0 },
      { allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 500 },
    ],
    [
      { allowTTL: -1, denyTTL: -1, retryBackoff: -1 },
      { allowTtlMs: 0, denyTtlMs: 0, retryBackoffMs: 0 },
    ],
    [
      { allowTTL: 2, denyTTL: 1800, retryBackoff: 1, defaultAllow: true },
      { allowTtlMs: 2_000, denyTtlMs: 1_800_000, retryBackoffMs: 1, defaultAllow: true },
    ],
    [
      { retryBackoff: 300_000, allowTTL: null },
      { retryBackoffMs: 300_000, allowTtlMs: 300_000 },
    ],
  ];
  for (const [fields, want] of table) {
    const got = parseConfig({ imagePolicy: { kubeConfigFile: "/k", ...fields } });
    for (const [k, v] of Object.entries(want))
      assert.equal(got[k as keyof typeof got], v, `${JSON.stringify(fields)} ${k}`);
  }
});

test("values upstream refuses are configuration errors", () => {
  const bad: Record<string, unknown>[] = [
    { allowTTL: 1 },
    { allowTTL: 1801 },
    { denyTTL: -2 },
    { retryBackoff: 300_001 },
    { retryBackoff: -3 },
    { allowTTL: 2.5 },
    { denyTTL: "30" },
    { retryBackoff: true },
    { defaultAllow: 1 },
    { kubeConfigFile: ["a"] },
  ];
  for (const fields of bad)
    assert.throws(
      () => parseConfig({ imagePolicy: { kubeConfigFile: "/k", ...fields } }),
      ImagePolicyConfigError,
      JSON.stringify(fields),
    );
  assert.throws(() => parseConfig({ imagePolicy: 5 }), /imagePolicy must be an object/);
  assert.throws(() => parseConfig([]), /must be an object with an imagePolicy field/);
});
