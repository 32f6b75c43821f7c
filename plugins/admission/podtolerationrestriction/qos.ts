// Upstream's pod QoS class as far as this plugin needs it: BestEffort when no container or init
// container asks for or caps cpu or memory with a positive quantity.
import {
  compareQuantities,
  parseQuantity,
  quantityFromJson,
} from "../../../backends/schema/structural/index.ts";
import type { JsonObject } from "../index.ts";

const ZERO = parseQuantity("0");

function positive(value: unknown): boolean {
  try {
    return compareQuantities(quantityFromJson(value), ZERO) > 0;
  } catch {
    // Not a quantity: validation refuses the pod later; it sets no QoS here.
    return false;
  }
}

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

export function isBestEffort(spec: JsonObject): boolean {
  const containers = [spec.containers, spec.initContainers].flatMap((l) => (Array.isArray(l) ? l : []));
  for (const c of containers) {
    const resources = asObject(asObject(c)?.resources);
    for (const list of [resources?.requests, resources?.limits]) {
      const entries = asObject(list) ?? {};
      for (const name of ["cpu", "memory"]) if (positive(entries[name])) return false;
    }
  }
  return true;
}
