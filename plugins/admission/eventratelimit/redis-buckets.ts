// Token buckets in Redis, so that replicas behind one load balancer share one budget. One script
// refills by the time elapsed on Redis's own clock (replicas' clocks may differ) and takes a
// token atomically; a bucket's key expires once the bucket would be full again, so forgetting it
// changes nothing (Redis's TTL plays the in-process LRU's part).
//
// When Redis fails, this replica decides with its own in-process buckets: that is exactly
// upstream's behaviour (every kube-apiserver keeps its own buckets), so an outage neither refuses
// every event (failing closed would turn a cache outage into lost Events cluster-wide) nor lifts
// the limit (failing open would let an event storm through to storage). Each fallback decision
// is counted in `eventratelimit_redis_fallback_total`, and the switch in either direction is logged.
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import type { Buckets, LocalBuckets } from "./buckets.ts";

const TAKE = `
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
local qps = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(held[1])
local at = tonumber(held[2])
if tokens == nil or at == nil then
  tokens = burst
  at = t
end
tokens = math.min(burst, tokens + math.max(0, t - at) * qps)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(t))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return taken
`;
const TAKE_SHA = createHash("sha1").update(TAKE).digest("hex");

/** What the buckets of one plugin instance share: the connection and the outage state. */
export interface RedisLink {
  readonly client: Redis;
  /** Called for every decision taken without Redis. */
  fellBack(err: unknown): void;
  /** Called after every decision Redis took. */
  answered(): void;
}

export interface RedisBucketsOptions {
  readonly link: RedisLink;
  /** Prefix of every key, naming the product and the limit type. */
  readonly prefix: string;
  readonly qps: number;
  readonly burst: number;
  /** Decides while Redis fails. */
  readonly fallback: LocalBuckets;
}

export class RedisBuckets implements Buckets {
  readonly #o: RedisBucketsOptions;
  readonly #ttlMs: number;

  constructor(options: RedisBucketsOptions) {
    this.#o = options;
    // Untouched this long, a bucket is full again; a second of slack covers clock granularity.
    this.#ttlMs = Math.ceil((options.burst / options.qps) * 1000) + 1000;
  }

  /** The key a bucket lives under (for tests). */
  keyOf(key: string): string {
    return `${this.#o.prefix}${key}`;
  }

  async take(key: string): Promise<boolean> {
    const o = this.#o;
    const args = [1, this.keyOf(key), o.qps, o.burst, this.#ttlMs] as const;
    try {
      let taken: unknown;
      try {
        taken = await o.link.client.evalsha(TAKE_SHA, ...args);
      } catch (err) {
        // First use on this server (or after a restart or SCRIPT FLUSH): send the script itself.
        if (!String(err).includes("NOSCRIPT")) throw err;
        taken = await o.link.client.eval(TAKE, ...args);
      }
      o.link.answered();
      return taken === 1;
    } catch (err) {
      o.link.fellBack(err);
      return o.fallback.takeNow(key);
    }
  }

  async close(): Promise<void> {
    await this.#o.fallback.close();
  }
}

/** A client that fails fast while Redis is away (no queueing, short timeouts) and keeps reconnecting. */
export function redisClient(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
}

/** Resolves once the client is ready, or after `ms` (then the first decisions fall back). */
export async function connected(client: Redis, ms: number): Promise<void> {
  if (client.status === "ready") return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off("ready", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    client.once("ready", done);
  });
}
