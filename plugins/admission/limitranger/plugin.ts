// LimitRanger: the namespace's LimitRanges fill in default requests and limits of a new pod's
// containers (mutating phase), then bound containers, pods and claims by min, max and
// limit-to-request ratio (validating phase). Pod updates are skipped: containers' resources cannot
// change after creation.
import type { ApiObject } from "../../objects/index.ts";
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv } from "../index.ts";
import { badRequest, forbidden } from "../index.ts";
import { quantities } from "../resourcelist/index.ts";
import {
  aggregate,
  maxConstraint,
  maxRequestConstraint,
  minConstraint,
  ratioConstraint,
} from "./constraints.ts";
import { podLimitTotals, podRequestTotals } from "./pod.ts";

export const PLUGIN_NAME = "LimitRanger";

type ResourceList = quantities.ResourceList;

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

interface LimitItem {
  readonly type: string;
  readonly max: ResourceList;
  readonly min: ResourceList;
  readonly default: ResourceList;
  readonly defaultRequest: ResourceList;
  readonly maxLimitRequestRatio: ResourceList;
  /** The raw default values, copied into containers as written. */
  readonly rawDefault: JsonObject;
  readonly rawDefaultRequest: JsonObject;
}

/** A LimitRange's items, with the defaulting the API applies to container items. */
function limitItems(range: JsonObject): LimitItem[] {
  return asArray(asObject(range.spec)?.limits).flatMap((raw, i) => {
    const item = asObject(raw);
    if (!item || typeof item.type !== "string") return [];
    const where = `spec.limits[${i}]`;
    const rawDefault: JsonObject = { ...(asObject(item.default) ?? {}) };
    const rawDefaultRequest: JsonObject = { ...(asObject(item.defaultRequest) ?? {}) };
    if (item.type === "Container") {
      // Default limit from max; default request from default limit, then from min.
      for (const [k, v] of Object.entries(asObject(item.max) ?? {}))
        if (!(k in rawDefault)) rawDefault[k] = v;
      for (const [k, v] of Object.entries(rawDefault))
        if (!(k in rawDefaultRequest)) rawDefaultRequest[k] = v;
      for (const [k, v] of Object.entries(asObject(item.min) ?? {})) {
        if (!(k in rawDefaultRequest)) rawDefaultRequest[k] = v;
      }
    }
    return [
      {
        type: item.type,
        max: quantities.resourceList(item.max, `${where}.max`),
        min: quantities.resourceList(item.min, `${where}.min`),
        default: quantities.resourceList(rawDefault, `${where}.default`),
        defaultRequest: quantities.resourceList(rawDefaultRequest, `${where}.defaultRequest`),
        maxLimitRequestRatio: quantities.resourceList(
          item.maxLimitRequestRatio,
          `${where}.maxLimitRequestRatio`,
        ),
        rawDefault,
        rawDefaultRequest,
      },
    ];
  });
}

/** Fills the missing defaults into one container; returns the annotation parts it set. */
function defaultContainer(
  container: JsonObject,
  limits: JsonObject,
  requests: JsonObject,
  label: string,
  notes: string[],
): void {
  const name = typeof container.name === "string" ? container.name : "";
  let resources = asObject(container.resources);
  const fill = (field: "limits" | "requests", defaults: JsonObject): string[] => {
    const set: string[] = [];
    for (const [k, v] of Object.entries(defaults)) {
      const current = asObject(resources?.[field]);
      if (current && Object.hasOwn(current, k)) continue;
      if (!resources) {
        resources = {};
        container.resources = resources;
      }
      const target = asObject(resources[field]) ?? {};
      resources[field] = target;
      target[k] = v;
      set.push(k);
    }
    return set.sort();
  };
  const setLimits = fill("limits", limits);
  const setRequests = fill("requests", requests);
  if (setRequests.length > 0) notes.push(`${setRequests.join(", ")} request for ${label} ${name}`);
  if (setLimits.length > 0) notes.push(`${setLimits.join(", ")} limit for ${label} ${name}`);
}

function containerLists(container: unknown, where: string): { requests: ResourceList; limits: ResourceList } {
  const resources = asObject(asObject(container)?.resources) ?? {};
  return {
    requests: quantities.resourceList(resources.requests, `${where}.resources.requests`),
    limits: quantities.resourceList(resources.limits, `${where}.resources.limits`),
  };
}

type Check = (
  type: string,
  name: string,
  enforced: quantities.Quantity,
  requests: ResourceList,
  limits: ResourceList,
) => string | undefined;

function checkAll(item: LimitItem, requests: ResourceList, limits: ResourceList, errors: string[]): void {
  const run = (bounds: ResourceList, check: Check) => {
    for (const [name, enforced] of bounds) {
      const err = check(item.type, name, enforced, requests, limits);
      if (err) errors.push(err);
    }
  };
  run(item.min, minConstraint);
  run(item.max, maxConstraint);
  run(item.maxLimitRequestRatio, ratioConstraint);
}

function validatePod(items: readonly LimitItem[], pod: JsonObject): string[] {
  const spec = asObject(pod.spec) ?? {};
  const errors: string[] = [];
  for (const item of items) {
    if (item.type === "Container") {
      asArray(spec.containers).forEach((c, i) => {
        const { requests, limits } = containerLists(c, `spec.containers[${i}]`);
        checkAll(item, requests, limits, errors);
      });
      asArray(spec.initContainers).forEach((c, i) => {
        const { requests, limits } = containerLists(c, `spec.initContainers[${i}]`);
        checkAll(item, requests, limits, errors);
      });
    }
    if (item.type === "Pod") checkAll(item, podRequestTotals(pod), podLimitTotals(pod), errors);
  }
  return errors;
}

function validateClaim(items: readonly LimitItem[], pvc: JsonObject): string[] {
  const requests = quantities.resourceList(
    asObject(asObject(pvc.spec)?.resources)?.requests,
    "spec.resources.requests",
  );
  const errors: string[] = [];
  for (const item of items) {
    if (item.type !== "PersistentVolumeClaim") continue;
    for (const [name, enforced] of item.min) {
      const err = minConstraint(item.type, name, enforced, requests, new Map());
      if (err) errors.push(err);
    }
    for (const [name, enforced] of item.max) {
      const err = maxRequestConstraint(item.type, name, enforced, requests);
      if (err) errors.push(err);
    }
  }
  return errors;
}

type Target = "pod" | "claim";

/** What the write is to LimitRanger: a new pod, a claim, or nothing it looks at. */
function target(a: Attributes): Target | undefined {
  if (a.subresource !== "" || !a.object) return undefined;
  if (a.operation !== "CREATE" && a.operation !== "UPDATE") return undefined;
  if (a.kind.group !== "") return undefined;
  if (a.kind.kind === "Pod") return a.operation === "CREATE" ? "pod" : undefined;
  if (a.kind.kind === "PersistentVolumeClaim") return "claim";
  return undefined;
}

export function createLimitRanger(env: PluginEnv): AdmissionPlugin {
  const informer = env.objects.informer({ group: "", resource: "limitranges" });
  if (!informer) throw new Error("LimitRanger: limitranges are not served");
  const annotation = env.naming.label("limit-ranger");

  async function rangesFor(a: Attributes): Promise<{ name: string; items: LimitItem[] }[] | undefined> {
    // Objects being deleted are left alone.
    if (asObject(a.oldObject?.metadata)?.deletionTimestamp) return undefined;
    await informer!.synced;
    const ranges = informer!
      .list(a.namespace)
      .slice()
      .sort((x: ApiObject, y: ApiObject) => (x.metadata.name < y.metadata.name ? -1 : 1));
    try {
      return ranges.map((r) => ({ name: r.metadata.name, items: limitItems(r) }));
    } catch (err) {
      throw badRequest(
        `LimitRange in namespace ${a.namespace}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  function refuse(a: Attributes, why: string) {
    const meta = asObject(a.object?.metadata) ?? {};
    const name = a.name || (typeof meta.generateName === "string" ? meta.generateName : "");
    return forbidden({ resource: a.resource, name }, why);
  }

  return {
    name: PLUGIN_NAME,
    async admit(a) {
      if (target(a) !== "pod") return;
      const ranges = await rangesFor(a);
      if (!ranges) return;
      const pod = a.object as JsonObject;
      const spec = asObject(pod.spec);
      if (!spec) return;
      for (const range of ranges) {
        // Later items of one LimitRange override earlier ones' defaults.
        const limits: JsonObject = {};
        const requests: JsonObject = {};
        for (const item of range.items) {
          if (item.type !== "Container") continue;
          Object.assign(requests, item.rawDefaultRequest);
          Object.assign(limits, item.rawDefault);
        }
        const notes: string[] = [];
        for (const c of asArray(spec.containers)) {
          const container = asObject(c);
          if (container) defaultContainer(container, limits, requests, "container", notes);
        }
        for (const c of asArray(spec.initContainers)) {
          const container = asObject(c);
          if (container) defaultContainer(container, limits, requests, "init container", notes);
        }
        if (notes.length > 0) {
          let meta = asObject(pod.metadata);
          if (!meta) {
            meta = {};
            pod.metadata = meta;
          }
          const annotations = asObject(meta.annotations) ?? {};
          meta.annotations = annotations;
          annotations[annotation] = `LimitRanger plugin set: ${notes.join("; ")}`;
        }
      }
    },
    async validate(a) {
      const kind = target(a);
      if (!kind) return;
      const ranges = await rangesFor(a);
      if (!ranges) return;
      for (const range of ranges) {
        let errors: string[];
        try {
          errors =
            kind === "pod"
              ? validatePod(range.items, a.object as JsonObject)
              : validateClaim(range.items, a.object as JsonObject);
        } catch (err) {
          if (err instanceof quantities.QuantityError) throw badRequest(err.message);
          throw err;
        }
        const message = aggregate(errors);
        if (message) throw refuse(a, message);
      }
    },
  };
}
