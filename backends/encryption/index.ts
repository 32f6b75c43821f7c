// Encryption at rest (issue 22, section 2): `--encryption-provider-config` and its automatic
// reload, applied to any Storage below the watch cache.
import { watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Registry } from "prom-client";
import type { Storage } from "../contract/index.ts";
import type { Naming } from "../naming/index.ts";
import { loadEncryptionConfig, parseEncryptionConfig } from "./config.ts";
import { transformationMetrics } from "./metrics.ts";
import { buildTransformers, type ResourceTransformers } from "./resources.ts";
import { EncryptedStorage } from "./storage.ts";
import { noRecorder, type TransformationRecorder } from "./transformer.ts";

export type { EncryptionConfig, ProviderConfig, ResourceRule } from "./config.ts";
export { EncryptionConfigError, loadEncryptionConfig, parseEncryptionConfig } from "./config.ts";
export { transformationMetrics } from "./metrics.ts";
export { buildTransformers, ResourceTransformers } from "./resources.ts";
export { EncryptedStorage } from "./storage.ts";

export interface EncryptionOptions {
  /** The EncryptionConfiguration file. */
  readonly configFile: string;
  readonly naming: Naming;
  /** Watch the file and apply a valid new version without a restart. */
  readonly automaticReload?: boolean;
  /** Where apiserver_storage_transformation_* go. */
  readonly metrics?: Registry;
  /** After each reload attempt that found a changed file: the error when it was refused. */
  readonly onReload?: (err: Error | undefined) => void;
}

async function load(
  options: EncryptionOptions,
  recorder: TransformationRecorder,
): Promise<ResourceTransformers> {
  const config = await loadEncryptionConfig(options.configFile, options.naming, {
    reload: options.automaticReload === true,
  });
  return buildTransformers(config, {
    encryptedPrefix: options.naming.encryptedValuePrefix,
    recorder,
    path: options.configFile,
  });
}

/** Reads the configuration (refusing a bad one with file and field) and wraps `open()`'s store. */
export async function withEncryption(
  options: EncryptionOptions,
  open: () => Promise<Storage>,
): Promise<EncryptedStorage> {
  const recorder = options.metrics ? transformationMetrics(options.metrics) : noRecorder;
  const transformers = await load(options, recorder);
  let inner: Storage;
  try {
    inner = await open();
  } catch (err) {
    transformers.close();
    throw err;
  }
  const storage = new EncryptedStorage(inner, transformers, options.naming.encryptedValuePrefix);
  if (options.automaticReload) storage.onClose(watchConfig(storage, options, recorder));
  return storage;
}

/**
 * Follows the file (its directory, so an editor's or a ConfigMap's replace-by-rename is seen);
 * a changed, valid file replaces the transformers, an invalid one is reported and the running
 * configuration stays. Returns the function that stops watching.
 */
function watchConfig(
  storage: EncryptedStorage,
  options: EncryptionOptions,
  recorder: TransformationRecorder,
) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const check = async () => {
    let data: Buffer;
    try {
      data = await readFile(options.configFile);
    } catch {
      return; // mid-replace: the rename that follows brings another event
    }
    try {
      const config = parseEncryptionConfig(data, options.configFile, options.naming, { reload: true });
      if (config.hash === storage.transformers.hash) return;
      const next = await buildTransformers(config, {
        encryptedPrefix: options.naming.encryptedValuePrefix,
        recorder,
        path: options.configFile,
      });
      storage.replaceTransformers(next);
      options.onReload?.(undefined);
    } catch (err) {
      options.onReload?.(err as Error);
    }
  };
  // Any change in the directory is checked: the file may be a symlink swapped under another name.
  const watcher = watch(dirname(options.configFile), () => {
    clearTimeout(timer);
    // Writes come in bursts; read once they settle, one check at a time.
    timer = setTimeout(() => {
      running = running.then(check);
    }, 100);
  });
  watcher.unref();
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
