// The garbage collector (upstream's generic-garbage-collector), an API client like every
// controller: monitors on every resource that can be listed, watched and deleted keep a graph of
// owners and dependents; workers delete dependents whose owners are gone (Background), delete the
// blocking dependents of an owner being deleted in the foreground and then release it
// (Foreground), and take an orphaning owner's references off its dependents (Orphan).
//
// Nothing is deleted on the graph's word alone: an owner counts as gone only after a live read
// answers 404 or another uid, and a dependent is deleted with its uid and resourceVersion as
// preconditions, so a change the graph has not seen yet makes the delete fail rather than act on
// stale references. While any monitor is out of step with the server (a lost watch, the storage
// away), the workers wait.
import { randomBytes } from "node:crypto";
import { Counter, type Registry } from "prom-client";
import type { ApiReply, ControllerClient } from "../client.ts";
import { type Discovered, discover, kindKey } from "./discovery.ts";
import {
  BEING_DELETED,
  FOREGROUND_FINALIZER,
  GcNode,
  groupOf,
  Interner,
  OBSERVED,
  ORPHAN_FINALIZER,
  type OwnerRef,
  objectPath,
  type ResourceInfo,
} from "./graph.ts";
import { Monitor, type WatchedObject } from "./monitor.ts";
import { WorkQueue } from "./work-queue.ts";

export const FINALIZER_ORPHAN = "orphan";
export const FINALIZER_FOREGROUND = "foregroundDeletion";
const COMPONENT = "garbage-collector-controller";
const MERGE_PATCH = "application/merge-patch+json";

/** Upstream's klog verbosity of each line: 0 always shown, 2 decisions, 5 details. */
export type GcLogger = (verbosity: number, message: string, fields?: Record<string, unknown>) => void;

export interface GarbageCollectorOptions {
  /** Resources never watched: upstream ignores Events (core and the events group). */
  readonly ignored: (group: string, resource: string) => boolean;
  /** Workers deleting dependents (upstream's --concurrent-gc-syncs, 20). */
  readonly workers?: number;
  /** How often discovery is read again (upstream: 30s). */
  readonly resyncMs?: number;
  readonly metrics?: Registry;
  readonly log?: GcLogger;
  readonly onError: (err: unknown, context: string) => void;
}

type Policy = "Orphan" | "Foreground" | "Background";

class UnknownKindError extends Error {}
class InvalidNamespaceError extends Error {}
/** The server said something changed under us: try again after the graph catches up. */
class RetryError extends Error {}

let syncErrors: Counter | undefined;
const syncErrorCounters = new WeakMap<Registry, Counter>();

function syncErrorCounter(registry: Registry | undefined): Counter {
  const make = (registers: Registry[]) =>
    new Counter({
      name: "garbagecollector_controller_resources_sync_error_total",
      help: "Number of garbage collector resources sync errors",
      registers,
    });
  if (!registry) {
    syncErrors ??= make([]);
    return syncErrors;
  }
  let counter = syncErrorCounters.get(registry);
  if (!counter) {
    counter = make([registry]);
    syncErrorCounters.set(registry, counter);
  }
  return counter;
}

export class GarbageCollector {
  readonly #client: ControllerClient;
  readonly #options: GarbageCollectorOptions;
  readonly #log: GcLogger;
  readonly #syncErrors: Counter;
  readonly #nodes = new Map<string, GcNode>();
  readonly #strings = new Interner();
  readonly #monitors = new Map<string, Monitor>();
  #kinds = new Map<string, ResourceInfo>();
  readonly #attemptToDelete = new WorkQueue<GcNode>();
  readonly #attemptToOrphan = new WorkQueue<GcNode>();
  /** Owners confirmed absent by a live read, by coordinates and uid (uids are never reused). */
  readonly #absent = new Set<string>();
  readonly #lookups = new Map<string, Promise<ApiReply>>();
  /** Dependents waiting for an owner's kind to be served; looked at again after discovery. */
  readonly #unresolved = new Set<GcNode>();
  readonly #loggedKinds = new Set<string>();
  readonly #reported = new Set<string>();
  #discovered = false;
  #synced = false;
  #syncWaiters: (() => void)[] = [];
  #signal: AbortSignal | undefined;
  #rediscover: (() => void) | undefined;
  #rediscoverRequested = false;
  #rediscoverScheduled = false;

  constructor(client: ControllerClient, options: GarbageCollectorOptions) {
    this.#client = client;
    this.#options = options;
    this.#log = options.log ?? (() => {});
    this.#syncErrors = syncErrorCounter(options.metrics);
  }

  /** True once discovery has been read and every monitor has listed its resource. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Objects (and referred-to owners) the graph holds. */
  get trackedObjects(): number {
    return this.#nodes.size;
  }

  /** Resources watched, as `<group>/<resource>`. */
  get watchedResources(): string[] {
    return [...this.#monitors.keys()].sort();
  }

  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    const workers = this.#options.workers ?? 20;
    const runs: Promise<void>[] = [];
    for (let i = 0; i < workers; i++)
      runs.push(this.#worker(this.#attemptToDelete, (n) => this.#attemptToDeleteItem(n)));
    for (let i = 0; i < Math.max(1, Math.floor(workers / 4)); i++)
      runs.push(this.#worker(this.#attemptToOrphan, (n) => this.#attemptToOrphanItem(n)));
    const stop = () => {
      this.#attemptToDelete.close();
      this.#attemptToOrphan.close();
      for (const wake of this.#syncWaiters) wake();
      this.#rediscover?.();
    };
    // A signal aborted before the run began fires no event.
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
    while (!signal.aborted) {
      try {
        await this.#sync(signal);
      } catch (err) {
        this.#syncErrors.inc();
        this.#options.onError(err, "garbage collector discovery");
      }
      if (this.#rediscoverRequested) {
        this.#rediscoverRequested = false;
        continue;
      }
      // Stopped during the sync: the abort found no wait to end, so none may start.
      if (signal.aborted) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#options.resyncMs ?? 30_000);
        this.#rediscover = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#rediscover = undefined;
      this.#rediscoverRequested = false;
    }
    await Promise.allSettled([...this.#monitors.values()].map((m) => m.stop()));
    await Promise.allSettled(runs);
  }

  // ---- discovery and monitors ----

  async #sync(signal: AbortSignal): Promise<void> {
    const found: Discovered = await discover(this.#client, this.#options.ignored);
    if (found.watched.size === 0) throw new Error("no resources reported by discovery");
    if (found.failed.size > 0) {
      this.#syncErrors.inc();
      this.#log(0, "failed to discover some groups", { groups: [...found.failed].sort() });
    }
    const kindsChanged =
      found.kinds.size !== this.#kinds.size || [...found.kinds.keys()].some((k) => !this.#kinds.has(k));
    this.#kinds = found.kinds;
    for (const [key, monitor] of this.#monitors) {
      const now = found.watched.get(key);
      const failed = found.failed.has(`${monitor.resource.group}/${monitor.resource.version}`);
      if (now && now.version === monitor.resource.version) continue;
      // A group whose document could not be read keeps its monitors.
      if (!now && failed) continue;
      this.#monitors.delete(key);
      await monitor.stop();
      this.#dropResource(monitor.resource);
      this.#log(2, "stopped watching a resource", { resource: key });
    }
    for (const [key, info] of found.watched) {
      if (this.#monitors.has(key)) continue;
      const monitor = new Monitor(this.#client, info, this);
      this.#monitors.set(key, monitor);
      monitor.start(signal);
      this.#log(2, "watching a resource", { resource: key });
    }
    this.#discovered = true;
    this.syncChanged();
    if (kindsChanged) {
      for (const node of this.#unresolved) this.#attemptToDelete.add(node);
      this.#unresolved.clear();
    }
  }

  /** Objects of a resource no longer served are no longer known; their dependents are looked at. */
  #dropResource(resource: ResourceInfo): void {
    for (const node of [...this.#nodes.values()]) if (node.resource === resource) this.#removeNode(node);
  }

  syncChanged(): void {
    const synced = this.#discovered && [...this.#monitors.values()].every((m) => m.synced);
    if (synced === this.#synced) return;
    this.#synced = synced;
    this.#log(
      synced ? 2 : 0,
      synced ? "all resource monitors have synced" : "a resource monitor is resyncing; pausing",
    );
    if (synced) {
      for (const wake of this.#syncWaiters) wake();
      this.#syncWaiters = [];
    }
  }

  syncFailed(resource: ResourceInfo, err: unknown): void {
    this.#syncErrors.inc();
    this.#options.onError(err, `garbage collector monitor ${resource.group}/${resource.resource}`);
  }

  // ---- the graph ----

  observe(resource: ResourceInfo, object: WatchedObject, generation: number): void {
    const m = object.metadata as Record<string, unknown> | undefined;
    const uid = typeof m?.uid === "string" ? m.uid : "";
    if (!m || uid === "") return;
    // CRDs and APIServices coming and going change what is served.
    if (resource.resource === "customresourcedefinitions" || resource.resource === "apiservices")
      this.#scheduleRediscovery();
    const owners = this.#ownersOf(m.ownerReferences);
    const finalizers = Array.isArray(m.finalizers) ? (m.finalizers as unknown[]) : [];
    const flags =
      OBSERVED |
      (m.deletionTimestamp ? BEING_DELETED : 0) |
      (finalizers.includes(FINALIZER_ORPHAN) ? ORPHAN_FINALIZER : 0) |
      (finalizers.includes(FINALIZER_FOREGROUND) ? FOREGROUND_FINALIZER : 0);
    let node = this.#nodes.get(uid);
    const namespace = this.#strings.get(resource.namespaced ? String(m.namespace ?? "") : "");
    const apiVersion = this.#strings.get(
      resource.group ? `${resource.group}/${resource.version}` : resource.version,
    );
    if (!node) {
      node = new GcNode(uid, apiVersion, this.#strings.get(resource.kind), namespace, String(m.name ?? ""));
      this.#nodes.set(uid, node);
    }
    const old = node.flags;
    if (!node.observed) {
      node.apiVersion = apiVersion;
      node.kind = this.#strings.get(resource.kind);
      node.namespace = namespace;
      node.name = String(m.name ?? "");
      // Dependents that named this owner from another namespace referred to nothing.
      if (resource.namespaced)
        for (const dep of node.dependents ?? []) {
          if (dep.namespace !== namespace) {
            this.#reportInvalidNamespace(dep, uid);
            this.#attemptToDelete.add(dep);
          }
        }
    }
    node.resource = resource;
    node.resourceVersion = String(m.resourceVersion ?? "");
    if (generation) node.seen = generation;
    node.flags = flags;
    this.#setOwners(node, owners);
    this.#transitions(node, old, flags);
  }

  observeDeleted(_resource: ResourceInfo, object: WatchedObject): void {
    const uid = object.metadata?.uid;
    const node = uid ? this.#nodes.get(uid) : undefined;
    if (node?.observed) this.#removeNode(node);
  }

  listed(resource: ResourceInfo, generation: number): void {
    const gone: GcNode[] = [];
    for (const node of this.#nodes.values())
      if (node.resource === resource && node.observed && node.seen !== generation) gone.push(node);
    for (const node of gone) this.#removeNode(node);
  }

  #ownersOf(value: unknown): OwnerRef[] {
    if (!Array.isArray(value) || value.length === 0) return [];
    const out: OwnerRef[] = [];
    for (const r of value as Record<string, unknown>[]) {
      if (typeof r?.uid !== "string") continue;
      const known = this.#nodes.get(r.uid);
      out.push({
        uid: known?.uid ?? r.uid,
        apiVersion: this.#strings.get(String(r.apiVersion ?? "")),
        kind: this.#strings.get(String(r.kind ?? "")),
        name: known && known.name === r.name ? known.name : String(r.name ?? ""),
        block: r.blockOwnerDeletion === true,
      });
    }
    return out;
  }

  #setOwners(node: GcNode, owners: readonly OwnerRef[]): void {
    const before = node.owners;
    if (before.length === 0 && owners.length === 0) return;
    const was = new Map(before.map((r) => [r.uid, r]));
    const now = new Map(owners.map((r) => [r.uid, r]));
    node.owners = owners;
    for (const [uid, ref] of was) {
      const still = now.get(uid);
      const owner = this.#nodes.get(uid);
      if (!still) {
        this.#unlink(node, uid);
        if (owner?.deletingDependents) this.#attemptToDelete.add(owner);
      } else if (ref.block && !still.block && owner?.deletingDependents) {
        this.#attemptToDelete.add(owner);
      }
    }
    for (const [uid, ref] of now) if (!was.has(uid)) this.#link(node, ref);
  }

  #link(node: GcNode, ref: OwnerRef): void {
    let owner = this.#nodes.get(ref.uid);
    if (!owner) {
      // Known only from this reference until observed (upstream's virtual node).
      owner = new GcNode(ref.uid, ref.apiVersion, ref.kind, node.namespace, ref.name);
      this.#nodes.set(ref.uid, owner);
    }
    owner.dependents ??= new Set();
    owner.dependents.add(node);
    if (!owner.observed) {
      // Verified by a live read when the workers get to it.
      this.#attemptToDelete.add(node);
    } else if (owner.resource?.namespaced && owner.namespace !== node.namespace) {
      this.#reportInvalidNamespace(node, owner.uid);
      this.#attemptToDelete.add(node);
    } else if (owner.deletingDependents || !this.#matches(owner, ref, node)) {
      this.#attemptToDelete.add(node);
    }
  }

  #unlink(node: GcNode, ownerUid: string): void {
    const owner = this.#nodes.get(ownerUid);
    if (!owner?.dependents) return;
    owner.dependents.delete(node);
    if (owner.dependents.size === 0) {
      owner.dependents = undefined;
      if (!owner.observed) this.#nodes.delete(ownerUid);
    }
  }

  #removeNode(node: GcNode): void {
    for (const ref of node.owners) {
      this.#unlink(node, ref.uid);
      const owner = this.#nodes.get(ref.uid);
      // A foreground-deleting owner may have no blocking dependents left.
      if (owner?.deletingDependents) this.#attemptToDelete.add(owner);
    }
    node.owners = [];
    this.#unresolved.delete(node);
    if (node.dependents && node.dependents.size > 0) {
      // Its dependents still name it: keep it as a referred-to node and look at them.
      node.flags = 0;
      node.resource = undefined;
      for (const dep of node.dependents) this.#attemptToDelete.add(dep);
    } else {
      this.#nodes.delete(node.uid);
    }
  }

  #transitions(node: GcNode, old: number, now: number): void {
    const orphaning = (f: number) =>
      (f & (BEING_DELETED | ORPHAN_FINALIZER)) === (BEING_DELETED | ORPHAN_FINALIZER);
    const foreground = (f: number) =>
      (f & (BEING_DELETED | FOREGROUND_FINALIZER)) === (BEING_DELETED | FOREGROUND_FINALIZER);
    if (orphaning(now) && !orphaning(old)) {
      this.#log(5, "add item to attemptToOrphan", { item: node.describe() });
      this.#attemptToOrphan.add(node);
    }
    if (foreground(now) && !foreground(old)) {
      this.#log(2, "add item to attemptToDelete, because it's waiting for its dependents to be deleted", {
        item: node.describe(),
      });
      for (const dep of node.dependents ?? []) this.#attemptToDelete.add(dep);
      this.#attemptToDelete.add(node);
    }
  }

  /** The observed owner is the one the reference names, where the dependent can see it. */
  #matches(owner: GcNode, ref: OwnerRef, dependent: GcNode): boolean {
    return (
      owner.observed &&
      owner.kind === ref.kind &&
      owner.name === ref.name &&
      groupOf(owner.apiVersion) === groupOf(ref.apiVersion) &&
      (!owner.resource?.namespaced || owner.namespace === dependent.namespace)
    );
  }

  #scheduleRediscovery(): void {
    // Coalesce a burst of CRD/APIService events into one discovery read.
    if (this.#rediscoverScheduled) return;
    this.#rediscoverScheduled = true;
    setTimeout(() => {
      this.#rediscoverScheduled = false;
      if (this.#rediscover) this.#rediscover();
      else this.#rediscoverRequested = true;
    }, 500).unref?.();
  }

  // ---- workers ----

  async #whenSynced(): Promise<void> {
    while (!this.#synced && !this.#signal?.aborted) {
      await new Promise<void>((resolve) => this.#syncWaiters.push(resolve));
    }
  }

  async #worker(queue: WorkQueue<GcNode>, work: (node: GcNode) => Promise<void>): Promise<void> {
    for (;;) {
      await this.#whenSynced();
      const node = await queue.get();
      if (node === undefined) return;
      try {
        // Nothing is decided on a graph that is out of step with the server.
        await this.#whenSynced();
        if (this.#signal?.aborted) return;
        await work(node);
        queue.forget(node);
      } catch (err) {
        if (err instanceof InvalidNamespaceError) {
          queue.forget(node);
        } else if (err instanceof UnknownKindError) {
          queue.forget(node);
          this.#unresolved.add(node);
        } else {
          if (!(err instanceof RetryError))
            this.#options.onError(err, `garbage collector: ${node.describe()}`);
          queue.retry(node);
        }
      } finally {
        queue.done(node);
      }
    }
  }

  async #attemptToDeleteItem(item: GcNode): Promise<void> {
    if (this.#nodes.get(item.uid) !== item || !item.observed) return;
    if (item.beingDeleted && !item.deletingDependents) {
      this.#log(5, "processing item returned at once, because its DeletionTimestamp is non-nil", {
        item: item.describe(),
      });
      return;
    }
    if (item.deletingDependents) return this.#processDeletingDependents(item);
    if (item.owners.length === 0) {
      this.#log(2, "item doesn't have an owner, continue on next item", { item: item.describe() });
      return;
    }
    const solid: OwnerRef[] = [];
    const dangling: OwnerRef[] = [];
    const waiting: OwnerRef[] = [];
    for (const ref of item.owners) {
      const state = await this.#ownerState(item, ref);
      (state === "solid" ? solid : state === "dangling" ? dangling : waiting).push(ref);
    }
    this.#log(5, "classify item's references", {
      item: item.describe(),
      solid: solid.map((r) => r.uid),
      dangling: dangling.map((r) => r.uid),
      waitingForDependentsDeletion: waiting.map((r) => r.uid),
    });
    if (solid.length > 0) {
      this.#log(2, "object has at least one existing owner, will not garbage collect", {
        item: item.describe(),
        owner: solid.map((r) => r.uid),
      });
      if (dangling.length === 0 && waiting.length === 0) return;
      this.#log(2, "remove dangling references and waiting references for object", {
        item: item.describe(),
        dangling: dangling.map((r) => r.uid),
        waitingForDependentsDeletion: waiting.map((r) => r.uid),
      });
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.#patchOwnerReferences(item, (refs) => refs.filter((r) => !drop.has(String(r.uid))));
      return;
    }
    if (waiting.length > 0 && item.dependents && item.dependents.size > 0) {
      for (const dep of item.dependents) {
        if (dep.deletingDependents) {
          // A cycle: let the owners go first rather than wait on each other.
          this.#log(
            2,
            "processing object, some of its owners and its dependent have FinalizerDeletingDependents, to prevent potential cycle, its ownerReferences are going to be modified to be non-blocking, then the object is going to be deleted with Foreground",
            { item: item.describe(), dependent: dep.describe() },
          );
          await this.#patchOwnerReferences(item, (refs) =>
            refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r)),
          );
          break;
        }
      }
      this.#log(
        2,
        "at least one owner of object has FinalizerDeletingDependents, and the object itself has dependents, so it is going to be deleted in Foreground",
        { item: item.describe() },
      );
      await this.#deleteObject(item, "Foreground", false);
      return;
    }
    const policy: Policy =
      item.flags & ORPHAN_FINALIZER
        ? "Orphan"
        : item.flags & FOREGROUND_FINALIZER
          ? "Foreground"
          : "Background";
    this.#log(2, "Deleting object", { item: item.describe(), propagationPolicy: policy });
    await this.#deleteObject(item, policy, true);
  }

  async #processDeletingDependents(item: GcNode): Promise<void> {
    const blocking: GcNode[] = [];
    for (const dep of item.dependents ?? []) {
      if (dep.owners.some((r) => r.uid === item.uid && r.block)) blocking.push(dep);
    }
    if (blocking.length === 0) {
      this.#log(2, "remove DeleteDependents finalizer for item", { item: item.describe() });
      await this.#removeFinalizer(item, FINALIZER_FOREGROUND);
      return;
    }
    for (const dep of blocking) {
      if (!dep.deletingDependents) {
        this.#log(2, "adding dependent to attemptToDelete, because its owner is deletingDependents", {
          item: item.describe(),
          dependent: dep.describe(),
        });
        this.#attemptToDelete.add(dep);
      }
    }
  }

  /** solid: exists; dangling: confirmed absent by a live read; waiting: deleting in the foreground. */
  async #ownerState(item: GcNode, ref: OwnerRef): Promise<"solid" | "dangling" | "waiting"> {
    const owner = this.#nodes.get(ref.uid);
    // The graph may say an owner is there (keeping is never harmful); absence is read live.
    if (owner && this.#matches(owner, ref, item) && !owner.deletingDependents) return "solid";
    const resource = this.#kinds.get(kindKey(groupOf(ref.apiVersion), versionOf(ref.apiVersion), ref.kind));
    const namespaceKey = resource && !resource.namespaced ? "" : item.namespace;
    const key = `${ref.uid}|${groupOf(ref.apiVersion)}|${ref.kind}|${namespaceKey}|${ref.name}`;
    if (this.#absent.has(key)) {
      this.#log(5, "according to the absentOwnerCache, item's owner does not exist", {
        item: item.describe(),
        owner: ref.uid,
      });
      return "dangling";
    }
    if (!resource) {
      const kind = `${ref.apiVersion}, Kind=${ref.kind}`;
      if (!this.#loggedKinds.has(kind)) {
        this.#loggedKinds.add(kind);
        this.#log(0, "owner reference of a kind the server does not serve; its dependents are kept", {
          kind,
          item: item.describe(),
        });
      }
      throw new UnknownKindError(kind);
    }
    if (item.namespace === "" && resource.namespaced) {
      this.#log(2, "item is cluster-scoped, but refers to a namespaced owner", {
        item: item.describe(),
        owner: ref.uid,
      });
      this.#reportInvalidNamespace(item, ref.uid);
      throw new InvalidNamespaceError(item.describe());
    }
    const path = objectPath(resource, item.namespace, ref.name);
    let lookup = this.#lookups.get(key);
    if (!lookup) {
      lookup = this.#client.call("GET", path);
      this.#lookups.set(key, lookup);
      void lookup.finally(() => this.#lookups.delete(key)).catch(() => {});
    }
    const reply = await lookup;
    if (reply.status === 404) {
      this.#absent.add(key);
      this.#log(5, "item's owner is not found", { item: item.describe(), owner: ref.uid });
      return "dangling";
    }
    if (reply.status !== 200) throw new Error(`GET ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    const meta = (reply.body?.metadata ?? {}) as {
      uid?: string;
      deletionTimestamp?: string;
      finalizers?: string[];
    };
    if (meta.uid !== ref.uid) {
      this.#absent.add(key);
      this.#log(5, "item's owner is not found, UID mismatch", {
        item: item.describe(),
        owner: ref.uid,
        foundUID: meta.uid,
      });
      return "dangling";
    }
    if (meta.deletionTimestamp && (meta.finalizers ?? []).includes(FINALIZER_FOREGROUND)) return "waiting";
    return "solid";
  }

  async #deleteObject(item: GcNode, policy: Policy, withResourceVersion: boolean): Promise<void> {
    const preconditions = withResourceVersion
      ? { uid: item.uid, resourceVersion: item.resourceVersion }
      : { uid: item.uid };
    const reply = await this.#client.call("DELETE", item.path(), {
      propagationPolicy: policy,
      preconditions,
    });
    if (reply.status < 300 || reply.status === 404) return;
    // The object changed since the graph saw it: decide again on what the watch brings.
    if (reply.status === 409) throw new RetryError(`${item.describe()} changed`);
    throw new Error(`DELETE ${item.path()}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }

  /** Rewrites the object's ownerReferences, read live, with its resourceVersion as precondition. */
  async #patchOwnerReferences(
    item: GcNode,
    change: (refs: Record<string, unknown>[]) => Record<string, unknown>[],
  ): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await this.#client.call("GET", item.path());
      if (current.status === 404) return;
      if (current.status !== 200) throw new Error(`GET ${item.path()}: ${current.status}`);
      const meta = current.body.metadata as {
        uid?: string;
        resourceVersion?: string;
        ownerReferences?: unknown;
      };
      if (meta.uid !== item.uid) return;
      const refs = Array.isArray(meta.ownerReferences)
        ? (meta.ownerReferences as Record<string, unknown>[])
        : [];
      const next = change(refs);
      if (JSON.stringify(next) === JSON.stringify(refs)) return;
      const reply = await this.#client.call(
        "PATCH",
        item.path(),
        {
          metadata: { ownerReferences: next.length > 0 ? next : null, resourceVersion: meta.resourceVersion },
        },
        MERGE_PATCH,
      );
      if (reply.status < 300 || reply.status === 404) return;
      if (reply.status !== 409)
        throw new Error(`PATCH ${item.path()}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    throw new RetryError(`${item.describe()} keeps changing`);
  }

  async #removeFinalizer(item: GcNode, finalizer: string): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await this.#client.call("GET", item.path());
      if (current.status === 404) return;
      if (current.status !== 200) throw new Error(`GET ${item.path()}: ${current.status}`);
      const meta = current.body.metadata as { uid?: string; resourceVersion?: string; finalizers?: string[] };
      if (meta.uid !== item.uid) return;
      const finalizers = meta.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      const next = finalizers.filter((f) => f !== finalizer);
      const reply = await this.#client.call(
        "PATCH",
        item.path(),
        { metadata: { finalizers: next.length > 0 ? next : null, resourceVersion: meta.resourceVersion } },
        MERGE_PATCH,
      );
      if (reply.status < 300 || reply.status === 404) return;
      if (reply.status !== 409)
        throw new Error(`PATCH ${item.path()}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    throw new RetryError(`${item.describe()} keeps changing`);
  }

  async #attemptToOrphanItem(owner: GcNode): Promise<void> {
    if (this.#nodes.get(owner.uid) !== owner || !owner.orphaning) return;
    const dependents = [...(owner.dependents ?? [])];
    // A few at a time: an owner may have thousands.
    for (let i = 0; i < dependents.length; i += 20) {
      await Promise.all(
        dependents
          .slice(i, i + 20)
          .map((dep) =>
            dep.observed
              ? this.#patchOwnerReferences(dep, (refs) => refs.filter((r) => r.uid !== owner.uid))
              : undefined,
          ),
      );
    }
    this.#log(5, "orphaned dependents of item", { item: owner.describe(), dependents: dependents.length });
    await this.#removeFinalizer(owner, FINALIZER_ORPHAN);
  }

  // ---- events ----

  #reportInvalidNamespace(dependent: GcNode, ownerUid: string): void {
    const ref = dependent.owners.find((r) => r.uid === ownerUid);
    const key = `${dependent.uid}|${ownerUid}`;
    if (!ref || this.#reported.has(key) || !dependent.observed) return;
    this.#reported.add(key);
    this.#log(2, "item references an owner but does not match namespaces", {
      item: dependent.describe(),
      owner: ownerUid,
    });
    const message = `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: ${dependent.namespace}, name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace ${JSON.stringify(dependent.namespace)}`;
    const namespace = dependent.namespace || "default";
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: {
        name: `${dependent.name}.${randomBytes(8).toString("hex")}`,
        namespace,
      },
      involvedObject: {
        kind: dependent.kind,
        apiVersion: dependent.apiVersion,
        ...(dependent.namespace ? { namespace: dependent.namespace } : {}),
        name: dependent.name,
        uid: dependent.uid,
      },
      reason: "OwnerRefInvalidNamespace",
      message,
      type: "Warning",
      source: { component: COMPONENT },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    void this.#client
      .call("POST", `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, event)
      .then((reply) => {
        if (reply.status >= 300)
          this.#options.onError(new Error(`event: ${reply.status}`), "garbage collector event");
      })
      .catch((err) => this.#options.onError(err, "garbage collector event"));
  }
}

function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}
