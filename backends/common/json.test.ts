import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { asArray, asObject, asString, asStrings, objectOrEmpty } from "./json.ts";

describe("JSON readers", () => {
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
});
