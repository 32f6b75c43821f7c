// The discovery documents, built from the resource schemas: the legacy documents (`/api`, `/apis`,
// `/apis/<group>`, `/api/v1`, `/apis/<group>/<version>`) and the items of the aggregated document
// (`apidiscovery.<domain>` APIGroupDiscoveryList at `/api` and `/apis`). Pure functions: the
// objects returned are plain data, their key order is the wire order.
import type { Naming } from "../../backends/naming/index.ts";
import type { ResourceSchema } from "../../backends/schema/index.ts";
import {
  compareVersionPriority,
  groupPriority,
  sortGroupsByPriority,
  sortVersionsByPriority,
} from "./priority.ts";
import { storageVersionHash } from "./storage-version-hash.ts";

// ---- wire shapes ---------------------------------------------------------------------------

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface ServerAddressByClientCIDR {
  readonly clientCIDR: string;
  readonly serverAddress: string;
}

/** `/api`. */
export interface APIVersions {
  readonly kind: "APIVersions";
  readonly versions: readonly string[];
  readonly serverAddressByClientCIDRs: readonly ServerAddressByClientCIDR[];
}

export interface GroupVersionForDiscovery {
  readonly groupVersion: string;
  readonly version: string;
}

/** One group: an entry of `/apis`, and `/apis/<group>` with `kind` and `apiVersion` added. */
export interface APIGroup {
  readonly kind?: "APIGroup";
  readonly apiVersion?: "v1";
  readonly name: string;
  readonly versions: readonly GroupVersionForDiscovery[];
  readonly preferredVersion: GroupVersionForDiscovery;
}

/** `/apis`. */
export interface APIGroupList {
  readonly kind: "APIGroupList";
  readonly apiVersion: "v1";
  readonly groups: readonly APIGroup[];
}

export interface APIResource {
  readonly name: string;
  readonly singularName: string;
  readonly namespaced: boolean;
  /** Only for a subresource whose kind belongs to another group version (`deployments/scale`). */
  readonly group?: string;
  readonly version?: string;
  readonly kind: string;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly storageVersionHash?: string;
}

/** `/api/v1` (without `apiVersion`) and `/apis/<group>/<version>`. */
export interface APIResourceList {
  readonly kind: "APIResourceList";
  readonly apiVersion?: "v1";
  readonly groupVersion: string;
  readonly resources: readonly APIResource[];
}

export interface APISubresourceDiscovery {
  readonly subresource: string;
  readonly responseKind: GroupVersionKind;
  readonly verbs: readonly string[];
}

export interface APIResourceDiscovery {
  readonly resource: string;
  readonly responseKind: GroupVersionKind;
  readonly scope: "Namespaced" | "Cluster";
  readonly singularResource: string;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly subresources?: readonly APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  readonly version: string;
  readonly resources?: readonly APIResourceDiscovery[];
  readonly freshness: "Current" | "Stale";
}

export interface APIGroupDiscovery {
  /** The reference server writes an object's metadata with a null creation timestamp. */
  readonly metadata: { readonly name?: string; readonly creationTimestamp: null };
  readonly versions: readonly APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  readonly kind: "APIGroupDiscoveryList";
  readonly apiVersion: string;
  readonly metadata: Record<string, never>;
  readonly items: readonly APIGroupDiscovery[];
}

/** The versions of the aggregated document: `v2beta1` (kubectl 1.27 to 1.29) and `v2` (1.30 on). */
export type AggregatedVersion = "v2beta1" | "v2";

// ---- inputs --------------------------------------------------------------------------------

export interface DiscoveryOptions {
  readonly naming: Naming;
  /** `host:port` (IPv6 in brackets) clients reach the server at, for `serverAddressByClientCIDRs`. */
  readonly serverAddress: string;
  /**
   * Whether a served version of a resource is enabled (`--runtime-config`); every served version
   * is when absent.
   */
  readonly enabled?: (group: string, version: string, resource: string) => boolean;
}

/** The resources of one group version, sorted by plural name. */
export interface ServedGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly resources: readonly ResourceSchema[];
}

/** One group with its enabled versions, the preferred version first. */
export interface ServedGroup {
  readonly name: string;
  readonly versions: readonly ServedGroupVersion[];
}

/**
 * The enabled groups: the core group (name "") first when present, then the named groups in
 * discovery order. A resource appears in a version it serves and that is enabled; a second
 * schema with the same group and plural is ignored.
 */
export function servedGroups(
  schemas: readonly ResourceSchema[],
  options: Pick<DiscoveryOptions, "naming" | "enabled">,
): ServedGroup[] {
  const byGroup = new Map<string, Map<string, Map<string, ResourceSchema>>>();
  for (const schema of schemas) {
    for (const v of schema.versions) {
      if (!v.served || (options.enabled && !options.enabled(schema.group, v.name, schema.plural))) continue;
      let versions = byGroup.get(schema.group);
      if (!versions) {
        versions = new Map();
        byGroup.set(schema.group, versions);
      }
      let resources = versions.get(v.name);
      if (!resources) {
        resources = new Map();
        versions.set(v.name, resources);
      }
      if (!resources.has(schema.plural)) resources.set(schema.plural, schema);
    }
  }
  const named = sortGroupsByPriority(
    options.naming,
    [...byGroup.keys()].filter((g) => g !== ""),
  );
  const order = byGroup.has("") ? ["", ...named] : named;
  return order.map((name) => {
    const versions = byGroup.get(name)!;
    return {
      name,
      versions: sortVersionsByPriority(versions.keys()).map((version) => ({
        group: name,
        version,
        resources: [...versions.get(version)!.values()].sort((a, b) => compareNames(a.plural, b.plural)),
      })),
    };
  });
}

// ---- subresources --------------------------------------------------------------------------

/** What discovery says about one subresource. */
export interface SubresourceShape {
  /** The kind it returns: the resource's own kind when absent. */
  readonly kind?: string;
  /** The group (by prefix) and version of a kind from another group, e.g. autoscaling/v1 Scale. */
  readonly foreign?: { readonly prefix: string; readonly suffixed: boolean; readonly version: string };
  readonly verbs: readonly string[];
}

const readWrite = ["get", "patch", "update"] as const;
const proxyVerbs = ["create", "delete", "get", "patch", "update"] as const;
const connectVerbs = ["create", "get"] as const;

// The subresources of release 1.27's built-in resources, by `<resource>/<subresource>`, then by
// subresource name for any resource. Anything else reads and writes the resource's own kind.
const subresourceShapes: ReadonlyMap<string, SubresourceShape> = new Map<string, SubresourceShape>([
  [
    "scale",
    { kind: "Scale", foreign: { prefix: "autoscaling", suffixed: false, version: "v1" }, verbs: readWrite },
  ],
  ["status", { verbs: readWrite }],
  ["pods/attach", { kind: "PodAttachOptions", verbs: connectVerbs }],
  ["pods/binding", { kind: "Binding", verbs: ["create"] }],
  ["pods/ephemeralcontainers", { verbs: readWrite }],
  [
    "pods/eviction",
    { kind: "Eviction", foreign: { prefix: "policy", suffixed: false, version: "v1" }, verbs: ["create"] },
  ],
  ["pods/exec", { kind: "PodExecOptions", verbs: connectVerbs }],
  // The Pod's own kind, named so that OpenAPI does not read it as a read of the Pod.
  ["pods/log", { kind: "Pod", verbs: ["get"] }],
  ["pods/portforward", { kind: "PodPortForwardOptions", verbs: connectVerbs }],
  ["pods/proxy", { kind: "PodProxyOptions", verbs: proxyVerbs }],
  ["nodes/proxy", { kind: "NodeProxyOptions", verbs: proxyVerbs }],
  ["services/proxy", { kind: "ServiceProxyOptions", verbs: proxyVerbs }],
  ["namespaces/finalize", { verbs: ["update"] }],
  [
    "serviceaccounts/token",
    {
      kind: "TokenRequest",
      foreign: { prefix: "authentication", suffixed: true, version: "v1" },
      verbs: ["create"],
    },
  ],
]);

export function subresourceShape(plural: string, subresource: string): SubresourceShape {
  return (
    subresourceShapes.get(`${plural}/${subresource}`) ??
    subresourceShapes.get(subresource) ?? { verbs: readWrite }
  );
}

function subresourceKind(
  naming: Naming,
  schema: ResourceSchema,
  version: string,
  shape: SubresourceShape,
): { gvk: GroupVersionKind; foreign: boolean } {
  const kind = shape.kind ?? schema.kind;
  if (!shape.foreign) return { gvk: { group: schema.group, version, kind }, foreign: false };
  const group = shape.foreign.suffixed ? naming.group(shape.foreign.prefix) : shape.foreign.prefix;
  return { gvk: { group, version: shape.foreign.version, kind }, foreign: true };
}

// ---- builders ------------------------------------------------------------------------------

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `{ [key]: items }` when there are items, `{}` otherwise: empty lists are left out of the wire form. */
function listField<K extends string, T>(key: K, items: readonly T[]): { [P in K]?: readonly T[] } {
  return (items.length > 0 ? { [key]: items } : {}) as { [P in K]?: readonly T[] };
}

/** The verbs as discovery lists them: each once, in lexical order. */
function sortedVerbs(verbs: readonly string[]): string[] {
  return [...new Set(verbs)].sort(compareNames);
}

function groupVersionString(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

function storageHash(schema: ResourceSchema): string | undefined {
  const storage = schema.versions.find((v) => v.storage);
  return storage ? storageVersionHash(schema.group, storage.name, schema.kind) : undefined;
}

/** `/api`. */
export function apiVersions(groups: readonly ServedGroup[], serverAddress: string): APIVersions {
  const core = groups.find((g) => g.name === "");
  return {
    kind: "APIVersions",
    versions: core ? core.versions.map((v) => v.version) : [],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function groupEntry(group: ServedGroup): APIGroup {
  const versions = group.versions.map((v) => ({
    groupVersion: groupVersionString(group.name, v.version),
    version: v.version,
  }));
  return { name: group.name, versions, preferredVersion: versions[0]! };
}

/** `/apis`: the named groups (the core group is served at `/api`). */
export function apiGroupList(groups: readonly ServedGroup[]): APIGroupList {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groups.filter((g) => g.name !== "").map(groupEntry),
  };
}

/** `/apis/<group>`. */
export function apiGroup(group: ServedGroup): APIGroup {
  return { kind: "APIGroup", apiVersion: "v1", ...groupEntry(group) };
}

/** `/api/v1` and `/apis/<group>/<version>`: resources and subresources, sorted by name. */
export function apiResourceList(naming: Naming, gv: ServedGroupVersion): APIResourceList {
  const resources: APIResource[] = [];
  for (const schema of gv.resources) {
    const hash = storageHash(schema);
    resources.push({
      name: schema.plural,
      singularName: schema.singular,
      namespaced: schema.namespaced,
      kind: schema.kind,
      verbs: sortedVerbs(schema.verbs),
      ...listField("shortNames", schema.shortNames),
      ...listField("categories", schema.categories),
      ...(hash === undefined ? {} : { storageVersionHash: hash }),
    });
    for (const sub of schema.subresources) {
      const shape = subresourceShape(schema.plural, sub);
      const { gvk, foreign } = subresourceKind(naming, schema, gv.version, shape);
      resources.push({
        name: `${schema.plural}/${sub}`,
        singularName: "",
        namespaced: schema.namespaced,
        ...(foreign ? { group: gvk.group, version: gvk.version } : {}),
        kind: gvk.kind,
        verbs: sortedVerbs(shape.verbs),
      });
    }
  }
  resources.sort((a, b) => compareNames(a.name, b.name));
  const groupVersion = groupVersionString(gv.group, gv.version);
  // The core group's list carries no apiVersion, as the reference server's does.
  return gv.group === ""
    ? { kind: "APIResourceList", groupVersion, resources }
    : { kind: "APIResourceList", apiVersion: "v1", groupVersion, resources };
}

function resourceDiscovery(naming: Naming, schema: ResourceSchema, version: string): APIResourceDiscovery {
  const subresources = [...schema.subresources].sort(compareNames).map((sub): APISubresourceDiscovery => {
    const shape = subresourceShape(schema.plural, sub);
    return {
      subresource: sub,
      responseKind: subresourceKind(naming, schema, version, shape).gvk,
      verbs: sortedVerbs(shape.verbs),
    };
  });
  return {
    resource: schema.plural,
    responseKind: { group: schema.group, version, kind: schema.kind },
    scope: schema.namespaced ? "Namespaced" : "Cluster",
    singularResource: schema.singular,
    verbs: sortedVerbs(schema.verbs),
    ...listField("shortNames", schema.shortNames),
    ...listField("categories", schema.categories),
    ...listField("subresources", subresources),
  };
}

/** One item of the aggregated document: a group with its versions, the preferred first. */
export function groupDiscovery(naming: Naming, group: ServedGroup): APIGroupDiscovery {
  return {
    metadata: group.name === "" ? { creationTimestamp: null } : { name: group.name, creationTimestamp: null },
    versions: group.versions.map(
      (v): APIVersionDiscovery => ({
        version: v.version,
        ...listField(
          "resources",
          v.resources.map((schema) => resourceDiscovery(naming, schema, v.version)),
        ),
        freshness: "Current",
      }),
    ),
  };
}

/** The aggregated document in the given version. */
export function aggregatedDiscoveryList(
  naming: Naming,
  version: AggregatedVersion,
  items: readonly APIGroupDiscovery[],
): APIGroupDiscoveryList {
  return {
    kind: "APIGroupDiscoveryList",
    apiVersion: `${naming.group("apidiscovery")}/${version}`,
    metadata: {},
    items,
  };
}

/** The media type of the aggregated document, with the group, version and kind parameters. */
export function aggregatedMediaType(naming: Naming, version: AggregatedVersion): string {
  return `application/json;g=${naming.group("apidiscovery")};v=${version};as=APIGroupDiscoveryList`;
}

// ---- remote group versions ----------------------------------------------------------------

/** A group version an extension server serves, with the resource list it answered discovery with. */
export interface RemoteGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
  /** The extension's APIResourceList. */
  readonly resources: Readonly<Record<string, unknown>>;
  /** False while the extension fails to answer (the last list is shown, marked stale). */
  readonly fresh: boolean;
}

interface RemoteResource {
  readonly name: string;
  readonly singularName?: string;
  readonly namespaced?: boolean;
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
  readonly verbs?: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

function remoteResourceList(rv: RemoteGroupVersion): RemoteResource[] {
  const items = rv.resources.resources;
  return Array.isArray(items)
    ? items.filter(
        (r): r is RemoteResource => typeof r === "object" && r !== null && typeof r.name === "string",
      )
    : [];
}

/** An extension's legacy resource list as the aggregated document's entries (upstream's fallback). */
function remoteResourceDiscovery(rv: RemoteGroupVersion): APIResourceDiscovery[] {
  const all = remoteResourceList(rv);
  const kindOf = (r: RemoteResource): GroupVersionKind => ({
    group: r.group ?? rv.group,
    version: r.version ?? rv.version,
    kind: r.kind ?? "",
  });
  return all
    .filter((r) => !r.name.includes("/"))
    .map((r) => {
      const subresources = all
        .filter((s) => s.name.startsWith(`${r.name}/`))
        .map(
          (s): APISubresourceDiscovery => ({
            subresource: s.name.slice(r.name.length + 1),
            responseKind: kindOf(s),
            verbs: [...(s.verbs ?? [])],
          }),
        );
      return {
        resource: r.name,
        responseKind: kindOf(r),
        scope: r.namespaced ? "Namespaced" : "Cluster",
        singularResource: r.singularName ?? "",
        verbs: [...(r.verbs ?? [])],
        ...listField("shortNames", r.shortNames ?? []),
        ...listField("categories", r.categories ?? []),
        ...listField("subresources", subresources),
      };
    });
}

/**
 * Remote versions folded into the groups discovery lists: a group's versions by upstream's order
 * (the APIServices' versionPriority, then version names), groups by their highest
 * groupPriorityMinimum among the built-in priorities, then by name.
 */
function withRemotes(
  naming: Naming,
  local: readonly ServedGroup[],
  remotes: readonly RemoteGroupVersion[],
): { order: string[]; versions: Map<string, string[]> } {
  const versions = new Map<string, string[]>();
  const priority = new Map<string, number>();
  for (const g of local) {
    versions.set(
      g.name,
      g.versions.map((v) => v.version),
    );
    priority.set(g.name, groupPriority(naming, g.name));
  }
  const versionPriority = new Map<string, number>();
  for (const rv of remotes) {
    const list = versions.get(rv.group) ?? [];
    if (!list.includes(rv.version)) list.push(rv.version);
    versions.set(rv.group, list);
    priority.set(rv.group, Math.max(priority.get(rv.group) ?? 0, rv.groupPriorityMinimum));
    versionPriority.set(`${rv.group}/${rv.version}`, rv.versionPriority);
  }
  for (const [group, list] of versions) {
    if (!remotes.some((rv) => rv.group === group)) continue;
    list.sort(
      (a, b) =>
        (versionPriority.get(`${group}/${b}`) ?? 0) - (versionPriority.get(`${group}/${a}`) ?? 0) ||
        compareVersionPriority(b, a),
    );
  }
  const named = [...versions.keys()].filter((g) => g !== "");
  named.sort((a, b) => (priority.get(b) ?? 0) - (priority.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  return { order: versions.has("") ? ["", ...named] : named, versions };
}

/** Every document discovery serves, for one set of schemas. */
export interface DiscoveryDocuments {
  /** `/api`. */
  readonly apiVersions: APIVersions;
  /** `/apis`. */
  readonly apiGroupList: APIGroupList;
  /** `/apis/<group>`, by group name. */
  readonly apiGroups: ReadonlyMap<string, APIGroup>;
  /** `/api/v1` and `/apis/<group>/<version>`, by group version (`v1`, `apps/v1`). */
  readonly resourceLists: ReadonlyMap<string, APIResourceList>;
  /** The items of the aggregated `/api`: the core group only. */
  readonly aggregatedCore: readonly APIGroupDiscovery[];
  /** The items of the aggregated `/apis`: the named groups. */
  readonly aggregatedGroups: readonly APIGroupDiscovery[];
}

export function buildDiscovery(
  schemas: readonly ResourceSchema[],
  options: DiscoveryOptions,
  remotes: readonly RemoteGroupVersion[] = [],
): DiscoveryDocuments {
  const { naming } = options;
  const groups = servedGroups(schemas, options);
  const resourceLists = new Map<string, APIResourceList>();
  for (const group of groups) {
    for (const gv of group.versions) {
      resourceLists.set(groupVersionString(gv.group, gv.version), apiResourceList(naming, gv));
    }
  }
  if (remotes.length === 0) {
    const apiGroups = new Map<string, APIGroup>();
    for (const group of groups) if (group.name !== "") apiGroups.set(group.name, apiGroup(group));
    return {
      apiVersions: apiVersions(groups, options.serverAddress),
      apiGroupList: apiGroupList(groups),
      apiGroups,
      resourceLists,
      aggregatedCore: groups.filter((g) => g.name === "").map((g) => groupDiscovery(naming, g)),
      aggregatedGroups: groups.filter((g) => g.name !== "").map((g) => groupDiscovery(naming, g)),
    };
  }
  // Remote versions join the local ones; their resource lists are the extensions' (proxied).
  const { order, versions } = withRemotes(naming, groups, remotes);
  const localGroup = new Map(groups.map((g) => [g.name, g]));
  const remote = new Map(remotes.map((rv) => [`${rv.group}/${rv.version}`, rv]));
  const apiGroups = new Map<string, APIGroup>();
  const entries: APIGroup[] = [];
  const aggregatedGroups: APIGroupDiscovery[] = [];
  for (const name of order) {
    if (name === "") continue;
    const list = (versions.get(name) ?? []).map((version) => ({
      groupVersion: `${name}/${version}`,
      version,
    }));
    const entry: APIGroup = { name, versions: list, preferredVersion: list[0] as GroupVersionForDiscovery };
    entries.push(entry);
    apiGroups.set(name, { kind: "APIGroup", apiVersion: "v1", ...entry });
    const local = localGroup.get(name);
    const localVersions = local ? groupDiscovery(naming, local).versions : [];
    aggregatedGroups.push({
      metadata: { name, creationTimestamp: null },
      versions: list.map((v): APIVersionDiscovery => {
        const rv = remote.get(v.groupVersion);
        if (!rv) return localVersions.find((l) => l.version === v.version) as APIVersionDiscovery;
        return {
          version: v.version,
          ...listField("resources", remoteResourceDiscovery(rv)),
          freshness: rv.fresh ? "Current" : "Stale",
        };
      }),
    });
  }
  return {
    apiVersions: apiVersions(groups, options.serverAddress),
    apiGroupList: { kind: "APIGroupList", apiVersion: "v1", groups: entries },
    apiGroups,
    resourceLists,
    aggregatedCore: groups.filter((g) => g.name === "").map((g) => groupDiscovery(naming, g)),
    aggregatedGroups,
  };
}
