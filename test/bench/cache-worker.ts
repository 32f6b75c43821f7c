// The watch-cache scenarios that need a process of their own (spawned by storage.ts, one fresh
// process per run): S10 memory per cached object, S7 paged LIST from the cache, S11 cost growth.
//
//   node --expose-gc test/bench/cache-worker.ts '<CacheWorkerConfig as JSON>'
//
// Prints progress on stderr and one line `RESULT <CacheWorkerResult as JSON>` on stdout.
//
// Order matters: S10 is measured first, while the process holds only the store and the cache of
// `big` objects; then the `mid` and `small` caches are built for the interleaved comparisons.

import {
  Cacher,
  type CacheWatcher,
  encodeContinue,
  type WatchDelivery,
} from "../../backends/cacher/index.ts";
import { MemoryStorage } from "../../backends/memory/index.ts";
import {
  collectGarbage,
  listBody,
  median,
  POD_PREFIX,
  percentile,
  podIdentity,
  podJson,
  procMemory,
  resetPeakRss,
  writeListPieces,
} from "./fixtures.ts";

export interface CacheWorkerConfig {
  /** Objects in the large cache (S10, S7, S11). */
  readonly big: number;
  /** Objects in the S7 comparison cache. */
  readonly mid: number;
  /** Objects in the S11 comparison cache. */
  readonly small: number;
  /** Interleaved measurement rounds. */
  readonly rounds: number;
  /** Page size of paged LISTs. */
  readonly limit: number;
  /** Full walks of the `mid` cache per round (one walk of `big` per round). */
  readonly midWalksPerRound: number;
  /** Operations per size and round for the S11 measurements. */
  readonly getOps: number;
  readonly watchOps: number;
  readonly pageOps: number;
  readonly createOps: number;
}

export interface Distribution {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
}

export interface CacheWorkerResult {
  readonly s10: {
    readonly objects: number;
    /** Mean size of a cached object's JSON (what the cache serves). */
    readonly jsonBytes: number;
    /** Growth when the cache was primed, after gc, per object. */
    readonly heapPerObject: number;
    readonly rssPerObject: number;
    /** The same for filling the memory store, for reference. */
    readonly storeHeapPerObject: number;
    readonly primeMs: number;
  };
  readonly s7: {
    readonly limit: number;
    readonly mid: number;
    readonly big: number;
    /** Page time (list + response body in the server's pieces, copied out), ms. */
    readonly pageMid: Distribution;
    readonly pageBig: Distribution;
    /** Baseline: one body string joined from `limit` pre-serialized strings, as bytes, ms. */
    readonly pageBase: Distribution;
    /** Per round: p50 page time at big / at mid. */
    readonly ratioRounds: number[];
    /** Per round: full walk of the big cache, ms. */
    readonly walkMs: number[];
    readonly steadyRss: number;
    readonly peakRss: number;
    /** The same for the baseline walk (bodies from pre-serialized strings). */
    readonly baseSteadyRss: number;
    readonly basePeakRss: number;
    readonly peakMethod: string;
  };
  readonly s11: {
    readonly small: number;
    readonly big: number;
    /** Per metric: per-round per-operation time (ms) at each size. */
    readonly rounds: Record<S11Metric, { small: number; big: number }[]>;
  };
}

export type S11Metric = "get" | "create" | "watchStart" | "listPage";

const now = () => performance.now();
const log = (msg: string) => process.stderr.write(`  [cache-worker ${process.pid}] ${msg}\n`);

let sink = 0;

interface Sized {
  readonly n: number;
  readonly storage: MemoryStorage;
  readonly cacher: Cacher;
  /** Keys of the objects, in key order. */
  readonly keys: string[];
}

async function fill(storage: MemoryStorage, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const id = podIdentity(i);
    await storage.create(id.key, podJson(i, { namespace: id.namespace, name: id.name }));
  }
}

async function sized(n: number): Promise<Sized> {
  const storage = new MemoryStorage();
  await fill(storage, n);
  const cacher = new Cacher({ storage, prefix: POD_PREFIX });
  await cacher.start();
  const { items } = await cacher.list({ keyPrefix: POD_PREFIX, resourceVersion: "0" });
  return { n, storage, cacher, keys: items.map((i) => i.key) };
}

/** One page of a paged LIST, with its response body; ms. */
async function page(
  cacher: Cacher,
  limit: number,
  token: string | undefined,
): Promise<[number, string | undefined]> {
  const start = now();
  const res = await cacher.list({ keyPrefix: POD_PREFIX, limit, continue: token });
  sink += writeListPieces(
    res.items.map((i) => i.json),
    String(res.revision),
    res.continue,
  );
  return [now() - start, res.continue];
}

/** A full paged walk; page times go to `times`, `onPage` runs outside the timed part. */
async function walk(cacher: Cacher, limit: number, times: number[], onPage?: () => void): Promise<number> {
  const start = now();
  let token: string | undefined;
  let first = true;
  while (first || token !== undefined) {
    first = false;
    const [ms, next] = await page(cacher, limit, token);
    times.push(ms);
    token = next;
    onPage?.();
  }
  return now() - start;
}

function distribution(values: number[]): Distribution {
  return { n: values.length, p50: median(values), p99: percentile(values, 99) };
}

async function perOp(count: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const start = now();
  for (let i = 0; i < count; i++) await op(i);
  return (now() - start) / count;
}

/** Pseudo-random index sequence, the same for every size. */
function picker(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "{}") as CacheWorkerConfig;
  const { limit } = config;

  // ---- S10: memory per cached object -------------------------------------------------------
  collectGarbage();
  const m0 = { heap: process.memoryUsage().heapUsed, rss: procMemory().rss };
  const bigStorage = new MemoryStorage();
  await fill(bigStorage, config.big);
  collectGarbage();
  const m1 = { heap: process.memoryUsage().heapUsed, rss: procMemory().rss };
  const primeStart = now();
  const bigCacher = new Cacher({ storage: bigStorage, prefix: POD_PREFIX });
  await bigCacher.start();
  const primeMs = now() - primeStart;
  collectGarbage();
  const m2 = { heap: process.memoryUsage().heapUsed, rss: procMemory().rss };
  const all = await bigCacher.list({ keyPrefix: POD_PREFIX, resourceVersion: "0" });
  const jsonBytes = all.items.reduce((sum, i) => sum + Buffer.byteLength(i.json), 0) / all.items.length;
  const big: Sized = {
    n: config.big,
    storage: bigStorage,
    cacher: bigCacher,
    keys: all.items.map((i) => i.key),
  };
  const allJson = all.items.map((i) => i.json);
  const s10 = {
    objects: config.big,
    jsonBytes,
    heapPerObject: (m2.heap - m1.heap) / config.big,
    rssPerObject: (m2.rss - m1.rss) / config.big,
    storeHeapPerObject: (m1.heap - m0.heap) / config.big,
    primeMs,
  };
  log(
    `S10: ${config.big} objects primed in ${primeMs.toFixed(0)} ms, ${(s10.heapPerObject / 1024).toFixed(2)} KB heap/object`,
  );

  const mid = await sized(config.mid);
  const small = await sized(config.small);
  log(`caches of ${config.mid} and ${config.small} objects ready`);

  // ---- S7: paged LIST ------------------------------------------------------------------------
  const pageMid: number[] = [];
  const pageBig: number[] = [];
  const pageBase: number[] = [];
  const ratioRounds: number[] = [];
  const walkMs: number[] = [];
  const rv = String(big.cacher.revision);
  for (let r = 0; r < config.rounds; r++) {
    const midTimes: number[] = [];
    const bigTimes: number[] = [];
    for (let w = 0; w < config.midWalksPerRound; w++) await walk(mid.cacher, limit, midTimes);
    walkMs.push(await walk(big.cacher, limit, bigTimes));
    for (let start = 0; start < allJson.length; start += limit) {
      const t = now();
      sink += listBody(
        allJson.slice(start, start + limit),
        rv,
        start + limit < allJson.length ? "x" : undefined,
      ).length;
      pageBase.push(now() - t);
    }
    ratioRounds.push(median(bigTimes) / median(midTimes));
    pageMid.push(...midTimes);
    pageBig.push(...bigTimes);
  }
  // Peak RSS of a full walk against the steady state before it: first the baseline (the same
  // bodies from pre-serialized strings), then the walk through the cache.
  const peakOf = async (pages: (sample: () => void) => Promise<void>): Promise<[number, number]> => {
    collectGarbage();
    const steady = procMemory().rss;
    let sampled = steady;
    const reset = resetPeakRss();
    await pages(() => {
      sampled = Math.max(sampled, procMemory().rss);
    });
    return [steady, reset ? Math.max(procMemory().hwm, sampled) : sampled];
  };
  const [baseSteadyRss, basePeakRss] = await peakOf(async (sample) => {
    for (let start = 0; start < allJson.length; start += limit) {
      const last = start + limit >= allJson.length;
      sink += listBody(allJson.slice(start, start + limit), rv, last ? undefined : "x").length;
      sample();
      await Promise.resolve();
    }
  });
  const [steadyRss, peakRss] = await peakOf((sample) => walk(big.cacher, limit, [], sample).then(() => {}));
  const peakMethod = resetPeakRss() ? "VmHWM after clear_refs" : "VmRSS sampled after each page";
  log(`S7: ${pageBig.length} pages at ${config.big}, ${pageMid.length} at ${config.mid}`);

  // ---- S11: cost growth ----------------------------------------------------------------------
  const rounds: CacheWorkerResult["s11"]["rounds"] = { get: [], create: [], watchStart: [], listPage: [] };
  const watchers = new Map<Sized, AsyncIterator<WatchDelivery>>();
  for (const s of [small, big]) {
    const w = await s.cacher.watch({ keyPrefix: POD_PREFIX, resourceVersion: String(s.cacher.revision) });
    watchers.set(s, w[Symbol.asyncIterator]());
  }
  let created = 0;
  for (let r = 0; r < config.rounds; r++) {
    const result: Record<S11Metric, { small: number; big: number }> = {
      get: { small: 0, big: 0 },
      create: { small: 0, big: 0 },
      watchStart: { small: 0, big: 0 },
      listPage: { small: 0, big: 0 },
    };
    // Alternate which size goes first.
    const order: [Sized, "small" | "big"][] =
      r % 2 === 0
        ? [
            [small, "small"],
            [big, "big"],
          ]
        : [
            [big, "big"],
            [small, "small"],
          ];
    for (const [s, label] of order) {
      const pick = picker(r * 7 + 1);
      result.get[label] = await perOp(config.getOps, () => s.cacher.get(s.keys[pick(s.n)] as string, "0"));
      result.watchStart[label] = await perOp(config.watchOps, async () => {
        const w: CacheWatcher = await s.cacher.watch({
          keyPrefix: POD_PREFIX,
          resourceVersion: String(s.cacher.revision),
        });
        w.close("stopped");
      });
      result.listPage[label] = await perOp(config.pageOps, async () => {
        const at = pick(Math.max(1, s.n - limit));
        const after = (s.keys[at] as string).slice(POD_PREFIX.length);
        await page(s.cacher, limit, encodeContinue({ revision: s.cacher.revision, after }));
      });
      const iterator = watchers.get(s) as AsyncIterator<WatchDelivery>;
      result.create[label] = await perOp(config.createOps, async () => {
        const index = 10_000_000 + created++;
        const id = podIdentity(index);
        const delivered = iterator.next();
        await s.storage.create(id.key, podJson(index, { namespace: id.namespace, name: id.name }));
        const d = await delivered;
        if (d.done || d.value.type !== "ADDED" || d.value.item.key !== id.key) {
          throw new Error(`create: unexpected delivery ${JSON.stringify(d.value)}`);
        }
      });
    }
    for (const metric of Object.keys(rounds) as S11Metric[]) rounds[metric].push(result[metric]);
  }
  log("S11 done");

  const out: CacheWorkerResult = {
    s10,
    s7: {
      limit,
      mid: config.mid,
      big: config.big,
      pageMid: distribution(pageMid),
      pageBig: distribution(pageBig),
      pageBase: distribution(pageBase),
      ratioRounds,
      walkMs,
      steadyRss,
      peakRss,
      baseSteadyRss,
      basePeakRss,
      peakMethod,
    },
    s11: { small: config.small, big: config.big, rounds },
  };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
  if (sink < 0) log("unreachable");
  for (const s of [small, mid, big]) {
    await s.cacher.stop();
    await s.storage.close();
  }
}

if (import.meta.main) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(
        `cache-worker failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}
