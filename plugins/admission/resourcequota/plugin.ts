// ResourceQuota: a namespaced write is charged to the quotas of its namespace that track what it
// consumes, and refused when any would go over its hard limits. Usage lives in each quota's
// status: admission adds to it (compare-and-swap, one namespace at a time in this process), and a
// recalculation from the informers, in place of upstream's quota controller, mirrors spec.hard
// into status.hard and gives back what deleted or finished objects used.
import { RegistryError } from "../../../backends/registry/index.ts";
import type { ApiObject } from "../../objects/index.ts";
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv } from "../index.ts";
import { AdmissionError, badRequest, forbidden, internalError } from "../index.ts";
import { addLists, equalLists, mask } from "../resourcelist/lists.ts";
import { QuantityError, type ResourceList, resourceList, toJson, ZERO } from "../resourcelist/quantity.ts";
import { charge, checkRequest, quotaSelectors, quotaState, type Refuse } from "./check.ts";
import { parseConfig } from "./config.ts";
import { type Evaluator, EvaluatorRegistry } from "./evaluators.ts";
import { KeyedMutex } from "./mutex.ts";
import { PendingCharges } from "./pending.ts";
import { asObject } from "./pods.ts";

export const PLUGIN_NAME = "ResourceQuota";

export interface ResourceQuotaOptions {
  /** Period of the full recalculation; upstream's controller resyncs every 5 minutes. */
  readonly resyncMs?: number;
  /** Delay before recalculating a namespace after a deletion, coalescing bursts. */
  readonly debounceMs?: number;
  /** How long an admitted charge stands in for an object the informers do not show yet. */
  readonly pendingMs?: number;
  /** How long a write may wait for its namespace's turn (upstream: 10s). */
  readonly evaluationTimeoutMs?: number;
  /** Failures of background recalculation (they are retried at the next trigger). */
  readonly onError?: (err: unknown) => void;
}

const QUOTAS = { group: "", resource: "resourcequotas" };

function revisionNumber(o: JsonObject): bigint | undefined {
  const rv = asObject(o.metadata)?.resourceVersion;
  return typeof rv === "string" && /^[0-9]+$/.test(rv) ? BigInt(rv) : undefined;
}

function specHard(quota: JsonObject): ResourceList {
  return resourceList(asObject(quota.spec)?.hard, "spec.hard");
}

class StaleQuota extends Error {}

export function createResourceQuota(env: PluginEnv, options: ResourceQuotaOptions = {}): AdmissionPlugin {
  const config = parseConfig(env.configuration, env.naming);
  const registry = new EvaluatorRegistry(env.naming, env.options.featureGates);
  const quotaInformer = env.objects.informer(QUOTAS);
  if (!quotaInformer) throw new Error("ResourceQuota: resourcequotas are not served");
  const resyncMs = options.resyncMs ?? 5 * 60_000;
  const debounceMs = options.debounceMs ?? 100;
  const pendingMs = options.pendingMs ?? 30_000;
  const timeoutMs = options.evaluationTimeoutMs ?? 10_000;
  const onError = options.onError ?? (() => {});

  const mutex = new KeyedMutex();
  const pending = new PendingCharges();
  /** Quotas as this process last wrote them: newer than the informer's copy until it catches up. */
  const written = new Map<string, ApiObject>();
  const scheduled = new Map<string, ReturnType<typeof setTimeout>>();
  const tracked = new Map<string, () => void>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const unsubscribe: (() => void)[] = [];
  let closed = false;

  const keyOf = (ns: string, name: string) => `${ns}/${name}`;

  /** The names of `hard` the recount can measure (a served resource with an evaluator). */
  function countable(hard: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const e of registry.forNames(hard)) {
      if (env.objects.informer({ group: e.group, resource: e.resource })) {
        for (const name of e.matchingResources(hard)) out.add(name);
      }
    }
    return out;
  }

  /**
   * Whether the status already reflects the spec: the same hard limits and a usage for each
   * countable one (names nothing counts stay without usage, as upstream leaves them).
   */
  function statusSynced(quota: JsonObject): boolean {
    try {
      const hard = specHard(quota);
      const state = quotaState(quota);
      if (!equalLists(hard, state.hard)) return false;
      for (const name of countable([...hard.keys()])) if (!state.used.has(name)) return false;
      return true;
    } catch {
      return false;
    }
  }

  function quotasOf(ns: string): ApiObject[] {
    return quotaInformer!.list(ns).map((q) => {
      const mine = written.get(keyOf(ns, q.metadata.name));
      if (!mine) return q;
      const a = revisionNumber(q);
      const b = revisionNumber(mine);
      return a !== undefined && b !== undefined && b > a ? mine : q;
    });
  }

  function newQuotaSeen(object: JsonObject): void {
    for (const e of registry.forNames([...Object.keys(asObject(asObject(object.spec)?.hard) ?? {})]))
      track(e);
  }

  /** Follows a resource's objects: deletions and changes give quota back, arrivals clear charges. */
  function track(e: Evaluator): void {
    const key = `${e.group}/${e.resource}`;
    if (tracked.has(key) || closed) return;
    const informer = env.objects.informer({ group: e.group, resource: e.resource });
    if (!informer) return;
    const known = new Set<string>();
    let replaying = true;
    const stop = informer.subscribe((event) => {
      const meta = event.object.metadata;
      const id = keyOf(meta.namespace ?? "", meta.name);
      const isNew = event.type !== "DELETED" && !known.has(id) && !replaying;
      if (event.type === "DELETED") known.delete(id);
      else known.add(id);
      pending.observe(e.group, e.resource, event.type, event.object, isNew);
      if (replaying || !meta.namespace) return;
      // Pods finish and services and claims change type or size: their usage can go down.
      const changes =
        event.type === "MODIFIED" &&
        e.group === "" &&
        ["pods", "services", "persistentvolumeclaims"].includes(e.resource);
      if (event.type === "DELETED" || changes) schedule(meta.namespace);
    });
    replaying = false;
    tracked.set(key, stop);
  }

  function schedule(ns: string, delay = debounceMs): void {
    if (closed || scheduled.has(ns) || quotaInformer!.list(ns).length === 0) return;
    const timer = setTimeout(() => {
      scheduled.delete(ns);
      if (closed) return;
      mutex.run(ns, () => recalculateNamespace(ns)).catch(onError);
    }, delay);
    timer.unref?.();
    scheduled.set(ns, timer);
  }

  /** Usage of what the quota tracks, from the informers plus the charges they do not show yet. */
  async function calculate(quota: JsonObject, ns: string): Promise<ResourceList> {
    const hard = specHard(quota);
    const names = [...hard.keys()];
    const selectors = quotaSelectors(quota);
    let used: ResourceList;
    try {
      used = resourceList(asObject(quota.status)?.used, "status.used");
    } catch {
      // Unreadable usage is recounted from scratch rather than kept.
      used = new Map();
    }
    const now = Date.now();
    for (const evaluator of registry.forNames(names)) {
      const charged = evaluator.matchingResources(names);
      if (charged.length === 0) continue;
      const informer = env.objects.informer({ group: evaluator.group, resource: evaluator.resource });
      if (!informer) continue;
      track(evaluator);
      await informer.synced;
      // Each tracked name starts at zero: no objects is a usage of 0, not an unknown one.
      let sum: ResourceList = new Map(charged.map((n) => [n, ZERO]));
      const objects = pending.overlay(evaluator.group, evaluator.resource, ns, informer.list(ns), now);
      for (const object of objects) {
        if (!selectors.every((s) => evaluator.matchesScope?.(s, object) ?? false)) continue;
        try {
          sum = addLists(sum, evaluator.usage(object, now));
        } catch (err) {
          // An object with unreadable quantities is charged nothing rather than stopping the count.
          if (!(err instanceof QuantityError)) throw err;
        }
      }
      used = new Map([...used, ...mask(sum, charged)]);
    }
    return mask(used, names);
  }

  async function writeStatus(
    ns: string,
    name: string,
    transform: (current: JsonObject) => JsonObject,
  ): Promise<ApiObject | undefined> {
    try {
      const stored = await env.writer.update(QUOTAS, ns, name, transform, { subresource: "status" });
      written.set(keyOf(ns, name), stored);
      return stored;
    } catch (err) {
      // The quota is gone: nothing to keep current.
      if (err instanceof RegistryError && err.reason === "NotFound") {
        written.delete(keyOf(ns, name));
        return undefined;
      }
      throw err;
    }
  }

  /** Mirrors spec.hard into status.hard and writes the recalculated usage when it differs. */
  async function recalculate(quota: ApiObject): Promise<ApiObject | undefined> {
    const ns = quota.metadata.namespace ?? "";
    const hard = specHard(quota);
    const used = await calculate(quota, ns);
    let state: ReturnType<typeof quotaState> | undefined;
    try {
      state = quotaState(quota);
    } catch {
      // An unreadable status is rewritten.
    }
    if (state && equalLists(hard, state.hard) && equalLists(used, state.used)) return quota;
    const expectedSpec = JSON.stringify(asObject(quota.spec)?.hard ?? {});
    return writeStatus(ns, quota.metadata.name, (current) => {
      // The limits changed since the count: the next round counts for the new ones.
      if (JSON.stringify(asObject(current.spec)?.hard ?? {}) !== expectedSpec) throw new StaleQuota();
      const next = structuredClone(current);
      next.status = { ...(asObject(next.status) ?? {}), hard: toJson(hard), used: toJson(used) };
      return next;
    }).catch((err: unknown) => {
      if (!(err instanceof StaleQuota)) throw err;
      schedule(ns);
      return undefined;
    });
  }

  async function recalculateNamespace(ns: string): Promise<void> {
    for (const quota of quotasOf(ns)) {
      try {
        await recalculate(quota);
      } catch (err) {
        onError(err);
      }
    }
  }

  /** Upstream names the object being refused by its name, else its generateName, else Unknown. */
  function refusal(a: Attributes): Refuse {
    const meta = asObject(a.object?.metadata) ?? {};
    const named = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
    const name = named(meta.name) ?? named(meta.generateName) ?? (a.name || "Unknown");
    return (why) => forbidden({ resource: a.resource, name }, why);
  }

  async function evaluate(a: Attributes, evaluator: Evaluator): Promise<void> {
    const ns = a.namespace;
    const listed = quotasOf(ns);
    if (listed.length === 0 && config.limitedResources.length === 0) return;
    const refuse = refusal(a);
    const quotas: ApiObject[] = [];
    for (const q of listed) {
      newQuotaSeen(q);
      try {
        // A quota the recalculation has not reached yet is counted now rather than ignored.
        const current = statusSynced(q) ? q : await recalculate(q);
        if (current) quotas.push(current);
      } catch (err) {
        if (!(err instanceof QuantityError)) throw err;
        // A quota whose limits cannot be read cannot judge: writes it would track are refused.
        const names = Object.keys(asObject(asObject(q.spec)?.hard) ?? {});
        if (evaluator.matchingResources(names).length > 0) {
          throw refuse(`failed quota: ${q.metadata.name}: ${err.message}`);
        }
      }
    }
    const now = Date.now();
    let result: ReturnType<typeof checkRequest>;
    try {
      result = checkRequest(
        quotas.map(quotaState),
        a,
        evaluator,
        config.limitedResources,
        now,
        refuse,
        (why) => new AdmissionError(500, "", why),
      );
    } catch (err) {
      if (err instanceof QuantityError) throw badRequest(err.message);
      throw err;
    }
    if (a.dryRun || result.charged.length === 0) return;
    track(evaluator);
    let wrote = false;
    try {
      for (const { name } of result.charged) {
        // The stored quota decides: its usage may have moved since it was read.
        const stored = await writeStatus(ns, name, (current) => {
          const state = quotaState(current);
          const used = charge(state, result.delta, refuse);
          const next = structuredClone(current);
          next.status = { ...(asObject(next.status) ?? {}), used: toJson(used) };
          return next;
        });
        wrote ||= stored !== undefined;
      }
    } catch (err) {
      // Quotas charged before the failure are over-counted until recounted.
      if (wrote) schedule(ns);
      if (err instanceof AdmissionError) throw err;
      throw internalError(err instanceof Error ? err.message : String(err));
    }
    const object = a.object as JsonObject;
    const oldRv = asObject(a.oldObject?.metadata)?.resourceVersion;
    pending.add({
      group: evaluator.group,
      resource: evaluator.resource,
      namespace: ns,
      name: a.name || undefined,
      object: structuredClone(object),
      replacing: a.operation === "UPDATE" && typeof oldRv === "string" ? oldRv : undefined,
      expires: now + pendingMs,
    });
    // A charge whose object never shows up (a later refusal, a failed write) is given back then.
    const expiry = setTimeout(() => {
      timers.delete(expiry);
      for (const gone of pending.expire(Date.now())) schedule(gone, 0);
    }, pendingMs + 1);
    expiry.unref?.();
    timers.add(expiry);
  }

  // Quotas: new or changed limits are counted at once; the full recount runs at start and then
  // periodically, as upstream's controller does.
  unsubscribe.push(
    quotaInformer.subscribe((event) => {
      const meta = event.object.metadata;
      if (event.type === "DELETED") {
        written.delete(keyOf(meta.namespace ?? "", meta.name));
        return;
      }
      newQuotaSeen(event.object);
      if (!statusSynced(event.object) && meta.namespace) schedule(meta.namespace);
    }),
  );
  function resyncAll(): void {
    const namespaces = new Set(quotaInformer!.list().map((q) => q.metadata.namespace ?? ""));
    for (const ns of namespaces) if (ns) schedule(ns, 0);
  }
  void quotaInformer.synced.then(() => {
    if (!closed) resyncAll();
  });
  const resync = setInterval(resyncAll, resyncMs);
  resync.unref?.();

  function close(): void {
    if (closed) return;
    closed = true;
    clearInterval(resync);
    for (const t of scheduled.values()) clearTimeout(t);
    scheduled.clear();
    for (const t of timers) clearTimeout(t);
    for (const stop of unsubscribe) stop();
    for (const stop of tracked.values()) stop();
    tracked.clear();
  }
  env.signal.addEventListener("abort", close, { once: true });

  return {
    name: PLUGIN_NAME,
    async validate(a) {
      if (a.subresource !== "" || a.namespace === "") return;
      const evaluator = registry.forResource(a.resource.group, a.resource.resource);
      if (!evaluator?.handles(a) || !a.object) return;
      await quotaInformer.synced;
      // Most namespaces have no quota: no need to queue behind the namespace's other writes.
      if (config.limitedResources.length === 0 && quotaInformer.list(a.namespace).length === 0) return;
      try {
        await mutex.run(
          a.namespace,
          () => evaluate(a, evaluator),
          timeoutMs,
          () => internalError("resource quota evaluation timed out"),
        );
      } catch (err) {
        if (err instanceof AdmissionError) throw err;
        // A failed read or write of a quota: the write cannot be judged.
        throw internalError(err instanceof Error ? err.message : String(err));
      }
    },
    close,
  };
}
