// One allocation range kept in the store as a single record, as upstream's RangeAllocation (the
// range's text and a bitmap of what is taken), changed only by compare-and-swap on its revision:
// gateways sharing a store never hand out one item twice. Changes queued while a write is in
// flight go out together in the next write, so concurrent allocations in one process cost one
// store write per batch rather than a conflict each.
import {
  ConflictError,
  isStorageError,
  type Revision,
  type Storage,
  StorageError,
  type StoredValue,
} from "../contract/index.ts";

/** Which items of a range are taken; item i is bit i. */
export class Bitmap {
  readonly size: number;
  readonly #bytes: Uint8Array;

  constructor(size: number, bytes?: Uint8Array) {
    this.size = size;
    this.#bytes = bytes ?? new Uint8Array(Math.ceil(size / 8));
  }

  has(i: number): boolean {
    return i >= 0 && i < this.size && ((this.#bytes[i >> 3] as number) & (1 << (i & 7))) !== 0;
  }

  set(i: number): void {
    this.#bytes[i >> 3] = (this.#bytes[i >> 3] as number) | (1 << (i & 7));
  }

  clear(i: number): void {
    this.#bytes[i >> 3] = (this.#bytes[i >> 3] as number) & ~(1 << (i & 7));
  }

  /** A free item, scanning from a random place so that gateways rarely race for one. */
  free(): number | undefined {
    const start = Math.floor(Math.random() * this.size);
    for (let n = 0; n < this.size; n++) {
      const i = (start + n) % this.size;
      if (!this.has(i)) return i;
    }
    return undefined;
  }

  *items(): Generator<number> {
    for (let i = 0; i < this.size; i++) if (this.has(i)) yield i;
  }

  clone(): Bitmap {
    return new Bitmap(this.size, this.#bytes.slice());
  }

  equals(other: Bitmap): boolean {
    return other.size === this.size && Buffer.compare(this.#bytes, other.#bytes) === 0;
  }

  /** Upstream's layout: the bitmap as a big integer, big-endian bytes without leading zeros. */
  toBase64(): string {
    let top = this.#bytes.length;
    while (top > 0 && this.#bytes[top - 1] === 0) top--;
    return Buffer.from(this.#bytes.subarray(0, top)).reverse().toString("base64");
  }

  /** Bits past `size` are dropped: a record of a wider range keeps only what still fits. */
  static fromBase64(size: number, data: string): Bitmap {
    const big = Buffer.from(data, "base64").reverse();
    const bits = new Bitmap(size);
    for (let i = 0; i < Math.min(big.length * 8, size); i++) {
      if (((big[i >> 3] as number) & (1 << (i & 7))) !== 0) bits.set(i);
    }
    return bits;
  }
}

/** The record is not in the store (never initialized, or removed by hand). */
export class RecordMissingError extends Error {}

/** The stored record describes another range than this server's (replicas configured apart). */
export class RangeMismatchError extends StorageError {
  constructor(message: string, key: string) {
    super("Internal", message, key);
  }
}

export interface RangeSnapshot {
  readonly bits: Bitmap;
  /** The record's revision; 0 when there is none. */
  readonly revision: Revision;
  /** The range the stored record names, when there is one. */
  readonly storedRange?: string;
}

interface Op {
  run(bits: Bitmap): unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export class RangeRecord {
  readonly key: string;
  readonly range: string;
  readonly size: number;
  readonly #storage: Storage;
  #cached: { bits: Bitmap; revision: Revision } | undefined;
  #queue: Op[] = [];
  #flushing = false;

  constructor(storage: Storage, key: string, range: string, size: number) {
    this.#storage = storage;
    this.key = key;
    this.range = range;
    this.size = size;
  }

  /**
   * Runs `run` on the current bitmap and stores what it changed. `run` decides from the bitmap
   * alone (it may run again on a newer one after a conflict) and changes it only when it goes
   * ahead. Its decisions are checked against the store: a changed bitmap by the write's
   * compare-and-swap, an unchanged one by reading the record afresh.
   */
  change<T>(run: (bits: Bitmap) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ run, resolve: resolve as (v: unknown) => void, reject });
      void this.#flush();
    });
  }

  /** The record as stored now. */
  async read(): Promise<RangeSnapshot> {
    const kv = await this.#storage.get(this.key);
    return kv ? this.#decode(kv) : { bits: new Bitmap(this.size), revision: 0 };
  }

  #decode(kv: StoredValue): RangeSnapshot {
    let record: { range?: unknown; data?: unknown };
    try {
      record = JSON.parse(kv.value) as typeof record;
    } catch {
      record = {};
    }
    // A record that does not parse counts as one of no range: the repair pass rewrites it.
    return {
      bits: Bitmap.fromBase64(this.size, typeof record.data === "string" ? record.data : ""),
      revision: kv.modRevision,
      storedRange: typeof record.range === "string" ? record.range : "",
    };
  }

  /**
   * Stores `bits` if the record is still at `revision` (0: absent); throws ConflictError or
   * AlreadyExistsError otherwise.
   */
  async write(bits: Bitmap, revision: Revision): Promise<Revision> {
    const value = JSON.stringify({
      kind: "RangeAllocation",
      apiVersion: "v1",
      metadata: { creationTimestamp: null },
      range: this.range,
      data: bits.toBase64(),
    });
    const kv =
      revision === 0
        ? await this.#storage.create(this.key, value)
        : await this.#storage.update(this.key, value, revision);
    this.#cached = { bits: bits.clone(), revision: kv.modRevision };
    return kv.modRevision;
  }

  /** Forget the cached copy (the record was rewritten by a repair, say). */
  invalidate(): void {
    this.#cached = undefined;
  }

  async #load(): Promise<{ bits: Bitmap; revision: Revision }> {
    return this.#usable(await this.read());
  }

  #usable(snapshot: RangeSnapshot): { bits: Bitmap; revision: Revision } {
    if (snapshot.revision === 0) throw new RecordMissingError(`the allocation record ${this.key} is missing`);
    if (snapshot.storedRange !== this.range) {
      throw new RangeMismatchError(
        `the allocation record ${this.key} is for the range ${snapshot.storedRange}, not this server's ${this.range}`,
        this.key,
      );
    }
    return snapshot;
  }

  async #flush(): Promise<void> {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0);
        try {
          const results = await this.#commit(batch);
          for (const [i, op] of batch.entries()) op.resolve(results[i]);
        } catch (err) {
          this.#cached = undefined;
          for (const op of batch) op.reject(err);
        }
      }
    } finally {
      this.#flushing = false;
    }
  }

  async #commit(batch: Op[]): Promise<unknown[]> {
    let fresh = false;
    for (;;) {
      if (!this.#cached) {
        this.#cached = await this.#load();
        fresh = true;
      }
      const base = this.#cached;
      const bits = base.bits.clone();
      const results = batch.map((op) => op.run(bits));
      if (bits.equals(base.bits)) {
        // Nothing to write: a decision read from a cached copy is only good if that copy is current.
        if (fresh) return results;
        this.#cached = undefined;
        continue;
      }
      try {
        await this.write(bits, base.revision);
        return results;
      } catch (err) {
        // Another gateway wrote first: decide again on what it stored.
        if (err instanceof ConflictError) {
          this.#cached = this.#usable(this.#decode(err.current));
          fresh = true;
          continue;
        }
        if (isStorageError(err, "NotFound"))
          throw new RecordMissingError(`the allocation record ${this.key} is missing`);
        throw err;
      }
    }
  }
}
