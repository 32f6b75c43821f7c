// StorageObjectInUseProtection: new claims and volumes carry the finalizer that keeps them while in use.
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { badRequest } from "../index.ts";

function plugin(env: PluginEnv): AdmissionPlugin {
  const finalizers: Record<string, string> = {
    persistentvolumeclaims: env.naming.label("pvc-protection"),
    persistentvolumes: env.naming.label("pv-protection"),
  };
  return {
    name: "StorageObjectInUseProtection",
    admit(a) {
      if (a.operation !== "CREATE" || a.resource.group !== "" || a.subresource !== "") return;
      const finalizer = finalizers[a.resource.resource];
      if (!finalizer || !a.object) return;
      const metadata = (a.object.metadata ?? {}) as JsonObject;
      const current = metadata.finalizers ?? [];
      if (!Array.isArray(current)) throw badRequest("metadata.finalizers must be a list");
      if (current.includes(finalizer)) return;
      a.object.metadata = { ...metadata, finalizers: [...current, finalizer] };
    },
  };
}

export const registration: PluginRegistration = { name: "StorageObjectInUseProtection", factory: plugin };
