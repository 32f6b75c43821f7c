// S17 of BENCHMARKS.md: `npm run bench:ha [-- --quick]`. Three gateways over three etcd members
// behind haproxy, started by deploy/local-ha.sh:
//   - watch delivery: a ConfigMap created through replica A (HTTPS, one connection, one at a time),
//     from A's answer until its ADDED event arrives on a watch held open on replica B, against the
//     etcd backend's own watch latency on the same etcd cluster (S6: from Storage.create's
//     acknowledgement until the event from Storage.watch), interleaved round by round; target p99
//     <= raw + 5 ms. Both are also reported from the write's start;
//   - create throughput, S2-style (wrk, 50 connections, ConfigMap creates): through haproxy over the
//     three replicas against replica A alone, interleaved; the ratio is reported.
// The machine has two cores for everything (three gateways, three etcd members, haproxy, wrk), so
// nothing is pinned.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Storage } from "../../backends/contract/index.ts";
import { createEtcdStorage } from "../../backends/etcd/index.ts";
import { ApiClient } from "../support/api-client.ts";
import { type LocalHa, localHaSkipReason, startLocalHa } from "../support/local-ha.ts";
import { median, percentile } from "./fixtures.ts";
import {
  add,
  childResult,
  fmtMs,
  fmtRate,
  fmtRatio,
  notes,
  printSummary,
  printTable,
  progress,
  readOptions,
  runMain,
  verdict,
} from "./report.ts";

const SCENARIOS = ["S17"] as const;
const USAGE = "usage: node test/bench/ha.ts [--quick]";
const options = readOptions(SCENARIOS, USAGE);
const CFG = options.quick
  ? { rounds: 2, samples: 60, warmup: 10, runS: 3, warmS: 1 }
  : { rounds: 5, samples: 300, warmup: 30, runS: 10, warmS: 2 };
const CONNS = 50;
const LUA = fileURLToPath(new URL("./http-wrk.lua", import.meta.url));
const TOKEN = "bench-token-ha-0123456789abcdef";
const NS = "s17";
const hr = () => process.hrtime.bigint();
const hrMs = (from: bigint, to: bigint) => Number(to - from) / 1e6;

// About the size of S6's objects.
const configMap = (name: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: NS, labels: { bench: "s17" } },
    data: { payload: "x".repeat(1500) },
  });

/** Waits for named events from one stream: `arrived(name)` resolves when it comes. */
class Arrivals {
  readonly #waiting = new Map<string, (t: bigint) => void>();
  readonly #early = new Map<string, bigint>();
  seen(name: string): void {
    const t = hr();
    const resolve = this.#waiting.get(name);
    if (resolve) {
      this.#waiting.delete(name);
      resolve(t);
    } else this.#early.set(name, t);
  }
  arrived(name: string, timeoutMs = 10_000): Promise<bigint> {
    const early = this.#early.get(name);
    if (early !== undefined) {
      this.#early.delete(name);
      return Promise.resolve(early);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no event for ${name} in ${timeoutMs} ms`)), timeoutMs);
      this.#waiting.set(name, (t) => {
        clearTimeout(timer);
        resolve(t);
      });
    });
  }
}

/** A watch on `client` feeding ADDED names to `arrivals` until closed. */
async function follow(client: ApiClient, arrivals: Arrivals): Promise<() => void> {
  const w = await client.watch(`/api/v1/namespaces/${NS}/configmaps?watch=1&labelSelector=bench%3Ds17`);
  void (async () => {
    for await (const ev of w.events)
      if (ev.type === "ADDED") arrivals.seen((ev.object as { metadata: { name: string } }).metadata.name);
  })().catch(() => undefined);
  return () => w.close();
}

interface Latencies {
  /** Write start -> event. */
  readonly start: number[];
  /** Answer received -> event (0 when the event came first). */
  readonly ack: number[];
  /** Write start -> answer received. */
  readonly answer: number[];
}

/** Sequential creates through `writer`; write start -> event on B (and on A), and ack -> event on B. */
async function gatewayRound(
  writer: ApiClient,
  onB: Arrivals,
  onA: Arrivals,
  round: number,
): Promise<{ b: Latencies; a: number[] }> {
  const b: Latencies = { start: [], ack: [], answer: [] };
  const a: number[] = [];
  for (let i = 0; i < CFG.warmup + CFG.samples; i++) {
    const name = `w-${round}-${i}`;
    const seenB = onB.arrived(name);
    const seenA = onA.arrived(name);
    const start = hr();
    const res = await writer.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { raw: configMap(name) });
    const ack = hr();
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
    const [tb, ta] = await Promise.all([seenB, seenA]);
    if (i < CFG.warmup) continue;
    b.start.push(hrMs(start, tb));
    b.ack.push(Math.max(0, hrMs(ack, tb)));
    b.answer.push(hrMs(start, ack));
    a.push(hrMs(start, ta));
  }
  return { b, a };
}

/** S6's baseline on the same etcd cluster: Storage.create (start, acknowledgement) until the event from Storage.watch. */
async function rawRound(storage: Storage, round: number): Promise<{ start: number[]; ack: number[] }> {
  const prefix = `/s17-raw/${round}/`;
  const arrivals = new Arrivals();
  const stop = new AbortController();
  const stream = storage.watch(prefix, await storage.currentRevision(), stop.signal);
  const consumer = (async () => {
    for await (const event of stream) if (event.type === "put") arrivals.seen(event.kv.key);
  })().catch(() => undefined);
  const out = { start: [] as number[], ack: [] as number[] };
  try {
    for (let i = 0; i < CFG.warmup + CFG.samples; i++) {
      const key = `${prefix}${i}`;
      const seen = arrivals.arrived(key);
      const start = hr();
      await storage.create(key, configMap(`raw-${i}`));
      const ack = hr();
      const t = await seen;
      if (i < CFG.warmup) continue;
      out.start.push(hrMs(start, t));
      out.ack.push(Math.max(0, hrMs(ack, t)));
    }
  } finally {
    stop.abort();
    await consumer;
  }
  return out;
}

/** A signed difference: "+1.20 ms", "-0.30 ms". */
const fmtDelta = (ms: number) => `${ms < 0 ? "-" : "+"}${fmtMs(Math.abs(ms))}`;

const p50p99 = (v: number[]) => `p50 ${fmtMs(median(v))}, p99 ${fmtMs(percentile(v, 99))}`;

async function benchWatch(ha: LocalHa, a: ApiClient, b: ApiClient): Promise<void> {
  progress(`S17: watch delivery A -> B, ${CFG.rounds} rounds of ${CFG.samples} creates, against raw etcd`);
  const endpoints = [1, 2, 3].map((i) => `http://127.0.0.1:${ha.layout[`ETCD_CLIENT_${i}`]}`);
  const storage = await createEtcdStorage({ endpoints });
  const onB = new Arrivals();
  const onA = new Arrivals();
  const closeB = await follow(b, onB);
  const closeA = await follow(a, onA);
  const sub: Latencies = { start: [], ack: [], answer: [] };
  const same: number[] = [];
  const raw = { start: [] as number[], ack: [] as number[] };
  const p99s: { sub: number; raw: number }[] = [];
  try {
    for (let r = 0; r < CFG.rounds; r++) {
      const g = await gatewayRound(a, onB, onA, r);
      const base = await rawRound(storage, r);
      sub.start.push(...g.b.start);
      sub.ack.push(...g.b.ack);
      sub.answer.push(...g.b.answer);
      same.push(...g.a);
      raw.start.push(...base.start);
      raw.ack.push(...base.ack);
      p99s.push({ sub: percentile(g.b.ack, 99), raw: percentile(base.ack, 99) });
      progress(
        `    round ${r + 1}: answer->B ${p50p99(g.b.ack)}, raw etcd ack->event ${p50p99(base.ack)}; start->B ${p50p99(g.b.start)}, raw start->event ${p50p99(base.start)}; A->A ${p50p99(g.a)}`,
      );
    }
  } finally {
    closeA();
    closeB();
    await storage.close();
  }
  const subP99 = percentile(sub.ack, 99);
  const rawP99 = percentile(raw.ack, 99);
  const deltas = p99s.map((p) => p.sub - p.raw);
  add({
    id: "S17",
    figure: "watch delivery, A's answer to a create (HTTPS) received -> ADDED on replica B's watch",
    subject: p50p99(sub.ack),
    baseline: `etcd backend Storage.create acknowledged -> Storage.watch event (S6 raw): ${p50p99(raw.ack)}`,
    ratio: `p99 ${fmtDelta(subP99 - rawP99)} (per round ${deltas.map(fmtDelta).join(" / ")})`,
    target: "p99 ≤ raw + 5 ms",
    verdict: verdict(subP99 <= rawP99 + 5),
  });
  add({
    id: "S17",
    figure: "the same writes from their start -> ADDED on B",
    subject: p50p99(sub.start),
    baseline: `raw Storage.create start -> event ${p50p99(raw.start)}; start -> A's answer ${p50p99(sub.answer)}; start -> ADDED on A itself ${p50p99(same)}`,
    ratio: `p99 ${fmtDelta(percentile(sub.start, 99) - percentile(raw.start, 99))}`,
    target: "(reference)",
    verdict: "info",
  });
}

interface WrkResult {
  readonly rate: number;
  readonly errors: number;
}

/** One wrk run of ConfigMap creates (http-wrk.lua's create mode) against `port`. */
async function wrk(port: number, seconds: number, prefix: string, bodyFile: string): Promise<WrkResult> {
  const child = spawn(
    "wrk",
    ["-t1", `-c${CONNS}`, `-d${seconds}s`, "--timeout", "10s", "-s", LUA, `https://127.0.0.1:${port}/`],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        BENCH_MODE: "create",
        BENCH_PATH: `/api/v1/namespaces/${NS}/configmaps`,
        BENCH_BODY: bodyFile,
        BENCH_PREFIX: prefix,
        BENCH_COUNT: "0",
        BENCH_TOKEN: TOKEN,
      },
    },
  );
  const r = JSON.parse(await childResult(child, "wrk", (seconds + 30) * 1000)) as {
    requests: number;
    statusErrors: number;
    activeUs: number;
    connectErrors: number;
    readErrors: number;
    writeErrors: number;
    timeouts: number;
    statuses: Record<string, number>;
  };
  if (r.statusErrors > 0) progress(`    wrk: refused ${JSON.stringify(r.statuses)}`);
  return {
    rate: (r.requests - r.statusErrors) / (r.activeUs / 1e6),
    errors: r.statusErrors + r.connectErrors + r.readErrors + r.writeErrors + r.timeouts,
  };
}

async function benchThroughput(ha: LocalHa, dir: string): Promise<void> {
  progress(`S17: creates at ${CONNS} connections, ${CFG.rounds} pairs: replica A alone, then haproxy over 3`);
  const bodyFile = join(dir, "body.json");
  // http-wrk.lua puts the name at __NAME__ and a number at __SEQ__ (after it).
  const body = JSON.parse(configMap("__NAME__"));
  body.metadata.labels.bench = "s17-wrk";
  body.data.seq = "__SEQ__";
  await writeFile(bodyFile, JSON.stringify(body));
  const one: number[] = [];
  const three: number[] = [];
  let errors = 0;
  const ports = { one: ha.layout.GATEWAY_PORT_1 as number, three: ha.layout.HAPROXY_PORT as number };
  for (let r = 0; r < CFG.rounds; r++) {
    for (const [which, port] of Object.entries(ports) as ["one" | "three", number][]) {
      await wrk(port, CFG.warmS, `t${r}${which}w-`, bodyFile);
      const res = await wrk(port, CFG.runS, `t${r}${which}m-`, bodyFile);
      errors += res.errors;
      (which === "one" ? one : three).push(res.rate);
    }
    progress(`    pair ${r + 1}: one replica ${fmtRate(one[r] ?? 0)}, three ${fmtRate(three[r] ?? 0)}`);
  }
  if (errors > 0) notes.push(`S17 creates: ${errors} failed requests or socket errors, not counted`);
  add({
    id: "S17",
    figure: `create throughput, ${CONNS} connections: haproxy over 3 replicas vs replica A alone`,
    subject: `3 replicas ${fmtRate(median(three))} (${three.map(fmtRate).join(" / ")})`,
    baseline: `1 replica ${fmtRate(median(one))} (${one.map(fmtRate).join(" / ")})`,
    ratio: fmtRatio(three.map((t, i) => t / (one[i] as number))),
    target: "(report)",
    verdict: "info",
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  const skip = localHaSkipReason();
  if (skip) {
    add({
      id: "S17",
      figure: "replicas",
      subject: "-",
      baseline: "-",
      ratio: "-",
      target: "-",
      verdict: "skipped",
    });
    notes.push(`S17 skipped: ${skip}`);
    printTable();
    printSummary(started, { skipped: true });
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), "cg-bench-ha-"));
  const tokens = join(dir, "tokens.csv");
  // wrk cannot present client certificates: a static token in system:masters, as bench:http.
  await writeFile(tokens, `${TOKEN},bench,bench-uid,"system:masters"\n`);
  progress("S17: starting 3 etcd members, 3 gateways and haproxy (deploy/local-ha.sh)");
  const ha = await startLocalHa([`--token-auth-file=${tokens}`]);
  const a = new ApiClient(ha.replicaKubeconfig(1));
  const b = new ApiClient(ha.replicaKubeconfig(2));
  try {
    const ns = await a.call("POST", "/api/v1/namespaces", { body: { metadata: { name: NS } } });
    if (ns.status !== 201) throw new Error(`namespace: ${ns.status} ${ns.text}`);
    await benchWatch(ha, a, b);
    await benchThroughput(ha, dir);
  } finally {
    await ha.stop();
    await a.close();
    await b.close();
    await rm(dir, { recursive: true, force: true });
  }
  notes.push(
    "S17 shares two cores between 3 gateways, 3 etcd members, haproxy and the load generator; nothing is pinned",
  );
  printTable();
  printSummary(started, { skipped: true });
}

runMain(main);
