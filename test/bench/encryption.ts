// S16: create and GET of 1 KB Secrets through the gateway over HTTPS with Secrets encrypted by
// aesgcm, against the same with the identity provider, in one run. Two gateways (memory store,
// so the store's own cost does not hide the transformation's) take turns, round by round, in
// alternating order; each figure is the median of the rounds.
// Run: node test/bench/encryption.ts [--quick]
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "js-yaml";
import { Agent, request } from "undici";
import { type GatewayProcess, startGateway } from "../support/gateway-process.ts";
import { median } from "./fixtures.ts";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 3 : 7;
const PER_ROUND = quick ? 400 : 2_000;
const CONNECTIONS = 16;

interface Target {
  readonly name: string;
  readonly gw: GatewayProcess;
  readonly agent: Agent;
  readonly server: string;
}

function client(gw: GatewayProcess): { agent: Agent; server: string } {
  type Kubeconfig = {
    clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
    users: { user: { "client-certificate-data": string; "client-key-data": string } }[];
  };
  const config = load(readFileSync(gw.kubeconfig, "utf8")) as Kubeconfig;
  const c = config.clusters[0]?.cluster;
  const u = config.users[0]?.user;
  if (!c || !u) throw new Error("no cluster or user in the kubeconfig");
  const b64 = (s: string) => Buffer.from(s, "base64").toString("utf8");
  const agent = new Agent({
    connections: CONNECTIONS,
    connect: {
      ca: b64(c["certificate-authority-data"]),
      cert: b64(u["client-certificate-data"]),
      key: b64(u["client-key-data"]),
    },
  });
  return { agent, server: c.server };
}

/** 1 KB of Secret data (base64 of 768 random bytes). */
const secret = (name: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: "default" },
    data: { payload: randomBytes(768).toString("base64") },
  });

async function run(count: number, op: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let i = next++; i < count; i = next++) await op(i);
    }),
  );
  return count / ((performance.now() - start) / 1000);
}

async function creates(t: Target, round: number): Promise<number> {
  return run(PER_ROUND, async (i) => {
    const res = await request(`${t.server}/api/v1/namespaces/default/secrets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: secret(`r${round}-${i}`),
      dispatcher: t.agent,
    });
    await res.body.text();
    if (res.statusCode !== 201) throw new Error(`${t.name} create: ${res.statusCode}`);
  });
}

async function gets(t: Target, round: number): Promise<number> {
  return run(PER_ROUND, async (i) => {
    const res = await request(`${t.server}/api/v1/namespaces/default/secrets/r${round}-${i}`, {
      dispatcher: t.agent,
    });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${t.name} get: ${res.statusCode}`);
  });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "bench-s16-"));
  const config = async (name: string, provider: unknown) => {
    const path = join(dir, name);
    await writeFile(
      path,
      JSON.stringify({
        kind: "EncryptionConfiguration",
        apiVersion: "apiserver.config.cluster.io/v1",
        resources: [{ resources: ["secrets"], providers: [provider] }],
      }),
    );
    return path;
  };
  const aes = await config("aesgcm.yaml", {
    aesgcm: { keys: [{ name: "k1", secret: randomBytes(32).toString("base64") }] },
  });
  const identity = await config("identity.yaml", { identity: {} });
  const targets: Target[] = [];
  try {
    for (const [name, path] of [
      ["identity", identity],
      ["aesgcm", aes],
    ] as const) {
      const gw = await startGateway(["--storage-backend=memory", `--encryption-provider-config=${path}`]);
      targets.push({ name, gw, ...client(gw) });
    }
    const rates = new Map<string, { create: number[]; get: number[] }>();
    for (const t of targets) rates.set(t.name, { create: [], get: [] });
    for (let round = 0; round < ROUNDS + 1; round++) {
      // Alternate who goes first; round 0 warms both up and is not counted.
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) {
        const c = await creates(t, round);
        const g = await gets(t, round);
        if (round > 0) {
          rates.get(t.name)?.create.push(c);
          rates.get(t.name)?.get.push(g);
        }
      }
      process.stderr.write(`round ${round} done\n`);
    }
    const id = rates.get("identity");
    const enc = rates.get("aesgcm");
    if (!id || !enc) throw new Error("missing figures");
    const fmt = (n: number) => `${(n / 1000).toFixed(2)}k/s`;
    const line = (what: string, a: number[], b: number[]) =>
      `| S16 | ${what}, 1 KB Secrets, ${CONNECTIONS} connections | aesgcm ${fmt(median(b))} | identity ${fmt(median(a))} | ${(median(b) / median(a)).toFixed(2)}x | ≥ 0.8x |`;
    console.log("| # | figure | gateway | baseline | ratio | target |");
    console.log("|---|---|---|---|---|---|");
    console.log(line("create", id.create, enc.create));
    console.log(line("GET", id.get, enc.get));
  } finally {
    for (const t of targets) {
      await t.agent.close();
      await t.gw.stop();
    }
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
