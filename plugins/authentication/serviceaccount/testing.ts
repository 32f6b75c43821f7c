// Test support (not a test): a real control plane over MemoryStorage with the built-in kinds and
// the gateway's object access over it, as the authenticators see objects in the server.
import { builtinKinds } from "../../../backends/builtin/index.ts";
import { MemoryStorage } from "../../../backends/memory/index.ts";
import { type Naming, naming as namingPreset } from "../../../backends/naming/index.ts";
import type { JsonObject, Registry } from "../../../backends/registry/index.ts";
import { startControlPlane } from "../../../gateway/control-plane.ts";
import { objectAccess } from "../../../gateway/object-access.ts";
import type { ApiObject, ObjectAccess } from "../../objects/index.ts";

export interface TestPlane {
  readonly naming: Naming;
  readonly access: ObjectAccess;
  registry(resource: string): Registry;
  /** Creates the object and waits until object access sees it; returns the stored object. */
  create(resource: string, namespace: string, body: JsonObject): Promise<ApiObject>;
  /** Deletes the object and waits until object access sees the change. */
  remove(resource: string, namespace: string, name: string): Promise<void>;
  /** Waits until object access shows the object as `check` wants it. */
  settle(
    resource: string,
    namespace: string,
    name: string,
    check: (o: ApiObject | undefined) => boolean,
  ): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestPlane(preset: "cluster" | "kubernetes" = "cluster"): Promise<TestPlane> {
  const storage = new MemoryStorage();
  const naming = namingPreset(preset);
  const failures: unknown[] = [];
  const plane = await startControlPlane({
    storage,
    naming,
    kinds: builtinKinds(naming),
    historyWindowMs: 60_000,
    maxHistory: 1000,
    watchListEnabled: false,
    onError: (err) => failures.push(err),
  });
  const stop = new AbortController();
  const access = objectAccess(plane.resources, stop.signal, (err) => failures.push(err));
  const registry = (resource: string): Registry => {
    const served = plane.resources.byResource("", resource);
    if (!served) throw new Error(`${resource} is not served`);
    return served.registry;
  };
  const settle: TestPlane["settle"] = async (resource, namespace, name, check) => {
    for (let i = 0; i < 500; i++) {
      if (check(await access.get({ group: "", resource }, namespace, name))) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`object access never showed the expected ${resource} ${namespace}/${name}`);
  };
  return {
    naming,
    access,
    registry,
    async create(resource, namespace, body) {
      const { object } = await registry(resource).create(namespace, body);
      const meta = object.metadata as { name: string; resourceVersion: string };
      await settle(
        resource,
        namespace,
        meta.name,
        (o) =>
          (o?.metadata as { resourceVersion?: string } | undefined)?.resourceVersion === meta.resourceVersion,
      );
      return object as ApiObject;
    },
    async remove(resource, namespace, name) {
      const result = await registry(resource).delete(namespace, name);
      await settle(resource, namespace, name, (o) =>
        result.removed
          ? o === undefined
          : Boolean((o?.metadata as { deletionTimestamp?: string } | undefined)?.deletionTimestamp),
      );
    },
    settle,
    async stop() {
      stop.abort();
      await plane.stop();
      await storage.close();
      if (failures.length > 0) throw new Error(`control plane errors: ${failures.map(String).join("; ")}`);
    },
  };
}
