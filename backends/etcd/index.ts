// The etcd backend: `createEtcdStorage({ endpoints: ["http://127.0.0.1:2379"] })`.

import type { Storage } from "../contract/index.ts";
import { EtcdClient, type EtcdConnectionOptions } from "./client.ts";
import { KeySpace } from "./keys.ts";
import { EtcdStorage } from "./storage.ts";

export { EtcdRequestError } from "./client.ts";
export { EtcdStorage } from "./storage.ts";

export interface EtcdStorageOptions extends EtcdConnectionOptions {
  /** Most keys per Range call when listing a prefix. Default 10000. */
  readonly pageSize?: number;
  /** Bytes of keys and values one list page aims at; pages shrink for large values. Default 8 MiB. */
  readonly pageBytes?: number;
  /**
   * How long after creation a watcher that replays history is taken to be in sync with etcd
   * before a progress request is sent for it (see watch.ts). Default 300 ms.
   */
  readonly watchSyncSettleMs?: number;
  /** Undelivered events per watch past which reading from etcd pauses. Default 10000. */
  readonly watchHighWater?: number;
  /** Keys live under this path in etcd (`--etcd-prefix`); "" is the top of the key space. Default "". */
  readonly keyPrefix?: string;
}

/**
 * Connects lazily: the promise settles once the options (and TLS files) are read, and calls
 * made while etcd is unreachable fail with Unavailable until it answers again.
 */
export async function createEtcdStorage(options: EtcdStorageOptions): Promise<Storage> {
  const pageSize = options.pageSize ?? 10_000;
  const pageBytes = options.pageBytes ?? 8 * 1024 * 1024;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error(`etcd: invalid pageSize ${pageSize}`);
  if (!(pageBytes >= 1)) throw new Error(`etcd: invalid pageBytes ${pageBytes}`);
  const keys = new KeySpace(options.keyPrefix ?? "");
  const client = await EtcdClient.connect(options);
  return new EtcdStorage(
    client,
    {
      pageSize,
      pageBytes,
      syncSettleMs: options.watchSyncSettleMs ?? 300,
      createTimeoutMs: client.watchCreateTimeoutMs,
      highWater: options.watchHighWater ?? 10_000,
    },
    keys,
  );
}
