// Durable write throughput of the embedded store against its floor: a raw lmdb-js group-commit loop
// writing values of the same size with the same durability settings. Both keep `concurrency` writes
// in flight and count a write when its promise resolves (on disk). Each writer owns 100 keys and
// writes them round-robin, so after the first pass both sides update existing keys.
//
// Run directly for a report: node test/bench/embedded-raw.ts [seconds] [pairs]

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open } from "lmdb";
import type { StoredValue } from "../../backends/contract/index.ts";
import { openEmbeddedStorage } from "../../backends/embedded/index.ts";

const KEYS_PER_WRITER = 100;

/** A value of `size` ASCII bytes that does not repeat (so nothing downstream gets it cheaply). */
function sampleValue(size: number, seed: number): string {
  let out = "";
  let x = seed * 2654435761 + 1;
  while (out.length < size) {
    x = (x * 1103515245 + 12345) >>> 0;
    out += x.toString(36);
  }
  return out.slice(0, size);
}

async function runWriters(
  concurrency: number,
  durationMs: number,
  write: (writer: number, n: number) => Promise<unknown>,
): Promise<number> {
  let count = 0;
  const start = performance.now();
  const end = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, writer) => {
      for (let n = 0; performance.now() < end; n++) {
        await write(writer, n);
        count++;
      }
    }),
  );
  return (count * 1000) / (performance.now() - start);
}

/** Durable writes per second of plain `db.put` with `concurrency` puts in flight. */
export async function rawLmdbWrites(
  dir: string,
  concurrency: number,
  durationMs: number,
  valueSize: number,
): Promise<number> {
  // The embedded store's durability settings (backends/embedded/lmdb-env.ts).
  const db = open<string, string>({ path: dir, noSubdir: false, overlappingSync: false, encoding: "string" });
  try {
    const values = Array.from({ length: 16 }, (_, i) => sampleValue(valueSize, i));
    return await runWriters(concurrency, durationMs, (writer, n) =>
      db.put(`/bench/raw/w${writer}/${n % KEYS_PER_WRITER}`, values[n % values.length] as string),
    );
  } finally {
    await db.close();
  }
}

/** Durable writes per second through the embedded store: creates, then compare-and-swap updates. */
export async function embeddedWrites(
  dir: string,
  concurrency: number,
  durationMs: number,
  valueSize: number,
  sync = true,
): Promise<number> {
  const storage = await openEmbeddedStorage({ dir, sync });
  try {
    const values = Array.from({ length: 16 }, (_, i) => sampleValue(valueSize, i));
    const current = new Map<string, StoredValue>();
    return await runWriters(concurrency, durationMs, async (writer, n) => {
      const key = `/bench/embedded/w${writer}/${n % KEYS_PER_WRITER}`;
      const value = values[n % values.length] as string;
      const prev = current.get(key);
      current.set(
        key,
        prev ? await storage.update(key, value, prev.modRevision) : await storage.create(key, value),
      );
    });
  } finally {
    await storage.close();
  }
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 3);
  const pairs = Number(process.argv[3] ?? 3);
  const valueSize = 2400;
  const root = await mkdtemp(join(tmpdir(), "embedded-bench-"));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  try {
    let run = 0;
    const fresh = () => join(root, `db-${++run}`);
    for (const concurrency of [1, 64]) {
      const raw: number[] = [];
      const embedded: number[] = [];
      const unsynced: number[] = [];
      for (let i = 0; i < pairs; i++) {
        raw.push(await rawLmdbWrites(fresh(), concurrency, seconds * 1000, valueSize));
        embedded.push(await embeddedWrites(fresh(), concurrency, seconds * 1000, valueSize));
        unsynced.push(await embeddedWrites(fresh(), concurrency, seconds * 1000, valueSize, false));
      }
      const ratios = raw.map((r, i) => (embedded[i] as number) / r);
      const fmt = (xs: number[]) => xs.map((x) => Math.round(x)).join(" / ");
      console.log(
        `${concurrency} writer(s), ${valueSize} B values: raw lmdb ${fmt(raw)} w/s; embedded ${fmt(embedded)} w/s; ` +
          `ratio median ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); ` +
          `embedded sync=false ${fmt(unsynced)} w/s`,
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
