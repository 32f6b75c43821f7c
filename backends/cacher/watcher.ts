// One watch served from the cache. Changes are queued by reference (the cache's history
// entries), so a watcher costs a pointer per pending event; a watcher whose queue passes its
// bound is closed rather than allowed to grow.

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
 * entry, so a thousand watchers of one change cost one encoding.
 */
export function encodeOnce<T>(delivery: WatchDelivery, mediaKey: string, encode: (d: WatchDelivery) => T): T {
  if (delivery.type === "BOOKMARK" || delivery.type === "ERROR" || !delivery.entry) return encode(delivery);
  const entry = delivery.entry;
  const frameKey = `${delivery.type} ${mediaKey}`;
  entry.frames ??= new Map();
  let frame = entry.frames.get(frameKey) as T | undefined;
  if (frame === undefined) {
    frame = encode(delivery);
    entry.frames.set(frameKey, frame);
  }
  return frame;
}

export type CloseReason = "stopped" | "overflow" | "expired" | "reset";

export interface WatcherFilter {
  readonly keyPrefix: string;
  readonly labelSelector: LabelSelector | undefined;
  readonly fieldSelector: FieldSelector | undefined;
}

export class CacheWatcher implements AsyncIterable<WatchDelivery> {
  readonly filter: WatcherFilter;
  readonly allowBookmarks: boolean;
  readonly #maxBuffer: number;
  readonly #queue = new Queue<WatchDelivery>();
  /** Deliveries computed up front (initial state, replayed history), drained before the queue. */
  #initialSource: Iterable<WatchDelivery> | undefined;
  #initial: Iterator<WatchDelivery> | undefined;
  #wake: (() => void) | undefined;
  #closed: CloseReason | undefined;
  #onClose: ((w: CacheWatcher) => void) | undefined;
  /** The newest revision handed to this watcher; bookmarks never go backwards. */
  lastRevision: Revision;

  constructor(options: {
    filter: WatcherFilter;
    allowBookmarks: boolean;
    maxBuffer: number;
    startRevision: Revision;
    initial?: Iterable<WatchDelivery>;
    onClose?: (w: CacheWatcher) => void;
  }) {
    this.filter = options.filter;
    this.allowBookmarks = options.allowBookmarks;
    this.#maxBuffer = options.maxBuffer;
    this.lastRevision = options.startRevision;
    this.#initialSource = options.initial;
    this.#onClose = options.onClose;
  }

  get closeReason(): CloseReason | undefined {
    return this.#closed;
  }

  get buffered(): number {
    return this.#queue.length;
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
   */
  view(entry: HistoryEntry): WatchDelivery | undefined {
    if (!entry.key.startsWith(this.filter.keyPrefix)) return undefined;
    const now = entry.type !== "DELETED" && this.matches(entry.item);
    const before = entry.prev !== undefined && this.matches(entry.prev);
    let type: ChangeType;
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
    if (this.#queue.length >= this.#maxBuffer) {
      this.close("overflow");
      return;
    }
    if (delivery.type !== "ERROR") this.lastRevision = delivery.revision;
    this.#queue.push(delivery);
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
    this.#initialSource = undefined;
    this.#initial = undefined;
    this.#notify();
    this.#onClose?.(this);
    this.#onClose = undefined;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WatchDelivery> {
    try {
      for (;;) {
        if (this.#closed) return;
        if (this.#initialSource) {
          this.#initial = this.#initialSource[Symbol.iterator]();
          this.#initialSource = undefined;
        }
        if (this.#initial) {
          const next = this.#initial.next();
          if (!next.done) {
            yield next.value;
            if (next.value.type === "ERROR") {
              this.close("expired");
              return;
            }
            continue;
          }
          this.#initial = undefined;
        }
        const delivery = this.#queue.shift();
        if (delivery) {
          yield delivery;
          continue;
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      this.close("stopped");
    }
  }
}
