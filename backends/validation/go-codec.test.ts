import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeBase64, goJsonMapError, goJsonSyntaxError, quoteChar } from "./go-codec.ts";

describe("decodeBase64", () => {
  const good: [string, string][] = [
    ["", ""],
    ["aGVsbG8=", "hello"],
    ["aGVsbA==", "hell"],
    ["aGVs", "hel"],
    ["aGVs\nbG8=", "hello"],
    ["aGVs\r\nbA=\n=", "hell"],
    ["aGVsbG8=\n", "hello"],
    ["aG==", "h"],
  ];
  for (const [input, want] of good) {
    it(`decodes ${JSON.stringify(input)}`, () => {
      const r = decodeBase64(input);
      assert.ok(r.ok);
      assert.equal(r.bytes.toString("utf8"), want);
    });
  }
  const bad: [string, number][] = [
    ["aGVsbG8", 4], // quantum cut short: reported at its start
    ["a", 0],
    ["aGVs!G8=", 4], // outside the alphabet
    ["aGVsbG8=x", 8], // data after the padding
    ["aGVsbA=", 7], // half the padding
    ["aGVsbA=x", 6],
    ["=", 0],
    ["a===", 1], // padding after one character
    ["aGVsbG8-", 7], // URL alphabet is not standard base64
    ["aGVs bG8=", 4],
    ["éé", 0],
  ];
  for (const [input, at] of bad) {
    it(`refuses ${JSON.stringify(input)} at byte ${at}`, () => {
      assert.deepEqual(decodeBase64(input), { ok: false, error: `illegal base64 data at input byte ${at}` });
    });
  }
  it("round-trips arbitrary bytes", () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const r = decodeBase64(bytes.toString("base64"));
    assert.ok(r.ok);
    assert.deepEqual(r.bytes, bytes);
  });
});

describe("quoteChar", () => {
  const cases: [number, string][] = [
    [0x78, "'x'"],
    [0x27, "'\\''"],
    [0x22, "'\"'"],
    [0x5c, "'\\\\'"],
    [0x09, "'\\t'"],
    [0x01, "'\\x01'"],
    [0x7f, "'\\x7f'"],
    [0x85, "'\\u0085'"],
    [0xe9, "'é'"],
  ];
  for (const [c, want] of cases) it(`quotes ${c}`, () => assert.equal(quoteChar(c), want));
});

describe("goJsonSyntaxError", () => {
  const cases: [string, string | undefined][] = [
    ['{"auths":{"r":{"auth":"eA=="}}}', undefined],
    [' [1, -2.5e+3, true, false, null, "a\\u00e9\\n"] ', undefined],
    ["", "unexpected end of JSON input"],
    ["   ", "unexpected end of JSON input"],
    ['{"a":1', "unexpected end of JSON input"],
    ['"abc', "unexpected end of JSON input"],
    ["[", "unexpected end of JSON input"],
    ["x", "invalid character 'x' looking for beginning of value"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["{1:2}", "invalid character '1' looking for beginning of object key string"],
    ["{} x", "invalid character 'x' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ["trUe", "invalid character 'U' in literal true (expecting 'u')"],
    ["nul", "invalid character ' ' in literal null (expecting 'l')"],
    ["-", "invalid character ' ' in numeric literal"],
    ["-a", "invalid character 'a' in numeric literal"],
    ["1.", "invalid character ' ' after decimal point in numeric literal"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["1e", "invalid character ' ' in exponent of numeric literal"],
    ["1e+x", "invalid character 'x' in exponent of numeric literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\', "invalid character ' ' in string escape code"],
    ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => assert.equal(goJsonSyntaxError(Buffer.from(input)), want));
  }
});

describe("goJsonMapError", () => {
  const cases: [string, string | undefined][] = [
    ["{}", undefined],
    ["null", undefined],
    ["[]", "json: cannot unmarshal array into Go value of type map[string]interface {}"],
    ['"x"', "json: cannot unmarshal string into Go value of type map[string]interface {}"],
    [" 12", "json: cannot unmarshal number into Go value of type map[string]interface {}"],
    ["true", "json: cannot unmarshal bool into Go value of type map[string]interface {}"],
    ["{", "unexpected end of JSON input"],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => assert.equal(goJsonMapError(Buffer.from(input)), want));
  }
});
