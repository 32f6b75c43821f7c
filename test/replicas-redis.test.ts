// EventRateLimit across two replicas over one etcd, sharing token buckets through --redis-url; then
// Redis is SIGKILLed mid-run: the API keeps answering and each replica limits with its own buckets,
// as README says.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { naming } from "../backends/naming/index.ts";
import type { ApiClient } from "./support/api-client.ts";
import { type EtcdServer, etcdSkipReason, startEtcd } from "./support/etcd.ts";
import type { GatewayProcess } from "./support/gateway-process.ts";
import { type RedisServer, redisSkipReason, startRedis } from "./support/redis.ts";
import { type Replicas, startReplicas } from "./support/replica-gateways.ts";

const n = naming("cluster");
const QPS = 1;
const BURST = 40;

const skip = redisSkipReason() || etcdSkipReason();

function event(ns: string, name: string) {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: ns },
    involvedObject: { kind: "ConfigMap", name: "x", namespace: ns },
    reason: "Test",
    message: "rate limited across replicas",
  };
}

/**
 * Sends `count` Events in `ns` through `clients` in turn; counts what was accepted and what was
 * refused with 429, and fails on any other answer. `during(i)` runs before the i-th one.
 */
async function burst(
  clients: ApiClient[],
  ns: string,
  count: number,
  during?: (i: number) => Promise<void>,
): Promise<{ accepted: number; refused: number; seconds: number; other: string[] }> {
  let accepted = 0;
  let refused = 0;
  const other: string[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    await during?.(i);
    const client = clients[i % clients.length] as ApiClient;
    const res = await client.call("POST", `/api/v1/namespaces/${ns}/events`, {
      body: event(ns, `e-${i}-${Math.random().toString(36).slice(2, 8)}`),
    });
    if (res.status === 201) accepted++;
    else if (
      res.status === 429 &&
      /Too many requests: limit reached on type Namespace/.test(res.body?.message)
    )
      refused++;
    else other.push(`${res.status} ${res.text.slice(0, 200)}`);
  }
  return { accepted, refused, seconds: (performance.now() - start) / 1000, other };
}

/** The most a token bucket of BURST refilled at QPS can give in `seconds`. */
const bucketMost = (seconds: number) => BURST + Math.ceil(seconds * QPS) + 1;

describe("EventRateLimit over --redis-url with two replicas, Redis killed mid-run", { skip }, () => {
  let etcd: EtcdServer;
  let redis: RedisServer;
  let dir: string;
  let replicas: Replicas | undefined;
  let gateways: GatewayProcess[] = [];
  let clients: ApiClient[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "replicas-redis-"));
    etcd = await startEtcd();
    redis = await startRedis();
    const config = join(dir, "admission.yaml");
    await writeFile(
      config,
      [
        `apiVersion: ${n.group("apiserver.config")}/v1`,
        "kind: AdmissionConfiguration",
        "plugins:",
        "- name: EventRateLimit",
        "  configuration:",
        `    apiVersion: ${n.group("eventratelimit.admission")}/v1alpha1`,
        "    kind: Configuration",
        "    limits:",
        "    - type: Namespace",
        `      qps: ${QPS}`,
        `      burst: ${BURST}`,
      ].join("\n"),
    );
    const args = [
      "--storage-backend=etcd",
      `--etcd-servers=${etcd.endpoint}`,
      "--enable-admission-plugins=EventRateLimit",
      `--admission-control-config-file=${config}`,
      `--redis-url=${redis.url}`,
    ];
    // The second replica gets a copy of the first one's credentials, as another host would.
    replicas = await startReplicas(2, args);
    ({ gateways, clients } = replicas);
  });
  after(async () => {
    await replicas?.stop();
    await redis?.stop();
    await etcd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function namespace(name: string): Promise<void> {
    const res = await (clients[0] as ApiClient).call("POST", "/api/v1/namespaces", {
      body: { metadata: { name } },
    });
    assert.equal(res.status, 201, res.text);
  }

  async function fallbacks(client: ApiClient): Promise<number> {
    const res = await client.call("GET", "/metrics");
    assert.equal(res.status, 200);
    const line = res.text.split("\n").find((l) => l.startsWith("eventratelimit_redis_fallback_total"));
    return Number(line?.split(" ")[1] ?? 0);
  }

  it("the replicas draw from one bucket in Redis", async () => {
    await namespace("shared");
    const r = await burst(clients, "shared", 2 * BURST + 20);
    assert.deepEqual(r.other, []);
    assert.ok(r.accepted >= BURST, `the burst is honoured: ${JSON.stringify(r)}`);
    // Each replica with its own bucket would have let 2 x BURST through.
    assert.ok(
      bucketMost(r.seconds) < 2 * BURST,
      `ran too slowly to tell shared buckets apart: ${r.seconds}s`,
    );
    assert.ok(r.accepted <= bucketMost(r.seconds), `one shared budget: ${JSON.stringify(r)}`);
    for (const c of clients) assert.equal(await fallbacks(c), 0, "no decision without Redis");
  });

  it("Redis SIGKILLed mid-run: every request is still answered, and each replica limits with its own buckets", async () => {
    await namespace("outage");
    const killed = await burst(clients, "outage", 30, async (i) => {
      if (i === 10) process.kill(redis.pid, "SIGKILL");
    });
    assert.deepEqual(killed.other, [], "only 201 or 429 while Redis dies");
    // Other requests are untouched.
    for (const c of clients) {
      const res = await c.call("POST", "/api/v1/namespaces/outage/configmaps", {
        body: { metadata: { generateName: "still-" } },
      });
      assert.equal(res.status, 201, res.text);
    }

    // A fresh namespace: replica 1 alone gets its own burst and no more (neither failing open nor
    // closed), and replica 2 then gets a whole burst of its own: the buckets are no longer shared.
    await namespace("alone");
    const one = await burst([clients[0] as ApiClient], "alone", BURST + 10);
    assert.deepEqual(one.other, []);
    assert.ok(one.accepted >= BURST && one.accepted <= bucketMost(one.seconds), JSON.stringify(one));
    assert.ok(one.refused > 0, "still limited without Redis");
    const two = await burst([clients[1] as ApiClient], "alone", BURST + 10);
    assert.deepEqual(two.other, []);
    assert.ok(two.accepted >= BURST && two.accepted <= bucketMost(two.seconds), JSON.stringify(two));

    for (const c of clients) assert.ok((await fallbacks(c)) > 0, "fallback decisions are counted");
    for (const g of gateways)
      assert.match(g.output(), /EventRateLimit: Redis unavailable, limiting with this replica's own buckets/);
  });
});
