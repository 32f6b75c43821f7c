// One watch served from the cache. Changes are queued by reference (the cache's history
// entries), so a watcher costs a pointer per pending event; but a queued entry stays alive after
// the history lets it go, so a watcher whose queue passes its bound in events or in bytes is
// closed rather than allowed to grow.

import { Queue } from "../common/queue.ts";
import type { Revision } from "../contract/index.ts";
import type { FieldSelector, LabelSelector } from "../selection/index.ts";
import type { ExpiredError } from "./errors.ts";
import type { ChangeType, HistoryEntry } from "./history.ts";
import type { CachedItem } from "./item.ts";

export type WatchDelivery =
  | {
      readonly type: ChangeType;
      readonly item: CachedItem;
      readonly revision: Revision;
      /** The history entry behind a live change; holds the shared encodings. */
      readonly entry: HistoryEntry | undefined;
    }
  | { readonly type: "BOOKMARK"; readonly revision: Revision; readonly initialEventsEnd: boolean }
  | { readonly type: "ERROR"; readonly error: ExpiredError };

/**
 * Encode a delivery once per media type: live changes keep their encoding on the shared history
 * entry, so a thousand watchers of one change cost one encoding. `mediaKey` names the encoding
 * (media type, version...); no string is built per call.
 */
export function encodeOnce<T>(delivery: WatchDelivery, mediaKey: string, encode: (d: WatchDelivery) => T): T {
  if (delivery.type === "BOOKMARK" || delivery.type === "ERROR") return encode(delivery);
  const entry = delivery.entry;
  if (entry === undefined) return encode(delivery);
  entry.frames ??= { ADDED: undefined, MODIFIED: undefined, DELETED: undefined };
  const frames = entry.frames;
  let byMedia = frames[delivery.type];
  if (byMedia === undefined) {
    byMedia = new Map();
    frames[delivery.type] = byMedia;
  }
  let frame = byMedia.get(mediaKey) as T | undefined;
  if (frame === undefined) {
    frame = encode(delivery);
    byMedia.set(mediaKey, frame);
    entry.history?.charge(entry, frameBytes(frame));
  }
  return frame;
}

function frameBytes(frame: unknown): number {
  if (typeof frame === "string") return frame.length;
  return ArrayBuffer.isView(frame) ? frame.byteLength : 0;
}

/** What a queued delivery keeps alive: its object's JSON (frames come to about the same). */
function deliveryBytes(delivery: WatchDelivery): number {
  return delivery.type === "BOOKMARK" || delivery.type === "ERROR" ? 0 : delivery.item.json.length;
}

/** Default bound on the bytes of changes one watcher may have queued. */
export const DEFAULT_WATCHER_BUFFER_BYTES = 8 * 1024 * 1024;

export type CloseReason = "stopped" | "overflow" | "expired" | "reset";

export interface WatcherFilter {
  readonly keyPrefix: string;
  readonly labelSelector: LabelSelector | undefined;
  readonly fieldSelector: FieldSelector | undefined;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** One iterator's state: its `next()` parked until a change arrives, and calls queued behind it. */
interface Pull {
  resolve: ((result: IteratorResult<WatchDelivery>) => void) | undefined;
  /** The promise of the newest call, while calls wait for earlier ones. */
  tail: Promise<IteratorResult<WatchDelivery>> | undefined;
  queued: number;
}

/**
 * A watch served from the cache. Read it with `for await` (each `next()` resolves at once when a
 * delivery is queued, and a change for a parked `next()` is handed over directly), or in batches
 * with `drain`/`poll` and `wait`.
 */
export class CacheWatcher implements AsyncIterable<WatchDelivery> {
  readonly filter: WatcherFilter;
  readonly allowBookmarks: boolean;
  readonly #maxBuffer: number;
  readonly #maxBufferBytes: number;
  readonly #queue = new Queue<WatchDelivery>();
  #queuedBytes = 0;
  /** Deliveries computed up front (initial state, replayed history), drained before the queue. */
  #initialSource: Iterable<WatchDelivery> | undefined;
  #initial: Iterator<WatchDelivery> | undefined;
  /** An ERROR was handed out: the next read closes the watcher as expired. */
  #expireNext = false;
  /** The iterator whose `next()` is parked; a later iterator's parked call replaces it. */
  #parked: Pull | undefined;
  #wake: (() => void) | undefined;
  #closed: CloseReason | undefined;
  #onClose: ((w: CacheWatcher) => void) | undefined;
  #whenClosed: Promise<CloseReason> | undefined;
  #resolveClosed: ((reason: CloseReason) => void) | undefined;
  /** The newest revision handed to this watcher; bookmarks never go backwards. */
  lastRevision: Revision;

  constructor(options: {
    filter: WatcherFilter;
    allowBookmarks: boolean;
    maxBuffer: number;
    /** Bytes (objects' JSON characters) queued before the watcher is closed; one change always fits. */
    maxBufferBytes?: number;
    startRevision: Revision;
    initial?: Iterable<WatchDelivery>;
    onClose?: (w: CacheWatcher) => void;
  }) {
    this.filter = options.filter;
    this.allowBookmarks = options.allowBookmarks;
    this.#maxBuffer = options.maxBuffer;
    this.#maxBufferBytes = options.maxBufferBytes ?? DEFAULT_WATCHER_BUFFER_BYTES;
    this.lastRevision = options.startRevision;
    this.#initialSource = options.initial;
    this.#onClose = options.onClose;
  }

  get closeReason(): CloseReason | undefined {
    return this.#closed;
  }

  /** Resolves with the reason once the watcher is closed, for readers blocked elsewhere. */
  get whenClosed(): Promise<CloseReason> {
    if (this.#whenClosed === undefined) {
      this.#whenClosed = this.#closed
        ? Promise.resolve(this.#closed)
        : new Promise((resolve) => {
            this.#resolveClosed = resolve;
          });
    }
    return this.#whenClosed;
  }

  get buffered(): number {
    return this.#queue.length;
  }

  get bufferedBytes(): number {
    return this.#queuedBytes;
  }

  matches(item: CachedItem): boolean {
    const f = this.filter;
    return (
      item.key.startsWith(f.keyPrefix) &&
      (!f.labelSelector || f.labelSelector.matches(item.labels)) &&
      (!f.fieldSelector || f.fieldSelector.matches(item.fields))
    );
  }

  /**
   * The change as this watcher sees it: an object that stops matching its selectors is
   * DELETED for it, one that starts matching is ADDED; `undefined` when it sees nothing.
   * Watchers that see the change as it happened share one delivery object.
   */
  view(entry: HistoryEntry): WatchDelivery | undefined {
    const f = this.filter;
    if (!entry.key.startsWith(f.keyPrefix)) return undefined;
    let type: ChangeType;
    if (!f.labelSelector && !f.fieldSelector) {
      // Every object under the prefix matches: the change is seen as it happened.
      type = entry.type;
    } else {
      const now = entry.type !== "DELETED" && this.matches(entry.item);
      const before = entry.prev !== undefined && this.matches(entry.prev);
      if (entry.type === "DELETED") {
        if (!before) return undefined;
        type = "DELETED";
      } else if (now) {
        type = before ? "MODIFIED" : "ADDED";
      } else if (before) {
        type = "DELETED";
      } else {
        return undefined;
      }
    }
    if (type === entry.type) {
      entry.delivery ??= { type, item: entry.item, revision: entry.revision, entry };
      return entry.delivery;
    }
    return { type, item: entry.item, revision: entry.revision, entry };
  }

  /** Queue a live change. */
  offer(entry: HistoryEntry): void {
    if (this.#closed) return;
    const delivery = this.view(entry);
    if (delivery) this.#push(delivery);
  }

  bookmark(revision: Revision): void {
    if (this.#closed || !this.allowBookmarks || revision <= this.lastRevision) return;
    this.#push({ type: "BOOKMARK", revision, initialEventsEnd: false });
  }

  #push(delivery: WatchDelivery): void {
    const bytes = deliveryBytes(delivery);
    if (
      this.#queue.length >= this.#maxBuffer ||
      (this.#queue.length > 0 && this.#queuedBytes + bytes > this.#maxBufferBytes)
    ) {
      this.close("overflow");
      return;
    }
    if (delivery.type !== "ERROR") this.lastRevision = delivery.revision;
    const parked = this.#parked;
    if (parked !== undefined) {
      // A parked next() means nothing is queued: hand the delivery over.
      this.#parked = undefined;
      const resolve = parked.resolve as (result: IteratorResult<WatchDelivery>) => void;
      parked.resolve = undefined;
      resolve({ value: delivery, done: false });
      return;
    }
    this.#queue.push(delivery);
    this.#queuedBytes += bytes;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  close(reason: CloseReason): void {
    if (this.#closed) return;
    this.#closed = reason;
    this.#queue.clear();
    this.#queuedBytes = 0;
    this.#initialSource = undefined;
    this.#initial = undefined;
    const parked = this.#parked;
    this.#parked = undefined;
    if (parked?.resolve !== undefined) {
      const resolve = parked.resolve;
      parked.resolve = undefined;
      resolve(DONE);
    }
    this.#notify();
    this.#resolveClosed?.(reason);
    this.#onClose?.(this);
    this.#onClose = undefined;
  }

  /**
   * The next delivery if one is ready now, else `undefined` (then `closeReason` tells whether
   * more can come). Initial deliveries come first, then live ones in order.
   */
  poll(): WatchDelivery | undefined {
    if (this.#closed) return undefined;
    if (this.#expireNext) {
      this.close("expired");
      return undefined;
    }
    if (this.#initialSource) {
      this.#initial = this.#initialSource[Symbol.iterator]();
      this.#initialSource = undefined;
    }
    if (this.#initial) {
      const next = this.#initial.next();
      if (!next.done) {
        if (next.value.type === "ERROR") this.#expireNext = true;
        return next.value;
      }
      this.#initial = undefined;
    }
    const delivery = this.#queue.shift();
    if (delivery !== undefined) this.#queuedBytes -= deliveryBytes(delivery);
    return delivery;
  }

  /** Up to `max` deliveries that are ready now (an ERROR ends the batch); `[]` when none are. */
  drain(max: number = Number.POSITIVE_INFINITY): WatchDelivery[] {
    const out: WatchDelivery[] = [];
    while (out.length < max) {
      const delivery = this.poll();
      if (delivery === undefined) break;
      out.push(delivery);
      if (delivery.type === "ERROR") break;
    }
    return out;
  }

  /**
   * Resolves when `poll` may have something or the watcher closed. For batch readers
   * (`drain`, `poll`); do not mix with a parked `for await` on the same watcher.
   */
  wait(): Promise<void> {
    if (this.#closed || this.#expireNext || this.#initialSource || this.#initial || this.#queue.length > 0) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
  }

  #pull(pull: Pull): Promise<IteratorResult<WatchDelivery>> {
    let delivery: WatchDelivery | undefined;
    try {
      delivery = this.poll();
    } catch (err) {
      // An initial source failed: the iteration ends with the error, as a generator's would.
      this.close("stopped");
      return Promise.reject(err);
    }
    if (delivery !== undefined) return Promise.resolve({ value: delivery, done: false });
    if (this.#closed) return Promise.resolve(DONE);
    const promise = new Promise<IteratorResult<WatchDelivery>>((resolve) => {
      pull.resolve = resolve;
    });
    pull.tail = promise;
    this.#parked = pull;
    return promise;
  }

  /**
   * Iteration ends when the watcher closes; leaving it (break, return, throw) closes the
   * watcher as stopped. Each call makes an independent iterator over the same deliveries.
   */
  [Symbol.asyncIterator](): AsyncIterator<WatchDelivery> {
    const pull: Pull = { resolve: undefined, tail: undefined, queued: 0 };
    const next = (): Promise<IteratorResult<WatchDelivery>> => {
      if (pull.resolve === undefined && pull.queued === 0) return this.#pull(pull);
      // An earlier call still waits: this one is served after it, in call order.
      pull.queued++;
      const promise = (pull.tail as Promise<IteratorResult<WatchDelivery>>).then(() => {
        pull.queued--;
        return this.#pull(pull);
      });
      pull.tail = promise;
      return promise;
    };
    return {
      next,
      return: (): Promise<IteratorResult<WatchDelivery>> => {
        this.close("stopped");
        return Promise.resolve(DONE);
      },
    };
  }
}
