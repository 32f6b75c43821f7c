// Serves what CustomResourceDefinitions describe, as upstream's apiextensions controllers do:
// names are checked against the other definitions and the outcome written to status
// (NamesAccepted, Established); an established definition's resource is served at once (routing,
// discovery and OpenAPI follow the resource table); a deleted definition first loses every
// object of its resource, then its cleanup finalizer, then its route.

import { asArray, asObject, asString, type JsonObject } from "../backends/common/json.ts";
import {
  type ConversionCallouts,
  type CustomResourceKind,
  crdCleanupFinalizer,
  crdStatus,
  customResourceKind,
} from "../backends/crd/index.ts";
import type { Naming } from "../backends/naming/index.ts";
import { formatFieldError, nestingErrors, RegistryError } from "../backends/registry/index.ts";
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
  /** How conversion webhooks are called (Services resolved, one client for every call-out). */
  readonly callouts?: ConversionCallouts;
  readonly onError: (err: unknown, context: string) => void;
  /**
   * How long to wait before looking again at a definition whose objects are still going, and
   * after a first failure; each further failure in a row doubles it, up to maxRetryMs.
   */
  readonly retryMs?: number;
  /** The longest wait between attempts at a definition that keeps failing (default 5 minutes). */
  readonly maxRetryMs?: number;
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

/**
 * Why a definition's schema cannot be served: it nests past the object limit (stored so by an
 * older version; such a schema is too deep for the steps that serve it).
 */
function schemaProblem(crd: JsonObject): string | undefined {
  const [tooDeep] = nestingErrors(crd);
  return tooDeep ? formatFieldError(tooDeep) : undefined;
}

/** Schemas that take anything, standing in for ones that cannot be served. */
const OPEN_SCHEMA = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };

/**
 * The resource a definition describes. One whose schema cannot be served gets open schemas, so
 * that its objects can still be listed and deleted when the definition goes.
 */
function kindOf(
  naming: Naming,
  crd: JsonObject,
  problem: string | undefined,
  callouts: ConversionCallouts | undefined,
): CustomResourceKind {
  if (problem === undefined) return customResourceKind(naming, crd, callouts);
  const spec = asObject(crd.spec) ?? {};
  const versions = asArray(spec.versions).map((v) => ({ ...asObject(v), schema: OPEN_SCHEMA }));
  return customResourceKind(naming, { ...crd, spec: { ...spec, versions } }, callouts);
}

export function startCrdRegistrar(options: CrdRegistrarOptions): CrdRegistrar {
  const { naming, controlPlane, informer, onError, callouts } = options;
  const group = naming.group("apiextensions");
  const registry = () => controlPlane.resources.byResource(group, "customresourcedefinitions")?.registry;
  const finalizer = crdCleanupFinalizer(naming);
  const served = new Map<string, Served>();
  const pending = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const retryMs = options.retryMs ?? 500;
  const maxRetryMs = options.maxRetryMs ?? 300_000;
  /** Failures in a row per definition: a definition that keeps failing is retried ever less often. */
  const failures = new Map<string, number>();
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
        failures.delete(name);
      } catch (err) {
        const n = (failures.get(name) ?? 0) + 1;
        failures.set(name, n);
        onError(err, `customresourcedefinition ${name} (attempt ${n})`);
        later(name, Math.min(retryMs * 2 ** (n - 1), maxRetryMs));
      }
    });
  };

  const later = (name: string, ms = retryMs) => {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      schedule(name);
    }, ms);
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
      const kind = kindOf(naming, current, schemaProblem(current), callouts);
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
    const problem = schemaProblem(current);
    const status = crdStatus(current, others, {
      naming,
      ...(problem !== undefined ? { schemaProblem: problem } : {}),
    });
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
    // Not served while its schema cannot be (the condition says why); a change brings it back.
    if (!established(current) || problem !== undefined) {
      await unserve(name);
      return;
    }
    const kind = customResourceKind(naming, current, callouts);
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
