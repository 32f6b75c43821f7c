// Protobuf on the read path: `npm run bench:protobuf [-- --quick] [-- --only=S1,S14]`.
//
//   S14 full paged walk (limit=500) of 10k Pods (2k with --quick),   vs a raw encode of the same pages,
//       JSON and Protobuf, from the watch cache                        in the same format, in this
//                                                                      process (JSON.stringify of the
//                                                                      parsed page; the gateway's
//                                                                      Protobuf encoder on it)
//   S1  GET one ConfigMap, 50 connections, Accept Protobuf            vs the same GET with Accept JSON
//       (client-go's header)
//
// The gateway (node gateway/main.ts, embedded store) runs pinned to CPU 0; this process and wrk
// (test/bench/accept-wrk.lua, one thread) to CPU 1. JSON and Protobuf runs alternate; figures are
// medians of the pairs, ratios taken within the same run. The first walk of each format is reported
// apart: it is the one that encodes every item's Protobuf message (later walks reuse them).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { Pool } from "undici";
import { naming } from "../../backends/naming/index.ts";
import { encodeProtobufObject } from "../../gateway/protobuf/codec.ts";
import { type GatewayProcess, startGateway } from "../support/gateway-process.ts";
import { median, pod } from "./fixtures.ts";
import {
  add,
  childResult,
  children,
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
  section as runSection,
  selector,
  verdict,
} from "./report.ts";

const SCENARIOS = ["S1", "S14"] as const;
type ScenarioId = (typeof SCENARIOS)[number];
const OPTIONS = readOptions(
  SCENARIOS,
  `usage: node test/bench/protobuf.ts [--quick] [--only=${SCENARIOS.join(",")}]`,
);
const QUICK = OPTIONS.quick;
const selected = selector(OPTIONS);
const section = (ids: ScenarioId[], what: string, fn: () => Promise<void>) =>
  runSection(selected, ids, what, fn);

const PB = naming("kubernetes").protobufMediaType;
const JSON_TYPE = "application/json";
const CLIENT_GO_ACCEPT = `${PB}, application/json`;
const PODS = "/api/v1/namespaces/default/pods";
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const TOKEN = "bench-token-0123456789abcdef";
const LUA = fileURLToPath(new URL("./accept-wrk.lua", import.meta.url));
const CFG = QUICK
  ? { pods: 2_000, walkPairs: 3, pairs: 3, runS: 3, warmS: 1 }
  : { pods: 10_000, walkPairs: 5, pairs: 5, runS: 10, warmS: 2 };

/** Clock ticks per second of /proc (USER_HZ). */
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/**
 * The gateway's CPU time so far (utime + stime, /proc/<pid>/stat) in ms: on a shared machine
 * steadier than wall time, which other processes on its CPU stretch.
 */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

function pin(pid: number, cpu: number): void {
  const r = spawnSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`taskset -p -c ${cpu} ${pid}: ${r.stderr || r.error?.message}`);
}

interface Env {
  readonly gw: GatewayProcess;
  readonly pool: Pool;
}

async function call(env: Env, method: string, path: string, accept: string, body?: string): Promise<Buffer> {
  const r = await env.pool.request({
    method: method as "GET",
    path,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      accept,
      ...(body ? { "content-type": JSON_TYPE } : {}),
    },
    ...(body ? { body } : {}),
  });
  const bytes = Buffer.from(await r.body.arrayBuffer());
  if (r.statusCode >= 300)
    throw new Error(`${method} ${path}: ${r.statusCode} ${bytes.toString().slice(0, 300)}`);
  return bytes;
}

/** A Protobuf list's continue token: Unknown.raw (2) -> ListMeta (1) -> continue (3). */
function protobufContinue(body: Buffer): string {
  const field = (bytes: Uint8Array, number: number): Uint8Array | undefined => {
    const reader = protobuf.Reader.create(bytes);
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag >>> 3 === number && (tag & 7) === 2) return reader.bytes();
      reader.skipType(tag & 7);
    }
    return undefined;
  };
  const raw = field(body.subarray(4), 2);
  const meta = raw && field(raw, 1);
  const token = meta && field(meta, 3);
  return token ? Buffer.from(token).toString("utf8") : "";
}

function jsonContinue(body: Buffer): string {
  const m = /"continue":"([^"]*)"/.exec(body.subarray(0, 400).toString("utf8"));
  return m?.[1] ?? "";
}

/** One full walk: pages of 500 until the continue token is empty. */
async function walk(
  env: Env,
  accept: string,
): Promise<{ ms: number; cpu: number; bytes: number; pages: Buffer[] }> {
  const pages: Buffer[] = [];
  const pid = env.gw.child.pid as number;
  const cpu0 = cpuMs(pid);
  const t0 = now();
  let token = "";
  do {
    const q = token ? `&continue=${encodeURIComponent(token)}` : "";
    const body = await call(env, "GET", `${PODS}?limit=500${q}`, accept);
    pages.push(body);
    token = accept === JSON_TYPE ? jsonContinue(body) : protobufContinue(body);
  } while (token);
  const ms = now() - t0;
  return { ms, cpu: cpuMs(pid) - cpu0, bytes: pages.reduce((s, p) => s + p.length, 0), pages };
}

async function benchWalk(env: Env): Promise<void> {
  progress(`S14: creating ${CFG.pods} Pods (50 in flight)`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < CFG.pods) {
        const i = next++;
        await call(env, "POST", PODS, JSON_TYPE, JSON.stringify(pod(i, { namespace: "default" })));
      }
    }),
  );
  // The first walk of each format: Protobuf's encodes every item's message once.
  const coldJson = await walk(env, JSON_TYPE);
  const coldPb = await walk(env, CLIENT_GO_ACCEPT);
  const json: number[] = [];
  const pb: number[] = [];
  const jsonCpu: number[] = [];
  const pbCpu: number[] = [];
  let jsonBytes = 0;
  let pbBytes = 0;
  let jsonPages: Buffer[] = [];
  for (let i = 0; i < CFG.walkPairs; i++) {
    const j = await walk(env, JSON_TYPE);
    const p = await walk(env, CLIENT_GO_ACCEPT);
    json.push(j.ms);
    pb.push(p.ms);
    jsonCpu.push(j.cpu);
    pbCpu.push(p.cpu);
    jsonBytes = j.bytes;
    pbBytes = p.bytes;
    jsonPages = j.pages;
  }
  // The raw encode of the same pages in this process, each format from the parsed page.
  const parsed = jsonPages.map((p) => JSON.parse(p.toString("utf8")) as Record<string, unknown>);
  const rawJson: number[] = [];
  const rawPb: number[] = [];
  for (let i = 0; i < CFG.walkPairs; i++) {
    let t0 = now();
    for (const page of parsed) JSON.stringify(page);
    rawJson.push(now() - t0);
    t0 = now();
    for (const page of parsed) encodeProtobufObject(page);
    rawPb.push(now() - t0);
  }
  const pages = jsonPages.length;
  const what = `walk of ${CFG.pods} Pods, ${pages} pages of 500`;
  add({
    id: "S14",
    figure: `${what}, JSON (${(jsonBytes / 1e6).toFixed(1)} MB)`,
    subject: `${fmtMs(median(json))}, gateway CPU ${fmtMs(median(jsonCpu))} (first walk ${fmtMs(coldJson.ms)})`,
    baseline: `raw JSON.stringify ${fmtMs(median(rawJson))}`,
    ratio: fmtRatio(json.map((ms, i) => (rawJson[i] as number) / ms)),
    target: "report",
    verdict: "info",
  });
  add({
    id: "S14",
    figure: `${what}, Protobuf (${(pbBytes / 1e6).toFixed(1)} MB)`,
    subject: `${fmtMs(median(pb))}, gateway CPU ${fmtMs(median(pbCpu))} (first walk ${fmtMs(coldPb.ms)})`,
    baseline: `raw encode ${fmtMs(median(rawPb))}`,
    ratio: fmtRatio(pb.map((ms, i) => (rawPb[i] as number) / ms)),
    target: "report",
    verdict: "info",
  });
  add({
    id: "S14",
    figure: "Protobuf walk / JSON walk (gateway CPU)",
    subject: fmtMs(median(pbCpu)),
    baseline: fmtMs(median(jsonCpu)),
    ratio: fmtRatio(pbCpu.map((ms, i) => ms / (jsonCpu[i] as number))),
    target: "report",
    verdict: "info",
  });
  add({
    id: "S14",
    figure: "Protobuf walk / JSON walk (time)",
    subject: fmtMs(median(pb)),
    baseline: fmtMs(median(json)),
    ratio: fmtRatio(pb.map((ms, i) => ms / (json[i] as number))),
    target: "< 1 (Protobuf faster)",
    verdict: verdict(median(pb.map((ms, i) => ms / (json[i] as number))) < 1),
  });
}

interface WrkResult {
  /** The gateway's CPU time per request, µs. */
  cpuUs: number;
  rate: number;
  p50: number;
  p99: number;
  bytesPerResponse: number;
}

async function wrk(gw: GatewayProcess, path: string, accept: string, seconds: number): Promise<WrkResult> {
  const port = gw.port;
  const cpu0 = cpuMs(gw.child.pid as number);
  const args = ["-c", "1", "wrk", "-t1", "-c50", `-d${seconds}s`, "-s", LUA, `https://127.0.0.1:${port}/`];
  const child: ChildProcess = spawn("taskset", args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, BENCH_PATH: path, BENCH_ACCEPT: accept, BENCH_TOKEN: TOKEN },
  });
  const result = await childResult(child, "wrk", (seconds + 30) * 1000);
  const [requests, durationUs, statusErrors, p50, p99, bytes] = result.split(" ").map(Number) as number[];
  if ((statusErrors as number) > 0) notes.push(`S1 ${accept}: ${statusErrors} non-2xx responses`);
  return {
    cpuUs: ((cpuMs(gw.child.pid as number) - cpu0) * 1000) / (requests as number),
    rate: ((requests as number) - (statusErrors as number)) / ((durationUs as number) / 1e6),
    p50: (p50 as number) / 1000,
    p99: (p99 as number) / 1000,
    bytesPerResponse: (bytes as number) / (requests as number),
  };
}

async function benchGet(env: Env): Promise<void> {
  const body = JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "s1", namespace: "default", labels: { app: "bench" } },
    data: { "pod.json": JSON.stringify(pod(1)), seq: "1" },
  });
  await call(env, "POST", CONFIGMAPS, JSON_TYPE, body);
  const path = `${CONFIGMAPS}/s1`;
  const json: WrkResult[] = [];
  const pb: WrkResult[] = [];
  for (let i = 0; i < CFG.pairs; i++) {
    progress(`S1: pair ${i + 1} of ${CFG.pairs}`);
    await wrk(env.gw, path, JSON_TYPE, CFG.warmS);
    json.push(await wrk(env.gw, path, JSON_TYPE, CFG.runS));
    await wrk(env.gw, path, CLIENT_GO_ACCEPT, CFG.warmS);
    pb.push(await wrk(env.gw, path, CLIENT_GO_ACCEPT, CFG.runS));
  }
  const size = (r: WrkResult[]) => `${Math.round(median(r.map((x) => x.bytesPerResponse)))} B/response`;
  add({
    id: "S1",
    figure: `GET one ConfigMap, 50 conns, Protobuf (${size(pb)}) vs JSON (${size(json)})`,
    subject: `${fmtRate(median(pb.map((r) => r.rate)))}, p99 ${fmtMs(median(pb.map((r) => r.p99)))}, CPU ${median(pb.map((r) => r.cpuUs)).toFixed(0)} µs/request`,
    baseline: `${fmtRate(median(json.map((r) => r.rate)))}, p99 ${fmtMs(median(json.map((r) => r.p99)))}, CPU ${median(json.map((r) => r.cpuUs)).toFixed(0)} µs/request`,
    ratio: `${fmtRatio(pb.map((r, i) => r.rate / (json[i] as WrkResult).rate))}; by CPU per request ${fmtRatio(pb.map((r, i) => (json[i] as WrkResult).cpuUs / r.cpuUs))}`,
    target: "report",
    verdict: "info",
  });
}

async function main(): Promise<void> {
  const started = now();
  const load0 = loadavg()[0] as number;
  const dir = await mkdtemp(join(tmpdir(), "bench-protobuf-"));
  const tokens = join(dir, "tokens.csv");
  writeFileSync(tokens, `${TOKEN},bench,bench-uid,"system:masters"\n`);
  let gw: GatewayProcess | undefined;
  let pool: Pool | undefined;
  try {
    pin(process.pid, 1);
    gw = await startGateway([`--token-auth-file=${tokens}`, "--api-naming=kubernetes"]);
    children.add(gw.child);
    pin(gw.child.pid as number, 0);
    progress(
      `gateway pid ${gw.child.pid} on port ${gw.port}, pinned to CPU 0; this process and wrk on CPU 1`,
    );
    pool = new Pool(`https://127.0.0.1:${gw.port}`, {
      connections: 1,
      connect: { ca: readFileSync(join(gw.dataDir, "pki", "ca.crt")) },
    });
    const env: Env = { gw, pool };
    await section(["S14"], "S14 paged walk", () => benchWalk(env));
    await section(["S1"], "S1 GET in Protobuf", () => benchGet(env));
  } finally {
    await pool?.close();
    if (gw) {
      await gw.stop();
      children.delete(gw.child);
      await rm(gw.dataDir, { recursive: true, force: true });
    }
    await rm(dir, { recursive: true, force: true });
  }
  console.log("");
  console.log(
    `Protobuf benchmarks (${QUICK ? "quick" : "full"} run), ${new Date().toISOString()}; node ${process.version}, ` +
      `load average ${load0.toFixed(2)} at start, ${(loadavg()[0] as number).toFixed(2)} at end. ` +
      "Gateway pinned to CPU 0 (kubernetes naming, embedded store); walks over one keep-alive HTTPS " +
      "connection with a static token; wrk 4.1 pinned to CPU 1.",
  );
  console.log("");
  printTable();
  console.log("");
  printSummary(started, { skipped: false });
}

runMain(main);
