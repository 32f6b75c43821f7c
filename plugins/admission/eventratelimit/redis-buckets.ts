// Token buckets in Redis, so that replicas behind one load balancer share one budget. One script
// refills by the time elapsed on Redis's own clock and takes a token atomically; idle buckets
// expire once they would be full again (Redis's TTL stands in for the in-process LRU). When Redis
// does not answer, the replica falls back to its own buckets rather than refusing every event or
// letting every event through.
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

export interface RedisBucketsOptions {
  readonly client: Redis;
  /** Prefix of every key, naming the product and the limit type. */
  readonly prefix: string;
  readonly qps: number;
  readonly burst: number;
  /** Used while Redis fails. */
  readonly fallback: LocalBuckets;
  readonly onFallback: (err: unknown) => void;
}

export class RedisBuckets implements Buckets {
  readonly #o: RedisBucketsOptions;
  readonly #ttlMs: number;

  constructor(options: RedisBucketsOptions) {
    this.#o = options;
    // A bucket untouched this long is full again: forgetting it changes nothing.
    this.#ttlMs = Math.ceil((options.burst / options.qps) * 1000) + 1000;
  }

  async take(key: string): Promise<boolean> {
    const o = this.#o;
    try {
      const taken = await o.client.eval(TAKE, 1, `${o.prefix}${key}`, o.qps, o.burst, this.#ttlMs);
      return taken === 1;
    } catch (err) {
      o.onFallback(err);
      return o.fallback.takeNow(key);
    }
  }

  async close(): Promise<void> {
    await this.#o.fallback.close();
  }
}

/** A client that fails fast while Redis is away instead of queueing commands. */
export function redisClient(url: string): Redis {
  return new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
}
