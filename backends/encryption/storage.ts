// Encryption at rest as a Storage in front of any backend, below the watch cache: the cache and
// the registry see plain objects, the backend sees only what the configured providers write.
// Values keep the contract's string type: an encrypted value is its bytes one character each
// (latin1), told apart from plain JSON by the encrypted prefix it starts with.
import {
  ConflictError,
  type DeleteResult,
  InternalStorageError,
  type ListResult,
  type Revision,
  type Storage,
  type StoredValue,
  type WatchEvent,
  type WatchStream,
} from "../contract/index.ts";
import type { ResourceTransformers } from "./resources.ts";
import type { Transformer } from "./transformer.ts";

export class EncryptedStorage implements Storage {
  readonly #inner: Storage;
  readonly #prefix: string;
  #transformers: ResourceTransformers;
  readonly #onClose: (() => void)[] = [];

  constructor(inner: Storage, transformers: ResourceTransformers, encryptedPrefix: string) {
    this.#inner = inner;
    this.#transformers = transformers;
    this.#prefix = encryptedPrefix;
  }

  get name(): string {
    return this.#inner.name;
  }

  get transformers(): ResourceTransformers {
    return this.#transformers;
  }

  /** A reloaded configuration: later reads and writes use it; the previous one is closed. */
  replaceTransformers(next: ResourceTransformers): void {
    const previous = this.#transformers;
    this.#transformers = next;
    if (previous !== next) previous.close();
  }

  /** Run when the storage closes (a configuration file watcher, say). */
  onClose(fn: () => void): void {
    this.#onClose.push(fn);
  }

  // ---- the two directions --------------------------------------------------------------

  #bytes(value: string): Buffer {
    return Buffer.from(value, value.startsWith(this.#prefix) ? "latin1" : "utf8");
  }

  async #toStorage(key: string, value: string): Promise<string> {
    const t = this.#transformers.forKey(key);
    if (!t) return value;
    const out = await t.toStorage(Buffer.from(value, "utf8"), Buffer.from(key, "utf8"));
    return out.toString(
      out.subarray(0, this.#prefix.length).toString("latin1") === this.#prefix ? "latin1" : "utf8",
    );
  }

  /** The value as written, or the same entry marked unreadable (never thrown: a list goes on). */
  async #fromStorage(kv: StoredValue): Promise<StoredValue> {
    const t: Transformer | undefined = this.#transformers.forKey(kv.key);
    // Plain text of a resource no rule names: nothing to do.
    if (!t && !kv.value.startsWith(this.#prefix)) return kv;
    try {
      const { data, stale } = await (t ?? this.#transformers.fallback).fromStorage(
        this.#bytes(kv.value),
        Buffer.from(kv.key, "utf8"),
      );
      const value = data.toString("utf8");
      return stale ? { ...kv, value, stale } : { ...kv, value };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return {
        key: kv.key,
        value: "",
        createRevision: kv.createRevision,
        modRevision: kv.modRevision,
        unreadable: new InternalStorageError(`unable to transform key "${kv.key}": ${reason}`, kv.key),
      };
    }
  }

  async #readable(kv: StoredValue): Promise<StoredValue> {
    const out = await this.#fromStorage(kv);
    if (out.unreadable) throw out.unreadable;
    return out;
  }

  // ---- Storage -------------------------------------------------------------------------

  async get(key: string): Promise<StoredValue | undefined> {
    const kv = await this.#inner.get(key);
    return kv ? this.#readable(kv) : undefined;
  }

  async list(prefix: string): Promise<ListResult> {
    const { items, revision } = await this.#inner.list(prefix);
    const out: StoredValue[] = new Array(items.length);
    for (const [i, kv] of items.entries()) out[i] = await this.#fromStorage(kv);
    return { items: out, revision };
  }

  async create(key: string, value: string): Promise<StoredValue> {
    const kv = await this.#inner.create(key, await this.#toStorage(key, value));
    return { ...kv, value };
  }

  async update(key: string, value: string, expectedRevision: Revision): Promise<StoredValue> {
    const stored = await this.#toStorage(key, value);
    try {
      const kv = await this.#inner.update(key, stored, expectedRevision);
      return { ...kv, value };
    } catch (err) {
      // The current value a conflict carries is read back like any other.
      if (err instanceof ConflictError)
        throw new ConflictError(key, err.expectedRevision, await this.#readable(err.current));
      throw err;
    }
  }

  async delete(key: string, expectedRevision?: Revision): Promise<DeleteResult> {
    try {
      const { prev, revision } = await this.#inner.delete(key, expectedRevision);
      return { prev: await this.#fromStorage(prev), revision };
    } catch (err) {
      if (err instanceof ConflictError)
        throw new ConflictError(key, err.expectedRevision, await this.#fromStorage(err.current));
      throw err;
    }
  }

  watch(prefix: string, afterRevision: Revision, signal: AbortSignal): WatchStream {
    const inner = this.#inner.watch(prefix, afterRevision, signal);
    const self = this;
    async function* events(): AsyncGenerator<WatchEvent> {
      for await (const event of inner) {
        if (event.type === "put") {
          const kv = await self.#fromStorage(event.kv);
          const prev = event.prev ? await self.#fromStorage(event.prev) : undefined;
          yield prev ? { type: "put", kv, prev } : { type: "put", kv };
        } else if (event.type === "delete") {
          yield { ...event, prev: await self.#fromStorage(event.prev) };
        } else {
          yield event;
        }
      }
    }
    return {
      [Symbol.asyncIterator]: () => events(),
      requestProgress: () => inner.requestProgress(),
    };
  }

  currentRevision(): Promise<Revision> {
    return this.#inner.currentRevision();
  }

  compact(revision: Revision): Promise<void> {
    return this.#inner.compact(revision);
  }

  async close(): Promise<void> {
    for (const fn of this.#onClose) fn();
    this.#transformers.close();
    await this.#inner.close();
  }
}
