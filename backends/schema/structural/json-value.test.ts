import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalJson, copyJson } from "./json-value.ts";

describe("JSON value helpers", () => {
  it("copy deeply and write keys in sorted order", () => {
    const src = { b: [1, { c: 2 }], a: null };
    const copy = copyJson(src);
    assert.deepEqual(copy, src);
    assert.notEqual(copy.b[1], src.b[1]);
    assert.equal(canonicalJson(src), '{"a":null,"b":[1,{"c":2}]}');
  });
});
