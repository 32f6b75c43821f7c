// S18 of BENCHMARKS.md: `npm run bench:mongodb [-- --quick]`.
//
//   writes through the MongoDB backend, 1 and 50 writers   vs raw driver transactions doing the same
//                                                           reads and writes (object, counter, log)
//   watch latency, write acknowledged -> Cacher delivery   in the follow modes the server offers
//
// The server is jongodb (npm; a MongoDB-wire server in memory, single-node replica-set profile),
// started on a free loopback port and stopped by PID. It has no change streams, so the backend
// follows its log by polling there; the change-stream rows run only where MONGODB_URI names a real
// replica set. Each run writes in a database of its own, dropped after it.

import { type ClientSession, type Collection, MongoClient, MongoError } from "mongodb";
import { Cacher } from "../../backends/cacher/index.ts";
import type { Storage } from "../../backends/contract/index.ts";
import { type FollowMode, type MongoStorage, openMongoStorage } from "../../backends/mongodb/index.ts";
import { type MongoServer, realReplicaSet, startJongodb } from "../support/mongodb.ts";
import { median, POD_PREFIX, percentile, podIdentity, podJson } from "./fixtures.ts";
import {
  add,
  fmtList,
  fmtMs,
  fmtRate,
  fmtRatio,
  notes,
  now,
  printSummary,
  printTable,
  progress,
  readOptions,
  runMain,
  selector,
  verdict,
} from "./report.ts";
import { POD_VALUES, runWriters, storageWrites } from "./writers.ts";

const SCENARIOS = ["S18"] as const;
// `npm run bench` passes one argument list to every bench: an `--only` without S18 skips this one.
let skipAll = false;
const OPTIONS = readOptions(
  SCENARIOS,
  `usage: node test/bench/mongodb.ts [--quick] [--only=S18]\n  --quick  shorter runs`,
  (arg) => {
    if (!arg.startsWith("--only=") || /\bS18\b/i.test(arg)) return false;
    skipAll = true;
    return true;
  },
);
const QUICK = OPTIONS.quick;
const CFG = QUICK
  ? { pairs: 2, writeMs: 1_000, watchSamples: 100, watchWarmup: 10 }
  : { pairs: 5, writeMs: 3_000, watchSamples: 500, watchWarmup: 50 };
// Few keys per writer: jongodb copies the data a transaction touches, so its cost grows with the
// collections (a transaction over 2,000 documents took 77 ms, over 10 about 3 ms).
const KEYS_PER_WRITER = 10;
let run = 0;

interface RawCollections {
  readonly objects: Collection<{ _id: string; value: string; createRevision: number; modRevision: number }>;
  readonly log: Collection<{ _id: number; key: string; type: string; value: string; createRevision: number }>;
  readonly meta: Collection<{ _id: string; revision: number }>;
}

/**
 * The floor under the backend: each write is one driver transaction that reads the object,
 * increments the counter, writes the object and appends the log entry, with the backend's read
 * and write concerns. The transactions are taken in turn, as the backend takes its writes:
 * jongodb does not detect conflicts between concurrent transactions (8 writers committing 80
 * increments of one counter left it at 17), and on a real server they would all collide on the
 * counter. A transaction that fails transiently runs again.
 */
async function rawWrites(client: MongoClient, c: RawCollections, concurrency: number, durationMs: number) {
  const tag = `r${++run}`;
  let turn: Promise<unknown> = Promise.resolve();
  return runWriters(concurrency, durationMs, async (writer, n) => {
    const key = `/bench/${tag}/w${writer}/${n % KEYS_PER_WRITER}`;
    const value = POD_VALUES[n % POD_VALUES.length] as string;
    const mine = turn.then(() => rawTransaction(client, c, key, value));
    turn = mine.catch(() => undefined);
    await mine;
  });
}

async function rawTransaction(client: MongoClient, c: RawCollections, key: string, value: string) {
  const session = client.startSession();
  try {
    for (;;) {
      session.startTransaction({ readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } });
      try {
        await rawWrite(c, session, key, value);
        await session.commitTransaction();
        return;
      } catch (err) {
        if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
        if (!(err instanceof MongoError && err.hasErrorLabel("TransientTransactionError"))) throw err;
      }
    }
  } finally {
    await session.endSession();
  }
}

async function rawWrite(c: RawCollections, session: ClientSession, key: string, value: string) {
  const current = await c.objects.findOne({ _id: key }, { session });
  const counter = await c.meta.findOneAndUpdate(
    { _id: "revision" },
    { $inc: { revision: 1 } },
    { upsert: true, returnDocument: "after", session },
  );
  const revision = counter?.revision as number;
  if (current) {
    const res = await c.objects.updateOne(
      { _id: key, modRevision: current.modRevision },
      { $set: { value, modRevision: revision } },
      { session },
    );
    if (res.matchedCount !== 1) throw new Error(`raw update of ${key} lost its precondition`);
  } else {
    await c.objects.insertOne(
      { _id: key, value, createRevision: revision, modRevision: revision },
      { session },
    );
  }
  await c.log.insertOne(
    { _id: revision, key, type: "put", value, createRevision: current?.createRevision ?? revision },
    { session },
  );
  return revision;
}

const COLLECTIONS = ["objects", "log", "meta"].flatMap((c) => [`registry_${c}`, `raw_${c}`]);

/**
 * A database for one run, its collections dropped after it (jongodb's transactions slow down as
 * data grows; it has no dropDatabase).
 */
async function inFreshDatabase<T>(client: MongoClient, fn: (database: string) => Promise<T>): Promise<T> {
  const database = `bench_${process.pid}_${++run}`;
  try {
    return await fn(database);
  } finally {
    for (const name of COLLECTIONS)
      await client
        .db(database)
        .collection(name)
        .drop()
        .catch(() => undefined);
  }
}

async function benchWrites(uri: string): Promise<void> {
  progress("S18: writes, 1 and 50 writers (raw driver transactions, MongoStorage; interleaved)");
  const client = new MongoClient(uri, {
    writeConcern: { w: "majority" },
    readConcern: { level: "majority" },
  });
  await client.connect();
  const raw = (concurrency: number, ms: number) =>
    inFreshDatabase(client, (database) => {
      const db = client.db(database);
      return rawWrites(
        client,
        {
          objects: db.collection("raw_objects"),
          log: db.collection("raw_log"),
          meta: db.collection("raw_meta"),
        },
        concurrency,
        ms,
      );
    });
  let retries = 0;
  const backend = (concurrency: number, ms: number) =>
    inFreshDatabase(client, async (database) => {
      const storage = await openMongoStorage({ uri, database });
      try {
        return await storageWrites(storage, concurrency, ms, KEYS_PER_WRITER);
      } finally {
        retries += storage.retries;
        await storage.close();
      }
    });
  try {
    // Warm both paths up before the measured pairs.
    await raw(8, 300);
    await backend(8, 300);
    for (const [concurrency, target] of [
      [1, 0.7],
      [50, 0.5],
    ] as const) {
      const baseline: number[] = [];
      const subject: number[] = [];
      retries = 0;
      for (let i = 0; i < CFG.pairs; i++) {
        baseline.push(await raw(concurrency, CFG.writeMs));
        subject.push(await backend(concurrency, CFG.writeMs));
      }
      const ratios = subject.map((w, i) => w / (baseline[i] as number));
      add({
        id: "S18",
        figure: `MongoDB backend writes, ${concurrency} writer${concurrency > 1 ? "s" : ""}`,
        subject: `${fmtList(subject, fmtRate)}; ${retries} retries`,
        baseline: `raw driver txn ${fmtList(baseline, fmtRate)}`,
        ratio: fmtRatio(ratios),
        target: `≥ ${target}`,
        verdict: verdict(median(ratios) >= target),
      });
    }
  } finally {
    await client.close();
  }
}

/**
 * Sequential creates through `writer`, each waiting for its delivery from a Cacher over `reader`:
 * write acknowledged -> delivery, in ms.
 */
async function watchLatency(reader: Storage, writer: Storage): Promise<number[]> {
  const cacher = new Cacher({ storage: reader, prefix: POD_PREFIX });
  await cacher.start();
  const watcher = await cacher.watch({ keyPrefix: POD_PREFIX, resourceVersion: String(cacher.revision) });
  const arrivals = new Map<string, (at: number) => void>();
  const consumer = (async () => {
    for await (const d of watcher) if (d.type === "ADDED") arrivals.get(d.item.key)?.(now());
  })();
  const out: number[] = [];
  try {
    const base = ++run * 100_000;
    for (let i = 0; i < CFG.watchWarmup + CFG.watchSamples; i++) {
      const id = podIdentity(base + i);
      let timer: NodeJS.Timeout | undefined;
      const arrived = new Promise<number>((resolve, reject) => {
        arrivals.set(id.key, resolve);
        timer = setTimeout(() => reject(new Error(`no event for ${id.key} within 10 s`)), 10_000);
      });
      await writer.create(id.key, podJson(i, { namespace: id.namespace, name: id.name }));
      const ack = now();
      const at = await arrived;
      clearTimeout(timer);
      arrivals.delete(id.key);
      if (i >= CFG.watchWarmup) out.push(Math.max(0, at - ack));
    }
  } finally {
    watcher.close("stopped");
    await cacher.stop();
    await consumer.catch(() => undefined);
  }
  return out;
}

async function benchWatch(uri: string, mode: FollowMode, where: string): Promise<void> {
  const client = new MongoClient(uri);
  await client.connect();
  try {
    for (const who of ["same process", "another client"] as const) {
      await inFreshDatabase(client, async (database) => {
        const open = () => openMongoStorage({ uri, database, follow: mode });
        const reader: MongoStorage = await open();
        // A second client stands for another gateway sharing the database: its writes reach
        // the reader's follower only through the log (no in-process poke).
        const writer: MongoStorage = who === "same process" ? reader : await open();
        try {
          progress(
            `S18: watch latency, ${mode}, writes from ${who} (${CFG.watchSamples} sequential creates)`,
          );
          const samples = await watchLatency(reader, writer);
          add({
            id: "S18",
            figure: `watch latency (${where}, ${mode === "poll" ? "polling every 100 ms" : "change stream"}), writes from ${who}`,
            subject: `ack -> Cacher delivery p50 ${fmtMs(median(samples))}, p99 ${fmtMs(percentile(samples, 99))}`,
            baseline: "-",
            ratio: "-",
            target: "reported",
            verdict: "info",
          });
        } finally {
          if (writer !== reader) await writer.close();
          await reader.close();
        }
      });
    }
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  if (skipAll || !selector(OPTIONS)("S18")) return;
  const started = now();
  let server: MongoServer | undefined;
  try {
    server = await startJongodb();
    progress(`jongodb started at 127.0.0.1:${server.port} (pid ${server.pid})`);
    await benchWrites(server.uri);
    await benchWatch(server.uri, "poll", "jongodb");
  } finally {
    if (server) {
      const pid = server.pid;
      await server.stop();
      progress(`jongodb (pid ${pid}) stopped`);
    }
  }
  const real = realReplicaSet();
  if (real) {
    await benchWrites(real);
    await benchWatch(real, "changeStream", "MONGODB_URI");
    await benchWatch(real, "poll", "MONGODB_URI");
  } else
    notes.push(
      "change-stream watch latency not measured: jongodb has no change streams; set MONGODB_URI to a real replica set",
    );
  console.log("");
  console.log(
    `S18 (${QUICK ? "--quick" : "full"} run), ${new Date().toISOString()}, node ${process.version}; jongodb ` +
      `single-node replica-set profile on 127.0.0.1, unpinned. Writes: ${CFG.pairs} interleaved pairs of ` +
      `${CFG.writeMs / 1000} s, Pod-like JSON values, creates then CAS updates over ${KEYS_PER_WRITER} keys per writer.`,
  );
  console.log("");
  printTable();
  console.log("");
  printSummary(started, { skipped: false });
}

runMain(main);
