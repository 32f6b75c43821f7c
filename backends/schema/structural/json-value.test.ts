import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cloneJson } from "../../common/json.ts";
import { canonicalJson } from "./json-value.ts";

describe("JSON value helpers", () => {
  it("copy deeply and write keys in sorted order", () => {
    const src = { b: [1, { c: 2 }], a: null };
    const copy = cloneJson(src);
    assert.deepEqual(copy, src);
    assert.notEqual(copy.b[1], src.b[1]);
    assert.equal(canonicalJson(src), '{"a":null,"b":[1,{"c":2}]}');
  });
});
