// A Pod's quality-of-service class, which upstream's API server writes into `status.qosClass` when
// the pod is created: worked out from the cpu and memory requests and limits of its containers and
// init containers (ephemeral containers have no resources), as upstream 1.27 does.
import { asArray, asObject, type JsonObject } from "../common/json.ts";
import { compareQuantities, type Quantity, quantityFromJson } from "../schema/structural/quantity.ts";

export type QosClass = "Guaranteed" | "Burstable" | "BestEffort";

// Only these resources count towards the class.
const QOS_RESOURCES: ReadonlySet<string> = new Set(["cpu", "memory"]);
const ZERO: Quantity = { unscaled: 0n, scale: 0, format: "DecimalSI" };

function add(a: Quantity, b: Quantity): Quantity {
  const scale = Math.max(a.scale, b.scale);
  const x = a.unscaled * 10n ** BigInt(scale - a.scale);
  const y = b.unscaled * 10n ** BigInt(scale - b.scale);
  return { unscaled: x + y, scale, format: a.format };
}

/** The positive cpu and memory amounts of a resource list; unreadable ones are validation's to report. */
function positive(list: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [name, value] of Object.entries(asObject(list) ?? {})) {
    if (!QOS_RESOURCES.has(name)) continue;
    let q: Quantity;
    try {
      q = quantityFromJson(value);
    } catch {
      continue;
    }
    if (compareQuantities(q, ZERO) > 0) out.set(name, q);
  }
  return out;
}

function addInto(sum: Map<string, Quantity>, more: Map<string, Quantity>): void {
  for (const [name, q] of more) {
    const known = sum.get(name);
    sum.set(name, known ? add(q, known) : q);
  }
}

/**
 * BestEffort without any cpu or memory request or limit; Guaranteed when every container limits
 * both and the summed requests equal the summed limits; Burstable otherwise.
 */
export function podQosClass(pod: JsonObject): QosClass {
  const spec = asObject(pod.spec) ?? {};
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const container of [...asArray(spec.containers), ...asArray(spec.initContainers)]) {
    const resources = asObject(asObject(container)?.resources) ?? {};
    addInto(requests, positive(resources.requests));
    const limited = positive(resources.limits);
    addInto(limits, limited);
    if (!limited.has("cpu") || !limited.has("memory")) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) {
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (!limit || compareQuantities(limit, request) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}
