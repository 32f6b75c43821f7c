// What a pod costs in quota (upstream's pod evaluator): its object count, and while it is not
// finished its compute requests and limits, summed over containers with init containers as a
// floor and the runtime overhead added; plus the scopes a pod can match.
import type { JsonObject } from "../index.ts";
import { maxInto } from "../resourcelist/lists.ts";
import {
  add,
  compareQuantities,
  quantity,
  type ResourceList,
  resourceList,
  ZERO,
} from "../resourcelist/quantity.ts";

export function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export interface ContainerResources {
  readonly name: string;
  readonly requests: ResourceList;
  readonly limits: ResourceList;
}

function containerResources(c: unknown, where: string): ContainerResources {
  const container = asObject(c) ?? {};
  const resources = asObject(container.resources) ?? {};
  return {
    name: typeof container.name === "string" ? container.name : "",
    requests: resourceList(resources.requests, `${where}.resources.requests`),
    limits: resourceList(resources.limits, `${where}.resources.limits`),
  };
}

/** The pod's containers and init containers with their parsed resources. */
export function podContainers(pod: JsonObject): {
  containers: ContainerResources[];
  init: ContainerResources[];
} {
  const spec = asObject(pod.spec) ?? {};
  return {
    containers: asArray(spec.containers).map((c, i) => containerResources(c, `spec.containers[${i}]`)),
    init: asArray(spec.initContainers).map((c, i) => containerResources(c, `spec.initContainers[${i}]`)),
  };
}

function addInto(list: ResourceList, more: ResourceList): void {
  for (const [k, v] of more) {
    const current = list.get(k);
    list.set(k, current ? add(current, v) : v);
  }
}

/** The pod's effective requests: containers summed, each init container a floor, plus overhead. */
export function podRequests(pod: JsonObject): ResourceList {
  const { containers, init } = podContainers(pod);
  const out: ResourceList = new Map();
  for (const c of containers) addInto(out, c.requests);
  for (const c of init) for (const [k, v] of c.requests) maxInto(out, k, v);
  addInto(out, resourceList(asObject(pod.spec)?.overhead, "spec.overhead"));
  return out;
}

/** The pod's effective limits; overhead is added only to the limits that are set. */
export function podLimits(pod: JsonObject): ResourceList {
  const { containers, init } = podContainers(pod);
  const out: ResourceList = new Map();
  for (const c of containers) addInto(out, c.limits);
  for (const c of init) for (const [k, v] of c.limits) maxInto(out, k, v);
  for (const [k, v] of resourceList(asObject(pod.spec)?.overhead, "spec.overhead")) {
    const current = out.get(k);
    if (current) out.set(k, add(current, v));
  }
  return out;
}

/** BestEffort QoS: no container asks for or caps cpu or memory with a positive amount. */
export function isBestEffort(pod: JsonObject): boolean {
  const { containers, init } = podContainers(pod);
  for (const c of [...containers, ...init]) {
    for (const list of [c.requests, c.limits]) {
      for (const name of ["cpu", "memory"]) {
        const q = list.get(name);
        if (q && compareQuantities(q, ZERO) > 0) return false;
      }
    }
  }
  return true;
}

/** Terminating scope: the pod has a non-negative activeDeadlineSeconds. */
export function isTerminating(pod: JsonObject): boolean {
  const v = asObject(pod.spec)?.activeDeadlineSeconds;
  return typeof v === "number" && v >= 0;
}

function crossNamespaceTerm(term: unknown): boolean {
  const t = asObject(term);
  if (!t) return false;
  return (
    asArray(t.namespaces).length > 0 || (t.namespaceSelector !== undefined && t.namespaceSelector !== null)
  );
}

/** CrossNamespacePodAffinity scope: an affinity term names other namespaces or selects them. */
export function usesCrossNamespaceAffinity(pod: JsonObject): boolean {
  const affinity = asObject(asObject(pod.spec)?.affinity);
  if (!affinity) return false;
  for (const kind of ["podAffinity", "podAntiAffinity"]) {
    const a = asObject(affinity[kind]);
    if (!a) continue;
    if (asArray(a.requiredDuringSchedulingIgnoredDuringExecution).some(crossNamespaceTerm)) return true;
    const weighted = asArray(a.preferredDuringSchedulingIgnoredDuringExecution);
    if (weighted.some((w) => crossNamespaceTerm(asObject(w)?.podAffinityTerm))) return true;
  }
  return false;
}

/**
 * Whether the pod still counts for compute quota: not Succeeded or Failed, and not deleted with
 * its grace period over.
 */
export function chargesCompute(pod: JsonObject, now: number): boolean {
  const phase = asObject(pod.status)?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  const meta = asObject(pod.metadata) ?? {};
  const grace = meta.deletionGracePeriodSeconds;
  if (typeof meta.deletionTimestamp === "string" && typeof grace === "number") {
    const deleted = Date.parse(meta.deletionTimestamp);
    if (!Number.isNaN(deleted) && now > deleted + grace * 1000) return false;
  }
  return true;
}

export const ONE = quantity(1);
