// storage/v1 defaults as upstream 1.27 applies them: StorageClass reclaim and binding modes and
// the CSIDriver capabilities (seLinuxMount's feature gate is on by default in 1.27). Volume
// attachments' inline persistent volume specs get the core/v1 volume defaults through the walk.
import { defaultPointer, isNil, listLength, structAt } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

const storageClass: TypeDefaulter = (sc) => {
  defaultPointer(sc, "reclaimPolicy", "Delete");
  defaultPointer(sc, "volumeBindingMode", "Immediate");
};

const csiDriver: TypeDefaulter = (driver) => {
  const spec = structAt(driver, "spec");
  if (spec === undefined) return;
  defaultPointer(spec, "attachRequired", true);
  defaultPointer(spec, "podInfoOnMount", false);
  defaultPointer(spec, "storageCapacity", false);
  defaultPointer(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
  const modes = spec.volumeLifecycleModes;
  if (listLength(modes) === 0 && (isNil(modes) || Array.isArray(modes)))
    spec.volumeLifecycleModes = ["Persistent"];
  defaultPointer(spec, "requiresRepublish", false);
  defaultPointer(spec, "seLinuxMount", false);
};

/** The storage/v1 defaulters by type id. */
export function storageV1Defaulters(): Record<string, TypeDefaulter> {
  return {
    "storage/v1.StorageClass": storageClass,
    "storage/v1.CSIDriver": csiDriver,
  };
}
