// Builds the served resources over one storage: a watch cache and a registry per kind, and the
// namespaces that exist from the start.

import type { BuiltinKind } from "../backends/builtin/index.ts";
import { Cacher, jsonItemDecoder } from "../backends/cacher/index.ts";
import type { Storage } from "../backends/contract/index.ts";
import type { Naming } from "../backends/naming/index.ts";
import { Registry, RegistryError } from "../backends/registry/index.ts";
import { resourcePrefix } from "../backends/schema/index.ts";
import { ResourceTable } from "./routing/resources.ts";

export interface ControlPlane {
  readonly resources: ResourceTable;
  /** Namespaces created at start that may never be deleted. */
  readonly protectedNamespaces: ReadonlySet<string>;
  /** Every watch cache is connected and current. */
  cachesReady(): boolean;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  readonly storage: Storage;
  readonly naming: Naming;
  readonly kinds: readonly BuiltinKind[];
  readonly historyWindowMs: number;
  readonly maxHistory: number;
  readonly watchListEnabled: boolean;
  readonly onError: (err: unknown, context: string) => void;
}

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const resources = new ResourceTable();
  const cachers: Cacher[] = [];
  for (const { schema, strategy, subresourceStrategies } of options.kinds) {
    const cacher = new Cacher({
      storage: options.storage,
      prefix: resourcePrefix(schema),
      decoder: jsonItemDecoder(schema.selectableFields),
      historyWindowMs: options.historyWindowMs > 0 ? options.historyWindowMs : 5 * 60_000,
      maxHistory: options.maxHistory,
      watchListEnabled: options.watchListEnabled,
      onError: options.onError,
    });
    cachers.push(cacher);
    resources.add({
      schema,
      registry: new Registry({
        schema,
        strategy,
        ...(subresourceStrategies ? { subresources: subresourceStrategies } : {}),
        storage: options.storage,
        cacher,
      }),
    });
  }
  await Promise.all(cachers.map((c) => c.start()));

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
    cachesReady: () => cachers.every((c) => c.ready),
    async stop() {
      await Promise.all(cachers.map((c) => c.stop()));
    },
  };
}
