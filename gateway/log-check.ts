// The `log` health check: logging must not be stuck. When the log stream's unwritten backlog
// passes a bound (a blocked pipe or disk), the check fails instead of the process silently
// buffering without end.
import type { Writable } from "node:stream";

export const LOG_BACKLOG_LIMIT = 8 * 1024 * 1024;

export function logCheck(stream: Pick<Writable, "writableLength">, limit = LOG_BACKLOG_LIMIT): () => void {
  return () => {
    if (stream.writableLength > limit) {
      throw new Error(`the log stream has ${stream.writableLength} bytes waiting to be written`);
    }
  };
}
