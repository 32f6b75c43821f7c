import assert from "node:assert/strict";
import { test } from "node:test";
import { watchEvents } from "./watch-lines.ts";

async function collect(chunks: (string | Uint8Array)[]) {
  async function* source() {
    yield* chunks;
  }
  const out = [];
  for await (const e of watchEvents(source())) out.push(e);
  return out;
}

test("lines split anywhere, multi-byte characters split, blank lines skipped, last line unterminated", async () => {
  const text =
    '{"type":"ADDED","object":{"n":"ä"}}\n\n  \n{"type":"BOOKMARK","object":{}}\n{"type":"DELETED","object":{}}';
  const bytes = new TextEncoder().encode(text);
  const chunks = Array.from(bytes, (b) => Uint8Array.of(b));
  assert.deepEqual(await collect(chunks), [
    { type: "ADDED", object: { n: "ä" } },
    { type: "BOOKMARK", object: {} },
    { type: "DELETED", object: {} },
  ]);
});

test("a line that is not an event is an error that does not echo the line", async () => {
  await assert.rejects(collect(["not json secret\n"]), (err: Error) => !err.message.includes("secret"));
  await assert.rejects(collect(['{"object":{}}\n']), /no type/);
});
