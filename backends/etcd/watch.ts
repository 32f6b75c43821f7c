// One contract watch = one etcd Watch stream holding one watcher over the prefix's key range.
//
// Progress on request. etcd answers a WatchRequest.progress_request with a response that has
// no events and watch_id -1, carrying the store revision. Before 3.4.31 / 3.5.13 (Debian ships
// 3.4.23) that answer can overtake events still queued on the server, in two ways:
//   1. a watcher that starts in the past is replayed by a background sync loop (every 100 ms);
//      until then an answer claims revisions whose events have not been sent yet;
//   2. etcd's send loop picks at random between queued events and the answer.
// So a request is only sent once the watcher is in sync (it started in the future, or a reply
// batch reached the revision current at its creation, or the sync loop has surely run), and
// each progress takes two rounds: the first answer's revision is reported when the second
// answer arrives, by which time etcd has had a full round trip with nothing else to send.
// Should an event still arrive at or below a reported progress, the watch fails with TooOld so
// the consumer re-lists instead of going on with a wrong view.

import type { ClientDuplexStream } from "@grpc/grpc-js";
import { Queue } from "../common/queue.ts";
import {
  type Revision,
  TooOldError,
  UnavailableError,
  type WatchEvent,
  type WatchStream,
} from "../contract/index.ts";
import { translateError } from "./client.ts";
import type { KeySpace } from "./keys.ts";
import { EVENT_DELETE, type Event, toNumber, type WatchRequest, type WatchResponse } from "./proto.ts";

export interface WatchSettings {
  /** How long after creation a watcher that replays history is taken to be in sync. */
  readonly syncSettleMs: number;
  /** How long etcd may take to confirm a new watcher before the watch fails as Unavailable. */
  readonly createTimeoutMs: number;
  /** Undelivered events past which the stream is paused (etcd then holds them back). */
  readonly highWater: number;
}

/** What a watch needs from the storage object that opened it. */
export interface WatchHost {
  /** Where the watched keys live in etcd. */
  readonly keys: KeySpace;
  isClosed(): boolean;
  openStream(): Promise<{ call: ClientDuplexStream<WatchRequest, WatchResponse>; failed(): void }>;
  /** Calls `fail` when the storage closes; returns the function that stops that. */
  track(fail: (err: Error) => void): () => void;
  /** Throws TooOld when etcd no longer has history after `afterRevision`. */
  checkRetained(afterRevision: Revision): Promise<void>;
}

export class EtcdWatch implements WatchStream {
  readonly #host: WatchHost;
  readonly #prefix: string;
  readonly #after: Revision;
  readonly #signal: AbortSignal;
  readonly #settings: WatchSettings;
  readonly #iterator: AsyncGenerator<WatchEvent>;

  readonly #queue = new Queue<WatchEvent>();
  #failure: Error | undefined;
  #wake: (() => void) | undefined;

  #call: ClientDuplexStream<WatchRequest, WatchResponse> | undefined;
  #ending = false;
  #paused = false;
  #timer: NodeJS.Timeout | undefined;
  #createdRevision = 0;
  #retainedChecked = false;
  #synced = false;
  #fragments: Event[] = [];

  /** Highest revision queued so far, as an event or a progress. */
  #lastQueued: Revision;
  /** Highest progress revision queued: every later event must be above it. */
  #promised = 0;
  #progressWanted = false;
  /** 0: no request out; 1: first answer awaited; 2: second answer awaited. */
  #progressRound = 0;
  #progressRevision = 0;

  constructor(
    host: WatchHost,
    prefix: string,
    afterRevision: Revision,
    signal: AbortSignal,
    settings: WatchSettings,
  ) {
    this.#host = host;
    this.#prefix = prefix;
    this.#after = afterRevision;
    this.#signal = signal;
    this.#settings = settings;
    this.#lastQueued = afterRevision;
    this.#iterator = this.#run();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return this.#iterator;
  }

  requestProgress(): void {
    this.#progressWanted = true;
    this.#sendProgressRequest();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
  }

  async *#run(): AsyncGenerator<WatchEvent> {
    if (this.#host.isClosed()) throw new UnavailableError("storage closed");
    if (this.#signal.aborted) return;
    const untrack = this.#host.track((err) => this.#fail(err));
    const onAbort = () => this.#notify();
    this.#signal.addEventListener("abort", onAbort);
    try {
      this.#open();
      // Hold everything back until etcd has the watcher and history after `after` is known to
      // exist; only then can the first event be trusted to be the next one.
      while (!this.#retainedChecked) {
        if (this.#signal.aborted) return;
        if (this.#failure) throw this.#failure;
        await this.#sleep();
      }
      for (;;) {
        if (this.#signal.aborted) return;
        const event = this.#queue.shift();
        if (event) {
          if (this.#paused && this.#queue.length <= this.#settings.highWater / 2) {
            this.#paused = false;
            this.#call?.resume();
          }
          yield event;
          continue;
        }
        if (this.#failure) throw this.#failure;
        await this.#sleep();
      }
    } finally {
      this.#signal.removeEventListener("abort", onAbort);
      untrack();
      this.#teardown();
    }
  }

  /** Connects, then asks etcd for the watcher; failures and aborts meanwhile are handled. */
  #open(): void {
    const timeout = this.#settings.createTimeoutMs;
    this.#timer = setTimeout(() => {
      this.#fail(new UnavailableError(`etcd did not confirm the watch within ${timeout} ms`));
    }, timeout);
    this.#host.openStream().then(
      ({ call, failed }) => {
        if (this.#ending) {
          call.on("error", () => {});
          call.cancel();
        } else {
          this.#attach(call, failed);
        }
      },
      (err: unknown) => this.#fail(err instanceof Error ? err : new Error(String(err))),
    );
  }

  #attach(call: ClientDuplexStream<WatchRequest, WatchResponse>, failed: () => void): void {
    this.#call = call;
    call.on("data", (res: WatchResponse) => {
      try {
        this.#onResponse(res);
      } catch (err) {
        // A response this code cannot digest must end the watch, not the process.
        this.#fail(err instanceof Error ? err : new Error(String(err)));
      }
    });
    call.on("error", (err: Error) => {
      if (this.#ending) return;
      failed();
      this.#fail(translateError(err, "watch"));
    });
    call.on("end", () => {
      if (!this.#ending) this.#fail(new UnavailableError("etcd closed the watch stream"));
    });
    const { key, rangeEnd } = this.#host.keys.range(this.#prefix);
    call.write({
      createRequest: {
        key,
        rangeEnd,
        startRevision: this.#after + 1,
        prevKv: true,
        progressNotify: true,
        fragment: true,
      },
    });
  }

  #onResponse(res: WatchResponse): void {
    if (this.#ending) return;
    const revision = toNumber(res.header?.revision);
    if (res.canceled) {
      const compacted = toNumber(res.compactRevision);
      this.#fail(
        compacted > 0
          ? new TooOldError(this.#after, compacted)
          : new UnavailableError(`etcd canceled the watch${res.cancelReason ? `: ${res.cancelReason}` : ""}`),
      );
      return;
    }
    if (res.created) {
      this.#onCreated(revision);
      return;
    }
    if (res.fragment) {
      this.#fragments.push(...res.events);
      return;
    }
    const events = this.#fragments.length > 0 ? [...this.#fragments, ...res.events] : res.events;
    this.#fragments = [];
    if (events.length > 0) {
      for (const event of events) {
        if (!this.#queueEvent(event)) return;
      }
      // A reply that reaches the creation-time revision ends the history replay.
      if (revision >= this.#createdRevision) this.#markSynced();
      if (!this.#paused && this.#queue.length >= this.#settings.highWater) {
        this.#paused = true;
        this.#call?.pause();
      }
      this.#notify();
      return;
    }
    // No events: a progress notification. watch_id -1 answers a progress_request; the watcher's
    // own id marks etcd's periodic notification, which travels in order with the events.
    if (toNumber(res.watchId) === -1) this.#onRequestedProgress(revision);
    else this.#queueProgress(revision);
  }

  #onCreated(revision: Revision): void {
    this.#createdRevision = revision;
    clearTimeout(this.#timer);
    if (this.#after + 1 > revision) {
      this.#markSynced();
    } else {
      this.#timer = setTimeout(() => this.#markSynced(), this.#settings.syncSettleMs);
    }
    // Checked after etcd registered the watcher, so a compaction racing with the creation
    // cannot slip between the check and the watcher.
    this.#host.checkRetained(this.#after).then(
      () => {
        this.#retainedChecked = true;
        this.#notify();
      },
      (err: unknown) => this.#fail(err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** Converts one etcd event; false when the watch failed instead. */
  #queueEvent(event: Event): boolean {
    if (!event.kv) return true;
    const kv = this.#host.keys.stored(event.kv);
    const revision = kv.modRevision;
    if (revision <= this.#promised) {
      this.#fail(
        new TooOldError(
          this.#promised,
          revision,
          `etcd sent revision ${revision} after reporting progress up to ${this.#promised}; re-list`,
        ),
      );
      return false;
    }
    const prev = event.prevKv ? this.#host.keys.stored(event.prevKv) : undefined;
    if (event.type === EVENT_DELETE) {
      if (!prev) {
        this.#fail(
          new TooOldError(
            revision - 1,
            revision,
            `the value of ${kv.key} before revision ${revision} was compacted`,
          ),
        );
        return false;
      }
      this.#queue.push({ type: "delete", key: kv.key, revision, prev });
    } else {
      if (!prev && kv.createRevision < revision) {
        this.#fail(
          new TooOldError(
            revision - 1,
            revision,
            `the value of ${kv.key} before revision ${revision} was compacted`,
          ),
        );
        return false;
      }
      this.#queue.push(prev ? { type: "put", kv, prev } : { type: "put", kv });
    }
    if (revision > this.#lastQueued) this.#lastQueued = revision;
    return true;
  }

  #queueProgress(revision: Revision): void {
    const reported = Math.max(revision, this.#lastQueued);
    this.#lastQueued = reported;
    this.#promised = reported;
    this.#queue.push({ type: "progress", revision: reported });
    this.#notify();
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    clearTimeout(this.#timer);
    this.#sendProgressRequest();
  }

  #sendProgressRequest(): void {
    if (!this.#progressWanted || !this.#synced || this.#progressRound !== 0) return;
    if (!this.#call || this.#ending) return;
    this.#progressWanted = false;
    this.#progressRound = 1;
    this.#call.write({ progressRequest: {} });
  }

  #onRequestedProgress(revision: Revision): void {
    if (this.#progressRound === 1) {
      this.#progressRevision = revision;
      this.#progressRound = 2;
      this.#call?.write({ progressRequest: {} });
    } else if (this.#progressRound === 2) {
      this.#progressRound = 0;
      this.#queueProgress(this.#progressRevision);
      this.#sendProgressRequest();
    }
  }

  #fail(err: Error): void {
    this.#failure ??= err;
    this.#teardown();
    this.#notify();
  }

  /** Ends the gRPC call, which makes etcd drop the watcher. */
  #teardown(): void {
    if (this.#ending) return;
    this.#ending = true;
    clearTimeout(this.#timer);
    this.#call?.cancel();
  }
}
