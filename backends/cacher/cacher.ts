// The watch cache for one resource prefix: primed by a list, fed by a watch, it serves every
// read rule of the spec's resourceVersion tables and fans changes out to watchers.
import {
  isStorageError,
  type Revision,
  type Storage,
  type StoredValue,
  UnavailableError,
  type WatchEvent,
  type WatchStream,
} from "../contract/index.ts";
import type { FieldSelector, LabelSelector } from "../selection/index.ts";
import { encodeContinue } from "./continue-token.ts";
import { CacheTimeoutError, ExpiredError, TooLargeResourceVersionError } from "./errors.ts";
import { History, HistoryBudget, type HistoryEntry } from "./history.ts";
import { type CachedItem, type ItemDecoder, jsonItemDecoder } from "./item.ts";
import { getMode, listMode, type ReadMode, type WatchModeRequest, watchStart } from "./read-options.ts";
import { prefixEnd, SortedKeys } from "./sorted-keys.ts";
import { CacheWatcher, type WatchDelivery } from "./watcher.ts";

export interface CacherOptions {
  readonly storage: Storage;
  /** The resource prefix, e.g. `/core/pods/`. */
  readonly prefix: string;
  readonly decoder?: ItemDecoder;
  /** How long changes stay replayable (default 5 minutes, the compaction interval). */
  readonly historyWindowMs?: number;
  /** Upper bound on retained changes, whatever their age (default 50,000). */
  readonly maxHistory?: number;
  /**
   * Bytes of retained changes, shared with every cache given the same budget; past it the
   * largest history drops its oldest changes (default: a budget of this cache's own, a sixteenth
   * of the heap limit).
   */
  readonly historyBudget?: HistoryBudget;
  /** Events a watcher may have pending before it is closed (default 1,000). */
  readonly watcherBufferSize?: number;
  /** Bytes of changes a watcher may have pending before it is closed (default 8 MiB). */
  readonly watcherBufferBytes?: number;
  /** How often watchers that asked for bookmarks get one (default 60 s). */
  readonly bookmarkIntervalMs?: number;
  /** How long a read waits for a revision before timing out (default 3 s). */
  readonly waitTimeoutMs?: number;
  /** Whether `sendInitialEvents` may be used (feature gate WatchList). */
  readonly watchListEnabled?: boolean;
  readonly now?: () => number;
  readonly onError?: (err: unknown, context: string) => void;
}

export interface CacheListRequest {
  /** The key range to list: the resource prefix, or a namespace below it. */
  readonly keyPrefix: string;
  readonly resourceVersion?: string | undefined;
  readonly resourceVersionMatch?: string | undefined;
  readonly limit?: number | undefined;
  readonly continue?: string | undefined;
  readonly labelSelector?: LabelSelector | undefined;
  readonly fieldSelector?: FieldSelector | undefined;
}

export interface CacheListResult {
  readonly items: CachedItem[];
  readonly revision: Revision;
  /** Token for the next page; absent on the last one. */
  readonly continue: string | undefined;
  /** Items after this page, when paging without selectors. */
  readonly remainingItemCount: number | undefined;
}

export interface CacheWatchRequest extends WatchModeRequest {
  readonly keyPrefix: string;
  readonly allowWatchBookmarks?: boolean | undefined;
  readonly labelSelector?: LabelSelector | undefined;
  readonly fieldSelector?: FieldSelector | undefined;
}

interface Waiter {
  readonly revision: Revision;
  readonly resolve: () => void;
}

/** The state at a past revision: keys changed since then map to their value then. */
interface Snapshot {
  readonly revision: Revision;
  readonly overlay: Map<string, CachedItem | null> | undefined;
  /** Keys that existed at `revision` but not now, sorted. */
  readonly gone: string[];
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

export class Cacher {
  readonly prefix: string;
  readonly #storage: Storage;
  readonly #decode: ItemDecoder;
  readonly #historyWindowMs: number;
  readonly #maxHistory: number;
  readonly #bufferSize: number;
  readonly #bufferBytes: number | undefined;
  readonly #budget: HistoryBudget;
  readonly #bookmarkIntervalMs: number;
  readonly #waitTimeoutMs: number;
  readonly #watchListEnabled: boolean;
  readonly #now: () => number;
  readonly #onError: (err: unknown, context: string) => void;

  #items = new Map<string, CachedItem>();
  /** Keys whose stored value cannot be read back (it fails to decrypt): a get of one fails. */
  #unreadable = new Map<string, Error>();
  /** The same items in key order, for ranges. */
  readonly #sorted = new SortedKeys<CachedItem>();
  #history: History;
  #revision: Revision = 0;
  #primed = false;
  #connected = false;
  #lastError: Error | undefined;
  #stream: WatchStream | undefined;
  #progressAsked = false;
  readonly #watchers = new Set<CacheWatcher>();
  #waiters: Waiter[] = [];
  #readyWaiters: (() => void)[] = [];
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  #bookmarkTimer: NodeJS.Timeout | undefined;

  constructor(options: CacherOptions) {
    this.#storage = options.storage;
    this.prefix = options.prefix;
    this.#decode = options.decoder ?? jsonItemDecoder();
    this.#historyWindowMs = options.historyWindowMs ?? 5 * 60_000;
    this.#maxHistory = options.maxHistory ?? 50_000;
    this.#bufferSize = options.watcherBufferSize ?? 1_000;
    this.#bufferBytes = options.watcherBufferBytes;
    this.#budget = options.historyBudget ?? new HistoryBudget();
    this.#history = new History(0, this.#budget);
    this.#bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.#waitTimeoutMs = options.waitTimeoutMs ?? 3_000;
    this.#watchListEnabled = options.watchListEnabled ?? false;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => {});
  }

  /** Start priming and following the store; resolves once the first list is loaded. */
  async start(): Promise<void> {
    this.#loop ??= this.#run();
    this.#bookmarkTimer ??= setInterval(() => this.#bookmarkTick(), this.#bookmarkIntervalMs);
    this.#bookmarkTimer.unref();
    await this.#whenReady(Number.POSITIVE_INFINITY);
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    clearInterval(this.#bookmarkTimer);
    for (const w of this.#watchers) w.close("stopped");
    this.#watchers.clear();
    for (const resolve of this.#readyWaiters) resolve();
    await this.#loop;
    this.#history.close();
  }

  /** Connected to the store and current: what readiness reports. */
  get ready(): boolean {
    return this.#primed && this.#connected;
  }

  get lastError(): Error | undefined {
    return this.#lastError;
  }

  get revision(): Revision {
    return this.#revision;
  }

  get size(): number {
    return this.#items.size;
  }

  get watcherCount(): number {
    return this.#watchers.size;
  }

  // ---- following the store -------------------------------------------------------------

  async #run(): Promise<void> {
    let delay = RETRY_MIN_MS;
    let relist = true;
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        if (relist) {
          await this.#relist();
          relist = false;
        }
        await this.#follow(() => {
          delay = RETRY_MIN_MS;
        });
      } catch (err) {
        if (signal.aborted) break;
        this.#connected = false;
        this.#lastError = err instanceof Error ? err : new Error(String(err));
        this.#onError(err, `cache ${this.prefix}`);
        // History below our revision is gone from the store: start over from a fresh list.
        if (isStorageError(err, "TooOld")) relist = true;
        await sleep(delay, signal);
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    }
    this.#connected = false;
  }

  async #relist(): Promise<void> {
    const { items, revision } = await this.#storage.list(this.prefix);
    const map = new Map<string, CachedItem>();
    const sorted: CachedItem[] = [];
    const unreadable = new Map<string, Error>();
    for (const kv of items) {
      if (kv.unreadable) {
        unreadable.set(kv.key, kv.unreadable);
        this.#onError(kv.unreadable, `unreadable value at ${kv.key}`);
        continue;
      }
      const item = this.#decodeSafely(kv.key, kv.value, kv.modRevision);
      if (!item) continue;
      map.set(kv.key, item);
      sorted.push(item);
    }
    // Watchers saw a state that the new list may not continue; they must relist too.
    if (this.#primed) for (const w of this.#watchers) w.close("reset");
    this.#items = map;
    this.#unreadable = unreadable;
    this.#sorted.reset(sorted);
    this.#history.close();
    this.#history = new History(revision, this.#budget);
    this.#revision = revision;
    this.#primed = true;
    this.#releaseWaiters();
  }

  async #follow(onConnected: () => void): Promise<void> {
    const stream = this.#storage.watch(this.prefix, this.#revision, this.#stop.signal);
    this.#stream = stream;
    this.#connected = true;
    this.#lastError = undefined;
    this.#releaseReady();
    // A new stream has not seen earlier progress requests.
    if (this.#waiters.length > 0) this.#askProgress();
    try {
      for await (const event of stream) {
        onConnected();
        this.#apply(event);
      }
    } finally {
      this.#stream = undefined;
      this.#progressAsked = false;
    }
    if (!this.#stop.signal.aborted) throw new UnavailableError("watch ended");
  }

  #decodeSafely(key: string, value: string, revision: Revision): CachedItem | undefined {
    try {
      return this.#decode(key, value, revision);
    } catch (err) {
      this.#onError(err, `undecodable value at ${key}`);
      return undefined;
    }
  }

  #apply(event: WatchEvent): void {
    if (event.type === "progress") {
      this.#progressAsked = false;
      if (event.revision > this.#revision) {
        this.#revision = event.revision;
        this.#releaseWaiters();
      }
      // A store may report a commit as current before its event is on the feed; whoever still
      // waits for it asks again on the next turn rather than waiting for unrelated traffic.
      if (this.#waiters.length > 0) setImmediate(() => this.#askProgress());
      return;
    }
    let entry: HistoryEntry | undefined;
    const time = this.#now();
    if (event.type === "put") {
      const { key, value, modRevision } = event.kv;
      if (modRevision <= this.#revision) return;
      const unreadable = event.kv.unreadable;
      if (unreadable) {
        this.#unreadable.set(key, unreadable);
        this.#onError(unreadable, `unreadable value at ${key}`);
      } else this.#unreadable.delete(key);
      const item = unreadable ? undefined : this.#decodeSafely(key, value, modRevision);
      const prev = this.#items.get(key) ?? this.#decodePrev(event.prev);
      if (item) {
        this.#items.set(key, item);
        if (!this.#sorted.replace(item)) this.#sorted.insert(item);
        // frames and delivery are filled by the watchers; declared here to keep one object shape.
        entry = {
          revision: modRevision,
          type: prev ? "MODIFIED" : "ADDED",
          key,
          item,
          prev,
          time,
          frames: undefined,
          delivery: undefined,
          bytes: undefined,
          history: undefined,
        };
      } else if (prev) {
        // An unreadable new value hides the object rather than serving a stale one.
        this.#items.delete(key);
        this.#sorted.remove(key);
      }
      this.#revision = modRevision;
    } else {
      const { key, revision } = event;
      if (revision <= this.#revision) return;
      const prev = this.#items.get(key) ?? this.#decodePrev(event.prev);
      this.#items.delete(key);
      this.#sorted.remove(key);
      this.#unreadable.delete(key);
      const gone = event.prev.unreadable ? undefined : this.#decodeSafely(key, event.prev.value, revision);
      if (prev && gone) {
        entry = {
          revision,
          type: "DELETED",
          key,
          item: gone,
          prev,
          time,
          frames: undefined,
          delivery: undefined,
          bytes: undefined,
          history: undefined,
        };
      }
      this.#revision = revision;
    }
    if (entry) {
      this.#history.push(entry);
      this.#history.trim(time - this.#historyWindowMs, this.#maxHistory);
      for (const w of this.#watchers) w.offer(entry);
    }
    this.#releaseWaiters();
  }

  #decodePrev(prev: StoredValue | undefined): CachedItem | undefined {
    return prev && !prev.unreadable ? this.#decodeSafely(prev.key, prev.value, prev.modRevision) : undefined;
  }

  #bookmarkTick(): void {
    this.#history.trim(this.#now() - this.#historyWindowMs, this.#maxHistory);
    // Bring the revision forward even when this prefix is quiet, so bookmarks carry news.
    this.#askProgress();
    for (const w of this.#watchers) w.bookmark(this.#revision);
  }

  #askProgress(): void {
    if (this.#progressAsked || !this.#stream) return;
    this.#progressAsked = true;
    this.#stream.requestProgress();
  }

  // ---- waiting --------------------------------------------------------------------------

  #releaseWaiters(): void {
    if (this.#waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.#waiters) {
      if (w.revision <= this.#revision) w.resolve();
      else still.push(w);
    }
    this.#waiters = still;
  }

  #releaseReady(): void {
    const waiting = this.#readyWaiters;
    this.#readyWaiters = [];
    for (const resolve of waiting) resolve();
  }

  /** Wait until the cache is connected; throw Unavailable after `timeoutMs`. */
  async #whenReady(timeoutMs: number): Promise<void> {
    if (this.ready) return;
    if (this.#stop.signal.aborted) throw new UnavailableError("cache stopped");
    const ok = await new Promise<boolean>((resolve) => {
      const timer = Number.isFinite(timeoutMs) ? setTimeout(() => resolve(false), timeoutMs) : undefined;
      this.#readyWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!ok || !this.ready) {
      const cause = this.#lastError ? `: ${this.#lastError.message}` : "";
      throw new UnavailableError(`storage for ${this.prefix} is not available${cause}`, {
        cause: this.#lastError,
      });
    }
  }

  /** Wait until the cache has applied `revision`; false on timeout. */
  async #reach(revision: Revision): Promise<boolean> {
    if (this.#revision >= revision) return true;
    this.#askProgress();
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(false);
      }, this.#waitTimeoutMs);
      const waiter: Waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.#waiters.push(waiter);
    });
  }

  /**
   * Wait until the cache can serve a read mode. Returns the past revision to serve for exact
   * and continued reads, `undefined` when the current state is right; callers read the current
   * revision in the same turn as the state.
   */
  async #prepare(mode: ReadMode): Promise<Revision | undefined> {
    await this.#whenReady(this.#waitTimeoutMs);
    switch (mode.kind) {
      case "any":
        return undefined;
      case "mostRecent": {
        const target = await this.#storage.currentRevision();
        if (!(await this.#reach(target))) {
          throw new CacheTimeoutError(`the cache of ${this.prefix} did not reach revision ${target} in time`);
        }
        return undefined;
      }
      case "notOlderThan":
        if (!(await this.#reach(mode.revision))) {
          throw new TooLargeResourceVersionError(mode.revision, this.#revision);
        }
        return undefined;
      case "exact":
        if (!(await this.#reach(mode.revision))) {
          throw new TooLargeResourceVersionError(mode.revision, this.#revision);
        }
        return mode.revision;
      case "continue":
        return mode.position.revision === -1 ? undefined : mode.position.revision;
    }
  }

  // ---- reads ----------------------------------------------------------------------------

  /** get: `resourceVersion` unset is most recent, `0` any, otherwise not older than. */
  async get(key: string, resourceVersion?: string): Promise<CachedItem | undefined> {
    // The common case, "any" on a ready cache, needs no waiting: read in this turn.
    if (!(resourceVersion === "0" && this.#primed && this.#connected))
      await this.#prepare(getMode(resourceVersion));
    const item = this.#items.get(key);
    // An object whose value cannot be read fails its own read, not as absent.
    if (!item) {
      const unreadable = this.#unreadable.get(key);
      if (unreadable) throw unreadable;
    }
    return item;
  }

  #snapshot(revision: Revision, keyPrefix: string): Snapshot {
    if (revision >= this.#revision) return { revision, overlay: undefined, gone: [] };
    const overlay = this.#history.stateAt(revision);
    const end = prefixEnd(keyPrefix);
    const gone: string[] = [];
    for (const [key, value] of overlay) {
      if (value !== null && !this.#items.has(key) && key >= keyPrefix && key < end) gone.push(key);
    }
    gone.sort();
    return { revision, overlay, gone };
  }

  /** Items at the snapshot with keys in (after, end), in key order. */
  *#scan(snapshot: Snapshot, from: string, inclusive: boolean, end: string): Generator<CachedItem> {
    const sorted = this.#sorted;
    let i = inclusive ? sorted.lowerBound(from) : sorted.upperBound(from);
    const gone = snapshot.gone;
    let g = 0;
    while (g < gone.length && (gone[g] as string) < from) g++;
    if (!inclusive && gone[g] === from) g++;
    const overlay = snapshot.overlay;
    for (;;) {
      const current = i < sorted.size ? (sorted.at(i) as CachedItem) : undefined;
      const live = current !== undefined && current.key < end ? current.key : undefined;
      const past = g < gone.length ? (gone[g] as string) : undefined;
      if (live === undefined && past === undefined) return;
      if (past !== undefined && (live === undefined || past < live)) {
        g++;
        const item = overlay?.get(past);
        if (item) yield item;
        continue;
      }
      i++;
      const key = live as string;
      if (overlay?.has(key)) {
        const item = overlay.get(key);
        if (item) yield item;
      } else {
        yield current as CachedItem;
      }
    }
  }

  /** How many items of the snapshot have keys in (after, end). */
  #countAfter(snapshot: Snapshot, after: string, end: string): number {
    let count = this.#sorted.lowerBound(end) - this.#sorted.upperBound(after);
    if (snapshot.overlay) {
      for (const [key, value] of snapshot.overlay) {
        if (key <= after || key >= end) continue;
        const present = this.#items.has(key);
        if (present && value === null) count--;
        else if (!present && value !== null) count++;
      }
    }
    return count;
  }

  async list(req: CacheListRequest): Promise<CacheListResult> {
    const mode = listMode(req);
    const revision = (await this.#prepare(mode)) ?? this.#revision;
    const keyPrefix = req.keyPrefix;
    if (mode.kind === "exact" || mode.kind === "continue") {
      if (revision < this.#history.oldestRevision) {
        if (mode.kind === "exact")
          throw new ExpiredError("The resourceVersion for the provided list is too old.");
        throw new ExpiredError(
          "The provided continue parameter is too old to display a consistent list result. You can start a new " +
            "list without the continue parameter, or use the continue token in this response to retrieve the " +
            "remainder of the results. Continuing with the provided token results in an inconsistent list - " +
            "objects that were created, modified, or deleted between the time the first chunk was returned and " +
            "now may show up in the list.",
          encodeContinue({ revision: -1, after: mode.position.after }),
        );
      }
    }
    const snapshot = this.#snapshot(revision, keyPrefix);
    const end = prefixEnd(keyPrefix);
    const from = mode.kind === "continue" ? keyPrefix + mode.position.after : keyPrefix;
    const limit = req.limit !== undefined && req.limit > 0 ? req.limit : Number.POSITIVE_INFINITY;
    const filtered =
      !!(req.labelSelector && !req.labelSelector.empty) || !!(req.fieldSelector && !req.fieldSelector.empty);
    const items: CachedItem[] = [];
    let more = false;
    for (const item of this.#scan(snapshot, from, mode.kind !== "continue", end)) {
      if (items.length >= limit) {
        more = true;
        break;
      }
      if (
        filtered &&
        !(
          (!req.labelSelector || req.labelSelector.matches(item.labels)) &&
          (!req.fieldSelector || req.fieldSelector.matches(item.fields))
        )
      ) {
        continue;
      }
      items.push(item);
    }
    if (!more) return { items, revision, continue: undefined, remainingItemCount: undefined };
    const last = (items[items.length - 1] as CachedItem).key;
    return {
      items,
      revision,
      continue: encodeContinue({ revision, after: last.slice(keyPrefix.length) }),
      remainingItemCount: filtered ? undefined : this.#countAfter(snapshot, last, end),
    };
  }

  /** Start a watch; throws before streaming when the start revision cannot be reached. */
  async watch(req: CacheWatchRequest): Promise<CacheWatcher> {
    const start = watchStart(req, this.#watchListEnabled);
    const filter = {
      keyPrefix: req.keyPrefix,
      labelSelector: req.labelSelector,
      fieldSelector: req.fieldSelector,
    };
    const allowBookmarks = req.allowWatchBookmarks === true;
    if (start.from.kind === "after") {
      const after = start.from.revision;
      await this.#whenReady(this.#waitTimeoutMs);
      if (after < this.#history.oldestRevision) {
        const error = new ExpiredError(
          `too old resource version: ${after} (${this.#history.oldestRevision})`,
        );
        return new CacheWatcher({
          filter,
          allowBookmarks,
          maxBuffer: 1,
          startRevision: after,
          initial: [{ type: "ERROR", error }],
        });
      }
      // Replaying history and registering happen in one turn, so no change falls in between.
      const replay = this.#history.after(after);
      return this.#register(filter, allowBookmarks, Math.max(after, this.#revision), (watcher) =>
        replayDeliveries(watcher, replay),
      );
    }
    await this.#prepare(start.from);
    const revision = this.#revision;
    const items = start.initialEvents ? this.#collect(filter.keyPrefix) : [];
    return this.#register(filter, allowBookmarks, revision, (watcher) =>
      initialDeliveries(watcher, items, revision, start.initialEventsEndBookmark),
    );
  }

  #collect(keyPrefix: string): CachedItem[] {
    const sorted = this.#sorted;
    const end = prefixEnd(keyPrefix);
    const out: CachedItem[] = [];
    for (let i = sorted.lowerBound(keyPrefix); i < sorted.size; i++) {
      const item = sorted.at(i) as CachedItem;
      if (item.key >= end) break;
      out.push(item);
    }
    return out;
  }

  #register(
    filter: CacheWatcher["filter"],
    allowBookmarks: boolean,
    startRevision: Revision,
    initial: (watcher: CacheWatcher) => Iterable<WatchDelivery>,
  ): CacheWatcher {
    const watcher: CacheWatcher = new CacheWatcher({
      filter,
      allowBookmarks,
      maxBuffer: this.#bufferSize,
      maxBufferBytes: this.#bufferBytes,
      startRevision,
      initial: { [Symbol.iterator]: () => initial(watcher)[Symbol.iterator]() },
      onClose: (w) => this.#watchers.delete(w),
    });
    this.#watchers.add(watcher);
    return watcher;
  }
}

function* replayDeliveries(watcher: CacheWatcher, replay: HistoryEntry[]): Generator<WatchDelivery> {
  for (const entry of replay) {
    const delivery = watcher.view(entry);
    if (delivery) yield delivery;
  }
}

function* initialDeliveries(
  watcher: CacheWatcher,
  items: CachedItem[],
  revision: Revision,
  endBookmark: boolean,
): Generator<WatchDelivery> {
  for (const item of items) {
    if (watcher.matches(item)) yield { type: "ADDED", item, revision: item.revision, entry: undefined };
  }
  if (endBookmark) yield { type: "BOOKMARK", revision, initialEventsEnd: true };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}
