// Plugins' in-process view of API objects (plugins/objects): reads from the watch caches of the
// served registries, and informers that list once and then follow the cache's watch.
import type { CachedItem } from "../backends/cacher/index.ts";
import { type Registry, RegistryError } from "../backends/registry/index.ts";
import type {
  ApiObject,
  InformerEvent,
  LocalInformer,
  ObjectAccess,
  ResourceRef,
} from "../plugins/objects/index.ts";
import type { ResourceTable } from "./routing/resources.ts";

function decode(item: CachedItem): ApiObject {
  return JSON.parse(item.json) as ApiObject;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Cached items are immutable and stay the same object until their key changes, so each is decoded
 * once for `get`; the result is shared by every reader, hence frozen.
 */
const decodedItems = new WeakMap<CachedItem, ApiObject>();
function decodeShared(item: CachedItem): ApiObject {
  let object = decodedItems.get(item);
  if (!object) {
    object = deepFreeze(decode(item));
    decodedItems.set(item, object);
  }
  return object;
}

function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ""}/${name}`;
}

class RegistryInformer implements LocalInformer {
  readonly synced: Promise<void>;
  readonly #registry: Registry;
  readonly #objects = new Map<string, ApiObject>();
  readonly #handlers = new Set<(event: InformerEvent) => void>();
  readonly #signal: AbortSignal;
  readonly #onError: (err: unknown) => void;
  #markSynced: () => void = () => {};

  constructor(registry: Registry, signal: AbortSignal, onError: (err: unknown) => void) {
    this.#registry = registry;
    this.#signal = signal;
    this.#onError = onError;
    this.synced = new Promise((resolve) => {
      this.#markSynced = resolve;
    });
    void this.#run();
  }

  get(namespace: string | undefined, name: string): ApiObject | undefined {
    return this.#objects.get(keyOf(namespace, name));
  }

  list(namespace?: string): ApiObject[] {
    const out: ApiObject[] = [];
    for (const o of this.#objects.values()) {
      if (namespace === undefined || o.metadata.namespace === namespace) out.push(o);
    }
    return out;
  }

  subscribe(handler: (event: InformerEvent) => void): () => void {
    this.#handlers.add(handler);
    for (const object of this.#objects.values()) handler({ type: "ADDED", object });
    return () => this.#handlers.delete(handler);
  }

  #emit(event: InformerEvent): void {
    for (const h of this.#handlers) {
      try {
        h(event);
      } catch (err) {
        this.#onError(err);
      }
    }
  }

  async #run(): Promise<void> {
    while (!this.#signal.aborted) {
      try {
        const listed = await this.#registry.list(undefined, { resourceVersion: "0" });
        const seen = new Set<string>();
        for (const item of listed.items) {
          const object = decode(item);
          const key = keyOf(object.metadata.namespace, object.metadata.name);
          seen.add(key);
          this.#objects.set(key, object);
          this.#emit({ type: "ADDED", object });
        }
        for (const [key, object] of this.#objects) {
          if (seen.has(key)) continue;
          this.#objects.delete(key);
          this.#emit({ type: "DELETED", object });
        }
        this.#markSynced();
        const watcher = await this.#registry.watch(undefined, {
          resourceVersion: String(listed.revision),
        });
        const stop = () => watcher.close("stopped");
        // Aborted while the watch was being set up: no event will come.
        if (this.#signal.aborted) stop();
        else this.#signal.addEventListener("abort", stop, { once: true });
        try {
          for await (const d of watcher) {
            if (d.type === "BOOKMARK") continue;
            if (d.type === "ERROR") break;
            const object = decode(d.item);
            const key = keyOf(object.metadata.namespace, object.metadata.name);
            if (d.type === "DELETED") this.#objects.delete(key);
            else this.#objects.set(key, object);
            this.#emit({ type: d.type, object });
          }
        } finally {
          this.#signal.removeEventListener("abort", stop);
        }
      } catch (err) {
        if (this.#signal.aborted) return;
        this.#onError(err);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
}

/** Object access over the gateway's resources; informers stop when `signal` aborts. */
export function objectAccess(
  resources: ResourceTable,
  signal: AbortSignal,
  onError: (err: unknown) => void,
): ObjectAccess {
  const informers = new Map<string, RegistryInformer>();
  return {
    async get(ref: ResourceRef, namespace: string | undefined, name: string) {
      const served = resources.byResource(ref.group, ref.resource);
      if (!served) return undefined;
      // The cache first; a miss is confirmed at the latest revision, so an object created just
      // before (a ServiceAccount, then its token) is found.
      for (const resourceVersion of ["0", undefined]) {
        try {
          return decodeShared(await served.registry.get(namespace, name, resourceVersion));
        } catch (err) {
          if (!(err instanceof RegistryError && err.reason === "NotFound")) throw err;
        }
      }
      return undefined;
    },
    informer(ref: ResourceRef) {
      const key = `${ref.group}/${ref.resource}`;
      let informer = informers.get(key);
      if (!informer) {
        const served = resources.byResource(ref.group, ref.resource);
        if (!served) return undefined;
        informer = new RegistryInformer(served.registry, signal, onError);
        informers.set(key, informer);
      }
      return informer;
    },
  };
}
