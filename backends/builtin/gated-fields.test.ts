import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../common/json.ts";
import { naming } from "../naming/naming.ts";
import { builtinKinds } from "./index.ts";

const n = naming("cluster");

function strategyOf(plural: string, gates?: Record<string, boolean>) {
  const kind = builtinKinds(n, gates ? { featureGates: gates } : {}).find((k) => k.schema.plural === plural);
  assert.ok(kind, plural);
  return kind.strategy;
}

const configuration = (withConditions: boolean): JsonObject => ({
  metadata: { name: "hooks" },
  webhooks: [
    {
      name: "a.example.com",
      ...(withConditions ? { matchConditions: [{ name: "c", expression: "true" }] } : {}),
    },
    { name: "b.example.com" },
  ],
});
const conditionsOf = (o: JsonObject) =>
  (o.webhooks as JsonObject[]).map((w) => (w.matchConditions as unknown[] | undefined)?.length ?? 0);

describe("webhook configurations: matchConditions follow AdmissionWebhookMatchConditions", () => {
  for (const plural of ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"]) {
    it(`${plural}: dropped on create and update while the gate is off`, () => {
      const off = strategyOf(plural, { AdmissionWebhookMatchConditions: false });
      const created = configuration(true);
      off.prepareForCreate?.(created);
      assert.deepEqual(conditionsOf(created), [0, 0]);
      const updated = configuration(true);
      off.prepareForUpdate?.(updated, configuration(false));
      assert.deepEqual(conditionsOf(updated), [0, 0]);
    });

    it(`${plural}: kept while the gate is off when the stored object already uses them`, () => {
      const off = strategyOf(plural, { AdmissionWebhookMatchConditions: false });
      const updated = configuration(true);
      off.prepareForUpdate?.(updated, configuration(true));
      assert.deepEqual(conditionsOf(updated), [1, 0]);
    });

    it(`${plural}: kept with the gate on, or when no gates are given`, () => {
      for (const strategy of [
        strategyOf(plural, { AdmissionWebhookMatchConditions: true }),
        strategyOf(plural),
      ]) {
        const created = configuration(true);
        strategy.prepareForCreate?.(created);
        assert.deepEqual(conditionsOf(created), [1, 0]);
      }
    });
  }
});
