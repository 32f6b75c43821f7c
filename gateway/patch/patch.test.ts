import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyJsonPatch, JsonPatchError } from "./json-patch.ts";
import { applyMergePatch } from "./merge-patch.ts";

describe("merge patch (RFC 7386 examples)", () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [
      ["a", "b"],
      ["c", "d"],
      ["c", "d"],
    ],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, want] of cases) {
    it(`${JSON.stringify(target)} + ${JSON.stringify(patch)}`, () =>
      assert.deepEqual(applyMergePatch(target, patch), want));
  }
});

describe("JSON patch", () => {
  const doc = { metadata: { labels: { a: "1" } }, list: [1, 2, 3] };
  const ok: [unknown[], unknown][] = [
    [
      [{ op: "add", path: "/metadata/labels/b", value: "2" }],
      { metadata: { labels: { a: "1", b: "2" } }, list: [1, 2, 3] },
    ],
    [[{ op: "remove", path: "/list/0" }], { metadata: { labels: { a: "1" } }, list: [2, 3] }],
    [[{ op: "add", path: "/list/-", value: 4 }], { metadata: { labels: { a: "1" } }, list: [1, 2, 3, 4] }],
    [[{ op: "replace", path: "/list/1", value: 9 }], { metadata: { labels: { a: "1" } }, list: [1, 9, 3] }],
    [
      [{ op: "move", from: "/metadata/labels/a", path: "/metadata/labels/z" }],
      { metadata: { labels: { z: "1" } }, list: [1, 2, 3] },
    ],
    [
      [{ op: "copy", from: "/list/0", path: "/list/0" }],
      { metadata: { labels: { a: "1" } }, list: [1, 1, 2, 3] },
    ],
    [[{ op: "test", path: "/list", value: [1, 2, 3] }], doc],
    [
      [{ op: "add", path: "/metadata/labels/x~1y", value: "s" }],
      { metadata: { labels: { a: "1", "x/y": "s" } }, list: [1, 2, 3] },
    ],
  ];
  for (const [patch, want] of ok) {
    it(JSON.stringify(patch), () => assert.deepEqual(applyJsonPatch(doc, patch), want));
  }
  const bad: unknown[] = [
    { op: "add" },
    [{ op: "remove", path: "/nope" }],
    [{ op: "replace", path: "/nope", value: 1 }],
    [{ op: "test", path: "/list/0", value: 2 }],
    [{ op: "add", path: "/list/7", value: 1 }],
    [{ op: "frobnicate", path: "/a" }],
    [{ op: "add", path: "a", value: 1 }],
    [{ op: "move", from: "/metadata", path: "/metadata/x" }],
    [{ op: "add", path: "/x" }],
  ];
  for (const patch of bad) {
    it(`rejects ${JSON.stringify(patch)}`, () =>
      assert.throws(() => applyJsonPatch(doc, patch), JsonPatchError));
  }
  it("applies nothing when one operation fails", () => {
    const original = structuredClone(doc);
    assert.throws(() =>
      applyJsonPatch(doc, [
        { op: "add", path: "/x", value: 1 },
        { op: "remove", path: "/nope" },
      ]),
    );
    assert.deepEqual(doc, original);
  });
});
