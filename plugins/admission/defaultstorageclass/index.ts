// DefaultStorageClass: a claim created without a class gets the default StorageClass (newest wins).
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { internalError } from "../index.ts";

function plugin(env: PluginEnv): AdmissionPlugin {
  const group = env.naming.group("storage");
  const keys = [
    env.naming.label("is-default-class", "storageclass"),
    env.naming.label("is-default-class", "storageclass.beta"),
  ];
  const legacyClass = env.naming.label("storage-class", "volume.beta");
  const classes = env.objects.informer({ group, resource: "storageclasses" });
  return {
    name: "DefaultStorageClass",
    async admit(a) {
      if (a.operation !== "CREATE" || a.resource.group !== "") return;
      if (a.resource.resource !== "persistentvolumeclaims" || a.subresource !== "") return;
      const claim = a.object;
      if (!claim) return;
      const spec = (claim.spec ?? {}) as JsonObject;
      // An explicit class, even "", is kept.
      if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
      const annotations = (claim.metadata as JsonObject | undefined)?.annotations as JsonObject | undefined;
      if (annotations && legacyClass in annotations) return;
      if (!classes) throw internalError("storageclasses are not served");
      await classes.synced;
      const defaults = classes.list().filter((c) => {
        const ann = ((c.metadata as JsonObject | undefined)?.annotations ?? {}) as Record<string, unknown>;
        return keys.some((k) => ann[k] === "true");
      });
      if (defaults.length === 0) return;
      // Since 1.26 several defaults are allowed: the newest, then the first name, is chosen.
      const meta = (c: JsonObject) => c.metadata as { name: string; creationTimestamp?: string };
      defaults.sort((x, y) => {
        const tx = Date.parse(meta(x).creationTimestamp ?? "") || 0;
        const ty = Date.parse(meta(y).creationTimestamp ?? "") || 0;
        if (tx !== ty) return ty - tx;
        return meta(x).name < meta(y).name ? -1 : meta(x).name > meta(y).name ? 1 : 0;
      });
      claim.spec = { ...spec, storageClassName: meta(defaults[0] as JsonObject).name };
    },
  };
}

export const registration: PluginRegistration = { name: "DefaultStorageClass", factory: plugin };
