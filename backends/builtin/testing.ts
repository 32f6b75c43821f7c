// For tests: one built-in kind served by a Registry over a watch cache and MemoryStorage, wired
// the way the control plane wires every kind.
import { Cacher, jsonItemDecoder } from "../cacher/index.ts";
import { MemoryStorage } from "../memory/index.ts";
import { Registry } from "../registry/index.ts";
import { resourcePrefix } from "../schema/index.ts";
import type { BuiltinKind } from "./kind.ts";

export interface ServedKind {
  readonly registry: Registry;
  stop(): Promise<void>;
}

export async function serveKind(kind: BuiltinKind): Promise<ServedKind> {
  const storage = new MemoryStorage();
  const cacher = new Cacher({
    storage,
    prefix: resourcePrefix(kind.schema),
    decoder: jsonItemDecoder(kind.schema.selectableFields),
  });
  await cacher.start();
  const registry = new Registry({
    schema: kind.schema,
    strategy: kind.strategy,
    subresources: kind.subresourceStrategies ?? {},
    storage,
    cacher,
  });
  return {
    registry,
    async stop() {
      await cacher.stop();
      await storage.close();
    },
  };
}
