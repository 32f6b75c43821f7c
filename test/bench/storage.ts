// The storage-layer benchmarks of BENCHMARKS.md: `npm run bench:storage [-- --quick] [-- --only=S5,S6]`.
//
// Prints one table a reader can hold against BENCHMARKS.md: each figure next to its baseline measured
// in the same run, the ratio (median of interleaved A/B pairs, with its range) and the target. Progress
// goes to stderr, the table to stdout.
//
// Scenarios (storage layer only; the HTTP gateway does not exist yet):
//   S3   durable writes, 1 writer, embedded               vs fdatasync of a 4 KB append
//   S2   durable writes, 64 writers, embedded             vs raw lmdb group commit (embedded-raw.ts)
//        memory store, 1 and 64 writers                   figures only
//   S4   etcd backend, 1 and 64 writers                   vs the same create/CAS txns on the raw client
//   S6   watch latency: write start -> event, per backend, through the Cacher and from Storage.watch
//   S5   watch fan-out through the Cacher                 vs a raw fan-out loop; stalled watcher
//   S7   paged LIST from the cache                        vs joining pre-serialized strings   } fresh
//   S10  memory per cached object at 100k                 vs the object's JSON size            } process
//   S11  cost growth 1k -> 100k objects                   vs the same operation at 1k          } (cache-worker.ts)
//
// Run order: S6, S5 and the cache worker first, the write scenarios last (they leave the disk and etcd
// busy for a while); the table is printed in BENCHMARKS.md's order. etcd rows need /usr/bin/etcd (or
// $ETCD_BIN); without it they are listed as skipped. etcd and the worker are stopped by PID, also on error.

import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cacher, type CacheWatcher, encodeOnce, type WatchDelivery } from "../../backends/cacher/index.ts";
import { Queue } from "../../backends/common/queue.ts";
import type { Storage } from "../../backends/contract/index.ts";
import { openEmbeddedStorage } from "../../backends/embedded/index.ts";
import { EtcdClient } from "../../backends/etcd/client.ts";
import { createEtcdStorage } from "../../backends/etcd/index.ts";
import {
  COMPARE_EQUAL,
  TARGET_CREATE,
  TARGET_MOD,
  type TxnRequest,
  toNumber,
} from "../../backends/etcd/proto.ts";
import { MemoryStorage } from "../../backends/memory/index.ts";
import { type EtcdServer, etcdBinary, startEtcd } from "../support/etcd.ts";
import type { CacheWorkerConfig, CacheWorkerResult, S11Metric } from "./cache-worker.ts";
import { embeddedWrites, rawLmdbWrites } from "./embedded-raw.ts";
import { median, POD_PREFIX, percentile, podIdentity, podJson } from "./fixtures.ts";
import {
  add,
  children,
  fdatasyncTimes,
  fmtList,
  fmtMs,
  fmtRate,
  fmtRatio,
  killQuietly,
  notes,
  now,
  printSummary,
  printTable,
  progress,
  readOptions,
  runMain,
  section as runSection,
  selector,
  verdict,
} from "./report.ts";
import { POD_VALUES, runWriters, storageWrites } from "./writers.ts";

// ---- options ---------------------------------------------------------------------------------

const SCENARIOS = ["S2", "S3", "S4", "S5", "S6", "S7", "S10", "S11"] as const;
type ScenarioId = (typeof SCENARIOS)[number];

const USAGE = `usage: node --expose-gc test/bench/storage.ts [--quick] [--only=${SCENARIOS.join(",")}]
  --quick         smaller counts and shorter runs (about 1-2 minutes)
  --only=<ids>    comma-separated scenario ids (S3,S2 ... as in BENCHMARKS.md)`;

const OPTIONS = readOptions(SCENARIOS, USAGE);
const QUICK = OPTIONS.quick;
const selected = selector(OPTIONS);
const section = (ids: ScenarioId[], what: string, fn: () => Promise<void>) =>
  runSection(selected, ids, what, fn);

/** Sizes and durations; `--quick` keeps every scenario but runs it smaller. */
const CFG = QUICK
  ? {
      writePairs: 2,
      writeMs: 1_000,
      fsyncMs: 500,
      watchSamples: 300,
      watchWarmup: 30,
      fanoutPairs: 2,
      fanoutMs: 1_500,
      fanoutWarmupMs: 300,
      stalledBuffer: 100,
      worker: { rounds: 2, midWalksPerRound: 3, getOps: 2_000, watchOps: 200, pageOps: 20, createOps: 100 },
    }
  : {
      writePairs: 5,
      writeMs: 3_000,
      fsyncMs: 1_500,
      watchSamples: 2_000,
      watchWarmup: 100,
      fanoutPairs: 5,
      fanoutMs: 3_000,
      fanoutWarmupMs: 500,
      stalledBuffer: 100,
      worker: { rounds: 5, midWalksPerRound: 5, getOps: 5_000, watchOps: 500, pageOps: 50, createOps: 200 },
    };

/** Keys each writer cycles through: creates on the first pass, compare-and-swap updates after. */
const KEYS_PER_WRITER = 100;
const FANOUT_CONFIGS = [
  { watchers: 100, rate: 100 },
  { watchers: 1_000, rate: 10 },
  { watchers: 1_000, rate: 50 },
] as const;

/** A signed difference in ms: "+0.12 ms", "-53.0 µs". */
function fmtDelta(ms: number): string {
  return `${ms < 0 ? "-" : "+"}${fmtMs(Math.abs(ms))}`;
}

function fmtUs(us: number): string {
  return Number.isFinite(us) ? `${us.toFixed(2)} µs` : "n/a";
}

function fmtMB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// ---- shared machinery ---------------------------------------------------------------------------

const hr = () => process.hrtime.bigint();
const hrMs = (from: bigint, to: bigint) => Number(to - from) / 1e6;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let tmpRoot = "";
let dirCount = 0;
const freshDir = () => join(tmpRoot, `d${++dirCount}`);

/** Run `fn` on a fresh store directory and remove it afterwards (the disk stays quiet between runs). */
async function inFreshDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = freshDir();
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Run `a` and `b` alternately (A B A B ...) `pairs` times. */
async function interleave<T>(
  pairs: number,
  a: () => Promise<T>,
  b: () => Promise<T>,
): Promise<{ a: T[]; b: T[] }> {
  const out = { a: [] as T[], b: [] as T[] };
  for (let i = 0; i < pairs; i++) {
    out.a.push(await a());
    out.b.push(await b());
  }
  return out;
}

const POD_BYTES = Math.round(POD_VALUES.reduce((s, v) => s + Buffer.byteLength(v), 0) / POD_VALUES.length);

let writeRun = 0;

/** The same workload as single etcd transactions on the raw client: the floor under EtcdStorage. */
async function rawEtcdWrites(client: EtcdClient, concurrency: number, durationMs: number): Promise<number> {
  const tag = `raw${++writeRun}`;
  const values = POD_VALUES.map((v) => Buffer.from(v));
  const current = new Map<string, number>();
  return runWriters(concurrency, durationMs, async (writer, n) => {
    const name = `/bench/${tag}/w${writer}/${n % KEYS_PER_WRITER}`;
    const key = Buffer.from(name);
    const value = values[n % values.length] as Buffer;
    const prev = current.get(name);
    const req: TxnRequest =
      prev === undefined
        ? {
            compare: [{ result: COMPARE_EQUAL, target: TARGET_CREATE, key, createRevision: 0 }],
            success: [{ requestPut: { key, value } }],
            failure: [],
          }
        : {
            compare: [{ result: COMPARE_EQUAL, target: TARGET_MOD, key, modRevision: prev }],
            success: [{ requestPut: { key, value } }],
            failure: [],
          };
    const res = await client.txn(req);
    if (!res.succeeded) throw new Error(`raw etcd txn on ${name} failed its compare`);
    current.set(name, toNumber(res.header?.revision));
  });
}

/** Append 4 KB and fdatasync, in a loop: latency distribution of one durable append (ms). */
function fdatasyncLoop(durationMs: number): { median: number; p99: number } {
  const times = fdatasyncTimes(join(tmpRoot, `fsync-${++dirCount}`), durationMs);
  return { median: median(times), p99: percentile(times, 99) };
}

// ---- child processes --------------------------------------------------------------------------

/** Run a worker script in a fresh `node --expose-gc` process; its `RESULT <json>` line. */
async function runWorker<T>(script: string, config: unknown, timeoutMs: number): Promise<T> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const child = spawn(process.execPath, ["--expose-gc", path, JSON.stringify(config)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.add(child);
  let stdout = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    stdout += chunk;
  });
  const timer = setTimeout(() => {
    if (child.pid !== undefined) killQuietly(child.pid);
  }, timeoutMs);
  const code = await new Promise<number | string>((resolve) => {
    child.once("exit", (c, signal) => resolve(c ?? signal ?? "unknown"));
    child.once("error", (err) => resolve(err.message));
  });
  clearTimeout(timer);
  children.delete(child);
  const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (code !== 0 || line === undefined) throw new Error(`${script} (pid ${child.pid}) ended with ${code}`);
  return JSON.parse(line.slice("RESULT ".length)) as T;
}

// ---- S3 / S2: durable writes --------------------------------------------------------------------

async function benchWrites1(): Promise<void> {
  progress("S3: durable writes, 1 writer (fdatasync, embedded, raw lmdb; interleaved)");
  const fsync: { median: number; p99: number }[] = [];
  const embedded: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < CFG.writePairs; i++) {
    fsync.push(fdatasyncLoop(CFG.fsyncMs));
    embedded.push(await inFreshDir((dir) => embeddedWrites(dir, 1, CFG.writeMs, POD_BYTES)));
    raw.push(await inFreshDir((dir) => rawLmdbWrites(dir, 1, CFG.writeMs, POD_BYTES)));
  }
  const fsyncMedian = median(fsync.map((f) => f.median));
  // writes/s x fsync latency (s): 1.0 would be one write per fsync.
  const ratios = embedded.map((w, i) => (w * (fsync[i] as { median: number }).median) / 1000);
  add({
    id: "S3",
    figure: "embedded durable writes, 1 writer",
    subject: fmtList(embedded, fmtRate),
    baseline: `fdatasync 4 KB median ${fmtMs(fsyncMedian)}, p99 ${fmtMs(median(fsync.map((f) => f.p99)))} (1/fsync = ${fmtRate(1000 / fsyncMedian)})`,
    ratio: fmtRatio(ratios),
    target: "≥ 0.5 / fsync latency",
    verdict: verdict(median(ratios) >= 0.5),
  });
  add({
    id: "S3",
    figure: "embedded vs raw lmdb, 1 writer",
    subject: fmtRate(median(embedded)),
    baseline: `raw lmdb put ${fmtList(raw, fmtRate)}`,
    ratio: fmtRatio(embedded.map((w, i) => w / (raw[i] as number))),
    target: "(reference)",
    verdict: "info",
  });
}

async function benchWrites64(): Promise<void> {
  progress("S2: durable writes, 64 writers (raw lmdb, embedded; interleaved)");
  const { a: raw, b: embedded } = await interleave(
    CFG.writePairs,
    () => inFreshDir((dir) => rawLmdbWrites(dir, 64, CFG.writeMs, POD_BYTES)),
    () => inFreshDir((dir) => embeddedWrites(dir, 64, CFG.writeMs, POD_BYTES)),
  );
  const ratios = embedded.map((w, i) => w / (raw[i] as number));
  add({
    id: "S2",
    figure: "embedded durable writes, 64 writers",
    subject: fmtList(embedded, fmtRate),
    baseline: `raw lmdb group commit, 64 in flight ${fmtList(raw, fmtRate)}`,
    ratio: fmtRatio(ratios),
    target: "≥ 0.5 (within 2x)",
    verdict: verdict(median(ratios) >= 0.5),
  });
  progress("S2: memory store, 1 and 64 writers");
  for (const concurrency of [1, 64]) {
    const rates: number[] = [];
    for (let i = 0; i < Math.min(2, CFG.writePairs); i++) {
      const storage = new MemoryStorage();
      rates.push(await storageWrites(storage, concurrency, CFG.writeMs / 2, KEYS_PER_WRITER));
      await storage.close();
    }
    add({
      id: "S2",
      figure: `memory store writes, ${concurrency} writer${concurrency > 1 ? "s" : ""}`,
      subject: fmtList(rates, fmtRate),
      baseline: "-",
      ratio: "-",
      target: "(figure only)",
      verdict: "info",
    });
  }
}

async function benchEtcdWrites(endpoint: string): Promise<void> {
  progress("S4: etcd writes, 1 and 64 writers (raw client txn, EtcdStorage; interleaved)");
  const client = await EtcdClient.connect({ endpoints: [endpoint] });
  const storage = await createEtcdStorage({ endpoints: [endpoint] });
  try {
    // Keep etcd's history from piling up between runs.
    const compact = async () => storage.compact(await storage.currentRevision());
    // Connect both and warm etcd up before the measured pairs.
    await rawEtcdWrites(client, 8, 500);
    await storageWrites(storage, 8, 500, KEYS_PER_WRITER);
    await compact();
    for (const [concurrency, target] of [
      [1, 0.7],
      [64, 0.5],
    ] as const) {
      const { a: raw, b: subject } = await interleave(
        CFG.writePairs,
        async () => {
          const r = await rawEtcdWrites(client, concurrency, CFG.writeMs);
          await compact();
          return r;
        },
        async () => {
          const r = await storageWrites(storage, concurrency, CFG.writeMs, KEYS_PER_WRITER);
          await compact();
          return r;
        },
      );
      const ratios = subject.map((w, i) => w / (raw[i] as number));
      add({
        id: "S4",
        figure: `etcd backend writes, ${concurrency} writer${concurrency > 1 ? "s" : ""}`,
        subject: fmtList(subject, fmtRate),
        baseline: `raw client create/CAS txn ${fmtList(raw, fmtRate)}`,
        ratio: fmtRatio(ratios),
        target: `≥ ${target}`,
        verdict: verdict(median(ratios) >= target),
      });
    }
  } finally {
    await storage.close();
    client.close();
  }
}

// ---- S6: watch latency ---------------------------------------------------------------------------

interface LatencySamples {
  /** Write start -> event from Storage.watch. */
  readonly direct: number[];
  /** Write start -> delivery from a CacheWatcher. */
  readonly cached: number[];
  /** Write acknowledged -> event from Storage.watch (0 when the event came first). */
  readonly directAfterAck: number[];
  readonly cachedAfterAck: number[];
}

/**
 * Sequential creates (one at a time, each waiting for both its events), watched from the same
 * process directly on the store and through a Cacher at once.
 */
async function watchLatency(storage: Storage, samples: number, warmup: number): Promise<LatencySamples> {
  const total = warmup + samples;
  const values = Array.from({ length: total }, (_, i) => {
    const id = podIdentity(i);
    return { key: id.key, value: podJson(i, { namespace: id.namespace, name: id.name }) };
  });
  const cacher = new Cacher({ storage, prefix: POD_PREFIX });
  await cacher.start();
  const watcher = await cacher.watch({ keyPrefix: POD_PREFIX, resourceVersion: String(cacher.revision) });
  const stop = new AbortController();
  const stream = storage.watch(POD_PREFIX, await storage.currentRevision(), stop.signal);

  interface Pending {
    readonly key: string;
    direct?: bigint;
    cached?: bigint;
    resolve: () => void;
  }
  let pending: Pending | undefined;
  let failure: unknown;
  const arrived = (which: "direct" | "cached", key: string) => {
    const p = pending;
    if (!p || p.key !== key || p[which] !== undefined) return;
    p[which] = hr();
    if (p.direct !== undefined && p.cached !== undefined) p.resolve();
  };
  const consumers = [
    (async () => {
      for await (const event of stream) if (event.type === "put") arrived("direct", event.kv.key);
    })(),
    (async () => {
      for await (const d of watcher) if (d.type === "ADDED") arrived("cached", d.item.key);
    })(),
  ].map((p) =>
    p.catch((err: unknown) => {
      failure ??= err;
    }),
  );

  const out: LatencySamples = { direct: [], cached: [], directAfterAck: [], cachedAfterAck: [] };
  try {
    for (let i = 0; i < total; i++) {
      const { key, value } = values[i] as { key: string; value: string };
      let timer: NodeJS.Timeout | undefined;
      const p: Pending = { key, resolve: () => {} };
      const both = new Promise<void>((resolve, reject) => {
        p.resolve = resolve;
        timer = setTimeout(
          () => reject(new Error(`no event for ${key} within 10 s (${String(failure)})`)),
          10_000,
        );
      });
      pending = p;
      const start = hr();
      await storage.create(key, value);
      const ack = hr();
      await both;
      clearTimeout(timer);
      if (i < warmup) continue;
      const direct = p.direct as bigint;
      const cached = p.cached as bigint;
      out.direct.push(hrMs(start, direct));
      out.cached.push(hrMs(start, cached));
      out.directAfterAck.push(Math.max(0, hrMs(ack, direct)));
      out.cachedAfterAck.push(Math.max(0, hrMs(ack, cached)));
    }
  } finally {
    pending = undefined;
    stop.abort();
    watcher.close("stopped");
    await cacher.stop();
    await Promise.all(consumers);
  }
  return out;
}

function p50p99(values: number[]): string {
  return `p50 ${fmtMs(median(values))}, p99 ${fmtMs(percentile(values, 99))}`;
}

async function benchWatchLatency(
  etcdEndpoint: string | undefined,
  etcdSkip: string | undefined,
): Promise<void> {
  const backends: [string, () => Promise<Storage>][] = [
    ["embedded", () => openEmbeddedStorage({ dir: join(tmpRoot, "s6-embedded"), sync: true })],
    ["memory", async () => new MemoryStorage()],
  ];
  if (etcdEndpoint) backends.push(["etcd", () => createEtcdStorage({ endpoints: [etcdEndpoint] })]);
  for (const [name, open] of backends) {
    progress(`S6: watch latency, ${name} (${CFG.watchSamples} sequential creates)`);
    const storage = await open();
    let s: LatencySamples;
    try {
      s = await watchLatency(storage, CFG.watchSamples, CFG.watchWarmup);
    } finally {
      await storage.close();
    }
    const cachedP99 = percentile(s.cached, 99);
    const directP99 = percentile(s.direct, 99);
    if (name === "etcd") {
      add({
        id: "S6",
        figure: "watch latency etcd, write start -> Cacher delivery",
        subject: p50p99(s.cached),
        baseline: `Storage.watch: ${p50p99(s.direct)}`,
        ratio: `${fmtDelta(cachedP99 - directP99)} at p99`,
        target: "p99 ≤ raw + 5 ms",
        verdict: verdict(cachedP99 <= directP99 + 5),
      });
    } else {
      add({
        id: "S6",
        figure: `watch latency ${name}, write start -> Cacher delivery`,
        subject: p50p99(s.cached),
        baseline: `Storage.watch: ${p50p99(s.direct)}`,
        ratio: `${fmtDelta(cachedP99 - directP99)} at p99`,
        target: name === "embedded" ? "p99 ≤ 5 ms" : "(figure only)",
        verdict: name === "embedded" ? verdict(cachedP99 <= 5) : "info",
      });
    }
    if (name !== "memory") {
      add({
        id: "S6",
        figure: `watch latency ${name}, write ack -> event`,
        subject: `Cacher: ${p50p99(s.cachedAfterAck)}`,
        baseline: `Storage.watch: ${p50p99(s.directAfterAck)}`,
        ratio: `${fmtDelta(percentile(s.cachedAfterAck, 99) - percentile(s.directAfterAck, 99))} at p99`,
        target: "(reference)",
        verdict: "info",
      });
    }
  }
  if (!etcdEndpoint) {
    add({
      id: "S6",
      figure: "watch latency etcd",
      subject: "-",
      baseline: "-",
      ratio: "-",
      target: "p99 ≤ raw + 5 ms",
      verdict: "skipped",
    });
    notes.push(`S6 etcd skipped: ${etcdSkip}`);
  }
}

// ---- S5: watch fan-out ----------------------------------------------------------------------------

interface FanoutResult {
  /** Write (commit) -> delivery written to the sink, ms. */
  readonly p50: number;
  readonly p99: number;
  /** CPU time of the process per delivery in the measured window, µs. */
  readonly cpuPerDelivery: number;
  readonly deliveries: number;
  readonly expected: number;
  readonly events: number;
  readonly encodes: number;
  readonly stalled?: {
    readonly closeReason: string | undefined;
    readonly maxBuffered: number;
    readonly bound: number;
  };
  readonly othersClosed: number;
}

interface FanoutRun {
  readonly watchers: number;
  readonly rate: number;
  readonly durationMs: number;
  readonly warmupMs: number;
}

/**
 * Drive `rate` events/s for `durationMs`: `emit(measured)` writes one event and returns; the
 * measured window starts after the warm-up. Resolves once every measured event was delivered.
 */
async function driveFanout(
  run: FanoutRun,
  emit: (index: number, measured: boolean) => Promise<void>,
  onTick: () => void,
  measuredDelivered: () => number,
): Promise<{ events: number; cpuUs: number; expected: number }> {
  const interval = 1000 / run.rate;
  const start = now();
  const measureFrom = start + run.warmupMs;
  const end = measureFrom + run.durationMs;
  let cpu0: NodeJS.CpuUsage | undefined;
  let events = 0;
  for (let i = 0; ; i++) {
    const due = start + i * interval;
    if (due >= end) break;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    const measured = due >= measureFrom;
    if (measured && cpu0 === undefined) cpu0 = process.cpuUsage();
    await emit(i, measured);
    if (measured) events++;
    onTick();
  }
  const expected = events * run.watchers;
  const deadline = now() + 10_000;
  while (measuredDelivered() < expected && now() < deadline) await sleep(5);
  const cpu = process.cpuUsage(cpu0);
  return { events, cpuUs: cpu.user + cpu.system, expected };
}

/** The subject: a memory store, a Cacher, `watchers` CacheWatchers writing encodeOnce frames to a sink. */
async function fanoutCacher(
  run: FanoutRun,
  options: { stalled: boolean; bufferSize?: number },
): Promise<FanoutResult> {
  const storage = new MemoryStorage();
  const cacher = new Cacher({
    storage,
    prefix: POD_PREFIX,
    ...(options.bufferSize !== undefined ? { watcherBufferSize: options.bufferSize } : {}),
  });
  await cacher.start();
  const total = Math.ceil(((run.warmupMs + run.durationMs) * run.rate) / 1000) + 1;
  const values = Array.from({ length: total }, (_, i) => {
    const id = podIdentity(i);
    return { key: id.key, value: podJson(i, { namespace: id.namespace, name: id.name }) };
  });
  const startTimes = new Map<string, { t: number; measured: boolean }>();
  let encodes = 0;
  const encode = (d: WatchDelivery): Buffer => {
    encodes++;
    const object = d.type === "BOOKMARK" || d.type === "ERROR" ? "{}" : d.item.json;
    return Buffer.from(`{"type":"${d.type}","object":${object}}\n`);
  };
  let sinkBytes = 0;
  let delivered = 0;
  const latencies: number[] = [];
  const rv = String(cacher.revision);
  const watchers: CacheWatcher[] = [];
  const loops: Promise<void>[] = [];
  for (let i = 0; i < run.watchers; i++) {
    const w = await cacher.watch({ keyPrefix: POD_PREFIX, resourceVersion: rv });
    watchers.push(w);
    loops.push(
      (async () => {
        for await (const d of w) {
          const frame = encodeOnce(d, "json", encode);
          sinkBytes += frame.length;
          if (d.type === "BOOKMARK" || d.type === "ERROR") continue;
          const start = startTimes.get(d.item.key);
          if (start?.measured) {
            latencies.push(now() - start.t);
            delivered++;
          }
        }
      })(),
    );
  }
  const stalled = options.stalled
    ? await cacher.watch({ keyPrefix: POD_PREFIX, resourceVersion: rv }) // never read
    : undefined;
  let maxBuffered = 0;
  let written = 0;
  const drive = await driveFanout(
    run,
    async (i, measured) => {
      const { key, value } = values[i] as { key: string; value: string };
      startTimes.set(key, { t: now(), measured });
      await storage.create(key, value);
      written++;
    },
    () => {
      if (stalled && stalled.closeReason === undefined) maxBuffered = Math.max(maxBuffered, stalled.buffered);
    },
    () => delivered,
  );
  const othersClosed = watchers.filter((w) => w.closeReason !== undefined).length;
  const result: FanoutResult = {
    p50: median(latencies),
    p99: percentile(latencies, 99),
    cpuPerDelivery: drive.cpuUs / Math.max(1, delivered),
    deliveries: delivered,
    expected: drive.expected,
    events: written,
    encodes,
    othersClosed,
    ...(stalled
      ? {
          stalled: {
            closeReason: stalled.closeReason,
            maxBuffered,
            bound: options.bufferSize ?? 1000,
          },
        }
      : {}),
  };
  for (const w of watchers) w.close("stopped");
  stalled?.close("stopped");
  await Promise.all(loops);
  await cacher.stop();
  await storage.close();
  if (sinkBytes <= 0) throw new Error("fan-out sink received nothing");
  return result;
}

/** The baseline: one pre-serialized buffer per event handed to N async consumers via queue + wakeup. */
async function fanoutRaw(run: FanoutRun): Promise<FanoutResult> {
  interface Message {
    readonly t: number;
    readonly measured: boolean;
    readonly frame: Buffer;
  }
  const frame = Buffer.from(`{"type":"ADDED","object":${podJson(0)}}\n`);
  let sinkBytes = 0;
  let delivered = 0;
  const latencies: number[] = [];
  let closed = false;
  const consumers = Array.from({ length: run.watchers }, () => {
    const queue = new Queue<Message>();
    let wake: (() => void) | undefined;
    const done = (async () => {
      for (;;) {
        for (let m = queue.shift(); m !== undefined; m = queue.shift()) {
          sinkBytes += m.frame.length;
          if (m.measured) {
            latencies.push(now() - m.t);
            delivered++;
          }
        }
        if (closed) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    })();
    return {
      push(m: Message) {
        queue.push(m);
        const w = wake;
        wake = undefined;
        w?.();
      },
      done,
    };
  });
  const drive = await driveFanout(
    run,
    async (_i, measured) => {
      const m: Message = { t: now(), measured, frame };
      for (const c of consumers) c.push(m);
    },
    () => {},
    () => delivered,
  );
  closed = true;
  for (const c of consumers) c.push({ t: now(), measured: false, frame });
  await Promise.all(consumers.map((c) => c.done));
  if (sinkBytes <= 0) throw new Error("fan-out sink received nothing");
  return {
    p50: median(latencies),
    p99: percentile(latencies, 99),
    cpuPerDelivery: drive.cpuUs / Math.max(1, delivered),
    deliveries: delivered,
    expected: drive.expected,
    events: drive.events,
    encodes: 0,
    othersClosed: 0,
  };
}

async function benchFanout(): Promise<void> {
  for (const { watchers, rate } of FANOUT_CONFIGS) {
    const run: FanoutRun = { watchers, rate, durationMs: CFG.fanoutMs, warmupMs: CFG.fanoutWarmupMs };
    progress(`S5: fan-out ${watchers} watchers x ${rate} ev/s (raw loop, Cacher; interleaved)`);
    const { a: raw, b: subject } = await interleave(
      CFG.fanoutPairs,
      () => fanoutRaw(run),
      () => fanoutCacher(run, { stalled: false }),
    );
    const label = `${watchers} x ${rate}`;
    const p99Ratios = subject.map((s, i) => s.p99 / (raw[i] as FanoutResult).p99);
    const cpuRatios = subject.map((s, i) => s.cpuPerDelivery / (raw[i] as FanoutResult).cpuPerDelivery);
    const missing = subject.reduce((n, s) => n + (s.expected - s.deliveries), 0);
    add({
      id: "S5",
      figure: `fan-out ${label}: write -> delivery p99`,
      subject: `p50 ${fmtMs(median(subject.map((s) => s.p50)))}, p99 ${fmtList(
        subject.map((s) => s.p99),
        fmtMs,
      )}`,
      baseline: `raw loop p50 ${fmtMs(median(raw.map((r) => r.p50)))}, p99 ${fmtMs(median(raw.map((r) => r.p99)))}`,
      ratio: fmtRatio(p99Ratios),
      target: "≤ 2x raw",
      verdict: verdict(median(p99Ratios) <= 2 && missing === 0),
    });
    add({
      id: "S5",
      figure: `fan-out ${label}: CPU per delivery`,
      subject: fmtUs(median(subject.map((s) => s.cpuPerDelivery))),
      baseline: `raw loop ${fmtUs(median(raw.map((r) => r.cpuPerDelivery)))}`,
      ratio: fmtRatio(cpuRatios),
      target: "≤ 2x raw",
      verdict: verdict(median(cpuRatios) <= 2),
    });
    const once = subject.every((s) => s.encodes === s.events);
    add({
      id: "S5",
      figure: `fan-out ${label}: encodings per event`,
      subject: subject.map((s) => `${s.encodes} enc / ${s.events} ev`).join(", "),
      baseline: `${subject.reduce((n, s) => n + s.deliveries, 0)} measured deliveries, ${missing} missing`,
      ratio: "-",
      target: "each event encoded once",
      verdict: verdict(once && missing === 0),
    });
  }

  const run: FanoutRun = { watchers: 100, rate: 100, durationMs: CFG.fanoutMs, warmupMs: CFG.fanoutWarmupMs };
  const bound = CFG.stalledBuffer;
  progress(
    `S5: stalled watcher, 100 watchers x 100 ev/s, watcherBufferSize ${bound} (without, with; interleaved)`,
  );
  const { a: without, b: withStalled } = await interleave(
    CFG.fanoutPairs,
    () => fanoutCacher(run, { stalled: false, bufferSize: bound }),
    () => fanoutCacher(run, { stalled: true, bufferSize: bound }),
  );
  const ratios = withStalled.map((s, i) => s.p99 / (without[i] as FanoutResult).p99);
  const closedOverflow = withStalled.every((s) => s.stalled?.closeReason === "overflow");
  const maxBuffered = Math.max(...withStalled.map((s) => s.stalled?.maxBuffered ?? Number.NaN));
  const othersClosed = withStalled.reduce((n, s) => n + s.othersClosed, 0);
  add({
    id: "S5",
    figure: "stalled watcher (100 x 100): others' p99",
    subject: `with stalled ${fmtList(
      withStalled.map((s) => s.p99),
      fmtMs,
    )}`,
    baseline: `without ${fmtList(
      without.map((s) => s.p99),
      fmtMs,
    )}`,
    ratio: fmtRatio(ratios),
    target: "≤ 1.5x",
    verdict: verdict(median(ratios) <= 1.5),
  });
  add({
    id: "S5",
    figure: "stalled watcher: closed, buffer bounded",
    subject: `closeReason ${[...new Set(withStalled.map((s) => s.stalled?.closeReason ?? "none"))].join("/")}, max buffered ${maxBuffered}`,
    baseline: `bound ${bound} (watcherBufferSize); other watchers closed: ${othersClosed}`,
    ratio: "-",
    target: `"overflow", ≤ bound`,
    verdict: verdict(closedOverflow && maxBuffered <= bound && othersClosed === 0),
  });
}

// ---- S7 / S10 / S11: the cache worker ----------------------------------------------------------------

async function benchCache(): Promise<void> {
  const config: CacheWorkerConfig = {
    big: 100_000,
    mid: 10_000,
    small: 1_000,
    limit: 500,
    ...CFG.worker,
  };
  progress(
    `S10/S7/S11: fresh process with caches of ${config.big}, ${config.mid} and ${config.small} Pods (memory store)`,
  );
  const r = await runWorker<CacheWorkerResult>("./cache-worker.ts", config, 8 * 60_000);

  if (selected("S10")) {
    const s = r.s10;
    add({
      id: "S10",
      figure: `memory per cached object at ${s.objects / 1000}k (heap)`,
      subject: `${(s.heapPerObject / 1024).toFixed(2)} KB/object (heapUsed growth after gc)`,
      baseline: `object JSON ${(s.jsonBytes / 1024).toFixed(2)} KB`,
      ratio: `${(s.heapPerObject / s.jsonBytes).toFixed(2)}x`,
      target: "≤ 2.5x, indexes included",
      verdict: verdict(s.heapPerObject / s.jsonBytes <= 2.5),
    });
    add({
      id: "S10",
      figure: `memory per cached object at ${s.objects / 1000}k (RSS)`,
      subject: `${(s.rssPerObject / 1024).toFixed(2)} KB/object (VmRSS growth after gc)`,
      baseline: `object JSON ${(s.jsonBytes / 1024).toFixed(2)} KB`,
      ratio: `${(s.rssPerObject / s.jsonBytes).toFixed(2)}x`,
      target: "≤ 2.5x, indexes included",
      verdict: verdict(s.rssPerObject / s.jsonBytes <= 2.5),
    });
    notes.push(
      `S10: priming ${s.objects} objects took ${fmtMs(s.primeMs)}; the memory store itself holds ` +
        `${(s.storeHeapPerObject / 1024).toFixed(2)} KB/object (not counted above).`,
    );
  }

  if (selected("S7")) {
    const s = r.s7;
    const page = (d: { p50: number; p99: number }) => `p50 ${fmtMs(d.p50)}, p99 ${fmtMs(d.p99)}`;
    add({
      id: "S7",
      figure: `paged LIST limit=${s.limit} at ${s.big / 1000}k: page time`,
      subject: `${page(s.pageBig)} (${s.pageBig.n} pages)`,
      baseline: `join ${s.limit} pre-serialized: ${page(s.pageBase)}`,
      ratio: `${(s.pageBig.p50 / s.pageBase.p50).toFixed(2)}x at p50`,
      target: "p50 ≤ 5 ms, p99 ≤ 15 ms",
      verdict: verdict(s.pageBig.p50 <= 5 && s.pageBig.p99 <= 15),
    });
    add({
      id: "S7",
      figure: `paged LIST page time ${s.big / 1000}k / ${s.mid / 1000}k`,
      subject: `at ${s.big / 1000}k ${page(s.pageBig)}`,
      baseline: `at ${s.mid / 1000}k ${page(s.pageMid)}`,
      ratio: fmtRatio(s.ratioRounds),
      target: "≤ 1.5",
      verdict: verdict(median(s.ratioRounds) <= 1.5),
    });
    add({
      id: "S7",
      figure: `full ${s.big / 1000}k walk (limit=${s.limit}, bodies built)`,
      subject: fmtList(s.walkMs, fmtMs),
      baseline: "-",
      ratio: "-",
      target: "≤ 3 s",
      verdict: verdict(median(s.walkMs) <= 3000),
    });
    add({
      id: "S7",
      figure: `peak RSS during a full ${s.big / 1000}k walk`,
      subject: `+${fmtMB(s.peakRss - s.steadyRss)}: steady ${fmtMB(s.steadyRss)}, peak ${fmtMB(s.peakRss)}`,
      baseline: `same walk from pre-serialized strings: +${fmtMB(s.basePeakRss - s.baseSteadyRss)}`,
      ratio: "-",
      target: "≤ steady + 50 MB",
      verdict: verdict(s.peakRss - s.steadyRss <= 50 * 1024 * 1024),
    });
    notes.push(`S7: peak RSS is ${s.peakMethod}; steady is VmRSS after gc just before the walk.`);
  }

  if (selected("S11")) {
    const s = r.s11;
    const labels: Record<S11Metric, [string, number]> = {
      get: ["cached GET (resourceVersion=0)", 1.2],
      create: ["create -> applied and delivered by the cache", 1.2],
      watchStart: ["watch start (resourceVersion=current)", 1.2],
      listPage: ["paged LIST page (limit=500, with body)", 1.5],
    };
    for (const metric of Object.keys(labels) as S11Metric[]) {
      const [label, target] = labels[metric];
      const rounds = s.rounds[metric];
      const ratios = rounds.map((x) => x.big / x.small);
      add({
        id: "S11",
        figure: `${label}: ${s.big / 1000}k / ${s.small / 1000}k`,
        subject: `at ${s.big / 1000}k ${fmtMs(median(rounds.map((x) => x.big)))}/op`,
        baseline: `at ${s.small / 1000}k ${fmtMs(median(rounds.map((x) => x.small)))}/op`,
        ratio: fmtRatio(ratios),
        target: `≤ ${target}`,
        verdict: verdict(median(ratios) <= target),
      });
    }
  }
}

// ---- main ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (globalThis.gc === undefined) notes.push("run without --expose-gc: memory figures are less exact");
  const started = now();
  tmpRoot = await mkdtemp(join(tmpdir(), "bench-storage-"));
  let etcd: EtcdServer | undefined;
  let etcdSkip: string | undefined;
  try {
    if (selected("S4") || selected("S6")) {
      if (!etcdBinary()) etcdSkip = "etcd binary not found (/usr/bin/etcd, $ETCD_BIN or PATH)";
      else {
        try {
          etcd = await startEtcd();
          progress(`etcd started at ${etcd.endpoint} (pid ${etcd.pid})`);
        } catch (err) {
          etcdSkip = `etcd failed to start: ${err instanceof Error ? err.message : String(err)}`;
        }
      }
    }
    // Latency-sensitive scenarios first: the write benchmarks leave the disk and etcd busy
    // (writeback, compaction) for a while after they end.
    await section(["S6"], "watch latency", () => benchWatchLatency(etcd?.endpoint, etcdSkip));
    await section(["S5"], "watch fan-out", benchFanout);
    await section(["S7", "S10", "S11"], "cache worker", benchCache);
    await section(["S3"], "durable writes, 1 writer", benchWrites1);
    await section(["S2"], "durable writes, 64 writers", benchWrites64);
    if (selected("S4")) {
      if (etcd) await section(["S4"], "etcd writes", () => benchEtcdWrites((etcd as EtcdServer).endpoint));
      else {
        add({
          id: "S4",
          figure: "etcd backend writes, 1 and 64 writers",
          subject: "-",
          baseline: "-",
          ratio: "-",
          target: "≥ 0.7 / ≥ 0.5",
          verdict: "skipped",
        });
        notes.push(`S4 skipped: ${etcdSkip}`);
      }
    }
  } finally {
    if (etcd) {
      const pid = etcd.pid;
      await etcd.stop();
      progress(`etcd (pid ${pid}) stopped`);
    }
    for (const child of children) if (child.pid !== undefined) killQuietly(child.pid);
    await rm(tmpRoot, { recursive: true, force: true });
  }

  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log("");
  console.log(
    `Storage-layer benchmarks (${QUICK ? "--quick" : "full"} run${OPTIONS.only ? `, only ${[...OPTIONS.only].join(",")}` : ""}), ` +
      `${new Date().toISOString()}, node ${process.version}, ${cpus().length} x ${cpu}`,
  );
  console.log(
    "The HTTP gateway does not exist yet: these are the storage-layer parts of BENCHMARKS.md; S1, the HTTP side " +
      "of S2, S8 and S9 are not measured. One process, not pinned to CPUs; etcd runs unpinned.",
  );
  console.log(
    `Values: Pod-like JSON of ${POD_BYTES} B (test/bench/fixtures.ts); embedded-raw.ts writes random ASCII of the ` +
      `same size. Throughput: ${CFG.writePairs} interleaved pairs of ${CFG.writeMs / 1000} s; fan-out: ` +
      `${CFG.fanoutPairs} pairs of ${CFG.fanoutMs / 1000} s after ${CFG.fanoutWarmupMs / 1000} s warm-up.`,
  );
  console.log("");
  printTable({ byScenario: true });
  console.log("");
  printSummary(started, { skipped: true });
}

runMain(main);
