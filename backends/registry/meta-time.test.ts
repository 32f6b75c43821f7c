import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { metaTimeError, rfc3339Error } from "./meta-time.ts";

const LAYOUT = '"2006-01-02T15:04:05Z07:00"';

describe("rfc3339Error (Go's time.Parse with time.RFC3339)", () => {
  it("accepts what Go accepts", () => {
    for (const ok of [
      "2024-05-01T10:00:00Z",
      "2024-05-01T10:00:00.123456789Z",
      "2024-05-01T10:00:00,5Z",
      "2024-05-01T10:00:00+01:00",
      "2024-05-01T10:00:00-24:00",
      "2024-05-01T1:00:00Z",
      "2024-02-29T00:00:00Z",
      "0000-01-01T00:00:00Z",
    ])
      assert.equal(rfc3339Error(ok), undefined, ok);
  });

  it("names the element that does not parse, with what is left of the text", () => {
    const cases: [string, string, string][] = [
      ["", "", "2006"],
      ["yesterday", "yesterday", "2006"],
      ["24-05-01T00:00:00Z", "24-05-01T00:00:00Z", "2006"],
      ["2024/05/01T00:00:00Z", "/05/01T00:00:00Z", "-"],
      ["2024-5-01T00:00:00Z", "5-01T00:00:00Z", "01"],
      ["2024-05-1T00:00:00Z", "1T00:00:00Z", "02"],
      ["2024-05-01 00:00:00Z", " 00:00:00Z", "T"],
      ["2024-05-01Tx:00:00Z", "x:00:00Z", "15"],
      ["2024-05-01T00:0:00Z", "0:00Z", "04"],
      ["2024-05-01T00:00:0Z", "0Z", "05"],
      ["2024-05-01T00:00:00", "", "Z07:00"],
      ["2024-05-01T00:00:00+0100", "+0100", "Z07:00"],
      ["2024-05-01T00:00:00*01:00", "*01:00", "Z07:00"],
    ];
    for (const [text, rest, elem] of cases)
      assert.equal(
        rfc3339Error(text),
        `parsing time ${JSON.stringify(text)} as ${LAYOUT}: cannot parse ${JSON.stringify(rest)} as "${elem}"`,
      );
  });

  it("values out of range, extra text", () => {
    const cases: [string, string][] = [
      ["2024-13-01T00:00:00Z", "month out of range"],
      ["2024-00-01T00:00:00Z", "month out of range"],
      ["2023-02-29T00:00:00Z", "day out of range"],
      ["2024-04-31T00:00:00Z", "day out of range"],
      ["2024-05-00T00:00:00Z", "day out of range"],
      ["2024-05-01T24:00:00Z", "hour out of range"],
      ["2024-05-01T00:60:00Z", "minute out of range"],
      ["2024-05-01T00:00:60Z", "second out of range"],
      ["2024-05-01T00:00:00+25:00", "time zone offset hour out of range"],
      ["2024-05-01T00:00:00+01:61", "time zone offset minute out of range"],
      ["2024-05-01T00:00:00Zjunk", 'extra text: "junk"'],
    ];
    for (const [text, what] of cases)
      assert.equal(rfc3339Error(text), `parsing time ${JSON.stringify(text)}: ${what}`);
  });

  it("quotes bytes outside printable ASCII as Go's time package does", () => {
    assert.equal(
      rfc3339Error('é"\u0001'),
      `parsing time "\\xc3\\xa9\\"\\x01" as ${LAYOUT}: cannot parse "\\xc3\\xa9\\"\\x01" as "2006"`,
    );
  });
});

describe("metaTimeError", () => {
  it("null and absent times decode; other JSON types are the standard library's type error", () => {
    assert.equal(metaTimeError({ metadata: { creationTimestamp: null } }), undefined);
    assert.equal(metaTimeError({ metadata: {} }), undefined);
    assert.equal(metaTimeError({}), undefined);
    assert.equal(
      metaTimeError({ metadata: { creationTimestamp: 5 } }),
      "json: cannot unmarshal number into Go value of type string",
    );
    assert.equal(
      metaTimeError({ metadata: { deletionTimestamp: [] } }),
      "json: cannot unmarshal array into Go value of type string",
    );
    assert.match(String(metaTimeError({ metadata: { deletionTimestamp: "x" } })), /^parsing time "x"/);
  });
});
