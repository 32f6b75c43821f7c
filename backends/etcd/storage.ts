// The storage contract on etcd v3. etcd's own revisions are the contract's revisions; every
// conditional write is one etcd transaction, so preconditions are checked where they commit.

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
  type WatchStream,
} from "../contract/index.ts";
import { type EtcdClient, isCompacted, isFutureRevision } from "./client.ts";
import { encode, KeySpace, keyAfter } from "./keys.ts";
import {
  COMPARE_EQUAL,
  type KeyValue,
  type RangeRequest,
  type RequestOp,
  TARGET_CREATE,
  TARGET_MOD,
  type TxnResponse,
  toNumber,
} from "./proto.ts";
import { EtcdWatch, type WatchHost, type WatchSettings } from "./watch.ts";

export interface EtcdStorageSettings extends WatchSettings {
  /** Most keys per Range call when listing a prefix. */
  readonly pageSize: number;
  /** Bytes of keys and values a list page aims at. */
  readonly pageBytes: number;
}

/** Keys in the first page of a list, before the size of the values is known. */
const FIRST_PAGE = 500;

/** A list restarts from a new snapshot when compaction overtakes its paging; this often at most. */
const LIST_ATTEMPTS = 5;

/** A key no object uses, for reads that only want the response header. */
const HEADER_PROBE_KEY = Buffer.from([0]);

export class EtcdStorage implements Storage {
  readonly name = "etcd";
  readonly #client: EtcdClient;
  readonly #settings: EtcdStorageSettings;
  readonly #keys: KeySpace;
  readonly #watches = new Set<(err: Error) => void>();
  readonly #host: WatchHost;
  #closed = false;

  constructor(client: EtcdClient, settings: EtcdStorageSettings, keys: KeySpace = new KeySpace("")) {
    this.#client = client;
    this.#settings = settings;
    this.#keys = keys;
    this.#host = {
      keys,
      isClosed: () => this.#closed,
      openStream: () => this.#client.watch(),
      track: (fail) => {
        this.#watches.add(fail);
        return () => this.#watches.delete(fail);
      },
      checkRetained: (after) => this.#checkRetained(after),
    };
  }

  #check(): void {
    if (this.#closed) throw new UnavailableError("storage closed");
  }

  async get(key: string): Promise<StoredValue | undefined> {
    this.#check();
    const res = await this.#client.range({ key: this.#keys.key(key) });
    const kv = res.kvs[0];
    return kv ? this.#keys.stored(kv) : undefined;
  }

  async list(prefix: string): Promise<ListResult> {
    this.#check();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#listOnce(prefix);
      } catch (err) {
        if (!isCompacted(err) || attempt >= LIST_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * Pages through the prefix at the revision of the first page, so all pages form one snapshot.
   * Page length adapts to the values seen so far to keep each response near `pageBytes`: etcd
   * 3.4 walks the rest of the range on every limited Range, so fewer, fuller pages list faster.
   */
  async #listOnce(prefix: string): Promise<ListResult> {
    const { pageSize, pageBytes } = this.#settings;
    const { key, rangeEnd } = this.#keys.range(prefix);
    const items: StoredValue[] = [];
    let revision = 0;
    let from = key;
    let limit = Math.min(pageSize, FIRST_PAGE);
    let bytes = 0;
    for (;;) {
      const req: RangeRequest = { key: from, rangeEnd, limit };
      if (revision > 0) req.revision = revision;
      const res = await this.#client.range(req);
      if (revision === 0) revision = toNumber(res.header?.revision);
      for (const kv of res.kvs) {
        items.push(this.#keys.stored(kv));
        bytes += (kv.key?.length ?? 0) + (kv.value?.length ?? 0);
      }
      const last = res.kvs[res.kvs.length - 1];
      if (!res.more || !last) return { items, revision };
      from = keyAfter(last.key ?? Buffer.alloc(0));
      const perItem = Math.max(1, bytes / items.length);
      limit = Math.max(1, Math.min(pageSize, Math.floor(pageBytes / perItem)));
    }
  }

  async create(key: string, value: string): Promise<StoredValue> {
    this.#check();
    const k = this.#keys.key(key);
    const res = await this.#client.txn({
      compare: [{ result: COMPARE_EQUAL, target: TARGET_CREATE, key: k, createRevision: 0 }],
      success: [{ requestPut: { key: k, value: encode(value) } }],
      failure: [],
    });
    if (!res.succeeded) throw new AlreadyExistsError(key);
    const revision = headerRevision(res);
    return { key, value, createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: string, expectedRevision: Revision): Promise<StoredValue> {
    this.#check();
    // etcd reports mod_revision 0 for an absent key, so a precondition of 0 would create it.
    if (expectedRevision <= 0) throw await this.#preconditionFailure(key, expectedRevision);
    const k = this.#keys.key(key);
    const res = await this.#client.txn({
      compare: [{ result: COMPARE_EQUAL, target: TARGET_MOD, key: k, modRevision: expectedRevision }],
      success: [{ requestPut: { key: k, value: encode(value), prevKv: true } }],
      failure: [readKey(k)],
    });
    if (!res.succeeded) throw this.#failedPrecondition(key, expectedRevision, res);
    const revision = headerRevision(res);
    const prev = res.responses[0]?.responsePut?.prevKv;
    const createRevision = prev ? toNumber(prev.createRevision) : revision;
    return { key, value, createRevision, modRevision: revision };
  }

  async delete(key: string, expectedRevision?: Revision): Promise<DeleteResult> {
    this.#check();
    if (expectedRevision !== undefined && expectedRevision <= 0) {
      throw await this.#preconditionFailure(key, expectedRevision);
    }
    const k = this.#keys.key(key);
    const remove: RequestOp = { requestDeleteRange: { key: k, prevKv: true } };
    const res =
      expectedRevision === undefined
        ? await this.#client.txn({ compare: [], success: [remove], failure: [] })
        : await this.#client.txn({
            compare: [{ result: COMPARE_EQUAL, target: TARGET_MOD, key: k, modRevision: expectedRevision }],
            success: [remove],
            failure: [readKey(k)],
          });
    if (!res.succeeded) throw this.#failedPrecondition(key, expectedRevision ?? 0, res);
    const prev = res.responses[0]?.responseDeleteRange?.prevKvs[0];
    if (!prev) throw new NotFoundError(key);
    return { prev: this.#keys.stored(prev), revision: headerRevision(res) };
  }

  /** A failed compare on mod_revision: the failure branch read the key as it is now. */
  #failedPrecondition(key: string, expectedRevision: Revision, res: TxnResponse): Error {
    const kv: KeyValue | undefined = res.responses[0]?.responseRange?.kvs[0];
    return kv ? new ConflictError(key, expectedRevision, this.#keys.stored(kv)) : new NotFoundError(key);
  }

  /** The error for a precondition no stored value can meet: NotFound or Conflict. */
  async #preconditionFailure(key: string, expectedRevision: Revision): Promise<Error> {
    const current = await this.get(key);
    return current ? new ConflictError(key, expectedRevision, current) : new NotFoundError(key);
  }

  watch(prefix: string, afterRevision: Revision, signal: AbortSignal): WatchStream {
    return new EtcdWatch(this.#host, prefix, afterRevision, signal, this.#settings);
  }

  async currentRevision(): Promise<Revision> {
    this.#check();
    const res = await this.#client.range({ key: HEADER_PROBE_KEY, countOnly: true });
    return toNumber(res.header?.revision);
  }

  async compact(revision: Revision): Promise<void> {
    this.#check();
    // Like the other backends, a revision beyond the last write compacts up to the last write.
    const target = Math.min(revision, await this.currentRevision());
    if (target <= 0) return;
    try {
      await this.#client.compact({ revision: target, physical: false });
    } catch (err) {
      if (!isCompacted(err)) throw err;
    }
  }

  /**
   * Reading at `after` fails exactly when etcd compacted past it, which is the contract's TooOld
   * rule (etcd's own watch check is one revision looser).
   */
  async #checkRetained(after: Revision): Promise<void> {
    if (after <= 0) return;
    try {
      await this.#client.range({ key: HEADER_PROBE_KEY, revision: after, countOnly: true });
    } catch (err) {
      if (isFutureRevision(err)) return;
      if (isCompacted(err)) throw new TooOldError(after, await this.#compactedRevision(after));
      throw err;
    }
  }

  /** etcd does not report its compaction point; find it as the oldest revision still readable. */
  async #compactedRevision(below: Revision): Promise<Revision> {
    let lo = below + 1;
    let hi = await this.currentRevision();
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      try {
        await this.#client.range({
          key: HEADER_PROBE_KEY,
          revision: mid,
          countOnly: true,
          serializable: true,
        });
        hi = mid;
      } catch (err) {
        if (!isCompacted(err)) throw err;
        lo = mid + 1;
      }
    }
    return lo;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const closed = new UnavailableError("storage closed");
    for (const fail of this.#watches) fail(closed);
    this.#watches.clear();
    this.#client.close();
  }
}

function readKey(key: Buffer): RequestOp {
  return { requestRange: { key } };
}

function headerRevision(res: TxnResponse): Revision {
  return toNumber(res.header?.revision);
}
