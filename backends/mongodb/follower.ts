// Follows the event log and publishes every committed change, in revision order, to the
// in-process feed that watches read from. One follower per storage, whatever the number of
// watches: with a change stream where the server has them, by polling the log otherwise.
//
// Revisions are assigned by the counter inside each write's transaction, so a revision becomes
// visible only after every lower one has (see storage.ts); a hole in what the follower reads is
// therefore either a compaction that overtook it, or an entry deleted by hand.

import type { ChangeStream, Collection, Document, ResumeToken } from "mongodb";
import { type Revision, TooOldError, UnavailableError, type WatchEvent } from "../contract/index.ts";
import { type LogDoc, readLogEntry } from "./documents.ts";

export type FollowMode = "changeStream" | "poll";

export interface FollowerHost {
  readonly log: Collection<LogDoc>;
  /** The revision below which the log has been trimmed. */
  compactedRevision(): Promise<Revision>;
  publish(event: WatchEvent): void;
  /** The follower lost the server or fell behind compaction: current watches must end. */
  interrupt(err: Error): void;
  /** Errors to log: a follower never throws to anyone. */
  report(err: unknown, context: string): void;
  /** Maps a driver error to the contract's errors (Unavailable for connection loss). */
  translate(err: unknown): Error;
}

export interface FollowerSettings {
  readonly mode: FollowMode;
  /** Polling: the pause between reads of the log when the last read found nothing new. */
  readonly pollIntervalMs: number;
  /** Polling: how long a hole in the log may stay before it is skipped as lost. */
  readonly holeTimeoutMs: number;
}

/** Entries read per batch when catching up. */
const BATCH = 1000;
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2000;

export class LogFollower {
  readonly #host: FollowerHost;
  readonly #settings: FollowerSettings;
  #published: Revision;
  #stopped = false;
  #healthy = true;
  #stream: ChangeStream<LogDoc> | undefined;
  #resumeToken: ResumeToken | undefined;
  #wake: (() => void) | undefined;
  #holeSince: number | undefined;
  #loop: Promise<void> | undefined;
  #waiters: { readonly target: Revision; readonly resolve: () => void }[] = [];

  constructor(host: FollowerHost, settings: FollowerSettings, published: Revision) {
    this.#host = host;
    this.#settings = settings;
    this.#published = published;
  }

  get mode(): FollowMode {
    return this.#settings.mode;
  }

  /** Every change up to this revision has been published. */
  get published(): Revision {
    return this.#published;
  }

  /** False while the server cannot be read; watches started then fail. */
  get healthy(): boolean {
    return this.#healthy;
  }

  start(): void {
    this.#loop = this.#run();
  }

  /** Read the log now rather than at the next poll (after a local write, say). */
  poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /**
   * Resolves once everything up to `target` has been published (or after `timeoutMs`, so a
   * stalled follower cannot hold a caller forever).
   */
  reach(target: Revision, timeoutMs: number): Promise<void> {
    if (this.#published >= target || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const waiter = { target, resolve: done };
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#waiters.push(waiter);
      this.poke();
    });
  }

  #release(): void {
    if (this.#waiters.length === 0) return;
    const still = [];
    for (const w of this.#waiters) {
      if (w.target <= this.#published || this.#stopped) w.resolve();
      else still.push(w);
    }
    this.#waiters = still;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#release();
    this.poke();
    await this.#stream?.close().catch(() => undefined);
    await this.#loop;
  }

  async #run(): Promise<void> {
    let delay = RETRY_MIN_MS;
    while (!this.#stopped) {
      try {
        if (this.#settings.mode === "changeStream") await this.#followStream();
        else await this.#poll();
        if (!this.#healthy) this.#healthy = true;
        delay = RETRY_MIN_MS;
      } catch (err) {
        if (this.#stopped) return;
        const failure = err instanceof TooOldError ? err : this.#host.translate(err);
        if (this.#healthy || failure instanceof TooOldError)
          this.#host.report(err, "following the event log");
        this.#healthy = false;
        // Watches end and come back through their own catch-up from the log, so nothing is lost.
        this.#host.interrupt(
          failure instanceof TooOldError
            ? new UnavailableError("the event log was compacted past the follower")
            : failure,
        );
        if (failure instanceof TooOldError) {
          // Nothing at or below the compaction point can be published any more.
          this.#published = Math.max(this.#published, failure.oldest);
        }
        await this.#sleep(delay);
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * Reads entries above the published revision and publishes the contiguous run. Returns how
   * many were published.
   */
  async #catchUp(): Promise<number> {
    let published = 0;
    for (;;) {
      const docs = await this.#host.log
        .find({ _id: { $gt: this.#published } })
        .sort({ _id: 1 })
        .limit(BATCH)
        .toArray();
      for (const doc of docs) {
        if (!(await this.#accept(doc._id))) return published;
        this.#publish(doc);
        published++;
      }
      if (docs.length < BATCH) return published;
    }
  }

  /** Whether the entry at `revision` may be published now (it follows the last one). */
  async #accept(revision: unknown): Promise<boolean> {
    if (typeof revision !== "number") return true;
    if (revision <= this.#published + 1) {
      this.#holeSince = undefined;
      return true;
    }
    const compacted = await this.#host.compactedRevision();
    if (compacted > this.#published) throw new TooOldError(this.#published, compacted);
    // A hole no compaction explains: an entry removed by hand. Wait a little, then skip it.
    this.#holeSince ??= Date.now();
    if (Date.now() - this.#holeSince < this.#settings.holeTimeoutMs) return false;
    this.#host.report(
      new Error(`event log entries ${this.#published + 1} to ${revision - 1} are missing`),
      "following the event log",
    );
    this.#holeSince = undefined;
    return true;
  }

  #publish(doc: Record<string, unknown>): void {
    const event = readLogEntry(doc);
    const revision = doc._id;
    if (typeof revision === "number" && revision > this.#published) this.#published = revision;
    if (event) this.#host.publish(event);
    else
      this.#host.report(
        new Error(`malformed event log entry ${String(revision)}`),
        "following the event log",
      );
    this.#release();
  }

  async #poll(): Promise<void> {
    while (!this.#stopped) {
      const n = await this.#catchUp();
      if (!this.#healthy) this.#healthy = true;
      if (n === 0) await this.#sleep(this.#settings.pollIntervalMs);
    }
  }

  /**
   * Opens a change stream on inserts into the log (majority-committed by the server's rules),
   * reads what was committed before it opened, then publishes each insert as it comes. The
   * driver resumes by itself after resumable errors; after any other error this reopens from
   * the last resume token and the catch-up read fills whatever the token no longer covers.
   */
  async #followStream(): Promise<void> {
    const pipeline: Document[] = [{ $match: { operationType: "insert" } }];
    const stream = this.#host.log.watch<LogDoc>(pipeline, {
      ...(this.#resumeToken ? { resumeAfter: this.#resumeToken } : {}),
      fullDocument: "default",
    });
    this.#stream = stream;
    try {
      // The stream exists on the server once the first getMore returns; read the log after that.
      let change = await stream.tryNext();
      await this.#catchUp();
      this.#healthy = true;
      while (!this.#stopped) {
        change ??= await stream.next();
        this.#resumeToken = stream.resumeToken;
        const doc =
          change.operationType === "insert"
            ? (change.fullDocument as unknown as Record<string, unknown>)
            : undefined;
        change = null;
        const revision = doc?._id;
        if (!doc || (typeof revision === "number" && revision <= this.#published)) continue;
        if (typeof revision === "number" && revision > this.#published + 1) {
          // Entries committed while the stream was being (re)opened: the log itself has them.
          while (!this.#stopped && revision > this.#published + 1 && !(await this.#accept(revision))) {
            await this.#catchUp();
            if (revision > this.#published + 1) await this.#sleep(this.#settings.pollIntervalMs);
          }
          if (revision <= this.#published) continue;
        }
        this.#publish(doc);
      }
    } finally {
      this.#stream = undefined;
      await stream.close().catch(() => undefined);
    }
  }
}
