import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { builtinCatalog } from "../../catalog/index.ts";
import { naming } from "../../naming/naming.ts";
import { builtinDefaulterFor, builtinDefaulters, unknownDefaulterIds } from "./index.ts";

describe("builtinDefaulters", () => {
  it("names only types of the built-in catalog", () => {
    for (const preset of ["cluster", "kubernetes"] as const) {
      assert.deepEqual(unknownDefaulterIds(builtinCatalog(), builtinDefaulters(naming(preset))), []);
    }
  });

  it("is one object per naming preset, so compiled walks are shared", () => {
    assert.equal(builtinDefaulters(naming("cluster")), builtinDefaulters());
    assert.notEqual(builtinDefaulters(naming("kubernetes")), builtinDefaulters());
  });
});

describe("builtinDefaulterFor", () => {
  const defaulterFor = builtinDefaulterFor(builtinCatalog());

  it("gives a walk for kinds with defaults and none for kinds without", () => {
    for (const type of ["apps/v1.Deployment", "core/v1.Service", "batch/v1.CronJob", "rbac/v1.RoleBinding"]) {
      assert.equal(typeof defaulterFor(type), "function", type);
    }
    for (const type of [
      "policy/v1.PodDisruptionBudget",
      "coordination/v1.Lease",
      "events/v1.Event",
      "core/v1.ConfigMap",
    ]) {
      assert.equal(defaulterFor(type), undefined, type);
    }
  });

  it("defaults in place", () => {
    const secret: Record<string, unknown> = { metadata: { name: "s" } };
    defaulterFor("core/v1.Secret")?.(secret);
    assert.equal(secret.type, "Opaque");
  });
});
