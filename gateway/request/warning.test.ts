import assert from "node:assert/strict";
import { validateHeaderValue } from "node:http";
import { describe, it } from "node:test";
import { hasRawBytes, warningHeader } from "./warning.ts";

/** A header value as the bytes Node writes for it (one byte per character), read as UTF-8. */
const wire = (v: string) => Buffer.from(v, "latin1").toString("utf8");

/** Node's own check of a header value, the one that turned a committed write into a 500. */
const nodeAccepts = (v: string) => assert.doesNotThrow(() => validateHeaderValue("warning", v));

describe("warningHeader", () => {
  it('code 299, no agent, the text quoted with " and \\ escaped', () => {
    assert.deepEqual(warningHeader(['unknown field "a"', "back\\slash"]), [
      '299 - "unknown field \\"a\\""',
      '299 - "back\\\\slash"',
    ]);
  });

  it("non-ASCII text goes out as its UTF-8 bytes, which Node accepts", () => {
    const values = warningHeader(["名前", "😀 x", "\uFFFD"]);
    assert.deepEqual(values.map(wire), ['299 - "名前"', '299 - "😀 x"', '299 - "\uFFFD"']);
    for (const v of values) nodeAccepts(v);
    assert.equal(hasRawBytes(values), true);
    assert.equal(hasRawBytes(warningHeader(["plain"])), false);
  });

  it("a lone surrogate reads as U+FFFD, as Go's decoders leave invalid text", () => {
    assert.deepEqual(warningHeader(["a\ud800b"]).map(wire), ['299 - "a\uFFFDb"']);
  });

  it("empty and repeated texts are dropped, order kept", () => {
    assert.deepEqual(warningHeader(["b", "", "a", "b"]), ['299 - "b"', '299 - "a"']);
  });

  it("texts with control characters (C0, DEL, C1) are dropped, as upstream cannot send them", () => {
    assert.deepEqual(warningHeader(["ok", "a\u0001b", "tab\there", "del\u007f", "c1\u0085", "line\nbreak"]), [
      '299 - "ok"',
    ]);
  });

  it("any text at all yields values Node accepts", () => {
    const texts: string[] = [];
    for (let c = 0; c < 0x3000; c += 7) texts.push(`x${String.fromCharCode(c)}y`);
    texts.push("\ud83d", "\udc00", "\u{10ffff}");
    for (const v of warningHeader(texts)) nodeAccepts(v);
  });

  it("up to 4096 characters in all are sent whole", () => {
    const texts = Array.from({ length: 16 }, (_, i) => `${i}`.padEnd(256, "x"));
    const values = warningHeader(texts);
    assert.equal(values.length, 16);
    assert.equal(values[15], `299 - "${"15".padEnd(256, "x")}"`);
  });

  it("past 4096 characters every text is cut to 256 and later ones stop once the total is reached", () => {
    const long = (i: number) => `${i}:`.padEnd(1000, "y");
    const values = warningHeader([
      ...Array.from({ length: 10 }, (_, i) => long(i)),
      ...Array.from({ length: 30 }, (_, i) => `short ${i}`),
    ]);
    // Ten texts cut to 256 characters (2560 in all), then short ones until 4096 is reached.
    assert.equal(values[0], `299 - "${long(0).slice(0, 256)}"`);
    assert.equal(
      values.slice(0, 10).every((v) => v.length === 256 + 8),
      true,
    );
    assert.equal(values.length, 40);
    const many = warningHeader(Array.from({ length: 100 }, (_, i) => long(i)));
    // 16 texts of 256 reach 4096: the 17th and later are left out.
    assert.equal(many.length, 16);
  });

  it("characters are counted as Go counts runes", () => {
    const astral = "😀".repeat(300);
    const values = warningHeader([astral, ...Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(256, "z"))]);
    assert.equal(wire(values[0] as string), `299 - "${"😀".repeat(256)}"`);
  });
});
