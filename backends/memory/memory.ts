// The storage contract held in process memory: for unit tests and throwaway servers.
// History is kept until `compact` drops it, like the other backends.

import { compareKeys } from "../common/keys.ts";
import {
  AlreadyExistsError,
  ConflictError,
  type DeleteResult,
  eventKey,
  eventRevision,
  type ListResult,
  NotFoundError,
  type Revision,
  type Storage,
  type StoredValue,
  UnavailableError,
  type WatchEvent,
  type WatchStream,
} from "../contract/index.ts";
import { LocalFeed } from "../local-feed/feed.ts";

export class MemoryStorage implements Storage {
  readonly name = "memory";
  readonly #data = new Map<string, StoredValue>();
  /** Events in revision order, oldest first. */
  #log: WatchEvent[] = [];
  #revision: Revision = 0;
  #compacted: Revision = 0;
  #closed = false;
  readonly #feed: LocalFeed;

  constructor() {
    this.#feed = new LocalFeed({
      readEvents: (prefix, after, upTo) => this.#readEvents(prefix, after, upTo),
      compactedRevision: () => this.#compacted,
      publishedRevision: () => this.#revision,
    });
  }

  #check(): void {
    if (this.#closed) throw new UnavailableError("storage closed");
  }

  *#readEvents(prefix: string, after: Revision, upTo: Revision): Iterable<WatchEvent> {
    // The log is sorted by revision: binary-search the first event above `after`.
    let lo = 0;
    let hi = this.#log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (eventRevision(this.#log[mid] as WatchEvent) <= after) lo = mid + 1;
      else hi = mid;
    }
    const log = this.#log;
    for (let i = lo; i < log.length; i++) {
      const event = log[i] as WatchEvent;
      if (eventRevision(event) > upTo) return;
      if (eventKey(event)?.startsWith(prefix)) yield event;
    }
  }

  #commit(event: WatchEvent): void {
    this.#revision++;
    this.#log.push(event);
    this.#feed.publish(event);
  }

  async get(key: string): Promise<StoredValue | undefined> {
    this.#check();
    return this.#data.get(key);
  }

  async list(prefix: string): Promise<ListResult> {
    this.#check();
    const items: StoredValue[] = [];
    for (const [key, kv] of this.#data) if (key.startsWith(prefix)) items.push(kv);
    items.sort((a, b) => compareKeys(a.key, b.key));
    return { items, revision: this.#revision };
  }

  async create(key: string, value: string): Promise<StoredValue> {
    this.#check();
    if (this.#data.has(key)) throw new AlreadyExistsError(key);
    const rev = this.#revision + 1;
    const kv: StoredValue = { key, value, createRevision: rev, modRevision: rev };
    this.#data.set(key, kv);
    this.#commit({ type: "put", kv });
    return kv;
  }

  async update(key: string, value: string, expectedRevision: Revision): Promise<StoredValue> {
    this.#check();
    const prev = this.#data.get(key);
    if (!prev) throw new NotFoundError(key);
    if (prev.modRevision !== expectedRevision) throw new ConflictError(key, expectedRevision, prev);
    const kv: StoredValue = {
      key,
      value,
      createRevision: prev.createRevision,
      modRevision: this.#revision + 1,
    };
    this.#data.set(key, kv);
    this.#commit({ type: "put", kv, prev });
    return kv;
  }

  async delete(key: string, expectedRevision?: Revision): Promise<DeleteResult> {
    this.#check();
    const prev = this.#data.get(key);
    if (!prev) throw new NotFoundError(key);
    if (expectedRevision !== undefined && prev.modRevision !== expectedRevision) {
      throw new ConflictError(key, expectedRevision, prev);
    }
    this.#data.delete(key);
    const revision = this.#revision + 1;
    this.#commit({ type: "delete", key, revision, prev });
    return { prev, revision };
  }

  watch(prefix: string, afterRevision: Revision, signal: AbortSignal): WatchStream {
    return this.#feed.watch(prefix, afterRevision, signal);
  }

  async currentRevision(): Promise<Revision> {
    this.#check();
    return this.#revision;
  }

  async compact(revision: Revision): Promise<void> {
    this.#check();
    const target = Math.min(revision, this.#revision);
    if (target <= this.#compacted) return;
    this.#compacted = target;
    let drop = 0;
    while (drop < this.#log.length && eventRevision(this.#log[drop] as WatchEvent) <= target) drop++;
    this.#log = this.#log.slice(drop);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#feed.close();
  }
}
