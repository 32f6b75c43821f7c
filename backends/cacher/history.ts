// The cache's window of recent changes: it replays watches that start in the past and
// reconstructs the state at a past revision for exact and continued lists.
import type { Revision } from "../contract/index.ts";
import type { CachedItem } from "./item.ts";
import type { WatchDelivery } from "./watcher.ts";

export type ChangeType = "ADDED" | "MODIFIED" | "DELETED";

/** Encoded watch frames of one change: per event type as a watcher sees it, then per media type. */
export interface FrameCache {
  ADDED: Map<string, unknown> | undefined;
  MODIFIED: Map<string, unknown> | undefined;
  DELETED: Map<string, unknown> | undefined;
}

export interface HistoryEntry {
  readonly revision: Revision;
  readonly type: ChangeType;
  readonly key: string;
  /** The new state; for DELETED, the removed object stamped with the deletion revision. */
  readonly item: CachedItem;
  /** The state before this change, absent for ADDED. */
  readonly prev: CachedItem | undefined;
  readonly time: number;
  /** Encoded watch frames, shared by every watcher (see encodeOnce). */
  frames?: FrameCache;
  /**
   * The delivery of this change as it happened (type `type`), shared by every watcher that sees
   * it so (all watchers without selectors); see CacheWatcher.view.
   */
  delivery?: WatchDelivery;
}

export class History {
  #entries: HistoryEntry[] = [];
  #head = 0;
  #oldest: Revision;

  constructor(startRevision: Revision) {
    this.#oldest = startRevision;
  }

  /** The oldest revision whose state can be rebuilt and from which a watch can start. */
  get oldestRevision(): Revision {
    return this.#oldest;
  }

  get length(): number {
    return this.#entries.length - this.#head;
  }

  push(entry: HistoryEntry): void {
    this.#entries.push(entry);
  }

  /** Drop entries older than `minTime`, and beyond `maxEntries`. */
  trim(minTime: number, maxEntries: number): void {
    const entries = this.#entries;
    while (this.#head < entries.length) {
      const first = entries[this.#head] as HistoryEntry;
      if (first.time >= minTime && entries.length - this.#head <= maxEntries) break;
      this.#oldest = first.revision;
      entries[this.#head++] = undefined as unknown as HistoryEntry;
    }
    if (this.#head > 1024 && this.#head * 2 > entries.length) {
      this.#entries = entries.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Entries with a revision above `revision`, oldest first. */
  after(revision: Revision): HistoryEntry[] {
    const entries = this.#entries;
    let lo = this.#head;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((entries[mid] as HistoryEntry).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return entries.slice(lo);
  }

  /**
   * For every key changed after `revision`, its state at `revision` (`null`: absent then).
   * Undoing newest-first leaves each key at the value before its earliest later change.
   */
  stateAt(revision: Revision): Map<string, CachedItem | null> {
    const later = this.after(revision);
    const state = new Map<string, CachedItem | null>();
    for (let i = later.length - 1; i >= 0; i--) {
      const entry = later[i] as HistoryEntry;
      state.set(entry.key, entry.prev ?? null);
    }
    return state;
  }
}
