// The HTTP benchmarks of BENCHMARKS.md: `npm run bench:http [-- --quick] [-- --only=S1,S2,S3,S7]`.
//
// Starts the gateway as README says (`node gateway/main.ts`, embedded store, durable writes) and a bare
// fastify 5 HTTPS server with the gateway's TLS settings and certificate (http-baseline.ts), each in
// its own process pinned to CPU 0, and drives both with wrk (one thread, pinned to CPU 1, script
// http-wrk.lua). Subject and baseline alternate (A B A B ...); each run has its own warm-up run first.
// Progress goes to stderr, the table to stdout.
//
//   S1  GET one ConfigMap from the cache, 50 and 1 connections     vs bare fastify GET of the same bytes
//   S2  create / update (PUT, no resourceVersion) / delete,        vs bare fastify POST echo of the same
//       50 and 1 connections, embedded store, durable                body
//   S3  durable creates, 1 connection                              vs fdatasync of a 4 KB append
//   S7  paged LIST, limit=500 over 10k ConfigMaps, 1 and 50 conns  vs bare fastify GET of the same page
//   S5  watch fan-out 100x100, 1,000x10, 1,000x50 (watchers x        vs the bare server writing one
//       events/s): write sent -> frame received by each watcher       pre-encoded frame to every stream
//       (watch-client.ts, pinned to CPU 1), server CPU per delivery
//   S9  unpaged LIST of 100k ConfigMaps (20k with --quick)          none: the gateway's peak RSS during
//                                                                    the list against its RSS before
//   S11 GET (random names, 50 conns), LIST limit=500, create,      vs the same requests to a gateway
//       watch start, against a gateway holding 100k ConfigMaps        holding 1k (20k with --quick)
//   S12 GET of one custom object through the gateway to an          vs the same GET sent straight to
//       extension API server (a second gateway behind an              the extension, and its own watch
//       APIService), 50 and 1 conns; watch events through the
//       proxy (writes straight to the extension)
//   S15 S1 (50 conns) against a second gateway auditing every        vs S1 on the gateway without audit
//       request at Metadata to a file (config/audit-policy.yaml,       (both pinned to CPU 0, alternating)
//       the log backend's default blocking mode)
//
// Objects: ConfigMaps whose one data value is a Pod-like JSON string (fixtures.ts, ~2.4 KB). Creates
// use explicit names (prefix + counter) so that the delete runs can take exactly the created names;
// whatever a round leaves behind is deleted before the next one. All traffic is to 127.0.0.1; the
// gateway, the baseline and every wrk are stopped by PID, the temporary directories removed.
// `--cpu-prof=<dir>` runs the gateway with `node --cpu-prof` and leaves its profile in <dir>.
//
// Besides the rates, each run records the server process's CPU time (all threads, /proc/<pid>/stat)
// per request: on a shared machine other processes also run on CPU 0, which moves the rates by
// tens of percent but leaves CPU per request nearly alone. The last column shows it for subject and
// baseline, and their ratio (baseline / subject, the throughput ratio two CPU-bound servers on an
// otherwise idle core would have).

import { spawn, spawnSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, Pool, request } from "undici";
import { naming } from "../../backends/naming/index.ts";
import { ApiClient } from "../support/api-client.ts";
import { createServedCrd } from "../support/custom-resources.ts";
import { freePort, type GatewayProcess, startGateway } from "../support/gateway-process.ts";
import { median, podJson, procMemory, resetPeakRss } from "./fixtures.ts";
import {
  add,
  childResult,
  children,
  collectOutput,
  fdatasyncTimes,
  fmtList as fmtListOf,
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
  waitExit,
} from "./report.ts";
import type { WatchClientConfig, WatchClientResult } from "./watch-client.ts";

// ---- options ---------------------------------------------------------------------------------

const SCENARIOS = ["S1", "S2", "S3", "S5", "S7", "S9", "S11", "S12", "S15"] as const;
type ScenarioId = (typeof SCENARIOS)[number];

const USAGE = `usage: node test/bench/http.ts [--quick] [--only=${SCENARIOS.join(",")}] [--cpu-prof=<dir>]
  --quick           shorter runs and fewer pairs (about 2 minutes)
  --only=<ids>      comma-separated scenario ids (S1,S2,S3,S5,S7,S9,S11,S12,S15 as in BENCHMARKS.md)
  --cpu-prof=<dir>  run the gateway under node --cpu-prof, writing its profile to <dir>`;

let cpuProf: string | undefined;
const OPTIONS = readOptions(SCENARIOS, USAGE, (arg) => {
  if (!arg.startsWith("--cpu-prof=")) return false;
  cpuProf = resolve(arg.slice("--cpu-prof=".length));
  return true;
});
const CPU_PROF = cpuProf;
const QUICK = OPTIONS.quick;
const selected = selector(OPTIONS);
const section = (ids: ScenarioId[], what: string, fn: () => Promise<void>) =>
  runSection(selected, ids, what, fn);

/**
 * Run lengths in whole seconds (wrk's -d). "main" runs carry the targets (BENCHMARKS.md's method:
 * at least 5 pairs of 10 s after a 2 s warm-up); "minor" runs are the reference figures.
 */
const CFG = QUICK
  ? { pairs: 2, runS: 2, warmS: 1, minorPairs: 2, minorRunS: 2, minorWarmS: 1, fsyncMs: 500 }
  : { pairs: 5, runS: 10, warmS: 2, minorPairs: 3, minorRunS: 3, minorWarmS: 1, fsyncMs: 1_500 };
const CONNS = 50;
const UPDATE_NAMES = 500;
const LIST_OBJECTS = 10_000;
const LIST_LIMIT = 500;
const NS = "default";
const LIST_NS = "bench-list";
const CM_PATH = `/api/v1/namespaces/${NS}/configmaps`;

const HERE = fileURLToPath(new URL(".", import.meta.url));
const LUA = join(HERE, "http-wrk.lua");
const BASELINE_SCRIPT = join(HERE, "http-baseline.ts");
const WATCH_CLIENT = join(HERE, "watch-client.ts");
const WATCH_NS = "bench-watch";
const UNPAGED_NS = "bench-unpaged";
const UNPAGED_OBJECTS = QUICK ? 20_000 : 100_000;
/** The gateways run in the default naming preset. */
const BENCH_NAMING = naming("cluster");
const FANOUT_CONFIGS = [
  { watchers: 100, rate: 100 },
  { watchers: 1_000, rate: 10 },
  { watchers: 1_000, rate: 50 },
] as const;

// ---- the table --------------------------------------------------------------------------------

/** One value alone, several as "median (v1 / v2 / ...)". */
function fmtList(values: number[], fmt: (v: number) => string): string {
  return fmtListOf(values, fmt, true);
}

function fmtBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MB` : `${(n / 1024).toFixed(1)} KB`;
}

function fmtUs(us: number): string {
  return Number.isFinite(us) ? `${Math.round(us)} µs` : "n/a";
}

/** "136 / 52 µs = 0.38x (0.35-0.40)": medians, and baseline CPU / subject CPU per pair. */
function cpuCell(subject: RunResult[], baseline: RunResult[]): string {
  const s = median(subject.map((r) => r.cpuPerReqUs));
  const b = median(baseline.map((r) => r.cpuPerReqUs));
  const n = Math.min(subject.length, baseline.length);
  const ratios = Array.from(
    { length: n },
    (_, i) => (baseline[i] as RunResult).cpuPerReqUs / (subject[i] as RunResult).cpuPerReqUs,
  );
  return `${Math.round(s)} / ${fmtUs(b)} = ${fmtRatio(ratios)}`;
}

// ---- processes ----------------------------------------------------------------------------------

function haveCommand(cmd: string, args: string[]): boolean {
  const r = spawnSync(cmd, args, { stdio: "ignore" });
  return r.error === undefined;
}

/** Pin every thread of `pid` to `cpu` (threads created later inherit it). */
function pin(pid: number, cpu: number): void {
  const r = spawnSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`taskset -a -p -c ${cpu} ${pid}: ${r.stderr || r.error?.message}`);
}

interface Baseline {
  readonly port: number;
  readonly pid: number;
  set(slot: "object" | "list", body: string): Promise<void>;
  /** Where its `/proxy/…` route sends requests on (S12's floor). */
  setUpstream(upstream: { origin: string; caPem: string; serverName: string }): Promise<void>;
  stop(): Promise<void>;
}

/** Start http-baseline.ts pinned to CPU 0 with the gateway's serving certificate and client CA. */
async function startBaseline(pki: string, tokenFile: string): Promise<Baseline> {
  const port = await freePort();
  const config = {
    port,
    certFile: join(pki, "apiserver.crt"),
    keyFile: join(pki, "apiserver.key"),
    caFile: join(pki, "ca.crt"),
    tokenFile,
  };
  const child = spawn("taskset", ["-c", "0", process.execPath, BASELINE_SCRIPT, JSON.stringify(config)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const output = collectOutput(child);
  const deadline = now() + 20_000;
  while (!output().includes("listening")) {
    if (child.exitCode !== null) throw new Error(`baseline exited with ${child.exitCode}:\n${output()}`);
    if (now() > deadline) {
      if (child.pid !== undefined) killQuietly(child.pid);
      throw new Error(`baseline did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const pid = child.pid as number;
  const agent = new Agent({ connect: { ca: readFileSync(config.caFile, "utf8") } });
  const post = async (path: string, type: string, body: string) => {
    const res = await request(`https://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers: { "content-type": type },
      body,
      dispatcher: agent,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`baseline ${path}: ${res.statusCode} ${text}`);
  };
  return {
    port,
    pid,
    set: (slot, body) => post(`/__set?slot=${slot}`, "text/plain", body),
    setUpstream: (upstream) => post("/__upstream", "application/json", JSON.stringify(upstream)),
    async stop() {
      await agent.close();
      child.kill("SIGTERM");
      await waitExit(child, 5_000);
      children.delete(child);
    },
  };
}

// ---- wrk ------------------------------------------------------------------------------------------

type WrkMode = "get" | "getn" | "echo" | "create" | "update" | "delete";

interface WrkSpec {
  readonly port: number;
  /** The server's process, for its CPU time. */
  readonly pid: number;
  readonly mode: WrkMode;
  readonly path: string;
  readonly connections: number;
  readonly seconds: number;
  readonly bodyFile?: string;
  readonly prefix?: string;
  readonly count?: number;
}

interface WrkRaw {
  durationUs: number;
  activeUs: number;
  requests: number;
  bytes: number;
  sent: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  statusErrors: number;
  timeouts: number;
  meanUs: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  /** Non-2xx responses by status code (write modes only). */
  statuses: Record<string, number>;
}

interface RunResult {
  /** 2xx/3xx responses per second of the run (of its active part, when count-limited). */
  readonly rate: number;
  readonly ok: number;
  readonly statusErrors: number;
  /** Non-2xx responses by status code (write modes only; wrk counts the others but not by code). */
  readonly statuses: Record<string, number>;
  readonly socketErrors: number;
  readonly p50: number;
  readonly p99: number;
  /** request() calls, i.e. names taken (n = 0 .. sent-1; n = 0 is never sent). */
  readonly sent: number;
  readonly activeS: number;
  readonly stoppedEarly: boolean;
  readonly bytesPerResponse: number;
  /** The server process's CPU time (all threads, user + system) per completed request, µs. */
  readonly cpuPerReqUs: number;
  /** The share of CPU 0's busy time that was not the server's (other processes on the machine). */
  readonly otherOnCpu0: number;
}

/** Clock ticks per second of /proc (USER_HZ). */
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** utime + stime of `pid` in clock ticks, from /proc/<pid>/stat. */
function processTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Busy clock ticks of CPU 0 (everything but idle and iowait), from /proc/stat. */
function cpu0BusyTicks(): number {
  const line = readFileSync("/proc/stat", "utf8")
    .split("\n")
    .find((l) => l.startsWith("cpu0 "));
  if (line === undefined) return Number.NaN;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return total - (v[3] ?? 0) - (v[4] ?? 0);
}

let wrkRuns = 0;
/** Every run's share of CPU 0 that was not the server's, for the note on machine load. */
const otherOnCpu0: number[] = [];

// wrk cannot present client certificates: it authenticates with a static token in
// system:masters, so the figures include authentication and authorization (cached token).
const BENCH_TOKEN = "bench-token-0123456789abcdef";

let tokenDir: string | undefined;

async function benchTokenFile(): Promise<string> {
  tokenDir = await mkdtemp(join(tmpdir(), "cg-bench-token-"));
  const file = join(tokenDir, "tokens.csv");
  writeFileSync(file, `${BENCH_TOKEN},bench,bench-uid,"system:masters"\n`);
  return file;
}

/** One wrk run, pinned to CPU 1, one thread. */
async function wrk(spec: WrkSpec): Promise<RunResult> {
  const args = [
    "-c",
    "1",
    "wrk",
    "-t1",
    `-c${spec.connections}`,
    `-d${spec.seconds}s`,
    "--timeout",
    "10s",
    "-s",
    LUA,
    `https://127.0.0.1:${spec.port}/`,
  ];
  const child = spawn("taskset", args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      BENCH_MODE: spec.mode,
      BENCH_PATH: spec.path,
      BENCH_BODY: spec.bodyFile ?? "",
      BENCH_PREFIX: spec.prefix ?? "",
      BENCH_COUNT: String(spec.count ?? 0),
      BENCH_TOKEN,
    },
  });
  wrkRuns++;
  const ticks0 = processTicks(spec.pid);
  const cpu0 = cpu0BusyTicks();
  const result = await childResult(child, `wrk ${spec.mode} ${spec.path}`, (spec.seconds + 30) * 1000);
  const serverTicks = processTicks(spec.pid) - ticks0;
  const cpu0Ticks = cpu0BusyTicks() - cpu0;
  const raw = JSON.parse(result) as WrkRaw;
  if (cpu0Ticks > 0) otherOnCpu0.push(Math.max(0, cpu0Ticks - serverTicks) / cpu0Ticks);
  const ok = raw.requests - raw.statusErrors;
  const activeS = raw.activeUs / 1e6;
  return {
    rate: ok / activeS,
    ok,
    statusErrors: raw.statusErrors,
    statuses: raw.statuses,
    socketErrors: raw.connectErrors + raw.readErrors + raw.writeErrors + raw.timeouts,
    p50: raw.p50Us / 1000,
    p99: raw.p99Us / 1000,
    sent: raw.sent,
    activeS,
    stoppedEarly: raw.activeUs < raw.durationUs * 0.98,
    bytesPerResponse: raw.requests > 0 ? raw.bytes / raw.requests : 0,
    cpuPerReqUs: raw.requests > 0 ? ((serverTicks / CLK_TCK) * 1e6) / raw.requests : Number.NaN,
    otherOnCpu0: cpu0Ticks > 0 ? Math.max(0, cpu0Ticks - serverTicks) / cpu0Ticks : Number.NaN,
  };
}

/** A warm-up run (discarded) and then the measured run of the same spec. */
async function warmAndRun(spec: WrkSpec, warmS: number): Promise<RunResult> {
  if (warmS > 0) await wrk({ ...spec, seconds: warmS });
  return wrk(spec);
}

/** Responses that were not 2xx, or socket errors, in a list of runs: one note per kind. */
function checkRuns(what: string, runs: RunResult[], allowStatusErrors = 0): void {
  const status = runs.reduce((s, r) => s + r.statusErrors, 0);
  const socket = runs.reduce((s, r) => s + r.socketErrors, 0);
  const ok = runs.reduce((s, r) => s + r.ok, 0);
  const byCode = new Map<string, number>();
  for (const r of runs)
    for (const [code, n] of Object.entries(r.statuses)) byCode.set(code, (byCode.get(code) ?? 0) + n);
  const codes = [...byCode].map(([code, n]) => `${n} x ${code}`).join(", ");
  if (status > allowStatusErrors)
    notes.push(
      `${what}: ${status} non-2xx responses of ${ok + status}${codes ? ` (${codes})` : ""}, not counted in the rate`,
    );
  if (socket > 0) notes.push(`${what}: ${socket} socket errors or timeouts`);
}

// ---- helpers ----------------------------------------------------------------------------------------

/** `concurrency` loops over i = from .. to-1, each awaiting one `fn(i)` at a time. */
async function parallel(from: number, to: number, concurrency: number, fn: (i: number) => Promise<void>) {
  let next = from;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < to) await fn(next++);
    }),
  );
}

/** The JSON of a ConfigMap whose data are the Pod-like JSON of `podIndex` and a sequence number. */
function configMapJson(namespace: string, name: string, podIndex: number, seq: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels: { app: "bench" } },
    data: { "pod.json": podJson(podIndex), seq },
  });
}

/** Append 4 KB and fdatasync in a loop (as storage.ts does): median latency in ms. */
function fdatasyncMedian(dir: string, durationMs: number): number {
  const times = fdatasyncTimes(join(dir, `fsync-${Date.now()}`), durationMs);
  return median(times);
}

// ---- the scenarios ----------------------------------------------------------------------------------

interface Env {
  readonly gw: GatewayProcess;
  readonly gwPid: number;
  readonly base: Baseline;
  readonly api: ApiClient;
  /** A ConfigMap body with "__NAME__" for the name and "__SEQ__" for a per-request number. */
  readonly bodyFile: string;
  /** The same body with a fixed name (echo). */
  readonly echoFile: string;
  readonly bodyBytes: number;
}

async function expectStatus(
  env: Env,
  method: string,
  path: string,
  raw: string | undefined,
  codes: number[],
) {
  const res = await env.api.call(method, path, raw === undefined ? {} : { raw });
  if (!codes.includes(res.status))
    throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

/** 504s that set-up creates met (and retried); reported in a note. */
let setupTimeouts = 0;

/**
 * Create an object for the set-up (not measured). A 504 (a create's namespace check timing out in
 * the watch cache, see the notes) is retried; AlreadyExists after a retry means an earlier try won.
 */
async function createObject(env: Env, path: string, body: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const res = await env.api.call("POST", path, { raw: body });
    if (res.status === 201 || (attempt > 0 && res.status === 409)) return;
    if (res.status === 504 && attempt < 5) {
      setupTimeouts++;
      continue;
    }
    throw new Error(`POST ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  }
}

/** Delete `prefix`n for n in [from, to) with 50 requests in flight; 404s are fine (never created). */
async function deleteNames(env: Env, prefix: string, from: number, to: number): Promise<void> {
  await parallel(from, to, CONNS, async (n) => {
    await expectStatus(env, "DELETE", `${CM_PATH}/${prefix}${n}`, undefined, [200, 404]);
  });
}

type GetSpec = Pick<WrkSpec, "port" | "pid" | "mode" | "path">;

/** Interleaved GET runs, baseline first in each pair (S1's method, shared with S15). */
async function getPairs(
  subjectSpec: GetSpec,
  baseSpec: GetSpec,
  subjectName: string,
  run: { connections: number; pairs: number; runS: number; warmS: number },
): Promise<{ subject: RunResult[]; base: RunResult[] }> {
  const [base = [], subject = []] = await getRounds([baseSpec, subjectSpec], ["baseline", subjectName], run);
  return { subject, base };
}

/** Round by round, the rate of `a`'s runs over that of `b`'s. */
function perRound(a: RunResult[], b: RunResult[]): number[] {
  return a.map((r, i) => r.rate / (b[i] as RunResult).rate);
}

/** The reference row of a scenario with a floor: the gateway's runs against the floor's, same rounds. */
function addAgainstFloor(
  id: "S1" | "S12",
  connections: number,
  gateway: { name: string; runs: RunResult[] },
  floor: { name: string; runs: RunResult[] },
): void {
  add({
    id,
    figure: `the gateway against that floor, ${connections} conns`,
    subject: `${gateway.name} (same rounds)`,
    baseline: `${floor.name} (same rounds)`,
    ratio: fmtRatio(perRound(gateway.runs, floor.runs)),
    cpu: cpuCell(gateway.runs, floor.runs),
    target: "(reference)",
    verdict: "info",
  });
}

/** Interleaved GET runs over several servers, in the given order each round: runs per server. */
async function getRounds(
  specs: GetSpec[],
  names: string[],
  run: { connections: number; pairs: number; runS: number; warmS: number },
): Promise<RunResult[][]> {
  const { connections, pairs, runS, warmS } = run;
  const runs: RunResult[][] = specs.map(() => []);
  for (let i = 0; i < pairs; i++) {
    for (const [k, spec] of specs.entries())
      runs[k]?.push(await warmAndRun({ ...spec, connections, seconds: runS }, warmS));
    progress(
      `    round ${i + 1}: ${names.map((n, k) => `${n} ${fmtRate(runs[k]?.[i]?.rate ?? 0)}`).join(", ")}`,
    );
  }
  return runs;
}

async function benchGet(env: Env): Promise<void> {
  const name = "bench-get";
  await createObject(env, CM_PATH, configMapJson(NS, name, 0, "0"));
  const res = await expectStatus(env, "GET", `${CM_PATH}/${name}`, undefined, [200]);
  await env.base.set("object", res.text);
  const bytes = Buffer.byteLength(res.text);
  const gwSpec = { port: env.gw.port, pid: env.gwPid, mode: "get", path: `${CM_PATH}/${name}` } as const;
  const baseSpec = { port: env.base.port, pid: env.base.pid, mode: "get", path: "/object" } as const;
  const floorSpec = { ...baseSpec, path: gwSpec.path } as const;

  for (const [connections, pairs, runS, warmS] of [
    [CONNS, CFG.pairs, CFG.runS, CFG.warmS],
    [1, CFG.minorPairs, CFG.minorRunS, CFG.minorWarmS],
  ] as const) {
    progress(`S1: GET one ConfigMap (${fmtBytes(bytes)}), ${connections} conn, ${pairs} pairs of ${runS} s`);
    // At 50 connections a third server in each round: the bare one behind the gateway's access
    // stages (http-baseline.ts), the floor those unavoidable parts set.
    const withFloor = connections === CONNS;
    const specs = withFloor ? [baseSpec, floorSpec, gwSpec] : [baseSpec, gwSpec];
    const names = withFloor ? ["baseline", "access floor", "gateway"] : ["baseline", "gateway"];
    const rounds = await getRounds(specs, names, { connections, pairs, runS, warmS });
    const base = rounds[0] ?? [];
    const gw = rounds[specs.length - 1] ?? [];
    const floor = withFloor ? (rounds[1] ?? []) : [];
    checkRuns(`S1 GET ${connections} conn (gateway)`, gw);
    checkRuns(`S1 GET ${connections} conn (baseline)`, base);
    if (withFloor) checkRuns(`S1 GET ${connections} conn (access floor)`, floor);
    const ratios = perRound(gw, base);
    const p99Ratios = gw.map((g, i) => g.p99 / (base[i] as RunResult).p99);
    const p = (runs: RunResult[]) =>
      `p50 ${fmtMs(median(runs.map((r) => r.p50)))}, p99 ${fmtMs(median(runs.map((r) => r.p99)))}`;
    if (connections === CONNS) {
      add({
        id: "S1",
        figure: `GET ConfigMap (${fmtBytes(bytes)}) from the cache, ${connections} conns`,
        subject: fmtList(
          gw.map((r) => r.rate),
          fmtRate,
        ),
        baseline: `bare fastify GET, same bytes ${fmtList(
          base.map((r) => r.rate),
          fmtRate,
        )}`,
        ratio: fmtRatio(ratios),
        cpu: cpuCell(gw, base),
        target: "≥ 0.6x (stretch 0.8x)",
        verdict: verdict(median(ratios) >= 0.6),
      });
      add({
        id: "S1",
        figure: `floor: bare fastify behind the gateway's access stages, same bytes, ${connections} conns`,
        subject: fmtList(
          floor.map((r) => r.rate),
          fmtRate,
        ),
        baseline: "bare fastify GET (same rounds)",
        ratio: fmtRatio(perRound(floor, base)),
        cpu: cpuCell(floor, base),
        target: "(reference: what the unavoidable parts cost)",
        verdict: "info",
      });
      addAgainstFloor(
        "S1",
        connections,
        { name: "gateway", runs: gw },
        { name: "access floor", runs: floor },
      );
      add({
        id: "S1",
        figure: `GET latency, ${connections} conns`,
        subject: p(gw),
        baseline: p(base),
        ratio: `p99 ${fmtRatio(p99Ratios)}`,
        target: "p99 ≤ 2x baseline",
        verdict: verdict(median(p99Ratios) <= 2),
      });
    } else {
      add({
        id: "S1",
        figure: `GET ConfigMap, 1 conn`,
        subject: `${fmtList(
          gw.map((r) => r.rate),
          fmtRate,
        )}; ${p(gw)}`,
        baseline: `${fmtList(
          base.map((r) => r.rate),
          fmtRate,
        )}; ${p(base)}`,
        ratio: fmtRatio(ratios),
        cpu: cpuCell(gw, base),
        target: "(reference)",
        verdict: "info",
      });
    }
  }
}

/** The 500 objects that update runs PUT to, created once. */
let updateNamesReady = false;

async function ensureUpdateNames(env: Env): Promise<void> {
  if (updateNamesReady) return;
  const body = readFileSync(env.bodyFile, "utf8");
  await parallel(0, UPDATE_NAMES, CONNS, async (n) => {
    await createObject(env, CM_PATH, body.replace("__NAME__", `u-${n}`).replace("__SEQ__", "0"));
  });
  updateNamesReady = true;
}

let writeRound = 0;

async function benchWrites50(env: Env): Promise<void> {
  await ensureUpdateNames(env);
  progress(
    `S2: create / update / delete, ${CONNS} conns, ${CFG.pairs} rounds of echo, create, update, delete`,
  );
  const echo: RunResult[] = [];
  const create: RunResult[] = [];
  const update: RunResult[] = [];
  const del: RunResult[] = [];
  const common = { port: env.gw.port, pid: env.gwPid, path: CM_PATH, connections: CONNS };
  for (let i = 0; i < CFG.pairs; i++) {
    const tag = `c${++writeRound}`;
    echo.push(
      await warmAndRun(
        {
          port: env.base.port,
          pid: env.base.pid,
          mode: "echo",
          path: "/echo",
          connections: CONNS,
          seconds: CFG.runS,
          bodyFile: env.echoFile,
        },
        CFG.warmS,
      ),
    );
    const createWarm = await wrk({
      ...common,
      mode: "create",
      seconds: CFG.warmS,
      bodyFile: env.bodyFile,
      prefix: `${tag}w-`,
    });
    const created = await wrk({
      ...common,
      mode: "create",
      seconds: CFG.runS,
      bodyFile: env.bodyFile,
      prefix: `${tag}m-`,
    });
    create.push(created);
    update.push(
      await warmAndRun(
        {
          ...common,
          mode: "update",
          seconds: CFG.runS,
          bodyFile: env.bodyFile,
          prefix: "u-",
          count: UPDATE_NAMES,
        },
        CFG.warmS,
      ),
    );
    const delWarm = await wrk({
      ...common,
      mode: "delete",
      seconds: CFG.warmS,
      prefix: `${tag}w-`,
      count: createWarm.sent,
    });
    const deleted = await wrk({
      ...common,
      mode: "delete",
      seconds: CFG.runS,
      prefix: `${tag}m-`,
      count: created.sent,
    });
    del.push(deleted);
    if (deleted.stoppedEarly)
      notes.push(
        `S2 delete round ${i + 1}: deleted every created name after ${deleted.activeS.toFixed(1)} s of ${CFG.runS} s; the rate is over that time`,
      );
    progress(
      `    round ${i + 1}: echo ${fmtRate(echo[i]?.rate ?? 0)}, create ${fmtRate(created.rate)}, ` +
        `update ${fmtRate(update[i]?.rate ?? 0)}, delete ${fmtRate(deleted.rate)}`,
    );
    // Whatever the delete runs did not reach (the store stays the same size from round to round).
    await deleteNames(env, `${tag}w-`, Math.max(1, delWarm.sent - CONNS - 1), createWarm.sent);
    await deleteNames(env, `${tag}m-`, Math.max(1, deleted.sent - CONNS - 1), created.sent);
  }
  checkRuns("S2 echo 50 conns", echo);
  checkRuns("S2 create 50 conns", create);
  checkRuns("S2 update 50 conns", update);
  // The last names a create run took may not have been sent before wrk stopped: up to one per connection.
  checkRuns("S2 delete 50 conns", del, CONNS * del.length);
  const echoRates = echo.map((r) => r.rate);
  for (const [what, runs] of [
    ["create (POST)", create],
    ["update (PUT, no resourceVersion)", update],
    ["delete", del],
  ] as const) {
    const ratios = runs.map((r, i) => r.rate / (echoRates[i] as number));
    add({
      id: "S2",
      figure: `${what}, ${CONNS} conns, durable`,
      subject: `${fmtList(
        runs.map((r) => r.rate),
        fmtRate,
      )}; p99 ${fmtMs(median(runs.map((r) => r.p99)))}`,
      baseline: `bare fastify POST echo ${fmtList(echoRates, fmtRate)}; p99 ${fmtMs(median(echo.map((r) => r.p99)))}`,
      ratio: fmtRatio(ratios),
      cpu: cpuCell(runs, echo),
      target: "≥ 0.25x",
      verdict: verdict(median(ratios) >= 0.25),
    });
  }
}

async function benchWrites1(env: Env, tmpRoot: string): Promise<void> {
  await ensureUpdateNames(env);
  progress(
    `S3: durable creates, 1 conn, ${CFG.pairs} rounds of fdatasync + create (+ echo, update in ${CFG.minorPairs})`,
  );
  const fsync: number[] = [];
  const create: RunResult[] = [];
  const echo: RunResult[] = [];
  const update: RunResult[] = [];
  const common = { port: env.gw.port, pid: env.gwPid, path: CM_PATH, connections: 1 };
  for (let i = 0; i < CFG.pairs; i++) {
    const tag = `s${++writeRound}`;
    fsync.push(fdatasyncMedian(tmpRoot, CFG.fsyncMs));
    if (i < CFG.minorPairs) {
      echo.push(
        await warmAndRun(
          {
            port: env.base.port,
            pid: env.base.pid,
            mode: "echo",
            path: "/echo",
            connections: 1,
            seconds: CFG.minorRunS,
            bodyFile: env.echoFile,
          },
          CFG.minorWarmS,
        ),
      );
      update.push(
        await warmAndRun(
          {
            ...common,
            mode: "update",
            seconds: CFG.minorRunS,
            bodyFile: env.bodyFile,
            prefix: "u-",
            count: UPDATE_NAMES,
          },
          CFG.minorWarmS,
        ),
      );
    }
    const warm = await wrk({
      ...common,
      mode: "create",
      seconds: CFG.warmS,
      bodyFile: env.bodyFile,
      prefix: `${tag}w-`,
    });
    const created = await wrk({
      ...common,
      mode: "create",
      seconds: CFG.runS,
      bodyFile: env.bodyFile,
      prefix: `${tag}m-`,
    });
    create.push(created);
    progress(
      `    round ${i + 1}: fdatasync ${fmtMs(fsync[i] ?? 0)}, create ${fmtRate(created.rate)}` +
        (i < CFG.minorPairs
          ? `, echo ${fmtRate(echo[i]?.rate ?? 0)}, update ${fmtRate(update[i]?.rate ?? 0)}`
          : ""),
    );
    await deleteNames(env, `${tag}w-`, 1, warm.sent);
    await deleteNames(env, `${tag}m-`, 1, created.sent);
  }
  checkRuns("S3 create 1 conn", create);
  checkRuns("S2 update 1 conn", update);
  checkRuns("S2 echo 1 conn", echo);
  const ratios = create.map((r, i) => (r.rate * (fsync[i] as number)) / 1000);
  const fsyncMs = median(fsync);
  add({
    id: "S3",
    figure: "durable creates over HTTP, 1 conn",
    subject: `${fmtList(
      create.map((r) => r.rate),
      fmtRate,
    )}; p50 ${fmtMs(median(create.map((r) => r.p50)))}`,
    baseline: `fdatasync 4 KB median ${fmtList(fsync, fmtMs)} (1/fsync = ${fmtRate(1000 / fsyncMs)})`,
    ratio: fmtRatio(ratios),
    target: "≥ 0.5 / fsync latency",
    verdict: verdict(median(ratios) >= 0.5),
  });
  const echoRates = echo.map((r) => r.rate);
  for (const [what, runs] of [
    ["create (POST)", create.slice(0, echo.length)],
    ["update (PUT, no resourceVersion)", update],
  ] as const) {
    add({
      id: "S2",
      figure: `${what}, 1 conn, durable`,
      subject: `${fmtList(
        runs.map((r) => r.rate),
        fmtRate,
      )}; p50 ${fmtMs(median(runs.map((r) => r.p50)))}, p99 ${fmtMs(median(runs.map((r) => r.p99)))}`,
      baseline: `bare fastify POST echo ${fmtList(echoRates, fmtRate)}; p50 ${fmtMs(median(echo.map((r) => r.p50)))}`,
      ratio: fmtRatio(runs.map((r, i) => r.rate / (echoRates[i] as number))),
      cpu: cpuCell(runs, echo),
      target: "(reference)",
      verdict: "info",
    });
  }
}

async function benchList(env: Env): Promise<void> {
  progress(`S7: creating namespace ${LIST_NS} and ${LIST_OBJECTS.toLocaleString("en-US")} ConfigMaps in it`);
  const started = now();
  await expectStatus(
    env,
    "POST",
    "/api/v1/namespaces",
    JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: LIST_NS } }),
    [201, 409],
  );
  const listPath = `/api/v1/namespaces/${LIST_NS}/configmaps`;
  await parallel(0, LIST_OBJECTS, CONNS, async (n) => {
    await createObject(env, listPath, configMapJson(LIST_NS, `l-${n}`, n, "0"));
  });
  progress(`    created in ${((now() - started) / 1000).toFixed(1)} s`);
  const pagePath = `${listPath}?limit=${LIST_LIMIT}`;
  const page = await expectStatus(env, "GET", pagePath, undefined, [200]);
  const items = (page.body as { items?: unknown[] }).items?.length ?? 0;
  if (items !== LIST_LIMIT) throw new Error(`LIST ${pagePath}: ${items} items, expected ${LIST_LIMIT}`);
  await env.base.set("list", page.text);
  const pageBytes = Buffer.byteLength(page.text);
  const gwSpec = { port: env.gw.port, pid: env.gwPid, mode: "get", path: pagePath } as const;
  const baseSpec = { port: env.base.port, pid: env.base.pid, mode: "get", path: "/list" } as const;
  for (const connections of [1, CONNS]) {
    progress(
      `S7: LIST limit=${LIST_LIMIT} (${fmtBytes(pageBytes)}), ${connections} conn, ${CFG.minorPairs} pairs of ${CFG.minorRunS} s`,
    );
    const base: RunResult[] = [];
    const gw: RunResult[] = [];
    for (let i = 0; i < CFG.minorPairs; i++) {
      base.push(await warmAndRun({ ...baseSpec, connections, seconds: CFG.minorRunS }, CFG.minorWarmS));
      gw.push(await warmAndRun({ ...gwSpec, connections, seconds: CFG.minorRunS }, CFG.minorWarmS));
      progress(
        `    pair ${i + 1}: baseline ${fmtRate(base[i]?.rate ?? 0)}, gateway ${fmtRate(gw[i]?.rate ?? 0)}`,
      );
    }
    checkRuns(`S7 LIST ${connections} conn (gateway)`, gw);
    checkRuns(`S7 LIST ${connections} conn (baseline)`, base);
    const p50 = median(gw.map((r) => r.p50));
    const p99 = median(gw.map((r) => r.p99));
    const lat = (runs: RunResult[]) =>
      `p50 ${fmtMs(median(runs.map((r) => r.p50)))}, p99 ${fmtMs(median(runs.map((r) => r.p99)))}`;
    add({
      id: "S7",
      figure: `LIST limit=${LIST_LIMIT} of ${LIST_OBJECTS / 1000}k (${fmtBytes(pageBytes)} page), ${connections} conn${connections > 1 ? "s" : ""}`,
      subject: `${fmtList(
        gw.map((r) => r.rate),
        fmtRate,
      )}; ${lat(gw)}`,
      baseline: `bare fastify GET, same bytes ${fmtList(
        base.map((r) => r.rate),
        fmtRate,
      )}; ${lat(base)}`,
      ratio: fmtRatio(gw.map((g, i) => g.rate / (base[i] as RunResult).rate)),
      cpu: cpuCell(gw, base),
      target: connections === 1 ? "page p50 ≤ 5 ms, p99 ≤ 15 ms" : "(reference)",
      verdict: connections === 1 ? verdict(p50 <= 5 && p99 <= 15) : "info",
    });
  }
  notes.push(
    `S7 over HTTP: the first page each time (no continue token), resourceVersion unset (a consistent read); ` +
      `the latency includes TLS and the transfer of the ${fmtBytes(pageBytes)} page, which BENCHMARKS.md's S7 ` +
      `target (the page build in the cache) does not`,
  );
}

// ---- S5: watch fan-out over HTTPS -----------------------------------------------------------------

interface FanoutResult extends WatchClientResult {
  /** The server process's CPU time over the measured window per delivered frame, µs. */
  readonly cpuPerDeliveryUs: number;
}

/** One run of watch-client.ts (pinned to CPU 1) against the server `pid`. */
async function fanoutRun(pid: number, config: WatchClientConfig): Promise<FanoutResult> {
  const child = spawn("taskset", ["-c", "1", process.execPath, WATCH_CLIENT, JSON.stringify(config)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let out = "";
  let err = "";
  let ticks0 = Number.NaN;
  let ticks1 = Number.NaN;
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => {
    err += d;
  });
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (d: string) => {
    out += d;
    // The window's edges are read as the lines arrive (within a few ms of the client's moment).
    if (Number.isNaN(ticks0) && out.includes("MEASURE start\n")) ticks0 = processTicks(pid);
    if (Number.isNaN(ticks1) && out.includes("MEASURE end\n")) ticks1 = processTicks(pid);
  });
  const code = await waitExit(child, config.warmupMs + config.durationMs + 60_000);
  children.delete(child);
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (code !== 0 || line === undefined) throw new Error(`watch client exited with ${code}:\n${err}${out}`);
  const result = JSON.parse(line.slice("RESULT ".length)) as WatchClientResult;
  const cpuUs = ((ticks1 - ticks0) * 1e6) / CLK_TCK;
  return { ...result, cpuPerDeliveryUs: cpuUs / Math.max(1, result.deliveries) };
}

let fanoutRound = 0;

async function benchFanout(env: Env): Promise<void> {
  await expectStatus(
    env,
    "POST",
    "/api/v1/namespaces",
    JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: WATCH_NS } }),
    [201, 409],
  );
  const path = `/api/v1/namespaces/${WATCH_NS}/configmaps`;
  const body = configMapJson(WATCH_NS, "__NAME__", 1, "0");
  const ca = readFileSync(join(env.gw.dataDir, "pki", "ca.crt"), "utf8");
  for (const { watchers, rate } of FANOUT_CONFIGS) {
    const common = {
      ca,
      token: BENCH_TOKEN,
      body,
      watchers,
      rate,
      warmupMs: CFG.warmS * 1000,
      durationMs: CFG.runS * 1000,
    };
    progress(
      `S5: fan-out ${watchers} watchers x ${rate} ev/s over HTTPS, ${CFG.pairs} pairs of ${CFG.runS} s`,
    );
    const base: FanoutResult[] = [];
    const gw: FanoutResult[] = [];
    for (let i = 0; i < CFG.pairs; i++) {
      base.push(
        await fanoutRun(env.base.pid, {
          ...common,
          port: env.base.port,
          watchPath: "/watch",
          writePath: "/emit",
          namePrefix: "b-",
        }),
      );
      // Watch from the current revision: no initial events, so frame k answers write k.
      const listed = await expectStatus(env, "GET", `${path}?limit=1`, undefined, [200]);
      const rv = (listed.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      gw.push(
        await fanoutRun(env.gwPid, {
          ...common,
          port: env.gw.port,
          watchPath: `${path}?watch=true&resourceVersion=${rv}`,
          writePath: path,
          namePrefix: `w${++fanoutRound}-`,
        }),
      );
      progress(
        `    pair ${i + 1}: p99 baseline ${fmtMs(base[i]?.p99 ?? Number.NaN)}, gateway ${fmtMs(gw[i]?.p99 ?? Number.NaN)}`,
      );
    }
    const missing = [...base, ...gw].reduce((n, r) => n + (r.expected - r.deliveries), 0);
    const p99Ratios = gw.map((g, i) => g.p99 / (base[i] as FanoutResult).p99);
    const cpuRatios = gw.map((g, i) => g.cpuPerDeliveryUs / (base[i] as FanoutResult).cpuPerDeliveryUs);
    const lat = (runs: FanoutResult[]) =>
      `p50 ${fmtMs(median(runs.map((r) => r.p50)))}, p99 ${fmtList(
        runs.map((r) => r.p99),
        fmtMs,
      )}`;
    const label = `${watchers} x ${rate}`;
    add({
      id: "S5",
      figure: `fan-out ${label} over HTTPS: write sent -> frame received`,
      subject: `${lat(gw)}; write answered p50 ${fmtMs(median(gw.map((r) => r.writeP50)))}`,
      baseline: `bare server, one frame to every stream: ${lat(base)}`,
      ratio: fmtRatio(p99Ratios),
      target: "p99 ≤ 2x",
      verdict: verdict(median(p99Ratios) <= 2 && missing === 0),
    });
    add({
      id: "S5",
      figure: `fan-out ${label} over HTTPS: server CPU per delivery`,
      subject: fmtUs(median(gw.map((r) => r.cpuPerDeliveryUs))),
      baseline: `${fmtUs(median(base.map((r) => r.cpuPerDeliveryUs)))}; ${missing} frames missing`,
      ratio: fmtRatio(cpuRatios),
      target: "≤ 2x",
      verdict: verdict(median(cpuRatios) <= 2 && missing === 0),
    });
  }
  notes.push(
    "S5 over HTTPS: one client process (CPU 1) holds every watch stream and sends the writes, one at a " +
      "time on its own connection; latency runs from sending write k to the k-th frame arriving on each " +
      "stream, so the gateway's figure includes the create itself (authentication, admission, the " +
      "durable embedded commit), the bare server's a JSON parse. CPU is the server process's over the " +
      "measured window",
  );
}

// ---- S9: unpaged LIST ---------------------------------------------------------------------------------

async function benchUnpagedList(env: Env): Promise<void> {
  const count = UNPAGED_OBJECTS.toLocaleString("en-US");
  progress(`S9: creating namespace ${UNPAGED_NS} and ${count} ConfigMaps in it`);
  const started = now();
  await expectStatus(
    env,
    "POST",
    "/api/v1/namespaces",
    JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: UNPAGED_NS } }),
    [201, 409],
  );
  const path = `/api/v1/namespaces/${UNPAGED_NS}/configmaps`;
  await parallel(0, UNPAGED_OBJECTS, CONNS, async (n) => {
    await createObject(env, path, configMapJson(UNPAGED_NS, `u-${n}`, n, "0"));
  });
  progress(`    created in ${((now() - started) / 1000).toFixed(1)} s`);
  const agent = new Agent({
    connect: { ca: readFileSync(join(env.gw.dataDir, "pki", "ca.crt"), "utf8") },
  });
  try {
    await new Promise((r) => setTimeout(r, 2_000));
    const steady = procMemory(env.gwPid).rss;
    const reset = resetPeakRss(env.gwPid);
    let sampled = steady;
    const timer = setInterval(() => {
      sampled = Math.max(sampled, procMemory(env.gwPid).rss);
    }, 20);
    const t0 = now();
    const res = await request(`https://127.0.0.1:${env.gw.port}${path}`, {
      headers: { authorization: `Bearer ${BENCH_TOKEN}` },
      dispatcher: agent,
    });
    // Read and drop the body as it comes, keeping only its size and its two ends.
    let bytes = 0;
    let head = "";
    let tail = "";
    for await (const chunk of res.body) {
      const b = chunk as Buffer;
      bytes += b.length;
      if (head.length < 64) head += b.subarray(0, 64).toString("latin1");
      tail = (tail + b.subarray(Math.max(0, b.length - 64)).toString("latin1")).slice(-64);
    }
    const ms = now() - t0;
    clearInterval(timer);
    const peak = reset ? Math.max(procMemory(env.gwPid).hwm, sampled) : sampled;
    const chunked = res.headers["transfer-encoding"] === "chunked";
    const whole =
      res.statusCode === 200 && head.startsWith('{"kind":"ConfigMapList"') && tail.endsWith("]}\n");
    const growth = peak - steady;
    add({
      id: "S9",
      figure: `unpaged LIST of ${count} ConfigMaps, 1 conn`,
      subject: `${fmtBytes(bytes)} in ${fmtMs(ms)}${chunked ? ", chunked" : ""}; gateway peak RSS +${fmtBytes(growth)} (steady ${fmtBytes(steady)})`,
      baseline: "-",
      ratio: "-",
      target: "streamed; RSS growth ≤ 100 MB",
      verdict: verdict(whole && chunked && growth <= 100 * 1024 * 1024),
    });
    notes.push(
      `S9: peak RSS is ${reset ? "the gateway's VmHWM after clear_refs" : "its VmRSS sampled every 20 ms"}; ` +
        "steady is its VmRSS 2 s after the creates (no forced collection: the gateway is a plain process)",
    );
  } finally {
    await agent.close();
  }
}

// ---- S11: cost growth from 1k to 100k objects, over HTTPS ------------------------------------------

const GROWTH_SMALL = 1_000;
const GROWTH_LARGE = QUICK ? 20_000 : 100_000;
const GROWTH_CREATES = 2_000;
const WATCH_STARTS = QUICK ? 100 : 300;

/** A gateway of its own (pinned to CPU 0) holding `count` ConfigMaps `g-0` .. in namespace default. */
async function growthSide(env: Env, count: number): Promise<Env> {
  const gw = await startGateway([`--token-auth-file=${await benchTokenFile()}`]);
  children.add(gw.child);
  const pid = gw.child.pid as number;
  pin(pid, 0);
  const side: Env = { ...env, gw, gwPid: pid, api: new ApiClient(gw.kubeconfig) };
  const started = now();
  await parallel(0, count, CONNS, async (n) => {
    await createObject(side, CM_PATH, configMapJson(NS, `g-${n}`, n, "0"));
  });
  progress(
    `    gateway pid ${pid}: ${count.toLocaleString("en-US")} ConfigMaps created in ${((now() - started) / 1000).toFixed(1)} s`,
  );
  return side;
}

/**
 * Median time from sending a watch request to its response headers, `n` watches one after another,
 * each on a connection opened (TLS handshake done) beforehand; all are closed at the end.
 */
async function watchStartMs(side: Env, n: number): Promise<number> {
  const origin = `https://127.0.0.1:${side.gw.port}`;
  const pool = new Pool(origin, {
    connections: n,
    connect: { ca: readFileSync(join(side.gw.dataDir, "pki", "ca.crt"), "utf8") },
  });
  const headers = { authorization: `Bearer ${BENCH_TOKEN}` };
  const open: { destroy(): void }[] = [];
  try {
    // n requests in flight at once make the pool open n connections.
    await Promise.all(
      Array.from({ length: n }, async () => {
        const res = await pool.request({ method: "GET", path: "/version", headers });
        await res.body.text();
      }),
    );
    const listed = await expectStatus(side, "GET", `${CM_PATH}?limit=1`, undefined, [200]);
    const rv = (listed.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const path = `${CM_PATH}?watch=true&resourceVersion=${rv}&timeoutSeconds=60`;
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = now();
      const res = await pool.request({ method: "GET", path, headers });
      times.push(now() - t0);
      open.push(res.body);
      if (res.statusCode !== 200)
        throw new Error(`watch ${path}: ${res.statusCode} ${await res.body.text()}`);
    }
    return median(times);
  } finally {
    for (const body of open) body.destroy();
    await pool.destroy().catch(() => {});
  }
}

/**
 * S11 as users meet it: the same requests against a gateway holding 1k ConfigMaps and one holding
 * 100k, alternating. Cost is the inverse of the rate (or the latency, for watch starts); the ratio
 * is large-store cost over small-store cost, per pair.
 */
async function benchGrowth(env: Env): Promise<void> {
  progress(
    `S11: two gateways with ${GROWTH_SMALL.toLocaleString("en-US")} and ${GROWTH_LARGE.toLocaleString("en-US")} ConfigMaps`,
  );
  const sides: Env[] = [];
  try {
    for (const count of [GROWTH_SMALL, GROWTH_LARGE]) sides.push(await growthSide(env, count));
    const [small, large] = sides as [Env, Env];
    const sizes = `${GROWTH_LARGE / 1000}k / ${GROWTH_SMALL / 1000}k`;
    const spec = (side: Env, extra: Omit<WrkSpec, "port" | "pid">): WrkSpec => ({
      port: side.gw.port,
      pid: side.gwPid,
      ...extra,
    });

    const reads = [
      {
        what: `GET a random one of the ConfigMaps, ${CONNS} conns`,
        target: 1.2,
        spec: (side: Env, count: number) =>
          spec(side, {
            mode: "getn",
            path: CM_PATH,
            prefix: "g-",
            count,
            connections: CONNS,
            seconds: CFG.runS,
          }),
      },
      {
        what: `LIST limit=${LIST_LIMIT} (first page), 1 conn`,
        target: 1.5,
        spec: (side: Env) =>
          spec(side, {
            mode: "get",
            path: `${CM_PATH}?limit=${LIST_LIMIT}`,
            connections: 1,
            seconds: CFG.runS,
          }),
      },
    ] as const;
    for (const read of reads) {
      progress(`S11: ${read.what}, ${CFG.pairs} pairs of ${CFG.runS} s`);
      const runs: [RunResult[], RunResult[]] = [[], []];
      for (let i = 0; i < CFG.pairs; i++) {
        runs[0].push(await warmAndRun(read.spec(small, GROWTH_SMALL), CFG.warmS));
        runs[1].push(await warmAndRun(read.spec(large, GROWTH_LARGE), CFG.warmS));
        progress(`    pair ${i + 1}: ${fmtRate(runs[0][i]?.rate ?? 0)} / ${fmtRate(runs[1][i]?.rate ?? 0)}`);
      }
      growthRow(read.what, sizes, runs, read.target);
    }

    progress(`S11: create, ${CONNS} conns, ${CFG.pairs} pairs of ${GROWTH_CREATES} creates`);
    const creates: [RunResult[], RunResult[]] = [[], []];
    for (let i = 0; i < CFG.pairs; i++) {
      for (const [k, side] of [small, large].entries()) {
        const prefix = `gc${i}-`;
        const run = await wrk(
          spec(side, {
            mode: "create",
            path: CM_PATH,
            connections: CONNS,
            seconds: 4,
            bodyFile: env.bodyFile,
            prefix,
            count: GROWTH_CREATES + 1,
          }),
        );
        creates[k as 0 | 1].push(run);
        await deleteNames(side, prefix, 1, run.sent);
      }
      progress(
        `    pair ${i + 1}: ${fmtRate(creates[0][i]?.rate ?? 0)} / ${fmtRate(creates[1][i]?.rate ?? 0)}`,
      );
    }
    growthRow(`create (durable), ${CONNS} conns`, sizes, creates, 1.2);

    progress(`S11: watch start (time to response headers), ${CFG.pairs} pairs of ${WATCH_STARTS} watches`);
    const starts: [number[], number[]] = [[], []];
    for (let i = 0; i < CFG.pairs; i++) {
      starts[0].push(await watchStartMs(small, WATCH_STARTS));
      starts[1].push(await watchStartMs(large, WATCH_STARTS));
      progress(`    pair ${i + 1}: ${fmtMs(starts[0][i] ?? 0)} / ${fmtMs(starts[1][i] ?? 0)}`);
    }
    const ratios = starts[1].map((t, i) => t / (starts[0][i] as number));
    add({
      id: "S11",
      figure: `watch start from a revision (to headers), 1 at a time, ${sizes}`,
      subject: `${GROWTH_LARGE / 1000}k: p50 ${fmtList(starts[1], fmtMs)}`,
      baseline: `${GROWTH_SMALL / 1000}k: p50 ${fmtList(starts[0], fmtMs)}`,
      ratio: fmtRatio(ratios),
      target: "≤ 1.2",
      verdict: verdict(median(ratios) <= 1.2),
    });
    notes.push(
      `S11 over HTTPS: two gateways pinned to CPU 0 (one idle while the other runs), each with its own ` +
        `embedded store; the ratio is the large store's cost (1/rate, or latency) over the small one's, per ` +
        `pair. The in-process figures of bench:storage isolate the cache itself`,
    );
  } finally {
    for (const side of sides) {
      await side.gw.stop();
      children.delete(side.gw.child);
      await rm(side.gw.dataDir, { recursive: true, force: true });
    }
  }
}

/** One S11 row from throughput runs: cost growth = small rate / large rate, per pair. */
function growthRow(what: string, sizes: string, runs: [RunResult[], RunResult[]], target: number): void {
  const [small, large] = runs;
  checkRuns(`S11 ${what} (small)`, small);
  checkRuns(`S11 ${what} (large)`, large);
  const ratios = large.map((r, i) => (small[i] as RunResult).rate / r.rate);
  const cell = (rs: RunResult[]) =>
    `${fmtList(
      rs.map((r) => r.rate),
      fmtRate,
    )}; p50 ${fmtMs(median(rs.map((r) => r.p50)))}`;
  add({
    id: "S11",
    figure: `${what}, ${sizes}`,
    subject: `${sizes.split(" / ")[0]}: ${cell(large)}`,
    baseline: `${sizes.split(" / ")[1]}: ${cell(small)}`,
    ratio: fmtRatio(ratios),
    cpu: `${Math.round(median(large.map((r) => r.cpuPerReqUs)))} / ${fmtUs(median(small.map((r) => r.cpuPerReqUs)))}`,
    target: `≤ ${target}`,
    verdict: verdict(median(ratios) <= target),
  });
}

// ---- S15: S1 with audit --------------------------------------------------------------------------

/**
 * A second gateway like the first (same token, own embedded store, pinned to CPU 0) that audits
 * every request at Metadata to a file; S1's GET at 50 connections alternates between the two.
 */
async function benchAudit(env: Env, tmpRoot: string): Promise<void> {
  const auditLog = join(tmpRoot, "audit.log");
  const audited = await startBenchGateway([
    `--token-auth-file=${tokenDir ? join(tokenDir, "tokens.csv") : await benchTokenFile()}`,
    `--audit-policy-file=${resolve(HERE, "../../config/audit-policy.yaml")}`,
    `--audit-log-path=${auditLog}`,
  ]);
  children.add(audited.child);
  try {
    const pid = audited.child.pid as number;
    pin(pid, 0);
    progress(`S15: audited gateway pid ${pid} on port ${audited.port}, audit log ${auditLog}`);
    const name = "bench-get";
    const auditedEnv: Env = { ...env, gw: audited, gwPid: pid, api: new ApiClient(audited.kubeconfig) };
    for (const e of [env, auditedEnv]) await createObject(e, CM_PATH, configMapJson(NS, name, 0, "0"));
    const bytes = Buffer.byteLength(
      (await expectStatus(auditedEnv, "GET", `${CM_PATH}/${name}`, undefined, [200])).text,
    );
    const path = `${CM_PATH}/${name}`;
    progress(
      `S15: GET one ConfigMap (${fmtBytes(bytes)}), ${CONNS} conn, audited vs not, ${CFG.pairs} pairs of ${CFG.runS} s`,
    );
    const { subject, base } = await getPairs(
      { port: audited.port, pid, mode: "get", path },
      { port: env.gw.port, pid: env.gwPid, mode: "get", path },
      "audited",
      { connections: CONNS, pairs: CFG.pairs, runS: CFG.runS, warmS: CFG.warmS },
    );
    checkRuns("S15 GET (audited)", subject);
    checkRuns("S15 GET (not audited)", base);
    const lines = readFileSync(auditLog, "utf8").split("\n").length - 1;
    const served = subject.reduce((n, r) => n + r.ok, 0);
    const ratios = subject.map((g, i) => g.rate / (base[i] as RunResult).rate);
    add({
      id: "S15",
      figure: `GET ConfigMap (${fmtBytes(bytes)}), ${CONNS} conns, every request audited (Metadata, log file)`,
      subject: fmtList(
        subject.map((r) => r.rate),
        fmtRate,
      ),
      baseline: `S1 without audit ${fmtList(
        base.map((r) => r.rate),
        fmtRate,
      )}`,
      ratio: fmtRatio(ratios),
      cpu: cpuCell(subject, base),
      target: "≥ 0.85x",
      verdict: verdict(median(ratios) >= 0.85),
    });
    notes.push(
      `S15: ${lines} audit events written (${fmtBytes(statSync(auditLog).size)}) for about ${served} measured requests plus warm-ups`,
    );
  } finally {
    await audited.stop();
    children.delete(audited.child);
    await rm(audited.dataDir, { recursive: true, force: true });
  }
}

// ---- S12: GET and watch through the gateway to an extension API server ----------------------------

const EXT_GROUP = "bench.example.com";
const EXT_NS = "bench-ext";
const EXT_WIDGETS = `/apis/${EXT_GROUP}/v1/namespaces/${NS}/widgets`;
const EXT_WATCH_CONFIGS = [
  { watchers: 1, rate: 50 },
  { watchers: 100, rate: 10 },
] as const;

/** A Widget whose spec is the Pod-like JSON of `podIndex` (the size of S1's object). */
function widgetJson(name: string, podIndex: number): string {
  return JSON.stringify({
    apiVersion: `${EXT_GROUP}/v1`,
    kind: "Widget",
    metadata: { name, namespace: NS },
    spec: JSON.parse(podJson(podIndex)) as unknown,
  });
}

/**
 * A second gateway as the extension API server (pinned to CPU 0 beside the first): it trusts the
 * first one's front-proxy client certificate (requestheader authentication; the bench user is in
 * system:masters, so its RBAC needs no webhook), serves Widgets from a CRD of its own, and takes
 * the bench token for the direct runs. The first gateway routes the group there through an
 * APIService and an ExternalName Service for localhost.
 */
async function startExtension(env: Env): Promise<GatewayProcess> {
  // Its serving certificate from the first gateway's CA, which clients of either then trust.
  const dataDir = await mkdtemp(join(tmpdir(), "cg-bench-ext-"));
  await mkdir(join(dataDir, "pki"));
  for (const file of ["ca.crt", "ca.key"])
    await copyFile(join(env.gw.dataDir, "pki", file), join(dataDir, "pki", file));
  const ext = await startGateway(
    [
      `--token-auth-file=${tokenDir ? join(tokenDir, "tokens.csv") : await benchTokenFile()}`,
      `--tls-sans=ext.${EXT_NS}.svc`,
      `--requestheader-client-ca-file=${join(env.gw.dataDir, "pki", "front-proxy-ca.crt")}`,
      "--requestheader-allowed-names=front-proxy-client",
    ],
    { dataDir, port: await freePort() },
  );
  children.add(ext.child);
  try {
    await registerExtension(env, ext);
    return ext;
  } catch (err) {
    await ext.stop();
    children.delete(ext.child);
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** The extension's Widget, and the Service and APIService that route its group there. */
async function registerExtension(env: Env, ext: GatewayProcess): Promise<void> {
  pin(ext.child.pid as number, 0);
  const extApi = new ApiClient(ext.kubeconfig);
  try {
    await createServedCrd(extApi, {
      apiextensions: BENCH_NAMING.group("apiextensions"),
      group: EXT_GROUP,
      kind: "Widget",
      schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    });
    const made = await extApi.call("POST", EXT_WIDGETS, { raw: widgetJson("bench-get", 0) });
    if (made.status !== 201) throw new Error(`extension: POST widget: ${made.status} ${made.text}`);
  } finally {
    await extApi.close();
  }
  await expectStatus(
    env,
    "POST",
    "/api/v1/namespaces",
    JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: EXT_NS } }),
    [201, 409],
  );
  await expectStatus(
    env,
    "POST",
    `/api/v1/namespaces/${EXT_NS}/services`,
    JSON.stringify({ metadata: { name: "ext" }, spec: { type: "ExternalName", externalName: "localhost" } }),
    [201],
  );
  const caBundle = readFileSync(join(ext.dataDir, "pki", "ca.crt")).toString("base64");
  await expectStatus(
    env,
    "POST",
    `/apis/${BENCH_NAMING.group("apiregistration")}/v1/apiservices`,
    JSON.stringify({
      metadata: { name: `v1.${EXT_GROUP}` },
      spec: {
        group: EXT_GROUP,
        version: "v1",
        service: { namespace: EXT_NS, name: "ext", port: ext.port },
        caBundle,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      },
    }),
    [201],
  );
  const deadline = now() + 30_000;
  while ((await env.api.call("GET", `${EXT_WIDGETS}/bench-get`)).status !== 200) {
    if (now() > deadline) throw new Error(`${EXT_WIDGETS}/bench-get never answered through the gateway`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function benchAggregation(env: Env): Promise<void> {
  progress("S12: starting the extension API server (a second gateway, pinned to CPU 0)");
  const ext = await startExtension(env);
  const extPid = ext.child.pid as number;
  try {
    const path = `${EXT_WIDGETS}/bench-get`;
    const bytes = Buffer.byteLength((await env.api.call("GET", path)).text);
    const gwSpec = { port: env.gw.port, pid: env.gwPid, mode: "get", path } as const;
    const extSpec = { port: ext.port, pid: extPid, mode: "get", path } as const;
    // The bare proxy of http-baseline.ts (pinned to CPU 0 as well) runs the gateway's access stages
    // and sends the same GET to the same extension: the floor under the gateway's figure.
    const floorSpec = { port: env.base.port, pid: env.base.pid, mode: "get", path: `/proxy${path}` } as const;
    await env.base.setUpstream({
      origin: `https://127.0.0.1:${ext.port}`,
      caPem: readFileSync(join(ext.dataDir, "pki", "ca.crt"), "utf8"),
      serverName: `ext.${EXT_NS}.svc`,
    });
    // Both servers are new to this path (the extension was just started): one longer run through
    // the gateway first, so the rounds measure them settled rather than their first ~30 s, over
    // which the proxied rate was seen to climb by half.
    const primeS = QUICK ? 3 : 30;
    progress(`S12: priming the path, ${primeS} s through the gateway (not measured)`);
    await wrk({ ...gwSpec, connections: CONNS, seconds: primeS });
    for (const [connections, pairs, runS, warmS] of [
      [CONNS, CFG.pairs, CFG.runS, CFG.warmS],
      [1, CFG.pairs, CFG.minorRunS, CFG.minorWarmS],
    ] as const) {
      progress(`S12: GET one Widget (${fmtBytes(bytes)}), ${connections} conn, ${pairs} rounds of ${runS} s`);
      const withFloor = connections === CONNS;
      const specs = withFloor ? [extSpec, floorSpec, gwSpec] : [extSpec, gwSpec];
      const names = withFloor
        ? ["direct", "bare proxy", "through the gateway"]
        : ["direct", "through the gateway"];
      const rounds = await getRounds(specs, names, { connections, pairs, runS, warmS });
      const direct = rounds[0] ?? [];
      const proxied = rounds[specs.length - 1] ?? [];
      const floor = withFloor ? (rounds[1] ?? []) : [];
      checkRuns(`S12 GET ${connections} conn (through the gateway)`, proxied);
      checkRuns(`S12 GET ${connections} conn (direct)`, direct);
      if (withFloor) checkRuns(`S12 GET ${connections} conn (bare proxy)`, floor);
      const ratios = perRound(proxied, direct);
      const addedP50 = proxied.map((g, i) => g.p50 - (direct[i] as RunResult).p50);
      const addedP99 = proxied.map((g, i) => g.p99 - (direct[i] as RunResult).p99);
      const cell = (runs: RunResult[]) =>
        `${fmtList(
          runs.map((r) => r.rate),
          fmtRate,
        )}; p50 ${fmtMs(median(runs.map((r) => r.p50)))}, p99 ${fmtMs(median(runs.map((r) => r.p99)))}`;
      add({
        id: "S12",
        figure: `GET a Widget (${fmtBytes(bytes)}) through the gateway to the extension, ${connections} conn${connections > 1 ? "s" : ""}`,
        subject: cell(proxied),
        baseline: `straight to the extension ${cell(direct)}`,
        ratio: `${fmtRatio(ratios)}; p50 +${fmtList(addedP50, fmtMs)}`,
        cpu: cpuCell(proxied, direct),
        target: connections === CONNS ? "≥ 0.5x" : "≤ 0.5 ms added p50",
        verdict: connections === CONNS ? verdict(median(ratios) >= 0.5) : verdict(median(addedP50) <= 0.5),
      });
      if (withFloor) {
        add({
          id: "S12",
          figure: `floor: bare fastify behind the access stages, proxying the same GET with undici, ${connections} conns`,
          subject: cell(floor),
          baseline: "straight to the extension (same rounds)",
          ratio: fmtRatio(perRound(floor, direct)),
          cpu: cpuCell(floor, direct),
          target: "(reference: what the second hop costs)",
          verdict: "info",
        });
        addAgainstFloor(
          "S12",
          connections,
          { name: "through the gateway", runs: proxied },
          { name: "bare proxy", runs: floor },
        );
      }
      if (connections === 1)
        notes.push(
          `S12 GET: added p99 at 1 conn ${fmtList(addedP99, fmtMs)}; the p50 target is judged at 1 connection, ` +
            "where it is the proxy's own latency (at 50 connections p50 is queueing and follows the throughput ratio)",
        );
    }

    const ca = readFileSync(join(env.gw.dataDir, "pki", "ca.crt"), "utf8");
    const body = widgetJson("__NAME__", 1);
    for (const { watchers, rate } of EXT_WATCH_CONFIGS) {
      progress(
        `S12: watch ${watchers} x ${rate} ev/s through the gateway, ${CFG.pairs} pairs of ${CFG.runS} s`,
      );
      const direct: FanoutResult[] = [];
      const proxied: FanoutResult[] = [];
      for (let i = 0; i < CFG.pairs; i++) {
        for (const [port, pid, runs] of [
          [ext.port, extPid, direct],
          [env.gw.port, env.gwPid, proxied],
        ] as const) {
          // From the current revision: no initial events, so frame k answers write k.
          const listed = await env.api.call("GET", `${EXT_WIDGETS}?limit=1`);
          const rv = (listed.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
          runs.push(
            await fanoutRun(pid, {
              ca,
              token: BENCH_TOKEN,
              body,
              watchers,
              rate,
              warmupMs: CFG.warmS * 1000,
              durationMs: CFG.runS * 1000,
              port,
              writePort: ext.port,
              watchPath: `${EXT_WIDGETS}?watch=true&resourceVersion=${rv}`,
              writePath: EXT_WIDGETS,
              namePrefix: `x${++fanoutRound}-`,
            }),
          );
        }
        progress(
          `    pair ${i + 1}: p99 direct ${fmtMs(direct[i]?.p99 ?? Number.NaN)}, through the gateway ${fmtMs(proxied[i]?.p99 ?? Number.NaN)}`,
        );
      }
      const missing = [...direct, ...proxied].reduce((n, r) => n + (r.expected - r.deliveries), 0);
      const added = proxied.map((g, i) => g.p99 - (direct[i] as FanoutResult).p99);
      const lat = (runs: FanoutResult[]) =>
        `p50 ${fmtMs(median(runs.map((r) => r.p50)))}, p99 ${fmtList(
          runs.map((r) => r.p99),
          fmtMs,
        )}`;
      add({
        id: "S12",
        figure: `watch ${watchers} x ${rate} ev/s through the gateway: write sent -> frame received`,
        subject: lat(proxied),
        baseline: `the extension's own watch: ${lat(direct)}; ${missing} frames missing`,
        ratio: `p99 +${fmtList(added, fmtMs)}`,
        cpu: `gateway ${fmtUs(median(proxied.map((r) => r.cpuPerDeliveryUs)))} / extension ${fmtUs(median(direct.map((r) => r.cpuPerDeliveryUs)))} per delivery`,
        target: "≤ 2 ms added p99",
        verdict: verdict(median(added) <= 2 && missing === 0),
      });
    }
    notes.push(
      "S12: the extension is a second gateway (embedded store, durable) serving a CRD's Widgets, pinned to " +
        "CPU 0 with the first, so a proxied request costs both on the one core; wrk and the watch client " +
        "send the bench token to either. The CPU column is the gateway's per proxied request against the " +
        "extension's per direct one. Watch writes go straight to the extension in both runs; only the " +
        "watch stream differs",
    );
  } finally {
    await ext.stop();
    children.delete(ext.child);
    await rm(ext.dataDir, { recursive: true, force: true });
  }
}

// ---- main ---------------------------------------------------------------------------------------------

/** A gateway under test: with --cpu-prof, run under `node --cpu-prof` writing to that directory. */
async function startBenchGateway(args: string[]): Promise<GatewayProcess> {
  const savedNodeOptions = process.env.NODE_OPTIONS;
  if (CPU_PROF !== undefined)
    process.env.NODE_OPTIONS = `${savedNodeOptions ?? ""} --cpu-prof --cpu-prof-dir=${CPU_PROF}`.trim();
  try {
    return await startGateway(args);
  } finally {
    if (CPU_PROF !== undefined) {
      if (savedNodeOptions === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = savedNodeOptions;
    }
  }
}

async function main(): Promise<void> {
  const started = now();
  if (!haveCommand("wrk", ["--version"]))
    throw new Error("wrk not found (Debian: apt-get install wrk); this benchmark needs it");
  if (!haveCommand("taskset", ["-V"])) throw new Error("taskset not found (util-linux)");
  const load0 = loadavg()[0] as number;
  const tmpRoot = await mkdtemp(join(tmpdir(), "bench-http-"));
  let gw: GatewayProcess | undefined;
  let base: Baseline | undefined;
  try {
    // The orchestrator (mostly idle while wrk runs; the fdatasync loop of S3) stays off CPU 0.
    pin(process.pid, 1);
    gw = await startBenchGateway([`--token-auth-file=${await benchTokenFile()}`]);
    children.add(gw.child);
    pin(gw.child.pid as number, 0);
    progress(`gateway pid ${gw.child.pid} on port ${gw.port} (embedded, durable), pinned to CPU 0`);
    base = await startBaseline(join(gw.dataDir, "pki"), join(tokenDir as string, "tokens.csv"));
    progress(`baseline pid ${base.pid} on port ${base.port}, pinned to CPU 0; wrk pinned to CPU 1`);

    const template = configMapJson(NS, "__NAME__", 1, "__SEQ__");
    const bodyFile = join(tmpRoot, "configmap.json");
    const echoFile = join(tmpRoot, "echo.json");
    writeFileSync(bodyFile, template);
    writeFileSync(echoFile, template.replace("__NAME__", "c1m-12345").replace("__SEQ__", "12345"));
    const env: Env = {
      gw,
      gwPid: gw.child.pid as number,
      base,
      api: new ApiClient(gw.kubeconfig),
      bodyFile,
      echoFile,
      bodyBytes: Buffer.byteLength(template),
    };

    await section(["S1"], "S1 GET", () => benchGet(env));
    await section(["S2"], "S2 writes, 50 conns", () => benchWrites50(env));
    await section(["S2", "S3"], "S3 writes, 1 conn", () => benchWrites1(env, tmpRoot));
    await section(["S7"], "S7 LIST", () => benchList(env));
    await section(["S5"], "S5 watch fan-out", () => benchFanout(env));
    await section(["S9"], "S9 unpaged LIST", () => benchUnpagedList(env));
    await section(["S11"], "S11 growth 1k to 100k", () => benchGrowth(env));
    await section(["S12"], "S12 aggregation", () => benchAggregation(env));
    await section(["S15"], "S15 audit", () => benchAudit(env, tmpRoot));

    if (setupTimeouts > 0)
      notes.push(
        `set-up: ${setupTimeouts} creates (not measured; 50 in flight) failed with 504 "the cache of ` +
          `/core/namespaces/ did not reach revision N in time" after ~3 s and were retried`,
      );
    const others = otherOnCpu0.filter(Number.isFinite);
    if (others.length > 0)
      notes.push(
        `CPU 0 (the servers' CPU) was busy with other processes and kernel work (loopback softirq included) ` +
          `for a median ${(median(others) * 100).toFixed(0)}% (max ${(Math.max(...others) * 100).toFixed(0)}%) of its ` +
          `busy time during the runs; the CPU-per-request column does not depend on that share`,
      );
    notes.push(
      `objects: ConfigMaps with one data value, a Pod-like JSON string (fixtures.ts); request body ` +
        `${fmtBytes(env.bodyBytes)}, the same bytes for the echo baseline`,
    );
  } finally {
    if (base !== undefined) await base.stop();
    if (gw !== undefined) {
      const code = await gw.stop();
      children.delete(gw.child);
      if (code !== 0) notes.push(`gateway exited with ${code}`);
      await rm(gw.dataDir, { recursive: true, force: true });
      if (tokenDir) await rm(tokenDir, { recursive: true, force: true });
    }
    await rm(tmpRoot, { recursive: true, force: true });
  }

  console.log("");
  console.log(
    `HTTP benchmarks (${QUICK ? "quick" : "full"} run), ${new Date().toISOString()}; node ${process.version}, ` +
      `load average ${load0.toFixed(2)} at start, ${(loadavg()[0] as number).toFixed(2)} at end.`,
  );
  console.log(
    "Gateway (node gateway/main.ts, embedded store, durable) and a bare fastify 5 HTTPS server with the same " +
      "TLS settings and certificate, each pinned to CPU 0; wrk 4.1 (1 thread, test/bench/http-wrk.lua) pinned " +
      "to CPU 1; anonymous requests, keep-alive, JSON.",
  );
  console.log(
    `Targets: ${CFG.pairs} interleaved pairs of ${CFG.runS} s, each after a ${CFG.warmS} s warm-up run; ` +
      `reference figures: ${CFG.minorPairs} pairs of ${CFG.minorRunS} s after ${CFG.minorWarmS} s. ` +
      `Rates count 2xx responses only. ${wrkRuns} wrk runs.`,
  );
  console.log("");
  printTable({ cpuHeader: "server CPU/request: subject / baseline = ratio" });
  console.log("");
  printSummary(started, { skipped: false });
}

runMain(main);
