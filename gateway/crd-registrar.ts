// Serves what CustomResourceDefinitions describe, as upstream's apiextensions controllers do:
// names are checked against the other definitions and the outcome written to status
// (NamesAccepted, Established); an established definition's resource is served at once (routing,
// discovery and OpenAPI follow the resource table); a deleted definition first loses every
// object of its resource, then its cleanup finalizer, then its route.

import { asArray, asObject, asString, type JsonObject } from "../backends/common/json.ts";
import {
  type CustomResourceKind,
  crdCleanupFinalizer,
  crdStatus,
  customResourceKind,
} from "../backends/crd/index.ts";
import type { Naming } from "../backends/naming/index.ts";
import { RegistryError } from "../backends/registry/index.ts";
import type { ApiObject, LocalInformer } from "../plugins/objects/index.ts";
import type { ControlPlane } from "./control-plane.ts";

export interface CrdRegistrar {
  /** Resolves once every definition present at start has been served. */
  readonly synced: Promise<void>;
  stop(): void;
}

export interface CrdRegistrarOptions {
  readonly naming: Naming;
  readonly controlPlane: ControlPlane;
  readonly informer: LocalInformer;
  readonly onError: (err: unknown, context: string) => void;
  /** How long to wait before looking again at a definition whose objects are still going. */
  readonly retryMs?: number;
}

interface Served {
  readonly group: string;
  readonly plural: string;
  /** What the served resource was built from; a change rebuilds it. */
  readonly fingerprint: string;
}

function established(crd: JsonObject): boolean {
  return asArray(asObject(crd.status)?.conditions).some((c) => {
    const o = asObject(c);
    return asString(o?.type) === "Established" && asString(o?.status) === "True";
  });
}

export function startCrdRegistrar(options: CrdRegistrarOptions): CrdRegistrar {
  const { naming, controlPlane, informer, onError } = options;
  const group = naming.group("apiextensions");
  const registry = () => controlPlane.resources.byResource(group, "customresourcedefinitions")?.registry;
  const finalizer = crdCleanupFinalizer(naming);
  const served = new Map<string, Served>();
  const pending = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  const schedule = (name: string) => {
    if (stopped || pending.has(name)) return;
    pending.add(name);
    // One definition at a time: names are checked against the others.
    running = running.then(async () => {
      pending.delete(name);
      try {
        await reconcile(name);
      } catch (err) {
        onError(err, `customresourcedefinition ${name}`);
        later(name);
      }
    });
  };

  const later = (name: string) => {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      schedule(name);
    }, options.retryMs ?? 500);
    timers.add(t);
  };

  const unserve = async (name: string) => {
    const s = served.get(name);
    if (!s) return;
    served.delete(name);
    await controlPlane.unserve(s.group, s.plural);
  };

  /** Deletes the resource's objects; true once none are left. */
  const emptied = async (kind: CustomResourceKind): Promise<boolean> => {
    const resource = await controlPlane.serve(kind);
    const listed = await resource.registry.list(undefined, {});
    for (const item of listed.items) {
      const m = asObject(JSON.parse(item.json))?.metadata as
        | { name?: string; namespace?: string }
        | undefined;
      try {
        await resource.registry.delete(m?.namespace, m?.name ?? "");
      } catch (err) {
        if (!(err instanceof RegistryError && err.reason === "NotFound")) throw err;
      }
    }
    return listed.items.length === 0;
  };

  const reconcile = async (name: string) => {
    const current = informer.get(undefined, name) as JsonObject | undefined;
    const crds = registry();
    if (!current || !crds) {
      await unserve(name);
      return;
    }
    const meta = asObject(current.metadata) ?? {};
    if (asString(meta.deletionTimestamp)) {
      if (!asArray(meta.finalizers).includes(finalizer)) return;
      const kind = customResourceKind(naming, current);
      if (!(await emptied(kind))) {
        later(name);
        return;
      }
      served.delete(name);
      await controlPlane.unserve(kind.schema.group, kind.schema.plural);
      await crds.update(undefined, name, (object) => {
        if (!object) throw crds.notFound(name);
        const m = asObject(object.metadata) ?? {};
        m.finalizers = asArray(m.finalizers).filter((f) => f !== finalizer);
        return object;
      });
      return;
    }
    const others = informer.list().filter((o) => o.metadata.name !== name) as JsonObject[];
    const status = crdStatus(current, others, { naming });
    // Condition timestamps change on every computation; compare what they say.
    const comparable = (s: unknown) =>
      JSON.stringify(s, (k, v) => (k === "lastTransitionTime" ? undefined : (v as unknown)));
    if (comparable(status) !== comparable(current.status)) {
      await crds.update(
        undefined,
        name,
        (object) => {
          if (!object) throw crds.notFound(name);
          object.status = status;
          return object;
        },
        { subresource: "status" },
      );
      // The status write comes back as an event and is reconciled then.
      return;
    }
    if (!established(current)) {
      await unserve(name);
      return;
    }
    const kind = customResourceKind(naming, current);
    const fingerprint = JSON.stringify([current.spec, asObject(current.status)?.acceptedNames]);
    const before = served.get(name);
    if (before?.fingerprint === fingerprint) return;
    if (before && (before.group !== kind.schema.group || before.plural !== kind.schema.plural)) {
      await unserve(name);
    }
    await controlPlane.serve(kind.scale ? { ...kind, schema: { ...kind.schema, scale: kind.scale } } : kind);
    served.set(name, { group: kind.schema.group, plural: kind.schema.plural, fingerprint });
  };

  const unsubscribe = informer.subscribe((event) => schedule((event.object as ApiObject).metadata.name));
  const synced = informer.synced.then(async () => {
    for (const crd of informer.list()) schedule(crd.metadata.name);
    // Status writes come back as events; wait until those settle too.
    for (let i = 0; i < 3; i++) {
      await running;
      await new Promise((r) => setTimeout(r, 20));
    }
    await running;
  });

  return {
    synced,
    stop() {
      stopped = true;
      unsubscribe();
      for (const t of timers) clearTimeout(t);
    },
  };
}
