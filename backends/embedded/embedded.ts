// The durable embedded store: the storage contract on an lmdb environment in the data directory
// (layout and durability settings in lmdb-env.ts).
//
// Writes. Revisions are assigned here, in call order, and each write is queued as an lmdb
// conditional batch: "the key's modRevision is still X" (or "the key is absent") guards the object
// entry and its log record together. lmdb-js runs queued batches in call order on its write thread
// and commits everything queued meanwhile as one transaction, so many concurrent writes share one
// commit and one fsync, and the condition is checked inside the transaction that commits. A write
// whose condition fails leaves no trace; its revision is simply never used (revisions are strictly
// increasing, not dense). Events are published to the feed in revision order once their commit has
// resolved, which in durable mode means once it is on disk.

import { resolve } from "node:path";
import type { Transaction } from "lmdb";
import {
  AlreadyExistsError,
  ConflictError,
  type DeleteResult,
  type ListResult,
  NotFoundError,
  type Revision,
  type Storage,
  type StoredValue,
  TooOldError,
  UnavailableError,
  type WatchEvent,
  type WatchStream,
} from "../contract/index.ts";
import { LocalFeed } from "../local-feed/feed.ts";
import { sweepBatch } from "./compaction.ts";
import { openDatabases, type StoreDatabases } from "./lmdb-env.ts";
import {
  DELETE,
  encodeRecord,
  PUT,
  recordCreateRevision,
  recordKey,
  recordKind,
  recordPrevRevision,
  recordValue,
} from "./log-record.ts";

export interface EmbeddedStorageOptions {
  /** The store's directory, `<data-dir>/store`; created when missing. */
  dir: string;
  /** Resolve writes only once they are on disk (default). See lmdb-env.ts for `false`. */
  sync?: boolean;
}

/**
 * Store directories open in this process. The revision counter lives in the instance that owns a
 * directory; a second instance would hand out the same revisions. (One process per directory is
 * assumed across processes as well.)
 */
const openDirs = new Set<string>();

/** Log records read per read transaction during a watch catch-up. */
const CATCH_UP_CHUNK = 256;

/** A write waiting for its commit, in revision order. */
interface PendingWrite {
  readonly revision: Revision;
  settled: boolean;
  /** The event to publish; unset when the write did not happen. */
  event: WatchEvent | undefined;
}

/** lmdb read options: an explicit read transaction, or none for the current snapshot. */
type ReadOptions = { transaction?: Transaction };

export class EmbeddedStorage implements Storage {
  readonly name = "embedded";
  readonly #dir: string;
  readonly #dbs: StoreDatabases;
  readonly #feed: LocalFeed;
  /** The last revision handed to a write. */
  #assigned: Revision;
  /** The last revision whose event has been published: the current revision. */
  #published: Revision;
  #compacted: Revision;
  /** Log cleanup is done up to here (compaction.ts). */
  #swept: Revision;
  readonly #pending: PendingWrite[] = [];
  readonly #inflight = new Set<Promise<unknown>>();
  /** Compactions run one at a time, in call order. */
  #compaction: Promise<void> = Promise.resolve();
  #closed = false;

  static async open(options: EmbeddedStorageOptions): Promise<EmbeddedStorage> {
    const dir = resolve(options.dir);
    if (openDirs.has(dir)) throw new Error(`embedded store ${dir} is already open in this process`);
    const dbs = openDatabases(dir, options.sync ?? true);
    let compacted: Revision;
    let swept: Revision;
    let revision: Revision;
    try {
      const txn = dbs.env.useReadTransaction();
      try {
        compacted = dbs.meta.get("compacted", { transaction: txn }) ?? 0;
        swept = dbs.meta.get("swept", { transaction: txn }) ?? 0;
        revision = Math.max(lastLogRevision(dbs, { transaction: txn }), compacted);
      } finally {
        txn.done();
      }
    } catch (err) {
      await dbs.env.close();
      throw err;
    }
    openDirs.add(dir);
    return new EmbeddedStorage(dir, dbs, revision, compacted, swept);
  }

  private constructor(
    dir: string,
    dbs: StoreDatabases,
    revision: Revision,
    compacted: Revision,
    swept: Revision,
  ) {
    this.#dir = dir;
    this.#dbs = dbs;
    this.#assigned = revision;
    this.#published = revision;
    this.#compacted = compacted;
    this.#swept = swept;
    this.#feed = new LocalFeed({
      readEvents: (prefix, after, upTo) => this.#readEvents(prefix, after, upTo),
      compactedRevision: () => this.#compacted,
      publishedRevision: () => this.#published,
    });
    // Finish a cleanup that a previous process left half done.
    if (swept < compacted) this.#compaction = this.#sweep().catch(() => {});
  }

  #check(): void {
    if (this.#closed) throw new UnavailableError("storage closed");
  }

  // ---- reads ----

  async get(key: string): Promise<StoredValue | undefined> {
    this.#check();
    return this.#read(key, {});
  }

  async list(prefix: string): Promise<ListResult> {
    this.#check();
    const { env, objects } = this.#dbs;
    const txn = env.useReadTransaction();
    try {
      const opts = { transaction: txn };
      const items: StoredValue[] = [];
      const range = objects.getRange({
        ...(prefix === "" ? {} : { start: prefix }),
        versions: true,
        transaction: txn,
      });
      for (const { key, value, version } of range) {
        if (!key.startsWith(prefix)) break;
        items.push(this.#stored(key, value, version ?? 0, opts));
      }
      // lmdb orders string keys by their UTF-8 bytes, which is the contract's order already.
      return { items, revision: snapshotRevision(this.#dbs, opts) };
    } finally {
      txn.done();
    }
  }

  async currentRevision(): Promise<Revision> {
    this.#check();
    // With no write in flight every commit has been published, so the counter is the answer
    // without a read transaction (consistent reads ask this on every request). Otherwise a read
    // may already see a commit whose event is still on its way to the feed (a microtask later);
    // never report less than what a get or list could have returned.
    if (this.#pending.length === 0) return Math.max(this.#published, this.#compacted);
    return Math.max(this.#published, snapshotRevision(this.#dbs, {}));
  }

  /** The key's current value as of the read transaction in `opts`. */
  #read(key: string, opts: ReadOptions): StoredValue | undefined {
    const entry = this.#dbs.objects.getEntry(key, opts);
    if (!entry) return undefined;
    return this.#stored(key, entry.value, entry.version ?? 0, opts);
  }

  /** A key's value at `modRevision`, from the log record that holds it. */
  #stored(key: string, createRevision: Revision, modRevision: Revision, opts: ReadOptions): StoredValue {
    const record = this.#dbs.log.get(modRevision, opts);
    if (!record) throw new Error(`embedded store: log record ${modRevision} of ${key} is missing`);
    return { key, value: recordValue(record), createRevision, modRevision };
  }

  // ---- writes ----

  async create(key: string, value: string): Promise<StoredValue> {
    this.#check();
    const { objects, log } = this.#dbs;
    const pending = this.#reserve();
    const revision = pending.revision;
    const kv: StoredValue = { key, value, createRevision: revision, modRevision: revision };
    const done = this.#commit(pending, { type: "put", kv }, () =>
      objects.ifNoExists(key, () => {
        objects.put(key, revision, revision);
        log.put(revision, encodeRecord(PUT, key, revision, 0, value));
      }),
    );
    if (!(await done)) throw new AlreadyExistsError(key);
    return kv;
  }

  async update(key: string, value: string, expectedRevision: Revision): Promise<StoredValue> {
    this.#check();
    const { objects, log } = this.#dbs;
    const prev = this.#read(key, {});
    if (!prev) throw new NotFoundError(key);
    if (prev.modRevision !== expectedRevision) throw new ConflictError(key, expectedRevision, prev);
    const pending = this.#reserve();
    const revision = pending.revision;
    const { createRevision } = prev;
    const kv: StoredValue = { key, value, createRevision, modRevision: revision };
    const done = this.#commit(pending, { type: "put", kv, prev }, () =>
      objects.ifVersion(key, expectedRevision, () => {
        objects.put(key, createRevision, revision);
        log.put(revision, encodeRecord(PUT, key, createRevision, expectedRevision, value));
      }),
    );
    if (await done) return kv;
    // Another write changed or removed the key between our read and the commit.
    this.#check();
    const current = this.#read(key, {});
    if (!current) throw new NotFoundError(key);
    throw new ConflictError(key, expectedRevision, current);
  }

  async delete(key: string, expectedRevision?: Revision): Promise<DeleteResult> {
    const { objects, log } = this.#dbs;
    for (;;) {
      this.#check();
      const prev = this.#read(key, {});
      if (!prev) throw new NotFoundError(key);
      if (expectedRevision !== undefined && prev.modRevision !== expectedRevision) {
        throw new ConflictError(key, expectedRevision, prev);
      }
      const pending = this.#reserve();
      const revision = pending.revision;
      const done = this.#commit(pending, { type: "delete", key, revision, prev }, () =>
        objects.ifVersion(key, prev.modRevision, () => {
          objects.remove(key);
          log.put(revision, encodeRecord(DELETE, key, prev.createRevision, prev.modRevision, undefined));
        }),
      );
      if (await done) return { prev, revision };
      // The key changed under us: an unconditional delete tries again on the new value.
    }
  }

  #reserve(): PendingWrite {
    const pending: PendingWrite = { revision: ++this.#assigned, settled: false, event: undefined };
    this.#pending.push(pending);
    return pending;
  }

  /**
   * Queue a conditional batch and publish `event` once it commits. Resolves with whether the
   * condition held; rejects with Unavailable when the commit failed.
   */
  #commit(pending: PendingWrite, event: WatchEvent, queue: () => Promise<boolean>): Promise<boolean> {
    let queued: Promise<boolean>;
    try {
      queued = queue();
    } catch (err) {
      // Rejected before anything was queued (an invalid key, for one).
      this.#settle(pending, undefined);
      throw err;
    }
    const done = queued.then(
      (applied) => {
        this.#settle(pending, applied ? event : undefined);
        return applied;
      },
      (err: unknown) => {
        this.#settle(pending, undefined);
        throw new UnavailableError("embedded store commit failed", { cause: err });
      },
    );
    this.#inflight.add(done);
    const forget = () => this.#inflight.delete(done);
    done.then(forget, forget);
    return done;
  }

  /** Mark a write finished and publish every finished write at the head, in revision order. */
  #settle(pending: PendingWrite, event: WatchEvent | undefined): void {
    pending.settled = true;
    pending.event = event;
    const queue = this.#pending;
    while (queue.length > 0 && (queue[0] as PendingWrite).settled) {
      const head = queue.shift() as PendingWrite;
      if (head.event) {
        this.#published = head.revision;
        this.#feed.publish(head.event);
      }
    }
  }

  // ---- watch ----

  watch(prefix: string, afterRevision: Revision, signal: AbortSignal): WatchStream {
    return this.#feed.watch(prefix, afterRevision, signal);
  }

  /**
   * The events under `prefix` in (after, upTo], read in chunks so that a long catch-up does not
   * hold one read transaction (and the pages it pins) open while the watcher drains it.
   */
  *#readEvents(prefix: string, after: Revision, upTo: Revision): Generator<WatchEvent> {
    let from = after;
    while (from < upTo) {
      this.#check();
      const { env, log, meta } = this.#dbs;
      const chunk: WatchEvent[] = [];
      let scanned = 0;
      const txn = env.useReadTransaction();
      try {
        // Everything above the compaction point, and every record it refers to, is intact.
        const compacted = meta.get("compacted", { transaction: txn }) ?? 0;
        if (from < compacted) throw new TooOldError(after, compacted);
        const opts = { transaction: txn };
        for (const { key: revision, value: record } of log.getRange({
          start: from + 1,
          end: upTo + 1,
          limit: CATCH_UP_CHUNK,
          transaction: txn,
        })) {
          scanned++;
          from = revision;
          const key = recordKey(record);
          if (key.startsWith(prefix)) chunk.push(this.#event(revision, key, record, opts));
        }
      } finally {
        txn.done();
      }
      if (scanned < CATCH_UP_CHUNK) from = upTo;
      yield* chunk;
    }
  }

  /** Rebuild the watch event of a log record. */
  #event(revision: Revision, key: string, record: Buffer, opts: ReadOptions): WatchEvent {
    const createRevision = recordCreateRevision(record);
    const prevRevision = recordPrevRevision(record);
    const prev = prevRevision > 0 ? this.#stored(key, createRevision, prevRevision, opts) : undefined;
    if (recordKind(record) === DELETE) {
      if (!prev) throw new Error(`embedded store: delete record ${revision} of ${key} has no prev`);
      return { type: "delete", key, revision, prev };
    }
    const kv: StoredValue = { key, value: recordValue(record), createRevision, modRevision: revision };
    return prev ? { type: "put", kv, prev } : { type: "put", kv };
  }

  // ---- compaction ----

  async compact(revision: Revision): Promise<void> {
    this.#check();
    const run = this.#compaction.then(() => this.#compactTo(revision));
    this.#compaction = run.catch(() => {});
    return run;
  }

  async #compactTo(revision: Revision): Promise<void> {
    if (this.#closed) return;
    const target = Math.min(revision, this.#published);
    if (target > this.#compacted) {
      // Durable before any watch is refused and before any record is removed.
      await this.#dbs.meta.put("compacted", target);
      this.#compacted = target;
    }
    await this.#sweep();
  }

  async #sweep(): Promise<void> {
    while (!this.#closed && this.#swept < this.#compacted) {
      this.#swept = await sweepBatch(this.#dbs, this.#swept, this.#compacted);
    }
  }

  // ---- lifecycle ----

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#feed.close();
    // Writes already queued still commit; the cleanup stops at its next batch boundary.
    await Promise.allSettled([...this.#inflight]);
    await this.#compaction;
    await this.#dbs.env.close();
    openDirs.delete(this.#dir);
  }
}

/** The highest revision in the log, 0 when it is empty. */
function lastLogRevision(dbs: StoreDatabases, opts: ReadOptions): Revision {
  for (const revision of dbs.log.getKeys({ reverse: true, limit: 1, ...opts })) return revision;
  return 0;
}

/** The revision of the snapshot that `opts` reads. */
function snapshotRevision(dbs: StoreDatabases, opts: ReadOptions): Revision {
  return Math.max(lastLogRevision(dbs, opts), dbs.meta.get("compacted", opts) ?? 0);
}

export async function openEmbeddedStorage(options: EmbeddedStorageOptions): Promise<Storage> {
  return EmbeddedStorage.open(options);
}
