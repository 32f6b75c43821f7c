// What the cache keeps per object: the object as it is served (its JSON with
// `metadata.resourceVersion` filled in) and the few attributes selectors need. Keeping the
// encoded form instead of a parsed object halves the memory and lets a list page be built by
// joining strings.
import type { Revision, StoredValue } from "../contract/index.ts";

export interface CachedItem {
  readonly key: string;
  /** The object, JSON-encoded, with `metadata.resourceVersion` set to `revision`. */
  readonly json: string;
  readonly revision: Revision;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** Values for field selectors: always `metadata.name` and `metadata.namespace`. */
  readonly fields: Readonly<Record<string, string>>;
}

/** Turns a stored value into a cached item, stamping `revision` as its resourceVersion. */
export type ItemDecoder = (key: string, value: string, revision: Revision) => CachedItem;

export function decodeStored(decoder: ItemDecoder, kv: StoredValue): CachedItem {
  return decoder(kv.key, kv.value, kv.modRevision);
}

interface ObjectWithMeta {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; resourceVersion?: string };
  [field: string]: unknown;
}

/**
 * The decoder for objects stored as JSON. `fields` adds the kind's own selectable fields
 * (for example `spec.nodeName` of a Pod).
 */
export function jsonItemDecoder(
  fields?: (object: Record<string, unknown>) => Record<string, string>,
): ItemDecoder {
  return (key, value, revision) => {
    const object = JSON.parse(value) as ObjectWithMeta;
    const metadata = object.metadata ?? {};
    metadata.resourceVersion = String(revision);
    object.metadata = metadata;
    const selectable: Record<string, string> = {
      "metadata.name": metadata.name ?? "",
      "metadata.namespace": metadata.namespace ?? "",
    };
    if (fields) Object.assign(selectable, fields(object));
    return { key, json: JSON.stringify(object), revision, labels: metadata.labels, fields: selectable };
  };
}
