// A pod's totals as LimitRanger bounds them: its containers summed, each init container a floor.
import type { JsonObject } from "../index.ts";
import { addLists, maxInto, quantities } from "../resourcelist/index.ts";

type ResourceList = quantities.ResourceList;

function containers(pod: JsonObject, field: "containers" | "initContainers"): unknown[] {
  const spec = pod.spec as JsonObject | undefined;
  const list = spec?.[field];
  return Array.isArray(list) ? list : [];
}

function totals(pod: JsonObject, which: "requests" | "limits"): ResourceList {
  const listOf = (c: unknown, where: string) => {
    const resources = (c as JsonObject | null)?.resources as JsonObject | undefined;
    return quantities.resourceList(resources?.[which], `${where}.resources.${which}`);
  };
  let out: ResourceList = new Map();
  containers(pod, "containers").forEach((c, i) => {
    out = addLists(out, listOf(c, `spec.containers[${i}]`));
  });
  containers(pod, "initContainers").forEach((c, i) => {
    for (const [k, v] of listOf(c, `spec.initContainers[${i}]`)) maxInto(out, k, v);
  });
  return out;
}

export const podRequestTotals = (pod: JsonObject): ResourceList => totals(pod, "requests");
export const podLimitTotals = (pod: JsonObject): ResourceList => totals(pod, "limits");
