import assert from "node:assert/strict";
import { text } from "node:stream/consumers";
import { describe, it } from "node:test";
import { listBodyChunks, listBodyLength, listBodyStream } from "./list-body.ts";

const items = Array.from({ length: 50 }, (_, i) => JSON.stringify({ n: i, pad: "x".repeat(i * 7) }));
const head = '{"items":[';
const tail = "]}\n";
const whole = `${head}${items.join(",")}${tail}`;

describe("list body in pieces", () => {
  it("measures the body it writes", () => {
    assert.equal(listBodyLength(head, items, tail), whole.length);
    assert.equal(listBodyLength(head, [], tail), `${head}${tail}`.length);
  });

  it("splits the body into pieces that join to the whole, none over the size unless one item is", () => {
    for (const size of [1, 64, 500, 1 << 20]) {
      const chunks = [...listBodyChunks(head, items, tail, size)];
      assert.equal(chunks.join(""), whole, `size ${size}`);
      const longest = Math.max(...items.map((i) => i.length + 1), head.length, tail.length);
      for (const c of chunks) assert.ok(c.length <= Math.max(size, longest + tail.length), `size ${size}`);
      if (size === 1 << 20) assert.equal(chunks.length, 1);
      if (size === 500) assert.ok(chunks.length > 5);
    }
  });

  it("writes an empty list", () => {
    assert.deepEqual([...listBodyChunks(head, [], tail)], [`${head}${tail}`]);
  });

  it("streams the same bytes, multi-byte characters included", async () => {
    const wide = [...items, JSON.stringify({ s: "ünïcødé ✓ 𝄞".repeat(5000) })];
    const body = await text(listBodyStream(head, wide, tail));
    assert.equal(body, `${head}${wide.join(",")}${tail}`);
    assert.equal(JSON.parse(body).items.length, wide.length);
  });
});
