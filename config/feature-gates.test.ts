import assert from "node:assert/strict";
import { it } from "node:test";
import { FeatureGateError, resolveFeatureGates } from "./feature-gates.ts";

it("alpha off, beta on by default; overrides apply", () => {
  const gates = resolveFeatureGates({});
  assert.equal(gates.WatchList, false);
  assert.equal(gates.APIListChunking, true);
  assert.equal(resolveFeatureGates({ WatchList: true }).WatchList, true);
  assert.equal(resolveFeatureGates({ APIListChunking: false }).APIListChunking, false);
});

it("refuses unknown gates and disabling GA ones", () => {
  assert.throws(
    () => resolveFeatureGates({ NoSuchGate: true }),
    (e: unknown) => e instanceof FeatureGateError && /unrecognized feature gate: NoSuchGate/.test(e.message),
  );
  assert.throws(() => resolveFeatureGates({ DryRun: false }), /locked to true/);
});
