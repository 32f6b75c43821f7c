// Builds the served resources over one storage: a watch cache and a registry per kind, and the
// namespaces that exist from the start.

import type { BuiltinKind } from "../backends/builtin/index.ts";
import { Cacher, HistoryBudget, jsonItemDecoder } from "../backends/cacher/index.ts";
import type { Storage } from "../backends/contract/index.ts";
import type { Naming } from "../backends/naming/index.ts";
import { Registry, RegistryError } from "../backends/registry/index.ts";
import { resourcePrefix } from "../backends/schema/index.ts";
import { ResourceTable, type ServedResource } from "./routing/resources.ts";

export interface ControlPlane {
  readonly resources: ResourceTable;
  /**
   * Serves a kind from now on (a custom resource), replacing the one of the same group and
   * plural; its watch cache is kept when the storage prefix stays the same.
   */
  serve(kind: BuiltinKind): Promise<ServedResource>;
  /** Stops serving a kind added with `serve`. */
  unserve(group: string, plural: string): Promise<void>;
  /** Namespaces created at start that may never be deleted. */
  readonly protectedNamespaces: ReadonlySet<string>;
  /** Every watch cache is connected and current. */
  cachesReady(): boolean;
  /** Each watch cache's key prefix and how many objects it holds (apiserver_storage_objects). */
  objectCounts(): Array<readonly [string, number]>;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  readonly storage: Storage;
  readonly naming: Naming;
  readonly kinds: readonly BuiltinKind[];
  readonly historyWindowMs: number;
  readonly maxHistory: number;
  /**
   * Bytes of change history all watch caches keep together (default: a sixteenth of the heap
   * limit). One budget for the process, since memory is the process's: a resource churning
   * large objects gives up its oldest changes first, not the quiet resources.
   */
  readonly historyBytes?: number;
  readonly watchListEnabled: boolean;
  readonly onError: (err: unknown, context: string) => void;
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const resources = new ResourceTable();
  const cachers: Cacher[] = [];
  const historyBudget = new HistoryBudget(options.historyBytes);
  const newCacher = (schema: BuiltinKind["schema"]) =>
    new Cacher({
      storage: options.storage,
      prefix: resourcePrefix(schema),
      decoder: jsonItemDecoder(schema.selectableFields),
      historyWindowMs: options.historyWindowMs > 0 ? options.historyWindowMs : 5 * 60_000,
      maxHistory: options.maxHistory,
      historyBudget,
      watchListEnabled: options.watchListEnabled,
      onError: options.onError,
    });
  const served = (kind: BuiltinKind, cacher: Cacher): ServedResource => ({
    schema: kind.schema,
    registry: new Registry({
      schema: kind.schema,
      strategy: kind.strategy,
      ...(kind.subresourceStrategies ? { subresources: kind.subresourceStrategies } : {}),
      storage: options.storage,
      cacher,
    }),
  });
  for (const kind of options.kinds) {
    const cacher = newCacher(kind.schema);
    cachers.push(cacher);
    resources.add(served(kind, cacher));
  }
  await Promise.all(cachers.map((c) => c.start()));
  // Kinds served later (custom resources), by group/plural.
  const dynamic = new Map<string, Cacher>();

  const { naming } = options;
  const protectedNamespaces = new Set([
    "default",
    naming.systemNamespace,
    naming.publicNamespace,
    naming.nodeLeaseNamespace,
  ]);
  const namespaces = resources.byResource("", "namespaces");
  if (namespaces) {
    for (const name of protectedNamespaces) {
      try {
        await namespaces.registry.create(undefined, {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name },
        });
      } catch (err) {
        if (!(err instanceof RegistryError && err.reason === "AlreadyExists")) throw err;
      }
    }
  }
  return {
    resources,
    protectedNamespaces,
    cachesReady: () => cachers.every((c) => c.ready) && [...dynamic.values()].every((c) => c.ready),
    objectCounts: () => [...cachers, ...dynamic.values()].map((c) => [c.prefix, c.size] as const),
    async serve(kind) {
      const key = `${kind.schema.group}/${kind.schema.plural}`;
      let cacher = dynamic.get(key);
      if (!cacher || cacher.prefix !== resourcePrefix(kind.schema)) {
        await cacher?.stop();
        cacher = newCacher(kind.schema);
        await cacher.start();
        dynamic.set(key, cacher);
      }
      const resource = served(kind, cacher);
      resources.replace(resource, { custom: true });
      return resource;
    },
    async unserve(group, plural) {
      const key = `${group}/${plural}`;
      resources.remove(group, plural);
      await dynamic.get(key)?.stop();
      dynamic.delete(key);
    },
    async stop() {
      await Promise.all([...cachers, ...dynamic.values()].map((c) => c.stop()));
    },
  };
}
