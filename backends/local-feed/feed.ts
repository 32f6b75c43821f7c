// The in-process change feed shared by the stores that live inside the gateway process
// (memory, embedded). A store publishes each committed event in revision order; a watcher
// first catches up from the store's retained history, then follows live events.

import { Queue } from "../common/queue.ts";
import {
  eventKey,
  eventRevision,
  type Revision,
  TooOldError,
  UnavailableError,
  type WatchEvent,
  type WatchStream,
} from "../contract/index.ts";

/** What a store lends the feed: its retained history and its compaction point. */
export interface FeedHistory {
  /** Events under `prefix` with revision in (after, upTo], in order. */
  readEvents(
    prefix: string,
    after: Revision,
    upTo: Revision,
  ): Iterable<WatchEvent> | Promise<Iterable<WatchEvent>>;
  /** Watches must start at or above this revision. */
  compactedRevision(): Revision;
  /** The last revision whose event has been published. */
  publishedRevision(): Revision;
}

/**
 * A live watcher can lag this many events behind before it is cut off with Unavailable; the
 * consumer then re-watches from its last revision and catches up from history.
 */
const DEFAULT_MAX_PENDING = 100_000;

interface Subscriber {
  readonly prefix: string;
  push(event: WatchEvent): void;
  fail(err: Error): void;
}

export class LocalFeed {
  readonly #history: FeedHistory;
  readonly #subscribers = new Set<Subscriber>();
  readonly #maxPending: number;
  #closed = false;

  constructor(history: FeedHistory, options: { maxPending?: number } = {}) {
    this.#history = history;
    this.#maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /** Hand a committed event to every watcher of a matching prefix. Call in revision order. */
  publish(event: WatchEvent): void {
    const key = eventKey(event);
    for (const sub of this.#subscribers) {
      if (key === undefined || key.startsWith(sub.prefix)) sub.push(event);
    }
  }

  /**
   * End every current watch with `err` and keep serving new ones (a store that lost its
   * source of events: its watchers come back and catch up from history).
   */
  interrupt(err: Error): void {
    for (const sub of this.#subscribers) sub.fail(err);
    this.#subscribers.clear();
  }

  /** End every watch with Unavailable (the store is closing). */
  close(): void {
    this.#closed = true;
    for (const sub of this.#subscribers) sub.fail(new UnavailableError("storage closed"));
    this.#subscribers.clear();
  }

  watch(prefix: string, afterRevision: Revision, signal: AbortSignal): WatchStream {
    const feed = this;
    const history = this.#history;
    const maxPending = this.#maxPending;
    const subscribers = this.#subscribers;
    let progressWanted = false;
    let wake: (() => void) | undefined;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };

    async function* run(): AsyncGenerator<WatchEvent> {
      if (feed.#closed) throw new UnavailableError("storage closed");
      if (signal.aborted) return;
      const compacted = history.compactedRevision();
      if (afterRevision < compacted) throw new TooOldError(afterRevision, compacted);

      // Subscribe before reading history so nothing committed in between is missed; live
      // events at or below the catch-up point are dropped as duplicates.
      const pending = new Queue<WatchEvent>();
      let failure: Error | undefined;
      const sub: Subscriber = {
        prefix,
        push(event) {
          if (pending.length >= maxPending) {
            sub.fail(new UnavailableError("watcher fell too far behind the store"));
            return;
          }
          pending.push(event);
          notify();
        },
        fail(err) {
          failure ??= err;
          subscribers.delete(sub);
          notify();
        },
      };
      subscribers.add(sub);
      const onAbort = () => notify();
      signal.addEventListener("abort", onAbort);
      try {
        let last = afterRevision;
        const upTo = history.publishedRevision();
        for (const event of await history.readEvents(prefix, afterRevision, upTo)) {
          if (signal.aborted) return;
          last = eventRevision(event);
          yield event;
        }
        // A compaction racing with the catch-up is the history reader's to detect (it reads a
        // consistent snapshot or throws TooOld); what it returned is complete.
        last = Math.max(last, upTo);

        for (;;) {
          if (signal.aborted) return;
          const event = pending.shift();
          if (event) {
            const rev = eventRevision(event);
            if (event.type === "progress") {
              if (rev > last) last = rev;
              yield { type: "progress", revision: last };
              continue;
            }
            if (rev <= last) continue;
            last = rev;
            yield event;
            continue;
          }
          if (failure) throw failure;
          if (progressWanted) {
            progressWanted = false;
            last = Math.max(last, history.publishedRevision());
            yield { type: "progress", revision: last };
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      } finally {
        signal.removeEventListener("abort", onAbort);
        subscribers.delete(sub);
      }
    }

    const iterable = run();
    return {
      [Symbol.asyncIterator]: () => iterable,
      requestProgress() {
        progressWanted = true;
        notify();
      },
    };
  }
}
