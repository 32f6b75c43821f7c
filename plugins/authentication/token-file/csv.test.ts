import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CsvError, parseCsv } from "./csv.ts";

const fields = (text: string) => parseCsv(text).map((r) => r.fields);

describe("parseCsv (Go encoding/csv defaults)", () => {
  it("splits records and fields, keeping spaces and empty fields", () => {
    assert.deepEqual(fields("a,b,c\n d , e ,\n"), [
      ["a", "b", "c"],
      [" d ", " e ", ""],
    ]);
  });

  it("skips empty lines and reads CRLF and a last line without newline", () => {
    const records = parseCsv("\n\na,b,c\r\n\r\nx,y,z");
    assert.deepEqual(
      records.map((r) => [r.line, r.fields]),
      [
        [3, ["a", "b", "c"]],
        [5, ["x", "y", "z"]],
      ],
    );
  });

  it("has no comment syntax and keeps a line of spaces as one field", () => {
    assert.deepEqual(fields("# note\n  \n"), [["# note"], ["  "]]);
  });

  it("reads quoted fields with commas, doubled quotes and newlines", () => {
    const records = parseCsv('t,u,1,"g1,g2"\n"a ""b""",x,"multi\nline"\nnext,1,2\n');
    assert.deepEqual(
      records.map((r) => [r.line, r.fields]),
      [
        [1, ["t", "u", "1", "g1,g2"]],
        [2, ['a "b"', "x", "multi\nline"]],
        [4, ["next", "1", "2"]],
      ],
    );
  });

  it("refuses a bare quote, text after a closing quote and an unterminated quote, with the line", () => {
    assert.throws(
      () => parseCsv('ok,1,2\nab"c,1,2\n'),
      (e: unknown) => e instanceof CsvError && e.line === 2,
    );
    assert.throws(() => parseCsv('"a"b,1,2\n'), /line 1, column 4: extraneous or missing "/);
    assert.throws(
      () => parseCsv('x,1,2\n\n"open,1,2\n'),
      (e: unknown) => e instanceof CsvError && e.line === 3,
    );
  });

  it("reads the empty input as no records", () => {
    assert.deepEqual(parseCsv(""), []);
    assert.deepEqual(parseCsv("\n\r\n"), []);
  });
});
