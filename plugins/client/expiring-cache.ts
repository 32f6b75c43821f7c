// A bounded map whose entries expire: webhook answers are kept for a TTL, and the number kept is
// capped so callers cannot grow memory without bound (the least recently used go first).

export class ExpiringCache<V> {
  readonly #max: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(maxEntries: number, now: () => number = Date.now) {
    this.#max = Math.max(1, maxEntries);
    this.#now = now;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#now() >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    // Re-insert to mark it most recently used (Map keeps insertion order).
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keep `value` for `ttlMs`; a TTL of 0 or less keeps nothing. */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs });
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
