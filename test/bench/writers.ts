// The storage write workload shared by the storage and MongoDB benches: concurrent writers, each
// creating a few keys of its own and then updating them by compare-and-swap, with Pod JSON values.
import type { Storage, StoredValue } from "../../backends/contract/index.ts";
import { podJson } from "./fixtures.ts";
import { now } from "./report.ts";

/** Pod-like JSON values the writers cycle through. */
export const POD_VALUES: readonly string[] = Array.from({ length: 16 }, (_, i) => podJson(i));

/** `concurrency` loops each awaiting one write at a time until `durationMs` passes; writes/s. */
export async function runWriters(
  concurrency: number,
  durationMs: number,
  write: (writer: number, n: number) => Promise<unknown>,
): Promise<number> {
  let count = 0;
  const start = now();
  const end = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, writer) => {
      for (let n = 0; now() < end; n++) {
        await write(writer, n);
        count++;
      }
    }),
  );
  return (count * 1000) / (now() - start);
}

let writeRun = 0;

/** Creates on the first pass over each writer's `keysPerWriter` keys, compare-and-swap updates after. */
export async function storageWrites(
  storage: Storage,
  concurrency: number,
  durationMs: number,
  keysPerWriter: number,
): Promise<number> {
  const tag = `sw${++writeRun}`;
  const current = new Map<string, StoredValue>();
  return runWriters(concurrency, durationMs, async (writer, n) => {
    const key = `/bench/${tag}/w${writer}/${n % keysPerWriter}`;
    const value = POD_VALUES[n % POD_VALUES.length] as string;
    const prev = current.get(key);
    current.set(
      key,
      prev ? await storage.update(key, value, prev.modRevision) : await storage.create(key, value),
    );
  });
}
