import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goFloat, goNumber, goQuote } from "./go-text.ts";

describe("Go formatting", () => {
  const floats: [number, string][] = [
    [1, "1"],
    [1.5, "1.5"],
    [123456, "123456"],
    [1e6, "1e+06"],
    [1234567.5, "1.2345675e+06"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [-2.5e-7, "-2.5e-07"],
    [1e21, "1e+21"],
  ];
  for (const [v, want] of floats) it(`%v of ${v}`, () => assert.equal(goFloat(v), want));

  it("prints integers as int64", () => {
    assert.equal(goNumber(1000000), "1000000");
    assert.equal(goNumber(1.5), "1.5");
  });

  it("quotes like strconv.Quote", () => {
    assert.equal(goQuote('a"b\n\t\\'), '"a\\"b\\n\\t\\\\"');
    assert.equal(goQuote("\x01é😀"), '"\\x01é😀"');
  });
});
