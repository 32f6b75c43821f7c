// Upstream 1.27's defaulting of the built-in kinds, as type-level defaulters walked over the
// catalog (walk.ts). Where a default depends on a feature gate, the gate's 1.27 default applies.
import type { Catalog } from "../../catalog/catalog.ts";
import { type Naming, naming as namingPreset } from "../../naming/naming.ts";
import { admissionregistrationDefaulters } from "./admissionregistration.ts";
import { apiextensionsV1Defaulters } from "./apiextensions-v1.ts";
import { apiregistrationV1Defaulters } from "./apiregistration-v1.ts";
import { appsV1Defaulters } from "./apps-v1.ts";
import { authenticationV1Defaulters } from "./authentication-v1.ts";
import { autoscalingDefaulters } from "./autoscaling.ts";
import { batchV1Defaulters } from "./batch-v1.ts";
import { coreV1Defaulters } from "./core-v1.ts";
import { discoveryV1Defaulters } from "./discovery-v1.ts";
import { flowcontrolDefaulters } from "./flowcontrol.ts";
import { networkingV1Defaulters } from "./networking-v1.ts";
import { rbacV1Defaulters } from "./rbac-v1.ts";
import { schedulingV1Defaulters } from "./scheduling-v1.ts";
import { storageV1Defaulters } from "./storage-v1.ts";
import { compileDefaulterIfAny, type TypeDefaulter, type TypeDefaulters } from "./walk.ts";

export { defaultPullPolicy, imageTag } from "./image.ts";
export {
  compileDefaulter,
  compileDefaulterIfAny,
  type TypeDefaulter,
  type TypeDefaulters,
  unknownDefaulterIds,
} from "./walk.ts";

const byPreset = new Map<Naming, TypeDefaulters>();

/**
 * Every built-in defaulter by type id. The naming preset spells the defaults that name the
 * product's domain (the RBAC group, the namespace name label). One object per preset, so walks
 * compiled for it are shared.
 */
export function builtinDefaulters(naming: Naming = namingPreset()): TypeDefaulters {
  let defaulters = byPreset.get(naming);
  if (!defaulters) {
    const all: Record<string, TypeDefaulter> = {
      ...coreV1Defaulters(naming),
      ...appsV1Defaulters(),
      ...batchV1Defaulters(),
      ...autoscalingDefaulters(),
      ...networkingV1Defaulters(),
      ...discoveryV1Defaulters(),
      ...storageV1Defaulters(),
      ...rbacV1Defaulters(naming),
      ...schedulingV1Defaulters(),
      ...admissionregistrationDefaulters(),
      ...flowcontrolDefaulters(),
      ...apiextensionsV1Defaulters(),
      ...apiregistrationV1Defaulters(),
      ...authenticationV1Defaulters(),
    };
    defaulters = Object.freeze(all);
    byPreset.set(naming, defaulters);
  }
  return defaulters;
}

/**
 * For `CatalogKindOptions.defaulter`: the defaulting walk of a kind's type, or undefined when no
 * built-in default applies to it.
 */
export function builtinDefaulterFor(
  catalog: Catalog,
  naming: Naming = namingPreset(),
): (typeId: string) => ((value: unknown) => void) | undefined {
  const defaulters = builtinDefaulters(naming);
  return (typeId) => compileDefaulterIfAny(catalog, typeId, defaulters);
}
