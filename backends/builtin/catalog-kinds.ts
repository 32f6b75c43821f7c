// The built-in kinds that need no lifecycle of their own beyond the common one: names, scope,
// short names, categories and subresources as upstream 1.27 serves them, with their schema from
// the catalog. Kinds with their own rules (Pod, Namespace, Secret, ...) live in their own files
// and get the same schema through `withCatalogSchema`.
import type { Catalog } from "../catalog/index.ts";
import { cloneJson, type JsonObject } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import type { FieldError } from "../registry/field-error.ts";
import type { Strategy } from "../registry/strategy.ts";
import type { ResourceSchema, ResourceVersion, ScaleSpec, TableColumn } from "../schema/resource-schema.ts";
import { SCALE_COLUMNS } from "./columns/scale.ts";
import {
  type FlowcontrolVersion,
  flowcontrolConversion,
  type HpaVersion,
  hpaConversion,
} from "./conversion/index.ts";
import { compileGoForm } from "./go-form.ts";
import { ageColumn } from "./human-duration.ts";
import { ALL_VERBS, type BuiltinKind } from "./kind.ts";
import { catalogTypedSchema, kindSchema } from "./typed.ts";

export interface KindEntry {
  /** The group's short name: `""` (core), `apps`, `networking`, `rbac.authorization`. */
  readonly group: string;
  /** The group's name carries the naming preset's suffix (`networking.<domain>`). */
  readonly domain?: boolean;
  /** The catalog package of the storage version, e.g. `apps/v1`. */
  readonly pkg: string;
  readonly kind: string;
  readonly plural: string;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly cluster?: boolean;
  /** The kind has a status written through the `status` subresource. */
  readonly status?: boolean;
  /** metadata.generation follows spec changes. */
  readonly generation?: boolean;
  /** A `scale` subresource over spec.replicas and status.replicas. */
  readonly scale?: boolean;
  readonly selectableFields?: ResourceSchema["selectableFields"];
  /** How names are checked when not a DNS subdomain (Services: DNS-1035 labels). */
  readonly nameRule?: Strategy["nameRule"];
  /** Further served versions, converted to and from the storage version by `convert`. */
  readonly otherVersions?: readonly OtherVersion[];
  readonly convert?: (naming: Naming) => NonNullable<ResourceSchema["convert"]>;
  /** Upstream's default garbage collection policy when not Background. */
  readonly garbageCollectionPolicy?: Strategy["garbageCollectionPolicy"];
}

export interface OtherVersion {
  readonly pkg: string;
  /** Deprecated in this release (e.g. "1.26"), unserved from `removedRelease` on. */
  readonly deprecatedRelease?: string;
  readonly removedRelease?: string;
}

/** The kinds served as plain stored objects (the others come from their own files). */
export const CATALOG_KINDS: readonly KindEntry[] = [
  {
    group: "",
    pkg: "core/v1",
    kind: "Service",
    plural: "services",
    shortNames: ["svc"],
    categories: ["all"],
    status: true,
    nameRule: "dns-1035-label",
  },
  { group: "", pkg: "core/v1", kind: "Endpoints", plural: "endpoints", shortNames: ["ep"] },
  { group: "", pkg: "core/v1", kind: "LimitRange", plural: "limitranges", shortNames: ["limits"] },
  {
    group: "",
    pkg: "core/v1",
    kind: "ResourceQuota",
    plural: "resourcequotas",
    shortNames: ["quota"],
    status: true,
  },
  {
    group: "",
    pkg: "core/v1",
    kind: "PersistentVolume",
    plural: "persistentvolumes",
    shortNames: ["pv"],
    cluster: true,
    status: true,
  },
  {
    group: "",
    pkg: "core/v1",
    kind: "PersistentVolumeClaim",
    plural: "persistentvolumeclaims",
    shortNames: ["pvc"],
    status: true,
  },
  {
    group: "",
    pkg: "core/v1",
    kind: "ReplicationController",
    plural: "replicationcontrollers",
    shortNames: ["rc"],
    // core/v1 keeps its old default: dependents are orphaned.
    garbageCollectionPolicy: "OrphanDependents",
    categories: ["all"],
    status: true,
    generation: true,
    scale: true,
    selectableFields: (o) => ({ "status.replicas": replicas(o) }),
  },
  { group: "", pkg: "core/v1", kind: "PodTemplate", plural: "podtemplates" },
  {
    group: "apps",
    pkg: "apps/v1",
    kind: "Deployment",
    plural: "deployments",
    shortNames: ["deploy"],
    categories: ["all"],
    status: true,
    generation: true,
    scale: true,
  },
  {
    group: "apps",
    pkg: "apps/v1",
    kind: "StatefulSet",
    plural: "statefulsets",
    shortNames: ["sts"],
    categories: ["all"],
    status: true,
    generation: true,
    scale: true,
  },
  {
    group: "apps",
    pkg: "apps/v1",
    kind: "DaemonSet",
    plural: "daemonsets",
    shortNames: ["ds"],
    categories: ["all"],
    status: true,
    generation: true,
  },
  {
    group: "apps",
    pkg: "apps/v1",
    kind: "ReplicaSet",
    plural: "replicasets",
    shortNames: ["rs"],
    categories: ["all"],
    status: true,
    generation: true,
    scale: true,
    selectableFields: (o) => ({ "status.replicas": replicas(o) }),
  },
  { group: "apps", pkg: "apps/v1", kind: "ControllerRevision", plural: "controllerrevisions" },
  {
    group: "batch",
    pkg: "batch/v1",
    kind: "Job",
    plural: "jobs",
    categories: ["all"],
    // batch/v1 keeps its old default: a Job's Pods are orphaned unless the request says otherwise.
    garbageCollectionPolicy: "OrphanDependents",
    status: true,
    generation: true,
    selectableFields: (o) => ({ "status.successful": String(statusOf(o).succeeded ?? 0) }),
  },
  {
    group: "batch",
    pkg: "batch/v1",
    kind: "CronJob",
    plural: "cronjobs",
    shortNames: ["cj"],
    categories: ["all"],
    status: true,
    generation: true,
  },
  {
    group: "autoscaling",
    pkg: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    plural: "horizontalpodautoscalers",
    shortNames: ["hpa"],
    categories: ["all"],
    status: true,
    generation: true,
    otherVersions: [{ pkg: "autoscaling/v1" }],
    convert: (naming) => {
      const convert = hpaConversion(naming);
      return (object, to) => convert(object, to as HpaVersion);
    },
  },
  {
    group: "policy",
    pkg: "policy/v1",
    kind: "PodDisruptionBudget",
    plural: "poddisruptionbudgets",
    shortNames: ["pdb"],
    status: true,
    generation: true,
  },
  {
    group: "networking",
    domain: true,
    pkg: "networking/v1",
    kind: "Ingress",
    plural: "ingresses",
    shortNames: ["ing"],
    status: true,
    generation: true,
  },
  {
    group: "networking",
    domain: true,
    pkg: "networking/v1",
    kind: "IngressClass",
    plural: "ingressclasses",
    cluster: true,
    generation: true,
  },
  {
    group: "networking",
    domain: true,
    pkg: "networking/v1",
    kind: "NetworkPolicy",
    plural: "networkpolicies",
    shortNames: ["netpol"],
    generation: true,
  },
  { group: "discovery", domain: true, pkg: "discovery/v1", kind: "EndpointSlice", plural: "endpointslices" },
  { group: "coordination", domain: true, pkg: "coordination/v1", kind: "Lease", plural: "leases" },
  {
    group: "node",
    domain: true,
    pkg: "node/v1",
    kind: "RuntimeClass",
    plural: "runtimeclasses",
    cluster: true,
  },
  {
    group: "scheduling",
    domain: true,
    pkg: "scheduling/v1",
    kind: "PriorityClass",
    plural: "priorityclasses",
    shortNames: ["pc"],
    cluster: true,
  },
  {
    group: "storage",
    domain: true,
    pkg: "storage/v1",
    kind: "StorageClass",
    plural: "storageclasses",
    shortNames: ["sc"],
    cluster: true,
  },
  {
    group: "storage",
    domain: true,
    pkg: "storage/v1",
    kind: "CSIDriver",
    plural: "csidrivers",
    cluster: true,
  },
  { group: "storage", domain: true, pkg: "storage/v1", kind: "CSINode", plural: "csinodes", cluster: true },
  {
    group: "storage",
    domain: true,
    pkg: "storage/v1",
    kind: "VolumeAttachment",
    plural: "volumeattachments",
    cluster: true,
    status: true,
  },
  {
    group: "storage",
    domain: true,
    pkg: "storage/v1",
    kind: "CSIStorageCapacity",
    plural: "csistoragecapacities",
  },
  {
    group: "admissionregistration",
    domain: true,
    pkg: "admissionregistration/v1",
    kind: "MutatingWebhookConfiguration",
    plural: "mutatingwebhookconfigurations",
    categories: ["api-extensions"],
    cluster: true,
    generation: true,
  },
  {
    group: "admissionregistration",
    domain: true,
    pkg: "admissionregistration/v1",
    kind: "ValidatingWebhookConfiguration",
    plural: "validatingwebhookconfigurations",
    categories: ["api-extensions"],
    cluster: true,
    generation: true,
  },
  {
    group: "admissionregistration",
    domain: true,
    pkg: "admissionregistration/v1alpha1",
    kind: "ValidatingAdmissionPolicy",
    plural: "validatingadmissionpolicies",
    categories: ["api-extensions"],
    cluster: true,
    status: true,
    generation: true,
  },
  {
    group: "admissionregistration",
    domain: true,
    pkg: "admissionregistration/v1alpha1",
    kind: "ValidatingAdmissionPolicyBinding",
    plural: "validatingadmissionpolicybindings",
    categories: ["api-extensions"],
    cluster: true,
    generation: true,
  },
  {
    group: "apiextensions",
    domain: true,
    pkg: "apiextensions/v1",
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
    cluster: true,
    status: true,
    generation: true,
  },
  {
    group: "apiregistration",
    domain: true,
    pkg: "apiregistration/v1",
    kind: "APIService",
    plural: "apiservices",
    categories: ["api-extensions"],
    cluster: true,
    status: true,
    // `v1.` (the core group) is no DNS subdomain; upstream checks only that it is a path segment.
    nameRule: "path-segment",
  },
  {
    group: "flowcontrol",
    domain: true,
    pkg: "flowcontrol/v1beta3",
    kind: "FlowSchema",
    plural: "flowschemas",
    cluster: true,
    status: true,
    generation: true,
    otherVersions: [{ pkg: "flowcontrol/v1beta2", deprecatedRelease: "1.26", removedRelease: "1.29" }],
    convert: flowcontrolConvert,
  },
  {
    group: "flowcontrol",
    domain: true,
    pkg: "flowcontrol/v1beta3",
    kind: "PriorityLevelConfiguration",
    plural: "prioritylevelconfigurations",
    cluster: true,
    status: true,
    generation: true,
    otherVersions: [{ pkg: "flowcontrol/v1beta2", deprecatedRelease: "1.26", removedRelease: "1.29" }],
    convert: flowcontrolConvert,
  },
];

function flowcontrolConvert(naming: Naming): NonNullable<ResourceSchema["convert"]> {
  const convert = flowcontrolConversion(naming);
  return (object, to) => convert(object, to as FlowcontrolVersion);
}

/** A label selector in its string form (`app=web,tier in (a,b),!legacy`), keys in order. */
export function selectorString(selector: unknown): string {
  const sel =
    selector && typeof selector === "object" && !Array.isArray(selector) ? (selector as JsonObject) : {};
  const parts: [string, string][] = [];
  const matchLabels = sel.matchLabels;
  const isLabelSelector = "matchLabels" in sel || "matchExpressions" in sel;
  // A ReplicationController's selector is a plain map of labels.
  const labels = isLabelSelector ? matchLabels : sel;
  if (labels && typeof labels === "object") {
    for (const [k, v] of Object.entries(labels as JsonObject)) parts.push([k, `${k}=${String(v)}`]);
  }
  if (isLabelSelector && Array.isArray(sel.matchExpressions)) {
    for (const e of sel.matchExpressions as JsonObject[]) {
      const key = String(e.key ?? "");
      const values = (Array.isArray(e.values) ? e.values.map(String) : []).sort();
      const text =
        e.operator === "In"
          ? `${key} in (${values.join(",")})`
          : e.operator === "NotIn"
            ? `${key} notin (${values.join(",")})`
            : e.operator === "DoesNotExist"
              ? `!${key}`
              : key;
      parts.push([key, text]);
    }
  }
  return parts
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, t]) => t)
    .join(",");
}

const WORKLOAD_SCALE: ScaleSpec = {
  specReplicasPath: ".spec.replicas",
  statusReplicasPath: ".status.replicas",
  selector: (object) => selectorString((object.spec as JsonObject | undefined)?.selector),
  tableColumns: SCALE_COLUMNS,
};

function statusOf(object: JsonObject): JsonObject {
  const s = object.status;
  return typeof s === "object" && s !== null && !Array.isArray(s) ? (s as JsonObject) : {};
}

function replicas(object: JsonObject): string {
  return String(statusOf(object).replicas ?? 0);
}

function keep(object: JsonObject, old: JsonObject, key: string): void {
  if (old[key] === undefined) delete object[key];
  else object[key] = cloneJson(old[key]);
}

/** The main resource cannot write status; the status subresource writes nothing else. */
function statusStrategies(generation: boolean): { main: Strategy; status: Strategy } {
  const main: Strategy = {
    prepareForCreate(object) {
      delete object.status;
    },
    prepareForUpdate(object, old) {
      keep(object, old, "status");
    },
    tracksGeneration: generation,
  };
  const status: Strategy = {
    prepareForUpdate(object, old) {
      for (const key of new Set([...Object.keys(object), ...Object.keys(old)])) {
        if (key !== "status" && key !== "metadata" && key !== "apiVersion" && key !== "kind")
          keep(object, old, key);
      }
    },
  };
  return { main, status };
}

/** A kind's own rules beyond its schema (backends/builtin/validation). */
export interface KindRules {
  validate?(object: JsonObject): FieldError[];
  validateUpdate?(object: JsonObject, old: JsonObject): FieldError[];
}

export interface CatalogKindOptions {
  readonly catalog: Catalog;
  readonly rules?: (typeId: string) => KindRules | undefined;
  readonly defaulter?: (typeId: string) => ((value: unknown) => void) | undefined;
  readonly columns?: (entry: KindEntry) => readonly TableColumn[] | undefined;
}

/** The storage version first, then the others, each with its schema from the catalog. */
function versions(catalog: Catalog, naming: Naming, entry: KindEntry): ResourceVersion[] {
  const group = entry.domain ? naming.group(entry.group) : entry.group;
  const version = (pkg: string, storage: boolean, other?: OtherVersion): ResourceVersion => {
    const catalogType = `${pkg}.${entry.kind}`;
    const name = pkg.slice(pkg.indexOf("/") + 1);
    return {
      name,
      served: true,
      storage,
      schema: kindSchema(catalog, catalogType),
      catalogType,
      ...(other?.deprecatedRelease
        ? {
            deprecated: true,
            deprecatedRelease: other.deprecatedRelease,
            replacement: `${group}/${entry.pkg.slice(entry.pkg.indexOf("/") + 1)} ${entry.kind}`,
          }
        : {}),
      ...(other?.removedRelease ? { removedRelease: other.removedRelease } : {}),
    };
  };
  return [version(entry.pkg, true), ...(entry.otherVersions ?? []).map((o) => version(o.pkg, false, o))];
}

/**
 * A conversion whose results at a version other than the storage one (reads) are in the Go form of
 * that version's type, as upstream encodes them. Writes are brought into form when stored.
 */
export function readInGoForm(
  catalog: Catalog,
  entry: Pick<KindEntry, "pkg" | "kind" | "otherVersions">,
  convert: NonNullable<ResourceSchema["convert"]>,
): NonNullable<ResourceSchema["convert"]> {
  const forms = new Map(
    (entry.otherVersions ?? []).map((o) => [
      o.pkg.slice(o.pkg.indexOf("/") + 1),
      compileGoForm(catalog, `${o.pkg}.${entry.kind}`),
    ]),
  );
  return (object, to) => {
    const out = convert(object, to);
    const form = forms.get(to);
    if (!form) return out;
    // The result may share parts with the object converted, which is not ours to change.
    const copy = cloneJson(out);
    form.encoded(copy);
    return copy;
  };
}

export function catalogKind(naming: Naming, entry: KindEntry, options: CatalogKindOptions): BuiltinKind {
  const typeId = `${entry.pkg}.${entry.kind}`;
  const typed = catalogTypedSchema(options.catalog, typeId, options.defaulter?.(typeId));
  const rules = options.rules?.(typeId);
  const plain: Strategy = { tracksGeneration: entry.generation ?? false };
  const { main, status } = entry.status
    ? statusStrategies(entry.generation ?? false)
    : { main: plain, status: undefined };
  return {
    schema: {
      group: entry.domain ? naming.group(entry.group) : entry.group,
      versions: versions(options.catalog, naming, entry),
      plural: entry.plural,
      singular: entry.kind.toLowerCase(),
      kind: entry.kind,
      listKind: `${entry.kind}List`,
      shortNames: entry.shortNames ?? [],
      categories: entry.categories ?? [],
      namespaced: !entry.cluster,
      verbs: ALL_VERBS,
      subresources: [...(entry.status ? ["status"] : []), ...(entry.scale ? ["scale"] : [])],
      ...(entry.scale ? { scale: WORKLOAD_SCALE } : {}),
      allowCreateOnUpdate: false,
      ...(entry.selectableFields ? { selectableFields: entry.selectableFields } : {}),
      ...(entry.convert ? { convert: readInGoForm(options.catalog, entry, entry.convert(naming)) } : {}),
      tableColumns: options.columns?.(entry) ?? [ageColumn()],
    },
    strategy: {
      ...main,
      typed,
      nameRule: entry.nameRule ?? "dns-subdomain",
      ...(entry.garbageCollectionPolicy ? { garbageCollectionPolicy: entry.garbageCollectionPolicy } : {}),
      ...(rules?.validate ? { validate: rules.validate } : {}),
      ...(rules?.validateUpdate ? { validateUpdate: rules.validateUpdate } : {}),
    },
    ...(status ? { subresourceStrategies: { status } } : {}),
  };
}

/** A hand-written kind with its schema from the catalog (type id `<package>.<Kind>`). */
export function withCatalogSchema(
  kind: BuiltinKind,
  typeId: string,
  options: Pick<CatalogKindOptions, "catalog" | "defaulter" | "rules">,
): BuiltinKind {
  // The registry applies the main strategy's schema to subresource writes as well.
  const typed = catalogTypedSchema(options.catalog, typeId, options.defaulter?.(typeId));
  const schema = kindSchema(options.catalog, typeId);
  return {
    ...kind,
    schema: {
      ...kind.schema,
      versions: kind.schema.versions.map((v) => (v.storage ? { ...v, schema, catalogType: typeId } : v)),
    },
    strategy: withRules({ ...kind.strategy, typed }, options.rules?.(typeId)),
  };
}

/** A strategy with a kind's own rules added to the ones it has. */
function withRules(strategy: Strategy, rules: KindRules | undefined): Strategy {
  if (!rules) return strategy;
  const { validate, validateUpdate } = strategy;
  return {
    ...strategy,
    validate: (object) => [...(validate?.(object) ?? []), ...(rules.validate?.(object) ?? [])],
    validateUpdate: (object, old) => [
      ...((validateUpdate ?? ((o: JsonObject) => validate?.(o) ?? []))(object, old) ?? []),
      ...(rules.validateUpdate?.(object, old) ?? rules.validate?.(object) ?? []),
    ],
  };
}
