// The storage contract on MongoDB. Three collections under a prefix: `<prefix>_objects` (one
// document per key: value and revisions), `<prefix>_log` (one entry per change, `_id` its
// revision) and `<prefix>_meta` (the revision counter and the compaction point). Every write is
// one transaction that checks the object's revision, increments the counter, writes the object
// and appends the log entry, committed with majority write concern. Two writers that take the
// same counter value collide on the counter (and on the log entry's `_id`), so one of them
// retries: a revision is assigned once, and becomes visible only after every lower one.

import {
  type ClientSession,
  type Collection,
  type Db,
  type Document,
  type MongoClient,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from "mongodb";
import { compareKeys } from "../common/keys.ts";
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
import {
  COMPACTED_ID,
  type LogDoc,
  type MetaDoc,
  type ObjectDoc,
  prefixFilter,
  REVISION_ID,
  readableObject,
  readLogEntry,
  readObject,
  readRevision,
} from "./documents.ts";
import { type FollowerSettings, LogFollower } from "./follower.ts";
import { type MongoMetrics, noMetrics, type RetryReason } from "./metrics.ts";

export interface MongoStorageSettings extends FollowerSettings {
  /** A write whose transaction keeps colliding gives up (Unavailable) after this long. */
  readonly writeRetryMs: number;
  /** Errors the storage cannot throw to a caller (the follower's), for the log. */
  readonly onError?: (err: unknown, context: string) => void;
  /** Error and retry counters (metrics.ts). */
  readonly metrics?: MongoMetrics;
}

export interface MongoCollections {
  readonly objects: Collection<ObjectDoc>;
  readonly log: Collection<LogDoc>;
  readonly meta: Collection<MetaDoc>;
}

export function collections(db: Db, prefix: string): MongoCollections {
  return {
    objects: db.collection<ObjectDoc>(`${prefix}_objects`),
    log: db.collection<LogDoc>(`${prefix}_log`),
    meta: db.collection<MetaDoc>(`${prefix}_meta`),
  };
}

/** Server error codes that mean the node cannot serve now (failover, shutdown, no primary). */
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);
const WRITE_CONFLICT = 112;
/** Longest a progress request waits for the follower to reach the counter. */
const PROGRESS_WAIT_MS = 5000;
const DUPLICATE_KEY = 11000;

/** A connection-level failure: the server is unreachable, stepping down or shutting down. */
export function isUnavailable(err: unknown): boolean {
  if (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError
  )
    return true;
  return err instanceof MongoError && typeof err.code === "number" && UNAVAILABLE_CODES.has(err.code);
}

/** Driver errors become the contract's: Unavailable for connection loss, others pass through. */
export function translate(err: unknown): Error {
  if (err instanceof UnavailableError) return err;
  if (isUnavailable(err))
    return new UnavailableError(`MongoDB unavailable: ${(err as Error).message}`, { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}

/** Why the transaction may run again (it lost a race, or failed transiently), or undefined. */
function retryReason(err: unknown): RetryReason | undefined {
  if (err instanceof Collided || (err instanceof MongoError && err.code === WRITE_CONFLICT))
    return "conflict";
  if (err instanceof MongoError && err.hasErrorLabel("TransientTransactionError")) return "transient";
  return undefined;
}

/** The contract's answers to a request, not failures of the store. */
function isAnswer(err: unknown): boolean {
  return err instanceof NotFoundError || err instanceof AlreadyExistsError || err instanceof ConflictError;
}

/** Thrown inside a transaction to abort it and run it again (the precondition raced). */
class Collided extends Error {}

/**
 * Appends the log entry. Its `_id` is the revision the counter gave this transaction, so a
 * duplicate means another writer committed that revision first: run again.
 */
async function appendLog(log: Collection<LogDoc>, entry: LogDoc, session: ClientSession): Promise<void> {
  try {
    await log.insertOne(entry, { session });
  } catch (err) {
    if (err instanceof MongoError && err.code === DUPLICATE_KEY) throw new Collided();
    throw err;
  }
}

export class MongoStorage implements Storage {
  readonly name = "mongodb";
  readonly #client: MongoClient;
  readonly #c: MongoCollections;
  readonly #settings: MongoStorageSettings;
  readonly #feed: LocalFeed;
  readonly #follower: LogFollower;
  readonly #metrics: MongoMetrics;
  #closed = false;
  #writeTurn: Promise<void> = Promise.resolve();
  /** Transactions run again after a collision, for metrics and the bench. */
  retries = 0;

  constructor(client: MongoClient, c: MongoCollections, settings: MongoStorageSettings, published: Revision) {
    this.#client = client;
    this.#c = c;
    this.#settings = settings;
    this.#metrics = settings.metrics ?? noMetrics;
    this.#feed = this.#newFeed();
    this.#follower = new LogFollower(
      {
        log: c.log,
        compactedRevision: () => this.#compactedRevision(),
        publish: (event) => this.#feed.publish(event),
        interrupt: (err) => this.#feed.interrupt(err),
        report: (err, context) => this.#settings.onError?.(err, context),
        translate,
      },
      settings,
      published,
    );
    this.#follower.start();
  }

  /** How watches follow the log: a change stream, or polling where the server has none. */
  get followMode(): FollowerSettings["mode"] {
    return this.#follower.mode;
  }

  #newFeed(): LocalFeed {
    return new LocalFeed({
      readEvents: (prefix, after, upTo) => this.#readEvents(prefix, after, upTo),
      // The feed's own check uses what this process knows; #readEvents checks the server's.
      compactedRevision: () => 0,
      publishedRevision: () => this.#follower.published,
    });
  }

  #check(): void {
    if (this.#closed) throw new UnavailableError("storage closed");
  }

  async #call<T>(run: () => Promise<T>): Promise<T> {
    this.#check();
    try {
      return await run();
    } catch (err) {
      throw translate(err);
    }
  }

  /** A counted call: failures other than the contract's answers move the error counter. */
  async #counted<T>(operation: string, key: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (!isAnswer(err)) this.#metrics.failed(operation, key);
      throw err;
    }
  }

  async get(key: string): Promise<StoredValue | undefined> {
    return this.#counted("get", key, () => this.#getOnce(key));
  }

  #getOnce(key: string): Promise<StoredValue | undefined> {
    return this.#call(async () => {
      const doc = await this.#c.objects.findOne({ _id: key });
      return doc ? readableObject(key, doc as unknown as Record<string, unknown>) : undefined;
    });
  }

  async list(prefix: string): Promise<ListResult> {
    // One snapshot: the counter and the objects read in the same read-only transaction.
    return this.#counted("list", prefix, () => this.#listOnce(prefix));
  }

  #listOnce(prefix: string): Promise<ListResult> {
    return this.#call(() =>
      this.#client.withSession(async (session) => {
        session.startTransaction({ readConcern: { level: "snapshot" } });
        try {
          const revision = readRevision(
            (await this.#c.meta.findOne({ _id: REVISION_ID }, { session })) as Record<string, unknown> | null,
            "revision counter",
          );
          const docs = await this.#c.objects
            .find({ _id: prefixFilter(prefix) }, { session })
            .sort({ _id: 1 })
            .toArray();
          await session.commitTransaction();
          const items: StoredValue[] = [];
          for (const doc of docs) {
            const key = doc._id as unknown;
            if (typeof key === "string" && key.startsWith(prefix))
              items.push(readObject(key, doc as unknown as Record<string, unknown>));
          }
          items.sort((a, b) => compareKeys(a.key, b.key));
          return { items, revision };
        } finally {
          if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
        }
      }),
    );
  }

  async create(key: string, value: string): Promise<StoredValue> {
    return this.#write("create", key, async (session) => {
      if (await this.#c.objects.findOne({ _id: key }, { session })) throw new AlreadyExistsError(key);
      const revision = await this.#nextRevision(session);
      try {
        await this.#c.objects.insertOne(
          { _id: key, value, createRevision: revision, modRevision: revision },
          { session },
        );
      } catch (err) {
        if (err instanceof MongoError && err.code === DUPLICATE_KEY) throw new AlreadyExistsError(key);
        throw err;
      }
      await appendLog(
        this.#c.log,
        { _id: revision, key, type: "put", value, createRevision: revision },
        session,
      );
      return { key, value, createRevision: revision, modRevision: revision };
    });
  }

  async update(key: string, value: string, expectedRevision: Revision): Promise<StoredValue> {
    return this.#write("update", key, async (session) => {
      const current = await this.#current(key, session);
      if (!current) throw new NotFoundError(key);
      if (current.modRevision !== expectedRevision) throw new ConflictError(key, expectedRevision, current);
      const revision = await this.#nextRevision(session);
      const res = await this.#c.objects.updateOne(
        { _id: key, modRevision: current.modRevision },
        { $set: { value, modRevision: revision } },
        { session },
      );
      if (res.matchedCount !== 1) throw new Collided();
      await appendLog(
        this.#c.log,
        {
          _id: revision,
          key,
          type: "put",
          value,
          createRevision: current.createRevision,
          prevValue: current.value,
          prevModRevision: current.modRevision,
        },
        session,
      );
      return { key, value, createRevision: current.createRevision, modRevision: revision };
    });
  }

  async delete(key: string, expectedRevision?: Revision): Promise<DeleteResult> {
    return this.#write("delete", key, async (session) => {
      const current = await this.#current(key, session);
      if (!current) throw new NotFoundError(key);
      if (expectedRevision !== undefined && current.modRevision !== expectedRevision)
        throw new ConflictError(key, expectedRevision, current);
      const revision = await this.#nextRevision(session);
      const res = await this.#c.objects.deleteOne(
        { _id: key, modRevision: current.modRevision },
        { session },
      );
      if (res.deletedCount !== 1) throw new Collided();
      await appendLog(
        this.#c.log,
        {
          _id: revision,
          key,
          type: "delete",
          createRevision: current.createRevision,
          prevValue: current.value,
          prevModRevision: current.modRevision,
        },
        session,
      );
      return { prev: current, revision };
    });
  }

  /** The object as the transaction sees it; a malformed document throws and is left alone. */
  async #current(key: string, session: ClientSession): Promise<StoredValue | undefined> {
    const doc = await this.#c.objects.findOne({ _id: key }, { session });
    return doc ? readableObject(key, doc as unknown as Record<string, unknown>) : undefined;
  }

  async #nextRevision(session: ClientSession): Promise<Revision> {
    const doc = await this.#c.meta.findOneAndUpdate(
      { _id: REVISION_ID },
      { $inc: { revision: 1 } },
      { upsert: true, returnDocument: "after", session },
    );
    const revision = readRevision(doc as Record<string, unknown> | null, "revision counter");
    if (revision <= 0) throw new UnavailableError("the revision counter did not advance");
    return revision;
  }

  /**
   * Runs `body` in a transaction with majority write concern, again from the start while it
   * collides with another writer; the contract's errors thrown by `body` abort it and pass on.
   */
  #write<T>(operation: string, key: string, body: (session: ClientSession) => Promise<T>): Promise<T> {
    return this.#counted(operation, key, () => this.#writeInTurn(operation, body));
  }

  async #writeInTurn<T>(operation: string, body: (session: ClientSession) => Promise<T>): Promise<T> {
    this.#check();
    // One transaction at a time from this process: every write updates the counter document,
    // so concurrent ones could only collide on it and run again; across processes the
    // server's conflict detection orders them.
    const turn = this.#writeTurn;
    let done = () => {};
    this.#writeTurn = new Promise<void>((resolve) => {
      done = resolve;
    });
    await turn;
    try {
      return await this.#transact(operation, body);
    } finally {
      done();
    }
  }

  async #transact<T>(operation: string, body: (session: ClientSession) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#settings.writeRetryMs;
    const session = this.#client.startSession();
    try {
      for (let attempt = 0; ; attempt++) {
        session.startTransaction({
          readConcern: { level: "snapshot" },
          writeConcern: { w: "majority" },
        });
        try {
          const result = await body(session);
          await this.#commit(session);
          this.#follower.poke();
          return result;
        } catch (err) {
          if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
          const reason = retryReason(err);
          if (!reason) throw translate(err);
          if (Date.now() > deadline)
            throw reason === "transient"
              ? translate(err)
              : new UnavailableError(
                  `the write kept colliding with other writers for ${this.#settings.writeRetryMs} ms`,
                );
          this.retries++;
          this.#metrics.retried(operation, reason);
          // Spread the colliders out: each retry waits a little longer, at random.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** attempt, 50)));
        }
      }
    } finally {
      await session.endSession().catch(() => undefined);
    }
  }

  /** Commits; a commit whose outcome is unknown is asked again (committing twice is a no-op). */
  async #commit(session: ClientSession): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await session.commitTransaction();
        return;
      } catch (err) {
        if (
          !(err instanceof MongoError && err.hasErrorLabel("UnknownTransactionCommitResult")) ||
          attempt >= 3
        )
          throw err;
      }
    }
  }

  async #compactedRevision(): Promise<Revision> {
    return readRevision(
      (await this.#c.meta.findOne({ _id: COMPACTED_ID })) as Record<string, unknown> | null,
      "compaction point",
    );
  }

  /** Log entries under `prefix` in (after, upTo], or TooOld when compaction removed some. */
  async #readEvents(prefix: string, after: Revision, upTo: Revision): Promise<WatchEvent[]> {
    return this.#call(async () => {
      const compacted = await this.#compactedRevision();
      if (after < compacted) throw new TooOldError(after, compacted);
      if (upTo <= after) return [];
      const docs = await this.#c.log
        .find({ _id: { $gt: after, $lte: upTo }, key: prefixFilter(prefix) } as Document)
        .sort({ _id: 1 })
        .toArray();
      // A compaction that ran during the read may have removed entries it needed.
      const now = await this.#compactedRevision();
      if (after < now) throw new TooOldError(after, now);
      const events: WatchEvent[] = [];
      for (const doc of docs) {
        const event = readLogEntry(doc as unknown as Record<string, unknown>);
        if (event) events.push(event);
      }
      return events;
    });
  }

  watch(prefix: string, afterRevision: Revision, signal: AbortSignal): WatchStream {
    if (this.#closed) return failedWatch(new UnavailableError("storage closed"));
    // While the log cannot be read, a new watch fails at once rather than wait in silence.
    if (!this.#follower.healthy)
      return failedWatch(new UnavailableError("MongoDB unavailable: the event log cannot be read"));
    const inner = this.#feed.watch(prefix, afterRevision, signal);
    return {
      [Symbol.asyncIterator]: () => inner[Symbol.asyncIterator](),
      // The feed answers with what the follower has published: let it read the log up to the
      // counter first, so a progress event covers every write committed before the request.
      requestProgress: () => {
        this.currentRevision().then(
          (target) => this.#follower.reach(target, PROGRESS_WAIT_MS).then(() => inner.requestProgress()),
          () => inner.requestProgress(),
        );
      },
    };
  }

  async currentRevision(): Promise<Revision> {
    return this.#call(async () =>
      readRevision(
        (await this.#c.meta.findOne({ _id: REVISION_ID })) as Record<string, unknown> | null,
        "revision counter",
      ),
    );
  }

  async compact(revision: Revision): Promise<void> {
    return this.#call(async () => {
      const target = Math.min(revision, await this.currentRevision());
      const compacted = await this.#compactedRevision();
      if (target <= compacted) return;
      // The point moves first, so a reader never finds entries missing below an older point.
      // Conditional, so a slower compaction with a lower target never moves the point back.
      const moved = await this.#c.meta.updateOne(
        { _id: COMPACTED_ID, revision: { $lt: target } },
        { $set: { revision: target } },
      );
      if (moved.matchedCount === 0 && compacted === 0) {
        await this.#c.meta.insertOne({ _id: COMPACTED_ID, revision: target }).catch((err: unknown) => {
          if (!(err instanceof MongoError && err.code === DUPLICATE_KEY)) throw err;
        });
      }
      await this.#c.log.deleteMany({ _id: { $lte: target } });
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#feed.close();
    await this.#follower.stop();
    await this.#client.close();
  }
}

function failedWatch(err: Error): WatchStream {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(err) }),
    requestProgress() {},
  };
}
