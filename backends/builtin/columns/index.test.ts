import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CATALOG_KINDS } from "../catalog-kinds.ts";
import { assertTolerant, type Case, CREATED, columnsOf, mustColumns, runCases } from "./test-support.ts";

const cases: Case[] = [
  {
    name: "held lease",
    group: "coordination",
    plural: "leases",
    object: {
      metadata: { name: "controller", namespace: "system", creationTimestamp: CREATED },
      spec: { holderIdentity: "node-1_4f0c", leaseDurationSeconds: 15, leaseTransitions: 3 },
    },
    row: [
      ["Holder", "string", 0, "node-1_4f0c"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "free lease",
    group: "coordination",
    plural: "leases",
    object: { metadata: { name: "free", namespace: "system", creationTimestamp: CREATED }, spec: {} },
    row: [
      ["Holder", "string", 0, ""],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "runtime class",
    group: "node",
    plural: "runtimeclasses",
    object: { metadata: { name: "gvisor", creationTimestamp: CREATED }, handler: "runsc", overhead: {} },
    row: [
      ["Handler", "string", 0, "runsc"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "global default priority class",
    group: "scheduling",
    plural: "priorityclasses",
    object: {
      metadata: { name: "high", creationTimestamp: CREATED },
      value: 1000000,
      globalDefault: true,
      preemptionPolicy: "PreemptLowerPriority",
    },
    row: [
      ["Value", "integer", 0, 1000000],
      ["Global-Default", "boolean", 0, true],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "plain priority class without a creation time",
    group: "scheduling",
    plural: "priorityclasses",
    object: { metadata: { name: "low" }, value: -10 },
    row: [
      ["Value", "integer", 0, -10],
      ["Global-Default", "boolean", 0, false],
      ["Age", "string", 0, "<unknown>"],
    ],
  },
];

describe("builtinColumns", () => {
  runCases(cases);

  it("covers every catalog kind", () => {
    for (const entry of CATALOG_KINDS) {
      assert.ok(columnsOf(entry.group, entry.plural), `${entry.group}/${entry.plural} has columns`);
    }
  });

  it("answers undefined for kinds it does not cover", () => {
    assert.equal(columnsOf("", "pods"), undefined);
    assert.equal(columnsOf("apps", "services"), undefined);
    assert.equal(columnsOf("rbac.authorization", "roles"), undefined);
    assert.equal(columnsOf("nope", "constructor"), undefined);
    assert.equal(columnsOf("", "constructor"), undefined);
  });

  it("CustomResourceDefinition keeps upstream's default table", () => {
    assert.deepEqual(mustColumns("apiextensions", "customresourcedefinitions"), []);
  });

  it("lists Name only where upstream prints something else than the plain name", () => {
    for (const entry of CATALOG_KINDS) {
      const names = (columnsOf(entry.group, entry.plural) ?? []).map((c) => c.name);
      if (entry.plural === "storageclasses") assert.equal(names[0], "Name");
      else assert.ok(!names.includes("Name"), `${entry.plural} lists no Name column`);
      assert.equal(new Set(names).size, names.length, `${entry.plural} has no column twice`);
    }
  });

  it("never throws on missing or malformed fields", () => {
    assertTolerant("coordination", "leases");
    assertTolerant("node", "runtimeclasses");
    assertTolerant("scheduling", "priorityclasses");
  });
});
