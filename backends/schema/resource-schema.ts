// One description of a kind, shared by built-in kinds and custom resources (DESIGN.md, Types).
import type { StructuralSchema } from "./structural/types.ts";

export interface ResourceVersion {
  readonly name: string;
  readonly served: boolean;
  /** Exactly one version of a resource is the storage version. */
  readonly storage: boolean;
  readonly deprecated?: boolean;
  /** Warning text for requests to a deprecated version; a default is derived when absent. */
  readonly deprecationWarning?: string;
  /** The release that deprecated it, e.g. "1.26". */
  readonly deprecatedRelease?: string;
  /** The release that stops serving it, e.g. "1.29". */
  readonly removedRelease?: string;
  /** What to use instead, e.g. `flowcontrol.cluster.io/v1beta3 FlowSchema`. */
  readonly replacement?: string;
  /** The version's structural schema of the whole object (published in OpenAPI). */
  readonly schema?: StructuralSchema;
  /**
   * A built-in kind's catalog type (`apps/v1.Deployment`): OpenAPI publishes its named types,
   * as upstream does, rather than the inline schema.
   */
  readonly catalogType?: string;
}

export interface TableColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "number" | "boolean" | "date";
  readonly format?: string;
  readonly description: string;
  readonly priority: number;
  /** Computes the cell from the object. */
  readonly cell: (object: Record<string, unknown>) => unknown;
}

/** Where a kind keeps what its `scale` subresource reads and writes. */
export interface ScaleSpec {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  /** A string field holding the label selector (custom resources). */
  readonly labelSelectorPath?: string;
  /** The label selector in its string form, computed (built-in workloads). */
  readonly selector?: (object: Record<string, unknown>) => string;
  /** Columns of the Scale's table; absent: the kind's own (custom resources, as upstream). */
  readonly tableColumns?: readonly TableColumn[];
}

export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

export interface ResourceSchema {
  /** API group; "" for the core group. */
  readonly group: string;
  readonly versions: readonly ResourceVersion[];
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly namespaced: boolean;
  readonly verbs: readonly Verb[];
  /** Subresources served besides the main resource, e.g. "status". */
  readonly subresources: readonly string[];
  /** Whether a PUT to a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  /** Field-selector names beyond metadata.name and metadata.namespace, with their values. */
  readonly selectableFields?: (object: Record<string, unknown>) => Record<string, string>;
  /**
   * Where the objects are stored when another resource holds them (events.<domain> Events are
   * core Events): that resource's group and plural name the key prefix.
   */
  readonly storedAs?: { readonly group: string; readonly plural: string };
  /** Present when the `scale` subresource is served. */
  readonly scale?: ScaleSpec;
  /** Extra table columns after Name (Created At is added when absent). */
  readonly tableColumns?: readonly TableColumn[];
  /**
   * Converts an object of any served version (named by its apiVersion) to `toVersion`; needed
   * when more than one version is served. The result carries the new apiVersion.
   */
  readonly convert?: (object: Record<string, unknown>, toVersion: string) => Record<string, unknown>;
  /**
   * Present when converting calls out (a CRD's conversion webhook): every object to `toVersion`
   * in one call, in order (`listKind` when they are a list's items). Callers that can wait use it;
   * `convert` then serves only conversions made recently.
   */
  readonly convertMany?: (
    objects: readonly Record<string, unknown>[],
    toVersion: string,
    listKind?: string,
  ) => Promise<Record<string, unknown>[]>;
}

export function storageVersion(schema: ResourceSchema): ResourceVersion {
  const v = schema.versions.find((x) => x.storage);
  if (!v) throw new Error(`${schema.plural}.${schema.group}: no storage version`);
  return v;
}

type KeyNames = Pick<ResourceSchema, "group" | "plural" | "storedAs">;

/** The storage key prefix of a resource: `/<group or core>/<plural>/`. */
export function resourcePrefix(schema: KeyNames): string {
  const { group, plural } = schema.storedAs ?? schema;
  return `/${group === "" ? "core" : group}/${plural}/`;
}

/** The storage key of one object; cluster-scoped objects use `_` in the namespace position. */
export function objectKey(schema: KeyNames, namespace: string | undefined, name: string): string {
  return `${resourcePrefix(schema)}${namespace || "_"}/${name}`;
}

/** The key prefix of a namespace's objects (or of all objects of a cluster-scoped resource). */
export function namespacePrefix(schema: KeyNames, namespace: string | undefined): string {
  return `${resourcePrefix(schema)}${namespace ? `${namespace}/` : ""}`;
}
