import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { kindSchema } from "../../backends/builtin/typed.ts";
import { builtinCatalog } from "../../backends/catalog/index.ts";
import type { StructuralSchema } from "../../backends/schema/structural/types.ts";
import { goFormat, PatchError, UNPROCESSABLE_PATCH_MESSAGE } from "./patch-error.ts";
import { applyStrategicMergePatch } from "./strategic-merge.ts";

type Obj = Record<string, unknown>;

// A small schema exercising every marker: `items` merge by name (recursively), `tags` is a merged
// primitive list, `plain` a list without strategy, `options` has retainKeys, `replaced` replace.
const widget: { type: string; properties: Record<string, StructuralSchema> } = {
  type: "object",
  properties: {},
};
const options: StructuralSchema = {
  type: "object",
  "x-kubernetes-patch-strategy": "retainKeys",
  properties: {
    a: { type: "string" },
    b: { type: "string" },
    c: { type: "object", additionalProperties: { type: "string" } },
    tags: { type: "array", items: { type: "string" }, "x-kubernetes-patch-strategy": "merge" },
  },
};
Object.assign(widget.properties, {
  name: { type: "string" },
  value: { type: "string" },
  other: { type: "string" },
  items: {
    type: "array",
    items: widget,
    "x-kubernetes-patch-strategy": "merge",
    "x-kubernetes-patch-merge-key": "name",
  },
  keep: {
    type: "array",
    items: widget,
    "x-kubernetes-patch-strategy": "merge,retainKeys",
    "x-kubernetes-patch-merge-key": "name",
  },
  tags: { type: "array", items: { type: "string" }, "x-kubernetes-patch-strategy": "merge" },
  numbers: { type: "array", items: { type: "integer" }, "x-kubernetes-patch-strategy": "merge" },
  plain: { type: "array", items: widget },
  settings: { type: "object", additionalProperties: { type: "string" } },
  options,
  replaced: {
    type: "object",
    "x-kubernetes-patch-strategy": "replace",
    properties: { x: { type: "string" } },
  },
  unkeyed: { type: "array", items: widget, "x-kubernetes-patch-strategy": "merge" },
  nested: {
    type: "array",
    items: { type: "array", items: { type: "string" } },
    "x-kubernetes-patch-strategy": "merge",
  },
  odd: { type: "array", items: widget, "x-kubernetes-patch-strategy": "merge,retainKeys,replace" },
  free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
});
const schema = widget as StructuralSchema;

function patched(original: Obj, patch: Obj, s: StructuralSchema | undefined = schema): Obj {
  return applyStrategicMergePatch(original, patch, s);
}

describe("strategic merge patch: maps and plain values", () => {
  const cases: [string, Obj, Obj, Obj][] = [
    ["adds a key", { name: "a" }, { value: "v" }, { name: "a", value: "v" }],
    ["replaces a scalar", { value: "v" }, { value: "w" }, { value: "w" }],
    ["null deletes a key", { name: "a", value: "v" }, { value: null }, { name: "a" }],
    ["null for a missing key is dropped", { name: "a" }, { value: null }, { name: "a" }],
    [
      "maps merge recursively",
      { settings: { a: "1", b: "2" } },
      { settings: { b: "3", c: "4" } },
      { settings: { a: "1", b: "3", c: "4" } },
    ],
    [
      "null deletes inside a map",
      { settings: { a: "1", b: "2" } },
      { settings: { a: null } },
      { settings: { b: "2" } },
    ],
    [
      "nulls inside a new value are dropped",
      {},
      { free: { a: null, b: { c: null, d: 1 }, l: [{ e: null }, null] } },
      { free: { b: { d: 1 }, l: [{}, null] } },
    ],
    ["a value of another type replaces", { settings: { a: "1" } }, { settings: ["x"] }, { settings: ["x"] }],
    [
      "a null original value is replaced",
      { settings: null },
      { settings: { a: "1", b: null } },
      { settings: { a: "1" } },
    ],
    [
      "a list without strategy is replaced",
      { plain: [{ name: "a" }, { name: "b" }] },
      { plain: [{ name: "c" }] },
      { plain: [{ name: "c" }] },
    ],
    [
      "strategy replace replaces a map",
      { replaced: { x: "1", y: "2" } },
      { replaced: { x: "3" } },
      { replaced: { x: "3" } },
    ],
    [
      "free-form maps merge",
      { free: { a: { b: 1, c: 2 } } },
      { free: { a: { c: 3 } } },
      { free: { a: { b: 1, c: 3 } } },
    ],
    ["free-form lists replace", { free: { l: [1, 2] } }, { free: { l: [3] } }, { free: { l: [3] } }],
    [
      "an empty patch changes nothing",
      { name: "a", items: [{ name: "x" }] },
      {},
      { name: "a", items: [{ name: "x" }] },
    ],
  ];
  for (const [name, original, patch, want] of cases)
    it(name, () => assert.deepEqual(patched(original, patch), want));
});

describe("strategic merge patch: $patch on maps", () => {
  const cases: [string, Obj, Obj, Obj][] = [
    [
      "replace swaps the map for the patch's",
      { settings: { a: "1", b: "2" } },
      { settings: { $patch: "replace", c: "3" } },
      { settings: { c: "3" } },
    ],
    [
      "delete empties the map",
      { settings: { a: "1" }, name: "n" },
      { settings: { $patch: "delete" } },
      { settings: {}, name: "n" },
    ],
    ["replace at the top", { name: "a", value: "b" }, { $patch: "replace", other: "c" }, { other: "c" }],
    ["delete at the top", { name: "a" }, { $patch: "delete" }, {}],
    [
      "replace keeps what the patch holds, nulls too",
      { options: { a: "1" } },
      { options: { $patch: "replace", b: null } },
      { options: { b: null } },
    ],
    [
      "nested in a merged list item",
      { items: [{ name: "a", options: { a: "1", b: "2" } }] },
      { items: [{ name: "a", options: { $patch: "replace", a: "9" } }] },
      { items: [{ name: "a", options: { a: "9" } }] },
    ],
  ];
  for (const [name, original, patch, want] of cases)
    it(name, () => assert.deepEqual(patched(original, patch), want));
});

describe("strategic merge patch: lists merged by key", () => {
  const cases: [string, Obj, Obj, Obj][] = [
    [
      "merges the matching item",
      {
        items: [
          { name: "a", value: "1" },
          { name: "b", value: "2" },
        ],
      },
      { items: [{ name: "b", value: "3" }] },
      {
        items: [
          { name: "a", value: "1" },
          { name: "b", value: "3" },
        ],
      },
    ],
    [
      "puts new items first when no order is given (as upstream)",
      { items: [{ name: "a" }, { name: "b" }] },
      { items: [{ name: "c" }] },
      { items: [{ name: "c" }, { name: "a" }, { name: "b" }] },
    ],
    [
      "orders patch items by the patch, interleaved by the server's order",
      { items: [{ name: "a" }, { name: "b" }, { name: "c" }] },
      {
        items: [
          { name: "c", value: "x" },
          { name: "a", value: "y" },
        ],
      },
      { items: [{ name: "b" }, { name: "c", value: "x" }, { name: "a", value: "y" }] },
    ],
    [
      "new items come before server-only ones they cannot be placed against",
      { items: [{ name: "a" }, { name: "b" }] },
      { items: [{ name: "z" }, { name: "b", value: "1" }] },
      { items: [{ name: "z" }, { name: "a" }, { name: "b", value: "1" }] },
    ],
    [
      "$patch: delete removes every item with the key",
      { items: [{ name: "a" }, { name: "b" }, { name: "a", value: "dup" }] },
      { items: [{ name: "a", $patch: "delete" }] },
      { items: [{ name: "b" }] },
    ],
    [
      "deleting a missing item is a no-op",
      { items: [{ name: "a" }] },
      { items: [{ $patch: "delete", name: "zz" }] },
      { items: [{ name: "a" }] },
    ],
    [
      "$patch: replace replaces the list with the other items",
      { items: [{ name: "a", value: "1" }, { name: "b" }] },
      { items: [{ name: "c" }, { $patch: "replace" }, { name: "a" }] },
      { items: [{ name: "c" }, { name: "a" }] },
    ],
    [
      "merges nested keyed lists",
      { items: [{ name: "a", items: [{ name: "x", value: "1" }, { name: "y" }] }] },
      {
        items: [
          {
            name: "a",
            items: [
              { name: "x", value: "2" },
              { name: "y", $patch: "delete" },
            ],
          },
        ],
      },
      { items: [{ name: "a", items: [{ name: "x", value: "2" }] }] },
    ],
    [
      "a new list is taken as sent, directives and all",
      {},
      {
        items: [
          { name: "a", other: null },
          { name: "b", $patch: "delete" },
        ],
      },
      { items: [{ name: "a" }, { name: "b", $patch: "delete" }] },
    ],
    [
      "an empty patch list keeps the list",
      { items: [{ name: "a" }] },
      { items: [] },
      { items: [{ name: "a" }] },
    ],
    ["null removes the list", { items: [{ name: "a" }] }, { items: null }, {}],
    [
      "numbers are merge keys too",
      { items: [{ name: 1 as unknown as string, value: "a" }] },
      { items: [{ name: 1 as unknown as string, value: "b" }] },
      { items: [{ name: 1, value: "b" }] },
    ],
  ];
  for (const [name, original, patch, want] of cases)
    it(name, () => assert.deepEqual(patched(original, patch), want));
});

describe("strategic merge patch: primitive lists", () => {
  const cases: [string, Obj, Obj, Obj][] = [
    ["union puts new items first", { tags: ["a", "b"] }, { tags: ["c"] }, { tags: ["c", "a", "b"] }],
    ["duplicates collapse", { tags: ["a", "b"] }, { tags: ["b", "a", "c", "c"] }, { tags: ["b", "a", "c"] }],
    [
      "patch order wins among its items",
      { tags: ["a", "b", "c"] },
      { tags: ["c", "a"] },
      { tags: ["b", "c", "a"] },
    ],
    [
      "$deleteFromPrimitiveList removes",
      { tags: ["a", "b", "c", "b"] },
      { "$deleteFromPrimitiveList/tags": ["b", "x"] },
      { tags: ["a", "c"] },
    ],
    [
      "$deleteFromPrimitiveList with additions",
      { tags: ["a", "b"] },
      { tags: ["c"], "$deleteFromPrimitiveList/tags": ["a"] },
      { tags: ["c", "b"] },
    ],
    [
      "$deleteFromPrimitiveList of a missing list does nothing",
      { name: "n" },
      { "$deleteFromPrimitiveList/tags": ["a"] },
      { name: "n" },
    ],
    [
      "$deleteFromPrimitiveList on a list without strategy replaces it (as upstream)",
      { plain: [{ name: "a" }] },
      { "$deleteFromPrimitiveList/plain": [{ name: "x" }] },
      { plain: [{ name: "x" }] },
    ],
    ["numbers", { numbers: [3, 1] }, { numbers: [2, 1] }, { numbers: [2, 3, 1] }],
    [
      "a list without strategy is replaced",
      { plain: [] },
      { plain: [{ name: "a" }] },
      { plain: [{ name: "a" }] },
    ],
  ];
  for (const [name, original, patch, want] of cases)
    it(name, () => assert.deepEqual(patched(original, patch), want));
});

describe("strategic merge patch: $setElementOrder", () => {
  const cases: [string, Obj, Obj, Obj][] = [
    [
      "reorders without changing items",
      { items: [{ name: "a", value: "1" }, { name: "b" }, { name: "c" }] },
      { "$setElementOrder/items": [{ name: "c" }, { name: "a" }, { name: "b" }] },
      { items: [{ name: "c" }, { name: "a", value: "1" }, { name: "b" }] },
    ],
    [
      "places an added item where the order says",
      { items: [{ name: "a" }, { name: "c" }] },
      { "$setElementOrder/items": [{ name: "a" }, { name: "b" }, { name: "c" }], items: [{ name: "b" }] },
      { items: [{ name: "a" }, { name: "b" }, { name: "c" }] },
    ],
    [
      "with a deletion",
      { items: [{ name: "a" }, { name: "b" }, { name: "c" }] },
      { "$setElementOrder/items": [{ name: "a" }, { name: "c" }], items: [{ $patch: "delete", name: "b" }] },
      { items: [{ name: "a" }, { name: "c" }] },
    ],
    [
      "server-only items keep their place relative to known ones",
      { items: [{ name: "a" }, { name: "s" }, { name: "b" }] },
      { "$setElementOrder/items": [{ name: "b" }, { name: "a" }] },
      { items: [{ name: "s" }, { name: "b" }, { name: "a" }] },
    ],
    [
      "a server-only item next to a replaced one, as upstream's shared storage orders it",
      { items: [{ name: "a" }, { name: "s" }, { name: "b" }] },
      {
        "$setElementOrder/items": [{ name: "a" }, { name: "d" }],
        items: [{ name: "d" }, { $patch: "delete", name: "b" }],
      },
      { items: [{ name: "a" }, { name: "s" }, { name: "d" }] },
    ],
    [
      "an order naming items that do not exist",
      { items: [{ name: "a" }, { name: "c" }] },
      { "$setElementOrder/items": [{ name: "c" }, { name: "b" }, { name: "a" }] },
      { items: [{ name: "c" }, { name: "a" }] },
    ],
    [
      "for a list the server does not have",
      {},
      {
        "$setElementOrder/items": [{ name: "b" }, { name: "a" }],
        items: [{ name: "b" }, { name: "a", value: "1" }],
      },
      { items: [{ name: "b" }, { name: "a", value: "1" }] },
    ],
    ["for neither list", { name: "n" }, { "$setElementOrder/items": [{ name: "a" }] }, { name: "n" }],
    ["of an empty list", { items: [] }, { "$setElementOrder/items": [] }, { items: [] }],
    [
      "of primitives with a deletion list",
      { tags: ["a", "b", "c"] },
      { "$setElementOrder/tags": ["c", "a"], "$deleteFromPrimitiveList/tags": ["b"] },
      { tags: ["c", "a"] },
    ],
    [
      "of primitives with an addition among server-only items",
      { tags: ["a", "x", "b"] },
      { "$setElementOrder/tags": ["a", "n", "b"], tags: ["n"] },
      { tags: ["a", "n", "x", "b"] },
    ],
    [
      "nested in a list item",
      { items: [{ name: "a", tags: ["1", "2"] }] },
      {
        "$setElementOrder/items": [{ name: "a" }],
        items: [{ name: "a", "$setElementOrder/tags": ["2", "1"] }],
      },
      { items: [{ name: "a", tags: ["2", "1"] }] },
    ],
  ];
  for (const [name, original, patch, want] of cases)
    it(name, () => assert.deepEqual(patched(original, patch), want));

  it("keeps a long list's order right", () => {
    const n = 5_000;
    const names = Array.from({ length: n }, (_, i) => `item-${i}`);
    const result = patched(
      { items: names.map((name) => ({ name })) },
      {
        "$setElementOrder/items": [...names].reverse().map((name) => ({ name })),
        items: [{ name: "item-7", value: "v" }],
      },
    );
    const items = result.items as Obj[];
    assert.equal(items.length, n);
    assert.deepEqual(items[0], { name: `item-${n - 1}` });
    assert.deepEqual(items[n - 8], { name: "item-7", value: "v" });
    assert.deepEqual(items[n - 1], { name: "item-0" });
  });
});

describe("strategic merge patch: $retainKeys", () => {
  const cases: [string, Obj, Obj, Obj][] = [
    [
      "clears keys not listed",
      { options: { a: "1", b: "2", c: { x: "y" } } },
      { options: { $retainKeys: ["a", "b"], b: "3" } },
      { options: { a: "1", b: "3" } },
    ],
    [
      "null values and other directives need not be listed",
      { options: { a: "1", b: "2", tags: ["x", "y"] } },
      {
        options: {
          $retainKeys: ["tags"],
          a: null,
          "$deleteFromPrimitiveList/tags": ["x"],
          "$setElementOrder/tags": ["y"],
        },
      },
      { options: { tags: ["y"] } },
    ],
    ["an empty list clears all", { options: { a: "1" } }, { options: { $retainKeys: [] } }, { options: {} }],
    [
      "applies in merged list items",
      { keep: [{ name: "v", value: "1", other: "2" }] },
      { keep: [{ name: "v", $retainKeys: ["name", "other"], other: "3" }] },
      { keep: [{ name: "v", other: "3" }] },
    ],
    [
      "is kept in a value the server did not have",
      {},
      { options: { $retainKeys: ["a"], a: "1" } },
      { options: { $retainKeys: ["a"], a: "1" } },
    ],
  ];
  for (const [name, original, patch, want] of cases)
    it(name, () => assert.deepEqual(patched(original, patch), want));
});

describe("strategic merge patch: errors", () => {
  const noKey = (m: string) => `map: ${m} does not contain declared merge key: name`;
  const cases: [string, Obj, Obj, 400 | 422, string][] = [
    [
      "an item without its merge key",
      { items: [{ name: "a" }] },
      { items: [{ value: "x" }] },
      400,
      noKey("map[value:x]"),
    ],
    [
      "a delete directive without the merge key",
      { items: [{ name: "a" }] },
      { items: [{ $patch: "delete" }] },
      400,
      noKey("map[$patch:delete]"),
    ],
    [
      "a server item without the merge key",
      { items: [{ value: "a" }] },
      { items: [{ name: "b" }] },
      400,
      noKey("map[value:a]"),
    ],
    [
      "an unknown $patch in a list",
      { items: [{ name: "a" }] },
      { items: [{ name: "a", $patch: "frobnicate" }] },
      400,
      "unknown patch type: frobnicate in map: map[$patch:frobnicate name:a]",
    ],
    [
      "$patch: merge in a list",
      { items: [{ name: "a" }] },
      { items: [{ $patch: "merge" }] },
      400,
      "merging lists cannot yet be specified in the patch",
    ],
    [
      "$patch: merge on a map",
      { settings: { a: "1" } },
      { settings: { $patch: "merge", b: "2" } },
      400,
      "unknown patch type: merge in map: map[$patch:merge b:2]",
    ],
    [
      "a non-string $patch",
      { settings: {} },
      { settings: { $patch: 1, x: 1.5, y: null, z: [true] } },
      400,
      "unknown patch type: %!s(int64=1) in map: map[$patch:1 x:1.5 y:<nil> z:[true]]",
    ],
    [
      "$retainKeys not a list",
      { options: {} },
      { options: { $retainKeys: "a" } },
      400,
      "invalid patch format of retainKeys",
    ],
    [
      "a patch key missing from $retainKeys",
      { options: { a: "1" } },
      { options: { $retainKeys: ["a"], b: "2" } },
      400,
      "invalid patch format of retainKeys",
    ],
    [
      "a $setElementOrder key without a list name",
      { items: [] },
      { $setElementOrderitems: [] },
      400,
      "invalid patch format of setElementOrder list",
    ],
    [
      "a $setElementOrder that is not a list",
      { items: [] },
      { "$setElementOrder/items": "a" },
      400,
      "expected a []interface {}, but received a string",
    ],
    [
      "a $setElementOrder for a value that is not a list",
      { settings: { a: "1" } },
      { "$setElementOrder/settings": [] },
      400,
      "expected a []interface {}, but received a map[string]interface {}",
    ],
    [
      "a patch list out of $setElementOrder's order",
      { items: [{ name: "a" }, { name: "b" }] },
      {
        "$setElementOrder/items": [{ name: "a" }, { name: "b" }],
        items: [
          { name: "b", value: "1" },
          { name: "a", value: "2" },
        ],
      },
      400,
      "The order in patch list:\n[map[name:b value:1] map[name:a value:2]]\n doesn't match $setElementOrder list:\n[map[name:a] map[name:b]]\n",
    ],
    [
      "a $setElementOrder item without the merge key",
      { items: [{ name: "a" }] },
      { "$setElementOrder/items": [{ value: "a" }], items: [{ name: "a" }] },
      400,
      noKey("map[value:a]"),
    ],
    [
      "a $deleteFromPrimitiveList key without a list name",
      { tags: ["a"] },
      { $deleteFromPrimitiveListtags: ["a"] },
      400,
      "invalid patch format of primitive list",
    ],
    [
      "mixed item types",
      { tags: ["a"] },
      { tags: [1] },
      400,
      "list element types are not identical: [[a] [1]]",
    ],
    ["a list of lists", { nested: [] }, { nested: [["a"]] }, 422, "lists of lists are not supported"],
    [
      "map items merged without a merge key",
      { unkeyed: [{ name: "a" }] },
      { unkeyed: [{ name: "b" }] },
      400,
      "cannot merge lists without merge key for struct",
    ],
    [
      "a strategy with too many parts",
      { odd: [{ name: "a" }] },
      { odd: [{ name: "b" }] },
      400,
      "unexpected patch strategy: [merge retainKeys replace]",
    ],
    [
      "map values as merge keys",
      { items: [{ name: { x: 1 } }] },
      { items: [{ name: { x: 1 } }] },
      400,
      "runtime error: comparing uncomparable type map[string]interface {}",
    ],
  ];
  for (const [name, original, patch, status, detail] of cases) {
    it(name, () => {
      assert.throws(
        () => patched(original, patch),
        (err: unknown) => {
          assert.ok(err instanceof PatchError, String(err));
          assert.equal(err.status, status);
          assert.equal(err.detail, detail);
          assert.equal(err.message, status === 422 ? UNPROCESSABLE_PATCH_MESSAGE : detail);
          return true;
        },
      );
    });
  }

  it("a patch that is not an object, at run time", () => {
    assert.throws(
      () => applyStrategicMergePatch({}, [] as unknown as Obj, schema),
      new PatchError(400, "json: cannot unmarshal array into Go value of type map[string]interface {}"),
    );
    assert.deepEqual(applyStrategicMergePatch({ a: 1 }, null as unknown as Obj, schema), { a: 1 });
  });
});

describe("strategic merge patch: safety", () => {
  it("does not modify its inputs", () => {
    const original = {
      items: [{ name: "a", tags: ["x"] }, { name: "b" }, { name: "c" }],
      options: { a: "1", b: "2" },
      settings: { k: "v" },
    };
    const patch = {
      "$setElementOrder/items": [{ name: "c" }, { name: "a" }, { name: "d" }],
      items: [
        { name: "a", tags: ["y"] },
        { name: "d", value: null },
        { $patch: "delete", name: "b" },
      ],
      options: { $retainKeys: ["a"], a: "3" },
      settings: { k: null, n: { x: null } },
    };
    const before = structuredClone([original, patch]);
    const result = patched(original, patch);
    assert.deepEqual([original, patch], before);
    assert.deepEqual(result, {
      // An item appended to a merged list keeps its nulls, as upstream leaves it.
      items: [{ name: "c" }, { name: "a", tags: ["y", "x"] }, { name: "d", value: null }],
      options: { a: "3" },
      settings: { n: {} },
    });
  });

  it("keeps __proto__ keys as data", () => {
    const original = JSON.parse('{"settings": {"__proto__": "a"}}');
    const result = patched(
      original,
      JSON.parse('{"settings": {"__proto__": "b"}, "free": {"__proto__": {"x": 1}}}'),
    );
    assert.equal(JSON.stringify(result), '{"settings":{"__proto__":"b"},"free":{"__proto__":{"x":1}}}');
    assert.equal(Object.getPrototypeOf(result.free), Object.prototype);
  });

  function nest(depth: number, leaf: unknown): Obj {
    let v: unknown = leaf;
    for (let i = 0; i < depth; i++) v = { a: v };
    return v as Obj;
  }

  it("merges values nested 1,000 levels deep", () => {
    const result = patched(nest(1000, { x: 1, y: 2 }), nest(1000, { y: 3 }), undefined);
    assert.deepEqual(result, nest(1000, { x: 1, y: 3 }));
  });

  it("fails cleanly on absurd nesting", () => {
    assert.throws(
      () => patched(nest(100_000, 1), nest(100_000, 2), undefined),
      (err: unknown) => err instanceof PatchError && err.status === 400,
    );
  });
});

describe("Go value notation in messages", () => {
  const cases: [unknown, string][] = [
    [{ b: 1, a: "x", c: null }, "map[a:x b:1 c:<nil>]"],
    [[1.5, 0.00001, 1000000.5, 123456.5, 1e21, true], "[1.5 1e-05 1.0000005e+06 123456.5 1e+21 true]"],
    [{ l: [{ k: [] }] }, "map[l:[map[k:[]]]]"],
  ];
  for (const [value, want] of cases) it(want, () => assert.equal(goFormat(value), want));
  it("%s of non-strings", () =>
    assert.equal(goFormat([1, "a", null, false], "s"), "[%!s(int64=1) a %!s(<nil>) %!s(bool=false)]"));
});

// -----------------------------------------------------------------------------------------------
// Built-in kinds with their real schemas, and the patches `kubectl apply` (client-side, 3-way)
// sends: every merged list it touches comes with a `$setElementOrder`, removed items as
// `$patch: delete`, and the new last-applied annotation.

const catalog = builtinCatalog();
const deploymentSchema = kindSchema(catalog, "apps/v1.Deployment");
const podSchema = kindSchema(catalog, "core/v1.Pod");
const serviceSchema = kindSchema(catalog, "core/v1.Service");
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

function deployment(containers: Obj[], extra: Obj = {}): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "default",
      labels: { app: "web" },
      annotations: { [LAST_APPLIED]: "{}" },
      resourceVersion: "7",
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers, restartPolicy: "Always", dnsPolicy: "ClusterFirst" },
      },
      ...extra,
    },
  };
}

function container(name: string, extra: Obj = {}): Obj {
  return {
    name,
    image: `${name}:1`,
    imagePullPolicy: "IfNotPresent",
    terminationMessagePath: "/dev/termination-log",
    ...extra,
  };
}

function kubectlPatch(templateSpec: Obj, top: Obj = {}): Obj {
  return {
    metadata: { annotations: { [LAST_APPLIED]: '{"new":true}\n' } },
    spec: { template: { spec: templateSpec }, ...top },
  };
}

function containersOf(object: Obj): Obj[] {
  return ((object.spec as Obj).template as { spec: { containers: Obj[] } }).spec.containers;
}

describe("strategic merge patch: kubectl apply on a Deployment", () => {
  it("changes an image", () => {
    const live = deployment([container("nginx", { ports: [{ containerPort: 80, protocol: "TCP" }] })]);
    const result = patched(
      live,
      kubectlPatch({
        "$setElementOrder/containers": [{ name: "nginx" }],
        containers: [{ image: "nginx:1.25", name: "nginx" }],
      }),
      deploymentSchema,
    );
    assert.deepEqual(containersOf(result), [
      container("nginx", { image: "nginx:1.25", ports: [{ containerPort: 80, protocol: "TCP" }] }),
    ]);
    assert.deepEqual((result.metadata as Obj).annotations, { [LAST_APPLIED]: '{"new":true}\n' });
    assert.deepEqual((result.metadata as Obj).labels, { app: "web" });
    assert.equal((result.spec as Obj).replicas, 2);
  });

  it("removes an env var", () => {
    const env = [
      { name: "A", value: "1" },
      { name: "B", value: "2" },
      { name: "C", value: "3" },
    ];
    const result = patched(
      deployment([container("app", { env })]),
      kubectlPatch({
        "$setElementOrder/containers": [{ name: "app" }],
        containers: [
          {
            "$setElementOrder/env": [{ name: "A" }, { name: "C" }],
            env: [{ $patch: "delete", name: "B" }],
            name: "app",
          },
        ],
      }),
      deploymentSchema,
    );
    assert.deepEqual(containersOf(result), [container("app", { env: [env[0], env[2]] })]);
  });

  it("removes a container", () => {
    const result = patched(
      deployment([container("app"), container("sidecar")]),
      kubectlPatch({
        "$setElementOrder/containers": [{ name: "app" }],
        containers: [{ $patch: "delete", name: "sidecar" }],
      }),
      deploymentSchema,
    );
    assert.deepEqual(containersOf(result), [container("app")]);
  });

  it("adds a port", () => {
    const result = patched(
      deployment([container("app", { ports: [{ containerPort: 80, protocol: "TCP" }] })]),
      kubectlPatch({
        "$setElementOrder/containers": [{ name: "app" }],
        containers: [
          {
            "$setElementOrder/ports": [{ containerPort: 80 }, { containerPort: 443 }],
            name: "app",
            ports: [{ containerPort: 443, name: "https" }],
          },
        ],
      }),
      deploymentSchema,
    );
    assert.deepEqual(containersOf(result), [
      container("app", {
        ports: [
          { containerPort: 80, protocol: "TCP" },
          { containerPort: 443, name: "https" },
        ],
      }),
    ]);
  });

  it("reorders containers", () => {
    const result = patched(
      deployment([container("a"), container("b"), container("c")]),
      kubectlPatch({ "$setElementOrder/containers": [{ name: "c" }, { name: "a" }, { name: "b" }] }),
      deploymentSchema,
    );
    assert.deepEqual(
      containersOf(result).map((c) => c.name),
      ["c", "a", "b"],
    );
  });

  it("reorders around a container injected by the server", () => {
    const result = patched(
      deployment([container("a"), container("proxy"), container("b")]),
      kubectlPatch({ "$setElementOrder/containers": [{ name: "b" }, { name: "a" }] }),
      deploymentSchema,
    );
    assert.deepEqual(
      containersOf(result).map((c) => c.name),
      ["proxy", "b", "a"],
    );
  });

  it("renames a container next to an injected one", () => {
    const result = patched(
      deployment([container("a"), container("proxy"), container("b")]),
      kubectlPatch({
        "$setElementOrder/containers": [{ name: "a" }, { name: "c" }],
        containers: [
          { image: "c:1", name: "c" },
          { $patch: "delete", name: "b" },
        ],
      }),
      deploymentSchema,
    );
    assert.deepEqual(
      containersOf(result).map((c) => c.name),
      ["a", "proxy", "c"],
    );
  });

  it("switches the rollout strategy to Recreate (retainKeys)", () => {
    const result = patched(
      deployment([container("app")]),
      { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
      deploymentSchema,
    );
    assert.deepEqual((result.spec as Obj).strategy, { type: "Recreate" });
  });

  it("changes a label without touching the others", () => {
    const result = patched(
      deployment([container("app")]),
      { metadata: { labels: { tier: "front", app: null } } },
      deploymentSchema,
    );
    assert.deepEqual((result.metadata as Obj).labels, { tier: "front" });
  });

  it("replaces the selector's matchLabels map values but merges the map", () => {
    const result = patched(
      deployment([container("app")]),
      { spec: { selector: { matchLabels: { extra: "x" } } } },
      deploymentSchema,
    );
    assert.deepEqual((result.spec as Obj).selector, { matchLabels: { app: "web", extra: "x" } });
  });
});

describe("strategic merge patch: Pods and Services", () => {
  const pod = (): Obj => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "p",
      finalizers: ["a.io/x", "b.io/y"],
      ownerReferences: [{ uid: "u1", name: "o", kind: "K", apiVersion: "v1" }],
    },
    spec: {
      containers: [
        container("app", {
          volumeMounts: [{ name: "data", mountPath: "/data" }],
          args: ["--a", "--b"],
        }),
      ],
      volumes: [{ name: "data", emptyDir: {} }],
      tolerations: [{ key: "k", operator: "Exists" }],
    },
  });

  const cases: [string, Obj, (result: Obj) => unknown, unknown][] = [
    [
      "a volume switches source (retainKeys in a merged item)",
      {
        spec: {
          "$setElementOrder/volumes": [{ name: "data" }],
          volumes: [
            { $retainKeys: ["configMap", "name"], configMap: { name: "cfg" }, emptyDir: null, name: "data" },
          ],
        },
      },
      (r) => (r.spec as Obj).volumes,
      [{ name: "data", configMap: { name: "cfg" } }],
    ],
    [
      "a finalizer is removed",
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["a.io/x"] } },
      (r) => (r.metadata as Obj).finalizers,
      ["b.io/y"],
    ],
    [
      "a finalizer is added",
      { metadata: { finalizers: ["c.io/z"] } },
      (r) => (r.metadata as Obj).finalizers,
      ["c.io/z", "a.io/x", "b.io/y"],
    ],
    [
      "owner references merge by uid",
      { metadata: { ownerReferences: [{ uid: "u2", name: "o2", kind: "K", apiVersion: "v1" }] } },
      (r) => ((r.metadata as Obj).ownerReferences as Obj[]).map((o) => o.uid),
      ["u2", "u1"],
    ],
    [
      "args (no strategy) are replaced",
      { spec: { containers: [{ name: "app", args: ["--c"] }] } },
      (r) => ((r.spec as Obj).containers as Obj[])[0]?.args,
      ["--c"],
    ],
    [
      "tolerations (no strategy) are replaced",
      { spec: { tolerations: [{ key: "other", operator: "Exists" }] } },
      (r) => (r.spec as Obj).tolerations,
      [{ key: "other", operator: "Exists" }],
    ],
    [
      "volume mounts merge by mountPath",
      {
        spec: {
          containers: [{ name: "app", volumeMounts: [{ name: "data", mountPath: "/data", readOnly: true }] }],
        },
      },
      (r) => ((r.spec as Obj).containers as Obj[])[0]?.volumeMounts,
      [{ name: "data", mountPath: "/data", readOnly: true }],
    ],
    [
      "a container is added with a patch that names only it",
      { spec: { containers: [{ name: "log", image: "busybox" }] } },
      (r) => ((r.spec as Obj).containers as Obj[]).map((c) => c.name),
      ["log", "app"],
    ],
  ];
  for (const [name, patch, pick, want] of cases) {
    it(name, () => assert.deepEqual(pick(patched(pod(), patch, podSchema)), want));
  }

  it("a container without a name is refused", () => {
    assert.throws(
      () => patched(pod(), { spec: { containers: [{ image: "x" }] } }, podSchema),
      new PatchError(400, "map: map[image:x] does not contain declared merge key: name"),
    );
  });

  it("Service ports merge by port; kubectl adds one", () => {
    const service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "s" },
      spec: {
        type: "ClusterIP",
        clusterIP: "10.0.0.1",
        ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }],
        selector: { app: "web" },
      },
    };
    const result = patched(
      service,
      {
        spec: {
          "$setElementOrder/ports": [{ port: 443 }, { port: 80 }],
          ports: [{ name: "https", port: 443, targetPort: 8443 }],
        },
      },
      serviceSchema,
    );
    assert.deepEqual((result.spec as Obj).ports, [
      { name: "https", port: 443, targetPort: 8443 },
      { name: "http", port: 80, protocol: "TCP", targetPort: 8080 },
    ]);
    assert.equal((result.spec as Obj).clusterIP, "10.0.0.1");
  });
});
