// The built-in catalog: every package, merged, and what is derived from it.
import { ADMISSIONREGISTRATION_V1 } from "./admissionregistration-v1.ts";
import { ADMISSIONREGISTRATION_V1ALPHA1 } from "./admissionregistration-v1alpha1.ts";
import { APIEXTENSIONS_V1 } from "./apiextensions-v1.ts";
import { APIREGISTRATION_V1 } from "./apiregistration-v1.ts";
import { APPS_V1 } from "./apps-v1.ts";
import { AUTHENTICATION_V1 } from "./authentication-v1.ts";
import { AUTHENTICATION_V1ALPHA1 } from "./authentication-v1alpha1.ts";
import { AUTHENTICATION_V1BETA1 } from "./authentication-v1beta1.ts";
import { AUTHORIZATION_V1 } from "./authorization-v1.ts";
import { AUTOSCALING_V1 } from "./autoscaling-v1.ts";
import { AUTOSCALING_V2 } from "./autoscaling-v2.ts";
import { BATCH_V1 } from "./batch-v1.ts";
import { Catalog } from "./catalog.ts";
import { CERTIFICATES_V1 } from "./certificates-v1.ts";
import { COORDINATION_V1 } from "./coordination-v1.ts";
import { CORE_V1_CLUSTER } from "./core-v1-cluster.ts";
import { CORE_V1_POD } from "./core-v1-pod.ts";
import { CORE_V1_VOLUMES } from "./core-v1-volumes.ts";
import { DISCOVERY_V1 } from "./discovery-v1.ts";
import { EVENTS_V1 } from "./events-v1.ts";
import { FLOWCONTROL_V1BETA2 } from "./flowcontrol-v1beta2.ts";
import { FLOWCONTROL_V1BETA3 } from "./flowcontrol-v1beta3.ts";
import { META_V1 } from "./meta-v1.ts";
import type { CatalogPackage } from "./model.ts";
import { NETWORKING_V1 } from "./networking-v1.ts";
import { NODE_V1 } from "./node-v1.ts";
import { POLICY_V1 } from "./policy-v1.ts";
import { RBAC_V1 } from "./rbac-v1.ts";
import { SCHEDULING_V1 } from "./scheduling-v1.ts";
import { STORAGE_V1 } from "./storage-v1.ts";

export {
  Catalog,
  type PackageGroup,
  type ParsedRef,
  packageGroup,
  parseRef,
  type ResolvedType,
  type ScalarType,
} from "./catalog.ts";
export { type DecodeCheck, DecodeChecks } from "./decode-check.ts";
export { SchemaExpander } from "./expand.ts";
export type { CatalogPackage, FieldSpec, TypeRef, TypeSpec } from "./model.ts";

export const BUILTIN_PACKAGES: readonly CatalogPackage[] = [
  META_V1,
  CORE_V1_POD,
  CORE_V1_VOLUMES,
  CORE_V1_CLUSTER,
  APPS_V1,
  BATCH_V1,
  AUTOSCALING_V1,
  AUTOSCALING_V2,
  POLICY_V1,
  NETWORKING_V1,
  DISCOVERY_V1,
  COORDINATION_V1,
  EVENTS_V1,
  NODE_V1,
  SCHEDULING_V1,
  STORAGE_V1,
  RBAC_V1,
  CERTIFICATES_V1,
  ADMISSIONREGISTRATION_V1,
  ADMISSIONREGISTRATION_V1ALPHA1,
  FLOWCONTROL_V1BETA2,
  FLOWCONTROL_V1BETA3,
  APIEXTENSIONS_V1,
  APIREGISTRATION_V1,
  AUTHENTICATION_V1,
  AUTHENTICATION_V1BETA1,
  AUTHENTICATION_V1ALPHA1,
  AUTHORIZATION_V1,
];

let builtin: Catalog | undefined;

/** The built-in catalog, built on first use. */
export function builtinCatalog(): Catalog {
  builtin ??= new Catalog(BUILTIN_PACKAGES);
  return builtin;
}
