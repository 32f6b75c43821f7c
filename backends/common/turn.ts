// One request's synchronous work holds every other request back, /readyz included. The steps of
// a write over a large object (decode, patch, defaults, field tracking, validation, encoding each
// take tens to hundreds of milliseconds at megabytes) give the event loop a turn between them;
// small objects, nearly every write, do not pay for it.

/** JSON characters from which an object counts as large. */
export const LARGE_OBJECT_CHARS = 256 * 1024;

/** Resolves after pending I/O has had a turn (a macrotask). */
export function turn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** A turn when `large`; at once otherwise. */
export async function turnIf(large: boolean): Promise<void> {
  if (large) await turn();
}
