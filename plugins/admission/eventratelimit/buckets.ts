// Token buckets: full at `burst` to begin with, refilled at `qps` per second, one token per event
// (upstream's client-go token bucket). In-process buckets live in an LRU of `cacheSize` keys; an
// evicted key starts again with a full bucket, as upstream's does.

export interface Buckets {
  /** Takes a token for `key`; false when none is left. */
  take(key: string): Promise<boolean>;
  close(): Promise<void>;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class LocalBuckets implements Buckets {
  readonly #qps: number;
  readonly #burst: number;
  readonly #size: number;
  readonly #now: () => number;
  /** Insertion order is recency: a used key is moved to the end. */
  readonly #buckets = new Map<string, Bucket>();

  constructor(qps: number, burst: number, size: number, now: () => number = () => performance.now()) {
    this.#qps = qps;
    this.#burst = burst;
    this.#size = size;
    this.#now = now;
  }

  /** Keys held (for tests of the LRU bound). */
  get size(): number {
    return this.#buckets.size;
  }

  takeNow(key: string): boolean {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket) this.#buckets.delete(key);
    else {
      bucket = { tokens: this.#burst, at: now };
      if (this.#buckets.size >= this.#size) {
        const oldest = this.#buckets.keys().next().value;
        if (oldest !== undefined) this.#buckets.delete(oldest);
      }
    }
    this.#buckets.set(key, bucket);
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#qps);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  take(key: string): Promise<boolean> {
    return Promise.resolve(this.takeNow(key));
  }

  async close(): Promise<void> {
    this.#buckets.clear();
  }
}
