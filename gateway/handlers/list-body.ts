// The body of a JSON list, written in pieces. A page of 500 cached objects is about 1.2 MB; built
// as one string it lands in V8's large-object space, which only a full collection frees, so a
// paged walk piles up tens of MB of dead pages before the collector runs (and an unpaged list of
// 100k objects would need one 240 MB string). Pieces of about CHUNK_CHARS characters stay in the
// young generation, and a socket write copies each into a native buffer it frees when written.
import { Readable } from "node:stream";

/** Bodies up to this many characters are sent as one string; larger ones in pieces this size. */
export const CHUNK_CHARS = 64 * 1024;

/** Characters of a list body: `head`, the items separated by commas, `tail`. */
export function listBodyLength(head: string, items: readonly string[], tail: string): number {
  let n = head.length + tail.length + Math.max(0, items.length - 1);
  for (const item of items) n += item.length;
  return n;
}

/** The body `head + items.join(",") + tail` as strings of about `size` characters each. */
export function* listBodyChunks(
  head: string,
  items: readonly string[],
  tail: string,
  size: number = CHUNK_CHARS,
): Generator<string> {
  let parts: string[] = [head];
  let length = head.length;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as string;
    const piece = i === 0 ? item : `,${item}`;
    if (length > 0 && length + piece.length > size) {
      yield parts.join("");
      parts = [];
      length = 0;
    }
    parts.push(piece);
    length += piece.length;
  }
  parts.push(tail);
  yield parts.join("");
}

/**
 * A readable stream of the body, producing pieces only as fast as the socket takes them, so an
 * unpaged list of any size holds a few pieces in memory, not the whole body. It hands the pieces
 * on as strings (object mode): a byte stream would turn each into a Buffer whose memory lives
 * outside the JavaScript heap until a collection, tens of MB of them over a long list, while a
 * socket writes a string through a native copy it frees as soon as the write is done.
 */
export function listBodyStream(head: string, items: readonly string[], tail: string): Readable {
  const chunks = listBodyChunks(head, items, tail);
  return new Readable({
    objectMode: true,
    highWaterMark: 2,
    read() {
      for (;;) {
        const next = chunks.next();
        if (next.done) {
          this.push(null);
          return;
        }
        if (!this.push(next.value)) return;
      }
    },
  });
}
