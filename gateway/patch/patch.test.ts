import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyJsonPatch, JsonPatchError, MAX_JSON_PATCH_OPERATIONS } from "./json-patch.ts";
import { applyMergePatch } from "./merge-patch.ts";
import { PatchError, UNPROCESSABLE_PATCH_MESSAGE } from "./patch-error.ts";

function nest(depth: number, leaf: unknown): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v as Record<string, unknown>;
}

describe("merge patch", () => {
  const cases: [string, unknown, unknown, unknown][] = [
    // RFC 7386's examples that upstream applies the same way.
    ["replaces a value", { a: "b" }, { a: "c" }, { a: "c" }],
    ["adds a key", { a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    ["null removes", { a: "b" }, { a: null }, {}],
    ["null removes one key", { a: "b", b: "c" }, { a: null }, { b: "c" }],
    ["a scalar replaces a list", { a: ["b"] }, { a: "c" }, { a: "c" }],
    ["a list replaces a scalar", { a: "c" }, { a: ["b"] }, { a: ["b"] }],
    ["merges nested objects", { a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    ["lists are replaced whole", { a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    ["keeps existing nulls", { e: null }, { a: 1 }, { e: null, a: 1 }],
    ["an object patch on a list", [1, 2], { a: "b", c: null }, { a: "b" }],
    ["a new nested object drops its nulls", {}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    // Upstream's own rules beyond the RFC.
    [
      "nulls inside a new list's objects are dropped",
      {},
      { a: [{ b: null, c: 1 }, null] },
      { a: [{ c: 1 }, null] },
    ],
    ["a null member counts as missing", { a: null }, { a: { b: null, c: 1 } }, { a: { c: 1 } }],
    ["a list replacing a scalar drops nulls", { a: [1] }, { a: [{ b: null }] }, { a: [{}] }],
    ["a list replacing an object keeps nulls", { a: { x: 1 } }, { a: [{ b: null }] }, { a: [{ b: null }] }],
    ["an object replacing a scalar drops nulls", { a: 1 }, { a: { b: null, c: 2 } }, { a: { c: 2 } }],
    ["an empty patch", { a: 1 }, {}, { a: 1 }],
  ];
  for (const [name, target, patch, want] of cases)
    it(name, () => assert.deepEqual(applyMergePatch(target, patch), want));

  const refused: [string, unknown, string | undefined, string][] = [
    ["null", null, undefined, "Invalid JSON Patch"],
    ["null, fieldValidation=Ignore", null, "Ignore", "Invalid JSON Patch"],
    [
      "a string",
      "x",
      "Strict",
      "error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}",
    ],
    ["a number, fieldValidation=Ignore", 3, "Ignore", "Invalid JSON Patch"],
    [
      "a list",
      [1],
      "Warn",
      "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}",
    ],
  ];
  for (const [name, patch, fieldValidation, message] of refused) {
    it(`refuses ${name}`, () =>
      assert.throws(
        () => applyMergePatch({ a: 1 }, patch, { fieldValidation }),
        new PatchError(400, message),
      ));
  }

  it("a list patch with fieldValidation=Ignore becomes the document", () =>
    assert.deepEqual(applyMergePatch({ a: 1 }, [{ b: null, c: 1 }, null], { fieldValidation: "Ignore" }), [
      { c: 1 },
      null,
    ]));

  it("does not modify its inputs", () => {
    const target = { a: { b: 1 }, l: [1] };
    const patch = { a: { b: null, c: { d: null } }, n: [{ x: null }] };
    const before = structuredClone([target, patch]);
    assert.deepEqual(applyMergePatch(target, patch), { a: { c: {} }, l: [1], n: [{}] });
    assert.deepEqual([target, patch], before);
  });

  it("keeps __proto__ keys as data", () => {
    const result = applyMergePatch({}, JSON.parse('{"__proto__": {"x": 1}}')) as Record<string, unknown>;
    assert.equal(JSON.stringify(result), '{"__proto__":{"x":1}}');
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
  });

  it("merges 1,000 levels deep", () =>
    assert.deepEqual(
      applyMergePatch(nest(1000, { x: 1 }), nest(1000, { y: 2 })),
      nest(1000, { x: 1, y: 2 }),
    ));

  it("fails cleanly on absurd nesting", () =>
    assert.throws(
      () => applyMergePatch(nest(100_000, 1), nest(100_000, 2)),
      (err: unknown) => err instanceof PatchError && err.status === 400,
    ));
});

describe("JSON patch: operations", () => {
  const doc = { metadata: { labels: { a: "1" }, n: null }, list: [1, 2, 3] };
  const labels = (l: Record<string, unknown>, list: unknown[] = [1, 2, 3]) => ({
    metadata: { labels: l, n: null },
    list,
  });
  const ok: [string, unknown[], unknown][] = [
    ["add a key", [{ op: "add", path: "/metadata/labels/b", value: "2" }], labels({ a: "1", b: "2" })],
    ["add over a key", [{ op: "add", path: "/metadata/labels/a", value: "9" }], labels({ a: "9" })],
    [
      "add without a value adds null",
      [{ op: "add", path: "/metadata/labels/b" }],
      labels({ a: "1", b: null }),
    ],
    ["add into a list", [{ op: "add", path: "/list/1", value: 9 }], labels({ a: "1" }, [1, 9, 2, 3])],
    [
      "add at the end of a list",
      [{ op: "add", path: "/list/-", value: 4 }],
      labels({ a: "1" }, [1, 2, 3, 4]),
    ],
    [
      "add at the length of a list",
      [{ op: "add", path: "/list/3", value: 4 }],
      labels({ a: "1" }, [1, 2, 3, 4]),
    ],
    ["add at -1 appends", [{ op: "add", path: "/list/-1", value: 4 }], labels({ a: "1" }, [1, 2, 3, 4])],
    ["add at -4 prepends", [{ op: "add", path: "/list/-4", value: 0 }], labels({ a: "1" }, [0, 1, 2, 3])],
    [
      "add with a leading-zero index",
      [{ op: "add", path: "/list/01", value: 9 }],
      labels({ a: "1" }, [1, 9, 2, 3]),
    ],
    ["add an empty key", [{ op: "add", path: "/metadata/labels/", value: "e" }], labels({ a: "1", "": "e" })],
    ["remove a key", [{ op: "remove", path: "/metadata/labels/a" }], labels({})],
    [
      "remove a null-valued key",
      [{ op: "remove", path: "/metadata/n" }],
      { metadata: { labels: { a: "1" } }, list: [1, 2, 3] },
    ],
    ["remove from a list", [{ op: "remove", path: "/list/0" }], labels({ a: "1" }, [2, 3])],
    ["remove the last item by -1", [{ op: "remove", path: "/list/-1" }], labels({ a: "1" }, [1, 2])],
    ["replace a list item", [{ op: "replace", path: "/list/1", value: 9 }], labels({ a: "1" }, [1, 9, 3])],
    ["replace a key", [{ op: "replace", path: "/metadata/labels/a", value: "x" }], labels({ a: "x" })],
    [
      "replace a missing key adds it",
      [{ op: "replace", path: "/metadata/labels/z", value: "x" }],
      labels({ a: "1", z: "x" }),
    ],
    ["replace the document", [{ op: "replace", path: "", value: { b: 1 } }], { b: 1 }],
    ["replace the document by a scalar is ignored", [{ op: "replace", path: "", value: 5 }], doc],
    [
      "move a key",
      [{ op: "move", from: "/metadata/labels/a", path: "/metadata/labels/z" }],
      labels({ z: "1" }),
    ],
    ["move a list item", [{ op: "move", from: "/list/0", path: "/list/-" }], labels({ a: "1" }, [2, 3, 1])],
    ["move onto itself", [{ op: "move", from: "/list", path: "/list" }], doc],
    [
      "copy a list item",
      [{ op: "copy", from: "/list/0", path: "/list/0" }],
      labels({ a: "1" }, [1, 1, 2, 3]),
    ],
    [
      "copy a missing key copies null",
      [{ op: "copy", from: "/metadata/nope", path: "/metadata/labels/c" }],
      labels({ a: "1", c: null }),
    ],
    ["test a list", [{ op: "test", path: "/list", value: [1, 2, 3] }], doc],
    ["test the document", [{ op: "test", path: "", value: doc }], doc],
    ["test a missing key against null", [{ op: "test", path: "/metadata/nope", value: null }], doc],
    ["test a null value", [{ op: "test", path: "/metadata/n", value: null }], doc],
    ["test with a negative index", [{ op: "test", path: "/list/-1", value: 3 }], doc],
    [
      "escaped tokens",
      [{ op: "add", path: "/metadata/labels/x~1y~0z", value: "s" }],
      labels({ a: "1", "x/y~z": "s" }),
    ],
    [
      "~01 decodes to ~1",
      [{ op: "add", path: "/metadata/labels/~01", value: "s" }],
      labels({ a: "1", "~1": "s" }),
    ],
    ["a path's first segment is not checked", [{ op: "add", path: "x/b", value: 1 }], { ...doc, b: 1 }],
    [
      "operations run in order",
      [
        { op: "add", path: "/x", value: { y: [] } },
        { op: "add", path: "/x/y/0", value: 1 },
      ],
      { ...doc, x: { y: [1] } },
    ],
    ["a null patch does nothing", null as unknown as unknown[], doc],
  ];
  for (const [name, patch, want] of ok) it(name, () => assert.deepEqual(applyJsonPatch(doc, patch), want));

  it("does not modify its inputs and shares nothing with them", () => {
    const input = structuredClone(doc);
    const value = { deep: [1] };
    const result = applyJsonPatch(input, [{ op: "add", path: "/v", value }]) as { v: { deep: number[] } };
    result.v.deep.push(2);
    assert.deepEqual(input, doc);
    assert.deepEqual(value, { deep: [1] });
  });

  it("keeps __proto__ keys as data", () => {
    const result = applyJsonPatch({}, [{ op: "add", path: "/__proto__", value: { x: 1 } }]) as object;
    assert.equal(JSON.stringify(result), '{"__proto__":{"x":1}}');
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
  });

  it("works 1,000 levels deep", () => {
    const path = `${"/a".repeat(1000)}/y`;
    assert.deepEqual(
      applyJsonPatch(nest(1000, { x: 1 }), [{ op: "add", path, value: 2 }]),
      nest(1000, { x: 1, y: 2 }),
    );
  });
});

describe("JSON patch: failures", () => {
  const doc = { metadata: { labels: { a: "1" } }, list: [1, 2, 3] };
  // Failures while applying are 422s with upstream's generic message; the detail is the cause.
  const unprocessable: [string, unknown[], string][] = [
    [
      "remove a missing key",
      [{ op: "remove", path: "/nope" }],
      "error in remove for path: '/nope': Unable to remove nonexistent key: nope: missing value",
    ],
    [
      "remove below a missing key",
      [{ op: "remove", path: "/nope/x" }],
      'remove operation does not apply: doc is missing path: "/nope/x": missing value',
    ],
    [
      "remove past the end",
      [{ op: "remove", path: "/list/3" }],
      "error in remove for path: '/list/3': Unable to access invalid index: 3: invalid index referenced",
    ],
    [
      "remove the document",
      [{ op: "remove", path: "" }],
      'remove operation does not apply: doc is missing path: "": missing value',
    ],
    [
      "replace past the end",
      [{ op: "replace", path: "/list/9", value: 1 }],
      "replace operation does not apply: doc is missing key: /list/9: missing value",
    ],
    [
      "replace below a missing key",
      [{ op: "replace", path: "/nope/x", value: 1 }],
      "replace operation does not apply: doc is missing path: /nope/x: missing value",
    ],
    [
      "add past the end",
      [{ op: "add", path: "/list/7", value: 1 }],
      "error in add for path: '/list/7': Unable to access invalid index: 7: invalid index referenced",
    ],
    [
      "add before the start",
      [{ op: "add", path: "/list/-5", value: 1 }],
      "error in add for path: '/list/-5': Unable to access invalid index: -5: invalid index referenced",
    ],
    [
      "add at a bad index",
      [{ op: "add", path: "/list/x", value: 1 }],
      "error in add for path: '/list/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax",
    ],
    [
      "add to the document",
      [{ op: "add", path: "", value: {} }],
      'add operation does not apply: doc is missing path: "": missing value',
    ],
    ["add without a path", [{ op: "add", value: 1 }], "add operation failed to decode path: missing value"],
    [
      "add below a scalar",
      [{ op: "add", path: "/list/0/x", value: 1 }],
      'add operation does not apply: doc is missing path: "/list/0/x": missing value',
    ],
    [
      "a failing test",
      [{ op: "test", path: "/list/0", value: 2 }],
      "testing value /list/0 failed: test failed",
    ],
    [
      "test a missing key",
      [{ op: "test", path: "/nope", value: 1 }],
      "testing value /nope failed: test failed",
    ],
    ["test without a value", [{ op: "test", path: "/list" }], "testing value /list failed: test failed"],
    [
      "test past the end",
      [{ op: "test", path: "/list/5", value: 1 }],
      "error in test for path: '/list/5': Unable to access invalid index: 5: invalid index referenced",
    ],
    [
      "move into its own child",
      [{ op: "move", from: "/metadata", path: "/metadata/x" }],
      "move operation does not apply: doc is missing destination path: /metadata/x: missing value",
    ],
    [
      "move from a missing key",
      [{ op: "move", from: "/nope", path: "/x" }],
      "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value",
    ],
    [
      "move without from",
      [{ op: "move", path: "/x" }],
      "move operation failed to decode from: operation, missing from field: missing value",
    ],
    [
      "copy from past the end",
      [{ op: "copy", from: "/list/8", path: "/x" }],
      "error in copy for from: '/list/8': Unable to access invalid index: 8: invalid index referenced",
    ],
    ["an unknown operation", [{ op: "frobnicate", path: "/a" }], "Unexpected kind: frobnicate"],
    ["an operation without op", [{ path: "/a" }], "Unexpected kind: unknown"],
    ["a null operation", [null], "Unexpected kind: unknown"],
  ];
  for (const [name, patch, detail] of unprocessable) {
    it(name, () =>
      assert.throws(
        () => applyJsonPatch(doc, patch),
        (err: unknown) => {
          assert.ok(err instanceof JsonPatchError && err instanceof PatchError, String(err));
          assert.equal(err.status, 422);
          assert.equal(err.message, UNPROCESSABLE_PATCH_MESSAGE);
          assert.equal(err.detail, detail);
          return true;
        },
      ),
    );
  }

  // Documents that do not decode as operations are 400s, named as upstream's decoders name them.
  const undecodable: [string, unknown, string | undefined, string][] = [
    [
      "an object",
      { op: "add" },
      undefined,
      "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
    ],
    [
      "a string item",
      ["x"],
      "Strict",
      "error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp",
    ],
    [
      "a number as path",
      [{ op: "add", path: 5, value: 1 }],
      "Warn",
      "error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string",
    ],
    [
      "an object, fieldValidation=Ignore",
      { op: "add" },
      "Ignore",
      "json: cannot unmarshal object into Go value of type jsonpatch.Patch",
    ],
    [
      "a list item, fieldValidation=Ignore",
      [[1]],
      "Ignore",
      "json: cannot unmarshal array into Go value of type jsonpatch.Operation",
    ],
  ];
  for (const [name, patch, fieldValidation, message] of undecodable) {
    it(`refuses ${name}`, () =>
      assert.throws(() => applyJsonPatch(doc, patch, { fieldValidation }), new JsonPatchError(400, message)));
  }

  it("a number as path with fieldValidation=Ignore fails while applying", () =>
    assert.throws(
      () => applyJsonPatch(doc, [{ op: "add", path: 5, value: 1 }], { fieldValidation: "Ignore" }),
      (err: unknown) =>
        err instanceof PatchError &&
        err.status === 422 &&
        err.detail === "add operation failed to decode path: missing value",
    ));

  it("refuses more than 10,000 operations before applying any", () => {
    const patch = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: "frobnicate" }));
    assert.throws(
      () => applyJsonPatch(doc, patch),
      new JsonPatchError(
        413,
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
      ),
    );
    const allowed = Array.from({ length: MAX_JSON_PATCH_OPERATIONS }, () => ({
      op: "test",
      path: "/list/0",
      value: 1,
    }));
    assert.deepEqual(applyJsonPatch(doc, allowed), doc);
  });

  it("limits what copies may add", () => {
    const patch = [{ op: "add", path: "/x", value: { s: "y".repeat(1000) } }];
    for (let i = 0; i < 20; i++) patch.push({ op: "copy", from: "/x", path: `/x/c${i}` } as never);
    assert.throws(
      () => applyJsonPatch({}, patch),
      (err: unknown) =>
        err instanceof PatchError &&
        err.status === 422 &&
        err.detail.startsWith("Unable to complete the copy, the accumulated size increase of copy is "),
    );
  });

  it("applies nothing when one operation fails", () => {
    const original = structuredClone(doc);
    assert.throws(() =>
      applyJsonPatch(original, [
        { op: "add", path: "/x", value: 1 },
        { op: "remove", path: "/list/0" },
        { op: "remove", path: "/nope" },
      ]),
    );
    assert.deepEqual(original, doc);
  });
});
