import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { asArray, asObject, asString, asStrings, cloneJson, objectOrEmpty } from "./json.ts";

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

describe("cloneJson", () => {
  it("copies objects and arrays deeply, keeping __proto__ members as data", () => {
    const src = JSON.parse('{"a":[1,{"b":null}],"__proto__":{"polluted":true},"c":"x"}') as Record<
      string,
      unknown
    >;
    const copy = cloneJson(src);
    assert.deepEqual(copy, src);
    assert.notEqual(copy.a, src.a);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ["a", "__proto__", "c"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("copies objects nested far past the write limit (stored by older versions)", () => {
    let v: unknown = 1;
    for (let i = 0; i < 3000; i++) v = { a: v };
    assert.equal(JSON.stringify(cloneJson(v)), JSON.stringify(v));
  });
});
