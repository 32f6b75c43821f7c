import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyDefaults, compileSchema } from "./compile.ts";
import { compileNode } from "./node.ts";
import type { StructuralSchema } from "./types.ts";

const schema: StructuralSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      default: {},
      properties: {
        replicas: { type: "integer", default: 1 },
        mode: { type: "string", default: "Fast" },
        optional: { type: "string", nullable: true, default: "n" },
        strategy: {
          type: "object",
          default: { type: "RollingUpdate" },
          properties: {
            type: { type: "string" },
            rollingUpdate: {
              type: "object",
              properties: { maxSurge: { "x-kubernetes-int-or-string": true, default: "25%" } },
            },
          },
        },
        containers: {
          type: "array",
          items: {
            type: "object",
            default: { name: "default" },
            properties: {
              name: { type: "string" },
              pullPolicy: { type: "string", default: "IfNotPresent" },
              ports: {
                type: "array",
                items: { type: "object", properties: { protocol: { type: "string", default: "TCP" } } },
              },
            },
          },
        },
        limits: { type: "object", additionalProperties: { type: "string", default: "1" } },
        plain: { type: "object", properties: { a: { type: "string" } } },
      },
    },
  },
};

function defaulted(value: unknown): unknown {
  applyDefaults(schema, value);
  return value;
}

describe("defaulting", () => {
  const cases: [string, unknown, unknown][] = [
    [
      "a missing object with a default is created and defaulted inside",
      {},
      { spec: { replicas: 1, mode: "Fast", optional: "n", strategy: { type: "RollingUpdate" } } },
    ],
    [
      "present values stay",
      { spec: { replicas: 3, mode: "Slow", optional: "o", strategy: { type: "Recreate" } } },
      { spec: { replicas: 3, mode: "Slow", optional: "o", strategy: { type: "Recreate" } } },
    ],
    [
      "null takes the default unless nullable",
      { spec: { replicas: null, optional: null } },
      { spec: { replicas: 1, mode: "Fast", optional: null, strategy: { type: "RollingUpdate" } } },
    ],
    [
      "defaults inside list elements, and null elements take the items' default",
      { spec: { containers: [{ name: "a", ports: [{}, { protocol: "UDP" }] }, null] } },
      {
        spec: {
          replicas: 1,
          mode: "Fast",
          optional: "n",
          strategy: { type: "RollingUpdate" },
          containers: [
            { name: "a", pullPolicy: "IfNotPresent", ports: [{ protocol: "TCP" }, { protocol: "UDP" }] },
            { name: "default", pullPolicy: "IfNotPresent" },
          ],
        },
      },
    ],
    [
      "null map values take the values' default",
      { spec: { limits: { cpu: null, memory: "2" } } },
      {
        spec: {
          replicas: 1,
          mode: "Fast",
          optional: "n",
          strategy: { type: "RollingUpdate" },
          limits: { cpu: "1", memory: "2" },
        },
      },
    ],
    [
      "defaults below a present object",
      { spec: { strategy: { rollingUpdate: {} } } },
      {
        spec: {
          replicas: 1,
          mode: "Fast",
          optional: "n",
          strategy: { rollingUpdate: { maxSurge: "25%" } },
        },
      },
    ],
    ["scalars and mismatched shapes are left alone", { spec: "x" }, { spec: "x" }],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => {
      assert.deepEqual(defaulted(structuredClone(input)), want);
    });
  }

  it("copies default values, never shares them", () => {
    const a = defaulted({}) as { spec: { strategy: { type: string } } };
    const b = defaulted({}) as { spec: { strategy: { type: string } } };
    a.spec.strategy.type = "changed";
    assert.equal(b.spec.strategy.type, "RollingUpdate");
    assert.equal(
      compileNode(schema).properties?.get("spec")?.properties?.get("strategy")?.defaultValue !==
        a.spec.strategy,
      true,
    );
  });

  it("serves defaults pruned by their schema", () => {
    const s: StructuralSchema = {
      type: "object",
      properties: {
        spec: { type: "object", default: { a: "x", unknown: 1 }, properties: { a: { type: "string" } } },
      },
    };
    const value = {};
    applyDefaults(s, value);
    assert.deepEqual(value, { spec: { a: "x" } });
  });

  it("skips subtrees without defaults", () => {
    const node = compileNode(schema);
    assert.equal(node.properties?.get("spec")?.properties?.get("plain")?.defaultsBelow, false);
    assert.equal(node.properties?.get("spec")?.defaultsBelow, true);
  });

  it("normalize prunes, drops nulls and defaults, in upstream's order", () => {
    const s: StructuralSchema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: { a: { type: "string", default: "d" }, b: { type: "string" } },
        },
      },
    };
    const value = { spec: { a: null, b: null, c: 1 } };
    assert.deepEqual(compileSchema(s).normalize(value), ["spec.c"]);
    assert.deepEqual(value, { spec: { a: "d" } });
  });
});
