// The cache's window of recent changes: it replays watches that start in the past and
// reconstructs the state at a past revision for exact and continued lists. The window is bounded
// by age, by count and by bytes; the byte budget is shared by every resource's history.
import { getHeapStatistics } from "node:v8";
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
  /** What this entry is charged in its history's byte account: its item's JSON and its frames. */
  bytes?: number;
  /** The history that holds the entry; unset once it leaves, so later frames are not charged. */
  history?: History | undefined;
}

/**
 * The default history byte budget: a sixteenth of the JavaScript heap limit, which Node derives
 * from the machine's memory (or `--max-old-space-size`). Cached JSON lives in that heap, so the
 * history can never take more than a fraction of what the process may use.
 */
export function defaultHistoryBytes(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 16);
}

/**
 * A byte budget shared by histories. Past it, the oldest entries of the largest history go
 * first, so one resource churning large objects shortens its own window, not everyone's.
 */
export class HistoryBudget {
  readonly maxBytes: number;
  #bytes = 0;
  readonly #histories = new Set<History>();

  constructor(maxBytes: number = defaultHistoryBytes()) {
    this.maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  join(history: History): void {
    this.#histories.add(history);
  }

  leave(history: History): void {
    this.#histories.delete(history);
  }

  /** Add (or, negative, give back) bytes; past the budget, drop entries until within it. */
  charge(bytes: number): void {
    this.#bytes += bytes;
    if (bytes <= 0) return;
    while (this.#bytes > this.maxBytes) {
      let largest: History | undefined;
      for (const h of this.#histories) if (h.length > 0 && (!largest || h.bytes > largest.bytes)) largest = h;
      if (!largest) return;
      largest.dropOldest();
    }
  }
}

export class History {
  #entries: HistoryEntry[] = [];
  #head = 0;
  #oldest: Revision;
  #bytes = 0;
  readonly #budget: HistoryBudget | undefined;

  constructor(startRevision: Revision, budget?: HistoryBudget) {
    this.#oldest = startRevision;
    this.#budget = budget;
    budget?.join(this);
  }

  /** Bytes charged for the entries held: JSON characters of items and cached frames. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The oldest revision whose state can be rebuilt and from which a watch can start. */
  get oldestRevision(): Revision {
    return this.#oldest;
  }

  get length(): number {
    return this.#entries.length - this.#head;
  }

  /**
   * Add the newest change. Its item is charged (an entry's `prev` is the previous entry's item
   * or the live object, so one object per change is what the history adds); frames are charged
   * as they are cached (`charge`).
   */
  push(entry: HistoryEntry): void {
    entry.bytes = 0;
    entry.history = this;
    this.#entries.push(entry);
    this.charge(entry, entry.item.json.length);
  }

  charge(entry: HistoryEntry, bytes: number): void {
    entry.bytes = (entry.bytes ?? 0) + bytes;
    this.#bytes += bytes;
    this.#budget?.charge(bytes);
  }

  /** Drop entries older than `minTime`, and beyond `maxEntries`. */
  trim(minTime: number, maxEntries: number): void {
    while (this.#head < this.#entries.length) {
      const first = this.#entries[this.#head] as HistoryEntry;
      if (first.time >= minTime && this.length <= maxEntries) break;
      this.dropOldest();
    }
  }

  dropOldest(): void {
    const entries = this.#entries;
    const first = entries[this.#head] as HistoryEntry | undefined;
    if (first === undefined) return;
    this.#oldest = first.revision;
    entries[this.#head++] = undefined as unknown as HistoryEntry;
    this.#release(first);
    if (this.#head > 1024 && this.#head * 2 > entries.length) {
      this.#entries = entries.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Give the budget back everything (the cache relisted or stopped). */
  close(): void {
    for (let i = this.#head; i < this.#entries.length; i++) this.#release(this.#entries[i] as HistoryEntry);
    this.#entries = [];
    this.#head = 0;
    this.#budget?.leave(this);
  }

  #release(entry: HistoryEntry): void {
    const bytes = entry.bytes ?? 0;
    entry.history = undefined;
    this.#bytes -= bytes;
    this.#budget?.charge(-bytes);
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
