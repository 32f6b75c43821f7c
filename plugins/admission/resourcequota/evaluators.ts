// Quota evaluators (upstream's quota.Evaluator): for one resource, which quota resource names it
// charges, which writes it handles, what an object costs and which scopes it matches. Pods,
// services and claims have their own; everything else is counted as `count/<resource>.<group>`.
import { isExtendedResource, isNativeResource } from "../../../backends/builtin/validation/resources.ts";
import type { Naming } from "../../../backends/naming/index.ts";
import type { Attributes, JsonObject } from "../index.ts";
import { addLists } from "../resourcelist/lists.ts";
import {
  compareQuantities,
  fromJson,
  type Quantity,
  quantity,
  type ResourceList,
  roundUpToInteger,
  ZERO,
} from "../resourcelist/quantity.ts";
import {
  asArray,
  asObject,
  chargesCompute,
  isBestEffort,
  isTerminating,
  ONE,
  podContainers,
  podLimits,
  podRequests,
  usesCrossNamespaceAffinity,
} from "./pods.ts";

export interface ScopeSelector {
  readonly scopeName: string;
  readonly operator: string;
  readonly values: readonly string[];
}

export interface Evaluator {
  readonly group: string;
  readonly resource: string;
  handles(a: Attributes): boolean;
  /** The names among `names` this evaluator charges. */
  matchingResources(names: readonly string[]): string[];
  /** Whether the object matches a scope; undefined when the resource has no scopes (none match). */
  readonly matchesScope?: (selector: ScopeSelector, object: JsonObject) => boolean;
  /** Why the object may not be admitted under a quota tracking `required`, or undefined. */
  constraints(required: readonly string[], object: JsonObject): string | undefined;
  usage(object: JsonObject, now: number): ResourceList;
  /** Updates charge the signed difference (in-place pod resize) instead of only increases. */
  readonly signedUpdates: boolean;
}

/** `count/<resource>` for core, `count/<resource>.<group>` otherwise. */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** The group and resource a `count/...` name counts. */
export function parseObjectCountName(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith("count/")) return undefined;
  const rest = name.slice("count/".length);
  if (rest === "") return undefined;
  const dot = rest.indexOf(".");
  return dot < 0
    ? { group: "", resource: rest }
    : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

function intersection(input: readonly string[], known: readonly string[]): string[] {
  return [...new Set(input.filter((n) => known.includes(n)))].sort();
}

function matchesSelector(value: string | undefined, sel: ScopeSelector): boolean {
  switch (sel.operator) {
    case "In":
      return value !== undefined && sel.values.includes(value);
    case "NotIn":
      return value === undefined || !sel.values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    default:
      return false;
  }
}

/** Scopes a pod matches (Terminating, BestEffort, PriorityClass, CrossNamespacePodAffinity, ...). */
export function podMatchesScope(sel: ScopeSelector, pod: JsonObject): boolean {
  switch (sel.scopeName) {
    case "Terminating":
      return isTerminating(pod);
    case "NotTerminating":
      return !isTerminating(pod);
    case "BestEffort":
      return isBestEffort(pod);
    case "NotBestEffort":
      return !isBestEffort(pod);
    case "PriorityClass": {
      const name = asObject(pod.spec)?.priorityClassName;
      const cls = typeof name === "string" ? name : "";
      // Exists asks for a class; the other operators see the class as a label that is always
      // present, empty when the pod names none (so DoesNotExist never matches).
      return sel.operator === "Exists" ? cls !== "" : matchesSelector(cls, sel);
    }
    case "CrossNamespacePodAffinity":
      return usesCrossNamespaceAffinity(pod);
    default:
      return false;
  }
}

// Quota tracking any of these makes every container state them (a historical rule upstream keeps).
const REQUIRED_PER_CONTAINER = new Set([
  "cpu",
  "memory",
  "requests.cpu",
  "requests.memory",
  "limits.cpu",
  "limits.memory",
]);

const POD_RESOURCES = [
  "count/pods",
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
];

function podEvaluator(naming: Naming, gates: Readonly<Record<string, boolean>>): Evaluator {
  // An extended resource (`example.com/gpu`) is charged as `requests.example.com/gpu`.
  const isExtended = (name: string) => isExtendedResource(name, naming);
  const extendedForQuota = (name: string) => !isNativeResource(name, naming) && name.startsWith("requests.");

  /** Usage of one set of requests and limits (a container's, or the pod's effective ones). */
  function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
    const out: ResourceList = new Map([["pods", ONE]]);
    for (const name of ["cpu", "memory", "ephemeral-storage"]) {
      const request = requests.get(name);
      if (request) {
        out.set(name, request);
        out.set(`requests.${name}`, request);
      }
      const limit = limits.get(name);
      if (limit) out.set(`limits.${name}`, limit);
    }
    for (const [name, request] of requests) {
      if (name.startsWith("hugepages-")) {
        out.set(name, request);
        out.set(`requests.${name}`, request);
      }
      if (isExtended(name)) out.set(`requests.${name}`, request);
    }
    return out;
  }

  return {
    group: "",
    resource: "pods",
    signedUpdates: true,
    handles: (a) =>
      a.operation === "CREATE" || (a.operation === "UPDATE" && gates.InPlacePodVerticalScaling === true),
    matchingResources(input) {
      const out = intersection(input, POD_RESOURCES);
      for (const name of input) {
        if (name.startsWith("hugepages-") || name.startsWith("requests.hugepages-")) out.push(name);
        if (extendedForQuota(name)) out.push(name);
      }
      return out;
    },
    matchesScope: podMatchesScope,
    constraints(required, pod) {
      const wanted = required.filter((r) => REQUIRED_PER_CONTAINER.has(r));
      if (wanted.length === 0) return undefined;
      const { containers, init } = podContainers(pod);
      const missing = new Map<string, Set<string>>();
      for (const c of [...containers, ...init]) {
        const has = computeUsage(c.requests, c.limits);
        for (const r of wanted) {
          if (has.has(r)) continue;
          const names = missing.get(r) ?? new Set<string>();
          names.add(c.name);
          missing.set(r, names);
        }
      }
      if (missing.size === 0) return undefined;
      const parts = [...missing.keys()]
        .sort()
        .map((r) => `${r} for: ${[...(missing.get(r) ?? [])].sort().join(",")}`);
      return `must specify ${parts.join("; ")}`;
    },
    usage(pod, now) {
      const out: ResourceList = new Map([["count/pods", ONE]]);
      if (!chargesCompute(pod, now)) return out;
      return addLists(out, computeUsage(podRequests(pod), podLimits(pod)));
    },
  };
}

const SERVICE_RESOURCES = ["count/services", "services", "services.nodeports", "services.loadbalancers"];

function serviceEvaluator(): Evaluator {
  return {
    group: "",
    resource: "services",
    signedUpdates: false,
    handles: (a) => a.operation === "CREATE" || a.operation === "UPDATE",
    matchingResources: (input) => intersection(input, SERVICE_RESOURCES),
    constraints: () => undefined,
    usage(svc) {
      const spec = asObject(svc.spec) ?? {};
      const ports = asArray(spec.ports);
      const out: ResourceList = new Map([
        ["count/services", ONE],
        ["services", ONE],
        ["services.loadbalancers", ZERO],
        ["services.nodeports", ZERO],
      ]);
      if (spec.type === "NodePort") out.set("services.nodeports", quantity(ports.length));
      if (spec.type === "LoadBalancer") {
        // Without node port allocation only the ports that name one explicitly count.
        const explicit = ports.filter((p) => {
          const n = asObject(p)?.nodePort;
          return typeof n === "number" && n !== 0;
        }).length;
        out.set(
          "services.nodeports",
          quantity(spec.allocateLoadBalancerNodePorts === false ? explicit : ports.length),
        );
        out.set("services.loadbalancers", ONE);
      }
      return out;
    },
  };
}

function claimEvaluator(naming: Naming, gates: Readonly<Record<string, boolean>>): Evaluator {
  const suffix = `.storageclass.${naming.group("storage")}/`;
  const classAnnotation = naming.label("storage-class", "volume.beta");
  const base = ["persistentvolumeclaims", "requests.storage"];
  function storageClass(pvc: JsonObject): string {
    const annotated = asObject(asObject(pvc.metadata)?.annotations)?.[classAnnotation];
    if (typeof annotated === "string") return annotated;
    const named = asObject(pvc.spec)?.storageClassName;
    return typeof named === "string" ? named : "";
  }
  function storage(pvc: JsonObject): Quantity | undefined {
    const requested = asObject(asObject(asObject(pvc.spec)?.resources)?.requests)?.storage;
    let result =
      requested === undefined || requested === null ? undefined : roundUpToInteger(fromJson(requested));
    // A failed expansion may leave more allocated than requested: that is what is held.
    const allocated = gates.RecoverVolumeExpansionFailure
      ? asObject(asObject(pvc.status)?.allocatedResources)?.storage
      : undefined;
    if (result && allocated !== undefined && allocated !== null) {
      const a = fromJson(allocated);
      if (compareQuantities(a, result) > 0) result = roundUpToInteger(a);
    }
    return result;
  }
  return {
    group: "",
    resource: "persistentvolumeclaims",
    signedUpdates: false,
    handles: (a) => a.operation === "CREATE" || a.operation === "UPDATE",
    matchingResources(input) {
      return input.filter(
        (n) =>
          n === "count/persistentvolumeclaims" ||
          base.includes(n) ||
          base.some((b) => n.endsWith(suffix + b)),
      );
    },
    constraints: () => undefined,
    usage(pvc) {
      const out: ResourceList = new Map([
        ["persistentvolumeclaims", ONE],
        ["count/persistentvolumeclaims", ONE],
      ]);
      const cls = storageClass(pvc);
      if (cls) out.set(`${cls}${suffix}persistentvolumeclaims`, ONE);
      const requested = storage(pvc);
      if (requested) {
        out.set("requests.storage", requested);
        if (cls) out.set(`${cls}${suffix}requests.storage`, requested);
      }
      return out;
    },
  };
}

/** Counts objects of any resource; some core ones also under their historical name. */
function objectCountEvaluator(group: string, resource: string, alias?: string): Evaluator {
  const names = [objectCountName(group, resource), ...(alias ? [alias] : [])];
  return {
    group,
    resource,
    signedUpdates: false,
    handles: (a) => a.operation === "CREATE",
    matchingResources: (input) => intersection(input, names),
    constraints: () => undefined,
    usage: () => new Map(names.map((n) => [n, ONE])),
  };
}

const ALIASED = ["configmaps", "resourcequotas", "replicationcontrollers", "secrets"];

/** Evaluators by resource, with object counting for any resource that has none of its own. */
export class EvaluatorRegistry {
  readonly #known = new Map<string, Evaluator>();
  readonly #ignored: Set<string>;

  constructor(naming: Naming, gates: Readonly<Record<string, boolean>>) {
    for (const e of [podEvaluator(naming, gates), serviceEvaluator(), claimEvaluator(naming, gates)])
      this.#add(e);
    for (const r of ALIASED) this.#add(objectCountEvaluator("", r, r));
    const authn = naming.group("authentication");
    const authz = naming.group("authorization");
    // Virtual resources are never stored, and events have never been charged.
    this.#ignored = new Set([
      "/bindings",
      "/componentstatuses",
      `${authn}/tokenreviews`,
      `${authn}/selfsubjectreviews`,
      `${authz}/subjectaccessreviews`,
      `${authz}/selfsubjectaccessreviews`,
      `${authz}/localsubjectaccessreviews`,
      `${authz}/selfsubjectrulesreviews`,
      "/events",
      `${naming.group("events")}/events`,
    ]);
  }

  #add(e: Evaluator): void {
    this.#known.set(`${e.group}/${e.resource}`, e);
  }

  /** The evaluator for writes to a resource, or undefined for the ignored ones. */
  forResource(group: string, resource: string): Evaluator | undefined {
    const key = `${group}/${resource}`;
    if (this.#ignored.has(key)) return undefined;
    let e = this.#known.get(key);
    if (!e) {
      e = objectCountEvaluator(group, resource);
      this.#add(e);
    }
    return e;
  }

  /** The evaluators that charge any of `hard` (for recalculating usage). */
  forNames(hard: readonly string[]): Evaluator[] {
    for (const name of hard) {
      const counted = parseObjectCountName(name);
      if (counted) this.forResource(counted.group, counted.resource);
    }
    return [...this.#known.values()].filter((e) => e.matchingResources(hard).length > 0);
  }
}
