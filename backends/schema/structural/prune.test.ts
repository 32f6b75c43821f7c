import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileSchema, pruneValue } from "./compile.ts";
import type { StructuralSchema } from "./types.ts";

const schema: StructuralSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        name: { type: "string" },
        containers: {
          type: "array",
          items: { type: "object", properties: { image: { type: "string" } } },
        },
        labels: { type: "object", additionalProperties: { type: "string" } },
        nested: {
          type: "object",
          additionalProperties: { type: "object", properties: { keep: { type: "string" } } },
        },
        free: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: { typed: { type: "object", properties: { a: { type: "string" } } } },
        },
        anything: { type: "object", additionalProperties: true },
        closed: { type: "object", additionalProperties: false },
        template: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          properties: { spec: { type: "object", properties: { x: { type: "string" } } } },
        },
      },
    },
  },
};

function prune(value: unknown, root = true): string[] {
  return pruneValue(schema, value, { root });
}

describe("pruning", () => {
  it("removes unknown fields and reports their paths, sorted", () => {
    const value = {
      apiVersion: "x/v1",
      kind: "X",
      metadata: { name: "a", extra: 1 },
      spec: {
        name: "n",
        zeta: 1,
        alpha: { deep: true },
        containers: [{ image: "i", bogus: 1 }, { more: 2 }],
      },
      status: { phase: "x" },
    };
    assert.deepEqual(prune(value), [
      "spec.alpha",
      "spec.containers[0].bogus",
      "spec.containers[1].more",
      "spec.zeta",
      "status",
    ]);
    assert.deepEqual(value, {
      apiVersion: "x/v1",
      kind: "X",
      metadata: { name: "a", extra: 1 },
      spec: { name: "n", containers: [{ image: "i" }, {}] },
    });
  });

  it("leaves the root's apiVersion, kind and metadata to metadata handling", () => {
    const value = { apiVersion: "v", kind: "K", metadata: { bogus: 1 } };
    assert.deepEqual(prune(value), []);
    assert.deepEqual(value, { apiVersion: "v", kind: "K", metadata: { bogus: 1 } });
  });

  it("drops apiVersion/kind/metadata silently at the top of a non-resource value", () => {
    const value = { apiVersion: "v", spec: {} };
    assert.deepEqual(prune(value, false), []);
    assert.deepEqual(value, { spec: {} });
  });

  it("prunes map values by their schema, with dotted keys", () => {
    const value = { spec: { labels: { a: "b" }, nested: { k: { keep: "y", drop: 1 } } } };
    assert.deepEqual(prune(value), ["spec.nested.k.drop"]);
    assert.deepEqual(value.spec.nested, { k: { keep: "y" } });
  });

  it("keeps unknown fields under preserve-unknown-fields, but prunes declared properties", () => {
    const value = { spec: { free: { whatever: { deep: [1, { x: 1 }] }, typed: { a: "a", b: "b" } } } };
    assert.deepEqual(prune(value), ["spec.free.typed.b"]);
    assert.deepEqual(value.spec.free, { whatever: { deep: [1, { x: 1 }] }, typed: { a: "a" } });
  });

  it("empties objects under a map without a value schema, as upstream", () => {
    const value = { spec: { anything: { scalar: 1, object: { inner: 1 } } } };
    assert.deepEqual(prune(value), ["spec.anything.object.inner"]);
    assert.deepEqual(value.spec.anything, { scalar: 1, object: {} });
  });

  it("keeps keys of an additionalProperties:false object (validation refuses them)", () => {
    const value = { spec: { closed: { extra: 1 } } };
    assert.deepEqual(prune(value), []);
    assert.deepEqual(value.spec.closed, { extra: 1 });
  });

  it("cuts embedded metadata to ObjectMeta and reports it after the rest", () => {
    const value = {
      spec: {
        template: {
          apiVersion: "v1",
          kind: "Pod",
          metadata: {
            name: "p",
            labels: { a: "b" },
            bogus: 1,
            creationTimestamp: null,
            annotations: {},
            ownerReferences: [{ apiVersion: "v1", kind: "K", name: "n", uid: "u", weird: 1 }],
          },
          spec: { x: "1", y: 2 },
          extra: true,
        },
        zzz: 1,
      },
    };
    assert.deepEqual(prune(value), [
      "spec.template.extra",
      "spec.template.spec.y",
      "spec.zzz",
      "spec.template.metadata.bogus",
      "spec.template.metadata.ownerReferences[0].weird",
    ]);
    assert.deepEqual(value.spec.template, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "p",
        labels: { a: "b" },
        ownerReferences: [{ apiVersion: "v1", kind: "K", name: "n", uid: "u" }],
      },
      spec: { x: "1" },
    });
  });

  it("leaves embedded metadata that does not decode for validation to report", () => {
    const value = { spec: { template: { apiVersion: "v1", kind: "Pod", metadata: { name: 5, bogus: 1 } } } };
    assert.deepEqual(prune(value), []);
    assert.deepEqual(value.spec.template.metadata, { name: 5, bogus: 1 });
  });

  it("does not throw on scalars or mismatched shapes", () => {
    for (const junk of [
      null,
      1,
      "x",
      [],
      { spec: 5 },
      { spec: { containers: { a: 1 } } },
      { spec: { name: { a: 1 } } },
    ]) {
      assert.ok(Array.isArray(prune(structuredClone(junk))));
    }
  });
});

describe("dropping nulls", () => {
  const nulls: StructuralSchema = {
    type: "object",
    properties: {
      a: { type: "string" },
      b: { type: "string", nullable: true },
      c: { type: "string", default: "x" },
      list: { type: "array", items: { type: "string" } },
      map: { type: "object", additionalProperties: { type: "string" } },
    },
  };

  it("removes nulls that are neither nullable nor defaulted; keeps list elements", () => {
    const value = { a: null, b: null, c: null, unknown: null, list: [null], map: { k: null } };
    compileSchema(nulls).dropNulls(value);
    assert.deepEqual(value, { b: null, c: null, unknown: null, list: [null], map: {} });
  });
});
