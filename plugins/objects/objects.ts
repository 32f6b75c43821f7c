// How plugins (authenticators, authorizers, admission) read API objects inside the gateway
// process: straight from the watch caches, not over HTTP, so that reading never needs the
// authorization those plugins provide. The gateway implements it over its registries.

export type ApiObject = Record<string, unknown> & {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly uid?: string };
};

/** A resource named by group and plural, e.g. `{ group: "", resource: "secrets" }`. */
export interface ResourceRef {
  readonly group: string;
  readonly resource: string;
}

export type InformerEvent =
  | { readonly type: "ADDED" | "MODIFIED"; readonly object: ApiObject }
  | { readonly type: "DELETED"; readonly object: ApiObject };

/** A live in-memory copy of one resource's objects, kept current from the watch cache. */
export interface LocalInformer {
  /** Resolves once the first list is loaded. */
  readonly synced: Promise<void>;
  get(namespace: string | undefined, name: string): ApiObject | undefined;
  list(namespace?: string): ApiObject[];
  /**
   * Called for each change after subscribing; `ADDED` is also replayed for every object held at
   * the time of the call and again after a re-list. Returns an unsubscribe function.
   */
  subscribe(handler: (event: InformerEvent) => void): () => void;
}

export interface ObjectAccess {
  /**
   * The object from the watch cache, or undefined when it does not exist at the latest revision
   * (a miss is re-checked there, so objects created just before are seen). The object is shared
   * with other readers and frozen: copy it before changing anything.
   */
  get(ref: ResourceRef, namespace: string | undefined, name: string): Promise<ApiObject | undefined>;
  /** One shared informer per resource; undefined when the gateway does not serve it. */
  informer(ref: ResourceRef): LocalInformer | undefined;
}
