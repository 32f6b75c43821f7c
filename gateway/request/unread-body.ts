// The rest of a request body that was refused before it was read (too large, no usable media
// type). Fastify answers such requests with `Connection: close`; closing a socket while the client
// is still sending makes the kernel reset it, and clients then often report a broken pipe instead
// of the 413 or 415 they were sent. So the rest is read and dropped, up to a bound, and the
// connection stays open for the next request; a body still going past the bound ends in a closed
// connection after all, so a client cannot keep the server reading forever.
import type { IncomingMessage } from "node:http";
import type { FastifyReply } from "fastify";

/** How much of a refused body is read and dropped before the connection is closed instead. */
export const DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;

export function discardUnreadBody(req: IncomingMessage, reply: FastifyReply): void {
  reply.removeHeader("connection");
  if (req.complete) return;
  let left = DISCARD_LIMIT_BYTES;
  req.on("data", (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) req.socket.destroy();
  });
  req.resume();
}
