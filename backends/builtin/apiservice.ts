// The APIService kind's lifecycle beyond its schema, as upstream's aggregator stores it: a local
// APIService (no spec.service) is available from the moment it is created; the status
// subresource writes only status, and only condition statuses it knows.
import { asArray, asObject, cloneJson, type JsonObject } from "../common/json.ts";
import type { BuiltinKind } from "./kind.ts";
import { validateAPIServiceStatus } from "./validation/apiregistration.ts";

/** The condition upstream gives every APIService the server answers itself. */
export const LOCAL_AVAILABLE = {
  type: "Available",
  status: "True",
  reason: "Local",
  message: "Local APIServices are always available",
} as const;

function nowText(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

/**
 * Sets a condition on an APIService's status, replacing the one of the same type; the transition
 * time moves only when the status changes (upstream's SetAPIServiceCondition). Returns whether
 * anything changed.
 */
export function setAPIServiceCondition(
  object: JsonObject,
  next: { type: string; status: string; reason: string; message: string },
  now: string = nowText(),
): boolean {
  const status = asObject(object.status) ?? {};
  object.status = status;
  const conditions = asArray(status.conditions).map((c) => asObject(c) ?? {});
  status.conditions = conditions;
  const existing = conditions.find((c) => c.type === next.type);
  if (!existing) {
    conditions.push({ ...next, lastTransitionTime: now });
    return true;
  }
  const changed =
    existing.status !== next.status || existing.reason !== next.reason || existing.message !== next.message;
  if (existing.status !== next.status) existing.lastTransitionTime = now;
  existing.status = next.status;
  existing.reason = next.reason;
  existing.message = next.message;
  return changed;
}

/** True when the APIService is answered by this server (no spec.service). */
export function isLocalAPIService(object: JsonObject): boolean {
  return asObject(asObject(object.spec)?.service) === undefined;
}

// What a status write may not change, besides spec (upstream's status strategy resets these too).
const KEPT_METADATA = ["labels", "annotations", "finalizers", "ownerReferences"] as const;

export function withApiServiceLifecycle(kind: BuiltinKind): BuiltinKind {
  const { prepareForCreate } = kind.strategy;
  const status = kind.subresourceStrategies?.status ?? {};
  return {
    ...kind,
    strategy: {
      ...kind.strategy,
      prepareForCreate(object) {
        prepareForCreate?.(object);
        if (isLocalAPIService(object)) setAPIServiceCondition(object, LOCAL_AVAILABLE);
      },
    },
    subresourceStrategies: {
      ...kind.subresourceStrategies,
      status: {
        ...status,
        prepareForUpdate(object, old) {
          status.prepareForUpdate?.(object, old);
          const meta = asObject(object.metadata) ?? {};
          object.metadata = meta;
          const oldMeta = asObject(old.metadata) ?? {};
          for (const key of KEPT_METADATA) {
            if (oldMeta[key] === undefined) delete meta[key];
            else meta[key] = cloneJson(oldMeta[key]);
          }
        },
        validateUpdate: (object) => validateAPIServiceStatus(object),
      },
    },
  };
}
