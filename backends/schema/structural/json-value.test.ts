import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  asArray,
  asObject,
  asString,
  asStrings,
  canonicalJson,
  copyJson,
  objectOrEmpty,
} from "./json-value.ts";

describe("JSON value helpers", () => {
  it("read values of unknown shape as Go's zero value when the type differs", () => {
    const o = { a: 1 };
    assert.equal(asObject(o), o);
    for (const v of [null, [], "x", 1, undefined]) assert.equal(asObject(v), undefined);
    assert.deepEqual(objectOrEmpty([1]), {});
    assert.notEqual(objectOrEmpty(null), objectOrEmpty(null), "a new empty object each time, safe to fill");
    assert.equal(asString("s"), "s");
    assert.equal(asString(5), "");
    const a = [1];
    assert.equal(asArray(a), a);
    assert.deepEqual(asArray({ length: 1 }), []);
    assert.deepEqual(asStrings(["a", 1, null, "b"]), ["a", "b"]);
    assert.deepEqual(asStrings("a"), []);
  });

  it("copy deeply and write keys in sorted order", () => {
    const src = { b: [1, { c: 2 }], a: null };
    const copy = copyJson(src);
    assert.deepEqual(copy, src);
    assert.notEqual(copy.b[1], src.b[1]);
    assert.equal(canonicalJson(src), '{"a":null,"b":[1,{"c":2}]}');
  });
});
