// PersistentVolumeClaimResize: a claim may grow only when bound and its StorageClass allows expansion.
import {
  compareQuantities,
  type Quantity,
  quantityFromJson,
} from "../../../backends/schema/structural/index.ts";
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { badRequest, forbidden } from "../index.ts";

function requested(o: JsonObject | undefined): Quantity | undefined {
  const v = (
    (((o?.spec as JsonObject | undefined)?.resources as JsonObject | undefined)?.requests ?? {}) as JsonObject
  ).storage;
  if (v === undefined) return undefined;
  try {
    return quantityFromJson(v);
  } catch {
    throw badRequest(`invalid spec.resources.requests.storage: ${JSON.stringify(v)}`);
  }
}

function plugin(env: PluginEnv): AdmissionPlugin {
  const group = env.naming.group("storage");
  const legacyClass = env.naming.label("storage-class", "volume.beta");
  const className = (claim: JsonObject): string => {
    const ann = ((claim.metadata as JsonObject | undefined)?.annotations ?? {}) as Record<string, unknown>;
    const legacy = ann[legacyClass];
    if (typeof legacy === "string") return legacy;
    const name = (claim.spec as JsonObject | undefined)?.storageClassName;
    return typeof name === "string" ? name : "";
  };
  const canExpand = async (claim: JsonObject, oldClaim: JsonObject): Promise<boolean> => {
    const name = className(claim);
    if (!name || name !== className(oldClaim)) return false;
    const sc = (await env.objects.get({ group, resource: "storageclasses" }, undefined, name)) as
      | JsonObject
      | undefined;
    return sc?.allowVolumeExpansion === true;
  };
  return {
    name: "PersistentVolumeClaimResize",
    async validate(a) {
      if (a.operation !== "UPDATE" || a.resource.group !== "") return;
      if (a.resource.resource !== "persistentvolumeclaims" || a.subresource !== "") return;
      if (!a.object || !a.oldObject) return;
      const before = requested(a.oldObject);
      const after = requested(a.object);
      if (!after || (before && compareQuantities(after, before) <= 0)) return;
      const phase = (a.oldObject.status as JsonObject | undefined)?.phase;
      if (phase !== "Bound") throw forbidden(a, "Only bound persistent volume claims can be expanded");
      if (!(await canExpand(a.object, a.oldObject))) {
        throw forbidden(
          a,
          "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize",
        );
      }
    },
  };
}

export const registration: PluginRegistration = { name: "PersistentVolumeClaimResize", factory: plugin };
