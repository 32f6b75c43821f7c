// Opens the storage backend named by configuration.
import { join } from "node:path";
import type { Storage } from "./contract/index.ts";
import { openEmbeddedStorage } from "./embedded/index.ts";
import { type EncryptionOptions, withEncryption } from "./encryption/index.ts";
import { createEtcdStorage } from "./etcd/index.ts";
import { MemoryStorage } from "./memory/index.ts";
import { type MongoStorageOptions, openMongoStorage } from "./mongodb/index.ts";

export { MongoStartError } from "./mongodb/index.ts";

export type StorageBackendName = "embedded" | "memory" | "etcd" | "mongodb";

export interface StorageConfig {
  readonly backend: StorageBackendName;
  /** The server's data directory; the embedded store lives in `<dataDir>/store`. */
  readonly dataDir: string;
  /** Embedded: acknowledge a write only once it is on disk. */
  readonly sync?: boolean;
  readonly etcd?: {
    readonly endpoints: readonly string[];
    readonly caFile?: string | undefined;
    readonly certFile?: string | undefined;
    readonly keyFile?: string | undefined;
    /** Path under which keys live in etcd. */
    readonly keyPrefix?: string | undefined;
  };
  readonly mongodb?: Pick<MongoStorageOptions, "uri" | "database" | "prefix" | "onError" | "metrics">;
  /** `--encryption-provider-config`: values are transformed below the watch cache, on every backend. */
  readonly encryption?: EncryptionOptions | undefined;
}

/** Where the embedded store keeps its files under the data directory. */
export const embeddedStoreDir = (dataDir: string): string => join(dataDir, "store");

export async function openStorage(config: StorageConfig): Promise<Storage> {
  if (config.encryption) return withEncryption(config.encryption, () => openBackend(config));
  return openBackend(config);
}

async function openBackend(config: StorageConfig): Promise<Storage> {
  switch (config.backend) {
    case "memory":
      return new MemoryStorage();
    case "embedded":
      return openEmbeddedStorage({ dir: embeddedStoreDir(config.dataDir), sync: config.sync ?? true });
    case "etcd": {
      const etcd = config.etcd;
      if (!etcd || etcd.endpoints.length === 0)
        throw new Error("the etcd backend needs at least one endpoint");
      return createEtcdStorage({
        endpoints: etcd.endpoints,
        ...(etcd.caFile ? { caFile: etcd.caFile } : {}),
        ...(etcd.certFile ? { certFile: etcd.certFile } : {}),
        ...(etcd.keyFile ? { keyFile: etcd.keyFile } : {}),
        ...(etcd.keyPrefix !== undefined ? { keyPrefix: etcd.keyPrefix } : {}),
      });
    }
    case "mongodb": {
      if (!config.mongodb?.uri) throw new Error("the mongodb backend needs a URI");
      return openMongoStorage(config.mongodb);
    }
  }
}
