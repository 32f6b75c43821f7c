import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  copyAnyDepth,
  MAX_OBJECT_DEPTH,
  nestingDepth,
  nestingErrors,
  nestsWithin,
  objectDepth,
} from "./depth.ts";

function chain(levels: number): unknown {
  let v: unknown = "x";
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe("nesting depth", () => {
  it("counts objects and arrays, a scalar being none", () => {
    assert.equal(nestingDepth("x"), 0);
    assert.equal(nestingDepth({}), 1);
    assert.equal(nestingDepth([[], { a: [1] }]), 3);
    assert.equal(nestingDepth(chain(100_000)), 100_000);
  });

  it("nestsWithin agrees with nestingDepth, and stops one level past the limit at any depth", () => {
    const shapes: unknown[] = [
      "x",
      null,
      {},
      [],
      [[], { a: [1] }],
      { a: [{ b: {} }], c: 1 },
      chain(7),
      [chain(3)],
    ];
    for (const shape of shapes) {
      const depth = nestingDepth(shape);
      for (let limit = 0; limit <= depth + 1; limit++)
        assert.equal(nestsWithin(shape, limit), depth <= limit, `${JSON.stringify(shape)} within ${limit}`);
    }
    assert.equal(nestsWithin(chain(100_000), 510), false);
    assert.equal(nestsWithin(chain(510), 510), true);
  });

  it("nestingErrors is empty exactly when objectDepth is within the limit", () => {
    for (const depth of [MAX_OBJECT_DEPTH - 1, MAX_OBJECT_DEPTH, MAX_OBJECT_DEPTH + 1]) {
      for (const object of [
        { spec: chain(depth - 1) },
        { metadata: { labels: chain(depth - 2) } },
        { metadata: { managedFields: [chain(depth - 3 + 5)] } },
      ] as Record<string, unknown>[]) {
        assert.equal(objectDepth(object).depth, depth);
        assert.equal(
          nestingErrors(object).length === 0,
          depth <= MAX_OBJECT_DEPTH,
          JSON.stringify(Object.keys(object)),
        );
      }
    }
  });

  it("counts an object from itself, managedFields five levels less, blaming the deepest top-level field", () => {
    assert.deepEqual(objectDepth({ kind: "K" }), { depth: 1, field: "" });
    assert.deepEqual(objectDepth({ spec: chain(3), status: chain(1) }), { depth: 4, field: "spec" });
    assert.deepEqual(objectDepth({ metadata: { labels: { a: "b" } } }), {
      depth: 3,
      field: "metadata.labels",
    });
    // The field set of {spec: {a: {b: "x"}}} sits at metadata.managedFields[0].fieldsV1 and is as deep.
    const tracked = {
      metadata: { managedFields: [{ manager: "m", fieldsV1: { "f:spec": { "f:a": { "f:b": {} } } } }] },
      spec: { a: { b: "x" } },
    };
    assert.deepEqual(objectDepth(tracked), { depth: 3, field: "spec" });
    const deeper = { metadata: { managedFields: [{ fieldsV1: { "f:spec": { "f:a": { "f:b": {} } } } }] } };
    assert.deepEqual(objectDepth(deeper), { depth: 3, field: "metadata.managedFields" });
  });

  it("refuses past the limit, unless an update leaves a deeper stored object no deeper", () => {
    const at = { spec: chain(MAX_OBJECT_DEPTH - 1) };
    const over = { spec: chain(MAX_OBJECT_DEPTH) };
    assert.deepEqual(nestingErrors(at), []);
    assert.deepEqual(nestingErrors(over), [
      {
        field: "spec",
        type: "FieldValueTooLong",
        detail: `may not nest more than ${MAX_OBJECT_DEPTH} levels of objects and arrays`,
      },
    ]);
    assert.equal(nestingErrors(over, at).length, 1);
    assert.deepEqual(nestingErrors(over, { spec: chain(MAX_OBJECT_DEPTH) }), []);
    assert.equal(nestingErrors({ spec: chain(MAX_OBJECT_DEPTH + 1) }, over).length, 1);
  });

  it("copies values of any depth", () => {
    const deep = { spec: chain(100_000), list: [1, { b: [2] }], n: null };
    const copy = copyAnyDepth(deep);
    assert.notEqual(copy, deep);
    assert.notEqual(copy.list, deep.list);
    assert.equal(nestingDepth(copy), 100_001);
    assert.deepEqual(copy.list, [1, { b: [2] }]);
    assert.deepEqual(Object.keys(copy), ["spec", "list", "n"]);
    assert.equal(copyAnyDepth("x"), "x");
  });
});
