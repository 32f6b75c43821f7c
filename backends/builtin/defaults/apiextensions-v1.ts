// apiextensions/v1 defaults as upstream 1.27 applies them: CustomResourceDefinition names and
// conversion, the stored versions of its status, and the port of a conversion webhook's service.
import {
  defaultPointer,
  isEmptyString,
  isNil,
  isObject,
  type JsonMap,
  listLength,
  structAt,
} from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

const customResourceDefinition: TypeDefaulter = (crd) => {
  const spec = structAt(crd, "spec");
  if (spec !== undefined) {
    const names = structAt(spec, "names");
    if (names !== undefined) {
      const kind = typeof names.kind === "string" ? names.kind : "";
      // Go would set the lowercased kind even when it is empty, which does not show.
      if (isEmptyString(names.singular) && kind !== "") names.singular = kind.toLowerCase();
      if (isEmptyString(names.listKind) && kind !== "") names.listKind = `${kind}List`;
    }
    if (isNil(spec.conversion)) spec.conversion = { strategy: "None" };
  }
  // Until the status says otherwise, what is stored is the storage version.
  if (spec === undefined || !Array.isArray(spec.versions)) return;
  const storage = spec.versions.find((v) => isObject(v) && v.storage === true) as JsonMap | undefined;
  if (storage === undefined) return;
  const status = isNil(crd.status) ? {} : crd.status;
  if (!isObject(status)) return;
  const stored = status.storedVersions;
  if (listLength(stored) > 0 || !(isNil(stored) || Array.isArray(stored))) return;
  status.storedVersions = [typeof storage.name === "string" ? storage.name : ""];
  crd.status = status;
};

/** The apiextensions/v1 defaulters by type id. */
export function apiextensionsV1Defaulters(): Record<string, TypeDefaulter> {
  return {
    "apiextensions/v1.CustomResourceDefinition": customResourceDefinition,
    "apiextensions/v1.ServiceReference": (service) => defaultPointer(service, "port", 443),
  };
}
