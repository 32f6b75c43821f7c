// The JSON watch stream: one event object per line. Chunks may split a line, or a multi-byte
// character, anywhere; blank lines are keep-alives.

export interface WatchEvent {
  readonly type: string;
  readonly object: Record<string, unknown>;
}

export async function* watchEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<WatchEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n", start)) {
      const line = buffer.slice(start, nl).trim();
      start = nl + 1;
      if (line !== "") yield parseEvent(line);
    }
    buffer = buffer.slice(start);
  }
  const rest = (buffer + decoder.decode()).trim();
  if (rest !== "") yield parseEvent(rest);
}

function parseEvent(line: string): WatchEvent {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    throw new Error(`watch: a line of the stream is not JSON (${line.length} bytes)`);
  }
  const e = event as { type?: unknown; object?: unknown };
  if (typeof event !== "object" || event === null || typeof e.type !== "string")
    throw new Error("watch: an event has no type");
  return event as WatchEvent;
}
