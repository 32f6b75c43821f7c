// S13 (BENCHMARKS.md): background deletion of an owner with 10,000 dependents until the garbage
// collector has deleted them all, against direct DELETEs of 10,000 objects at 50 connections,
// interleaved in the same run (direct, collector, direct, ...); the median ratio of the rates and
// its range. Then the collector's memory per tracked object at 100k objects: a collector run in
// this process (`--expose-gc`) against the same gateway, heap after its monitors have listed
// everything minus heap before, over the objects it tracks.
// Run: node --expose-gc test/bench/gc.ts [--quick] [--memory-objects=N]
import { spawnSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { ControllerClient, GarbageCollector } from "../../plugins/controllers/index.ts";
import { ApiClient } from "../support/api-client.ts";
import { type GatewayProcess, startGateway } from "../support/gateway-process.ts";
import { median } from "./fixtures.ts";
import { fmtList, fmtRate, fmtRatio, now, progress } from "./report.ts";

const quick = process.argv.includes("--quick");
const memoryArg = process.argv.find((a) => a.startsWith("--memory-objects="));
const DEPENDENTS = quick ? 2_000 : 10_000;
const PAIRS = quick ? 2 : 5;
const CONNECTIONS = 50;
const MEMORY_OBJECTS = memoryArg ? Number(memoryArg.split("=")[1]) : quick ? 10_000 : 100_000;
const NS = "bench-gc";
const CM = `/api/v1/namespaces/${NS}/configmaps`;

function pin(pid: number, cpu: number): boolean {
  return spawnSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" }).status === 0;
}

async function parallel(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let i = next++; i < count; i = next++) await work(i);
    }),
  );
}

async function createMany(api: ApiClient, prefix: string, count: number, owner?: Record<string, unknown>) {
  await parallel(count, async (i) => {
    const r = await api.call("POST", CM, {
      body: {
        metadata: {
          name: `${prefix}-${i}`,
          labels: { round: prefix },
          ...(owner ? { ownerReferences: [owner] } : {}),
        },
        data: { k: "v" },
      },
    });
    if (r.status !== 201) throw new Error(`create ${prefix}-${i}: ${r.status} ${r.text}`);
  });
}

async function remaining(api: ApiClient, prefix: string): Promise<boolean> {
  const r = await api.call("GET", `${CM}?labelSelector=round%3D${prefix}&limit=1`);
  if (r.status !== 200) throw new Error(`list: ${r.status}`);
  return (r.body.items as unknown[]).length > 0;
}

/** Direct DELETE of `count` objects at 50 connections: seconds. */
async function direct(api: ApiClient, round: number): Promise<number> {
  const prefix = `direct-${round}`;
  await createMany(api, prefix, DEPENDENTS);
  const start = now();
  await parallel(DEPENDENTS, async (i) => {
    const r = await api.call("DELETE", `${CM}/${prefix}-${i}`);
    if (r.status !== 200) throw new Error(`delete: ${r.status} ${r.text}`);
  });
  return (now() - start) / 1000;
}

/** Background deletion of an owner of `count` dependents until none is left: seconds. */
async function collected(api: ApiClient, round: number): Promise<number> {
  const prefix = `gc-${round}`;
  const owner = await api.call("POST", CM, { body: { metadata: { name: `${prefix}-owner` } } });
  if (owner.status !== 201) throw new Error(`owner: ${owner.status}`);
  const ref = { apiVersion: "v1", kind: "ConfigMap", name: `${prefix}-owner`, uid: owner.body.metadata.uid };
  await createMany(api, prefix, DEPENDENTS, ref);
  const start = now();
  const del = await api.call("DELETE", `${CM}/${prefix}-owner?propagationPolicy=Background`);
  if (del.status !== 200) throw new Error(`delete owner: ${del.status}`);
  while (await remaining(api, prefix)) await new Promise((r) => setTimeout(r, 25));
  return (now() - start) / 1000;
}

async function memoryPerObject(
  gw: GatewayProcess,
  api: ApiClient,
): Promise<{ perObject: number; tracked: number }> {
  const gc = globalThis.gc;
  if (!gc) throw new Error("run with node --expose-gc");
  const owner = await api.call("POST", CM, { body: { metadata: { name: "mem-owner" } } });
  const ref = { apiVersion: "v1", kind: "ConfigMap", name: "mem-owner", uid: owner.body.metadata.uid };
  progress(`creating ${MEMORY_OBJECTS} objects, each with an owner reference`);
  await createMany(api, "mem", MEMORY_OBJECTS, ref);
  const client = ControllerClient.fromKubeconfig(gw.kubeconfig);
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const collector = new GarbageCollector(client, {
    ignored: (group, resource) => resource === "events" && group === "",
    onError: () => {},
  });
  const stop = new AbortController();
  const running = collector.run(stop.signal);
  while (!collector.synced) await new Promise((r) => setTimeout(r, 100));
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  const tracked = collector.trackedObjects;
  stop.abort();
  await running;
  await client.close();
  return { perObject: (after - before) / tracked, tracked };
}

async function main(): Promise<void> {
  const gw = await startGateway(["--storage-backend=memory"]);
  const pinned = gw.child.pid !== undefined && pin(gw.child.pid, 0) && pin(process.pid, 1);
  const api = new ApiClient(gw.kubeconfig);
  try {
    const made = await api.call("POST", "/api/v1/namespaces", { body: { metadata: { name: NS } } });
    if (made.status !== 201) throw new Error(`namespace: ${made.status}`);
    // Warm-up: one small round of each.
    progress("warm-up");
    await createMany(api, "warm", 500);
    await parallel(500, async (i) => {
      await api.call("DELETE", `${CM}/warm-${i}`);
    });
    const directTimes: number[] = [];
    const gcTimes: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < PAIRS; round++) {
      const d = await direct(api, round);
      const g = await collected(api, round);
      directTimes.push(d);
      gcTimes.push(g);
      ratios.push(d / g);
      progress(
        `round ${round}: direct ${d.toFixed(2)} s, collector ${g.toFixed(2)} s, ratio ${(d / g).toFixed(2)}`,
      );
    }
    const rates = (times: number[]) => times.map((t) => DEPENDENTS / t);
    console.log(
      `S13: ${DEPENDENTS} dependents, ${PAIRS} interleaved pairs${pinned ? ", gateway on CPU 0, client on CPU 1" : " (not pinned)"}`,
    );
    console.log(
      `  collector (owner deleted in the background, until all gone): ${fmtList(rates(gcTimes), fmtRate)}`,
    );
    console.log(`  direct DELETE at ${CONNECTIONS} connections: ${fmtList(rates(directTimes), fmtRate)}`);
    console.log(
      `  ratio (collector rate / direct rate): ${fmtRatio(ratios)}; target >= 0.5x: ${median(ratios) >= 0.5 ? "ok" : "MISS"}`,
    );
    const { perObject, tracked } = await memoryPerObject(gw, api);
    console.log(
      `  collector memory: ${Math.round(perObject)} bytes per tracked object (heap, ${tracked} objects tracked)`,
    );
  } finally {
    await api.close();
    await gw.stop();
    await rm(gw.dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
