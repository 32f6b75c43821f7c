// Helpers for consuming watch streams in tests with a bound on time, so a missing event fails
// the test instead of hanging it.
import { setTimeout as delay } from "node:timers/promises";

/** Take `count` items from an async iterable, failing after `timeoutMs`. */
export async function take<T>(source: AsyncIterable<T>, count: number, timeoutMs = 5_000): Promise<T[]> {
  const out: T[] = [];
  if (count === 0) return out;
  const iterator = source[Symbol.asyncIterator]();
  const deadline = Date.now() + timeoutMs;
  while (out.length < count) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`timed out after ${out.length} of ${count} items`);
    const ac = new AbortController();
    const timer = delay(remaining, "timeout", { signal: ac.signal }).catch(() => undefined); // aborted once the race is decided
    const result = await Promise.race([iterator.next(), timer]);
    ac.abort();
    if (result === "timeout") throw new Error(`timed out after ${out.length} of ${count} items`);
    const step = result as IteratorResult<T>;
    if (step.done) throw new Error(`stream ended after ${out.length} of ${count} items`);
    out.push(step.value);
  }
  return out;
}

/** Resolve with the next item, or `undefined` if none arrives within `ms`. */
export async function nextWithin<T>(
  iterator: AsyncIterator<T>,
  ms: number,
): Promise<IteratorResult<T> | undefined> {
  const ac = new AbortController();
  const timer = delay(ms, undefined, { signal: ac.signal }).catch(() => undefined);
  const result = await Promise.race([iterator.next(), timer]);
  ac.abort();
  return result ?? undefined;
}

/** Poll `check` until it returns true, failing after `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(10);
  }
}
