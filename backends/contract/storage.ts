// The storage-and-watch contract every backend implements (DESIGN.md, "Storage contract").
// Values are opaque strings to the store; keys are `/<group>/<resource>/<namespace>/<name>`.
// Nothing here knows about HTTP or about the shape of the objects it stores.

/**
 * A store-wide, strictly increasing integer; not necessarily consecutive (a store may skip
 * numbers). `0` means "nothing written yet".
 */
export type Revision = number;

/** One key as it stands at some revision. */
export interface StoredValue {
  readonly key: string;
  readonly value: string;
  /** Revision of the write that created this incarnation of the key. */
  readonly createRevision: Revision;
  /** Revision of the last write to the key; what `update`/`delete` compare against. */
  readonly modRevision: Revision;
  /**
   * Read back through a transformer other than the one writes use now (an older encryption
   * key, say): writing the same value again is not a no-op.
   */
  readonly stale?: boolean;
  /** The value could not be read back (`value` is then empty); reads of this key fail with it. */
  readonly unreadable?: Error;
}

export interface ListResult {
  /** Every key under the prefix, sorted by key (byte order of the UTF-8 encoding). */
  readonly items: StoredValue[];
  /** The revision of the snapshot the items were read from. */
  readonly revision: Revision;
}

export interface DeleteResult {
  /** The value that was removed. */
  readonly prev: StoredValue;
  /** The revision assigned to the deletion. */
  readonly revision: Revision;
}

/** A key was created or changed. `prev` is absent when the key did not exist before. */
export interface PutEvent {
  readonly type: "put";
  readonly kv: StoredValue;
  readonly prev?: StoredValue;
}

/** A key was removed at `revision`; `prev` is its last value. */
export interface DeleteEvent {
  readonly type: "delete";
  readonly key: string;
  readonly revision: Revision;
  readonly prev: StoredValue;
}

/**
 * Every change under the watched prefix with a revision at or below `revision` has been
 * delivered on this stream. Sent when asked for with `requestProgress()`, and may be sent
 * unprompted.
 */
export interface ProgressEvent {
  readonly type: "progress";
  readonly revision: Revision;
}

export type WatchEvent = PutEvent | DeleteEvent | ProgressEvent;

/** The revision a watch event stands for. */
export function eventRevision(event: WatchEvent): Revision {
  switch (event.type) {
    case "put":
      return event.kv.modRevision;
    case "delete":
    case "progress":
      return event.revision;
  }
}

/** The key a watch event is about; progress events have none. */
export function eventKey(event: WatchEvent): string | undefined {
  return event.type === "put" ? event.kv.key : event.type === "delete" ? event.key : undefined;
}

/**
 * An ordered change feed. Iteration yields events in revision order, and ends when the
 * signal given to `watch` aborts. It throws `TooOld` when the start revision has been
 * compacted and `Unavailable` when the backend is lost; a consumer then re-lists.
 */
export interface WatchStream extends AsyncIterable<WatchEvent> {
  /** Ask for a progress event once everything committed so far has been delivered. */
  requestProgress(): void;
}

export interface Storage {
  /** The backend's name as configured (`memory`, `embedded`, `etcd`, ...). */
  readonly name: string;

  /** The current value of a key, or `undefined` when absent. */
  get(key: string): Promise<StoredValue | undefined>;

  /** A consistent snapshot of every key that starts with `prefix`. */
  list(prefix: string): Promise<ListResult>;

  /** Create a key; throws `AlreadyExists` when it is present. */
  create(key: string, value: string): Promise<StoredValue>;

  /**
   * Replace a key whose current `modRevision` is `expectedRevision`. Throws `NotFound` when
   * the key is absent and `Conflict` (carrying the current value) when the revision differs.
   */
  update(key: string, value: string, expectedRevision: Revision): Promise<StoredValue>;

  /**
   * Remove a key. With `expectedRevision`, only when its current `modRevision` matches
   * (`Conflict` otherwise). Throws `NotFound` when the key is absent.
   */
  delete(key: string, expectedRevision?: Revision): Promise<DeleteResult>;

  /**
   * Changes under `prefix` with a revision above `afterRevision`. Iteration throws `TooOld`
   * when `afterRevision` is below the compacted revision.
   */
  watch(prefix: string, afterRevision: Revision, signal: AbortSignal): WatchStream;

  /** The revision of the last committed write (store-wide). */
  currentRevision(): Promise<Revision>;

  /**
   * Discard history at or below `revision`, keeping the latest state of every key. Once the
   * promise resolves, a watch whose `afterRevision` is below `revision` fails with `TooOld`.
   */
  compact(revision: Revision): Promise<void>;

  /** Release files, connections and timers. Pending watches end. */
  close(): Promise<void>;
}
