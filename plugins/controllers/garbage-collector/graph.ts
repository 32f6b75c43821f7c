// The collector's graph: one small node per object seen (or only referred to as an owner), keyed
// by uid, with its owner references and the set of its dependents. Only what deletion decisions
// need is kept, so that a hundred thousand objects stay cheap (README, Garbage collection).

/** A resource the collector watches or resolves owner references to. */
export interface ResourceInfo {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** `/api/v1` or `/apis/<group>/<version>`. */
  readonly base: string;
}

export interface OwnerRef {
  readonly uid: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** blockOwnerDeletion: a foreground-deleting owner waits for this dependent. */
  readonly block: boolean;
}

export const OBSERVED = 1;
export const BEING_DELETED = 2;
export const ORPHAN_FINALIZER = 4;
export const FOREGROUND_FINALIZER = 8;

export class GcNode {
  readonly uid: string;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  /** The resource it was observed through; undefined for a node only referred to as an owner. */
  resource: ResourceInfo | undefined = undefined;
  resourceVersion = "";
  owners: readonly OwnerRef[] = [];
  dependents: Set<GcNode> | undefined = undefined;
  flags = 0;
  /** The list generation of its resource's monitor that last saw it. */
  seen = 0;

  constructor(uid: string, apiVersion: string, kind: string, namespace: string, name: string) {
    this.uid = uid;
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.namespace = namespace;
    this.name = name;
  }

  get observed(): boolean {
    return (this.flags & OBSERVED) !== 0;
  }

  get beingDeleted(): boolean {
    return (this.flags & BEING_DELETED) !== 0;
  }

  /** Deleted in the foreground: waits for its blocking dependents. */
  get deletingDependents(): boolean {
    return (this.flags & (BEING_DELETED | FOREGROUND_FINALIZER)) === (BEING_DELETED | FOREGROUND_FINALIZER);
  }

  get orphaning(): boolean {
    return (this.flags & (BEING_DELETED | ORPHAN_FINALIZER)) === (BEING_DELETED | ORPHAN_FINALIZER);
  }

  /** The object's URL path; only for observed nodes. */
  path(): string {
    const r = this.resource;
    if (!r) throw new Error(`${this.describe()} has not been observed`);
    return objectPath(r, this.namespace, this.name);
  }

  describe(): string {
    return `${this.apiVersion}/${this.kind}, namespace: ${this.namespace}, name: ${this.name}, uid: ${this.uid}`;
  }
}

export function objectPath(r: ResourceInfo, namespace: string, name: string): string {
  const ns = r.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${r.base}${ns}/${r.resource}/${encodeURIComponent(name)}`;
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** Shared copies of the strings many nodes repeat (namespaces, kinds, apiVersions). */
export class Interner {
  readonly #strings = new Map<string, string>();
  get(s: string): string {
    const known = this.#strings.get(s);
    if (known !== undefined) return known;
    this.#strings.set(s, s);
    return s;
  }
}
