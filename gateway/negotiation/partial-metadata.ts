// PartialObjectMetadata and PartialObjectMetadataList: an object or a list reduced to metadata,
// requested with `Accept: application/json;as=PartialObjectMetadata[List];g=meta.<suffix>;v=v1`
// (client-go's metadata client and the garbage collector ask for these).
import type { Naming } from "../../backends/naming/index.ts";
import { ApiError } from "../request/api-error.ts";
import type { MetaVersion } from "./media-type.ts";

export interface MetaTarget {
  readonly naming: Naming;
  readonly version: MetaVersion;
}

type Obj = Record<string, unknown>;

/** `meta.<suffix>/<version>`. */
export function metaApiVersion(target: MetaTarget): string {
  return `${target.naming.group("meta")}/${target.version}`;
}

/** Whether an object is a list (it has an `items` array). */
export function isList(object: Obj): boolean {
  return Array.isArray(object.items);
}

// ObjectMeta's fields that come before creationTimestamp in the upstream encoding.
const BEFORE_CREATION = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
]);

/**
 * An object's metadata as the upstream encoding renders it: a missing creationTimestamp is `null`
 * (it is a struct there, never omitted).
 */
function objectMeta(object: Obj): Obj {
  const metadata = object.metadata;
  const meta: Obj = typeof metadata === "object" && metadata !== null ? (metadata as Obj) : {};
  if ("creationTimestamp" in meta) return meta;
  const out: Obj = {};
  let placed = false;
  for (const key in meta) {
    if (!placed && !BEFORE_CREATION.has(key)) {
      out.creationTimestamp = null;
      placed = true;
    }
    out[key] = meta[key];
  }
  if (!placed) out.creationTimestamp = null;
  return out;
}

/** The PartialObjectMetadata of one object, with the given apiVersion. */
export function partialObjectMetadata(object: Obj, apiVersion: string): Obj {
  return { kind: "PartialObjectMetadata", apiVersion, metadata: objectMeta(object) };
}

/** How upstream names the Go type of an object in these errors, e.g. `*v1.PodList`. */
function goTypeName(object: Obj): string {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const kind = typeof object.kind === "string" ? object.kind : "";
  if (!apiVersion || !kind)
    return isList(object) ? "*unstructured.UnstructuredList" : "*unstructured.Unstructured";
  const version = apiVersion.slice(apiVersion.lastIndexOf("/") + 1);
  return `*${version}.${kind}`;
}

function notAcceptable(message: string): ApiError {
  return new ApiError(406, "NotAcceptable", message);
}

/** An object as PartialObjectMetadata; a list is refused with 406, as upstream does. */
export function toPartialObjectMetadata(object: Obj, target: MetaTarget): Obj {
  if (isList(object)) {
    throw notAcceptable(
      `you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(object)})`,
    );
  }
  return partialObjectMetadata(object, metaApiVersion(target));
}

/**
 * A list as PartialObjectMetadataList: list metadata (resourceVersion, continue,
 * remainingItemCount) and one PartialObjectMetadata per item. A single object is refused with 406.
 * An empty list has `items: null`, as upstream encodes it.
 */
export function toPartialObjectMetadataList(list: Obj, target: MetaTarget): Obj {
  if (!isList(list)) {
    throw notAcceptable(
      `you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(list)})`,
    );
  }
  const apiVersion = metaApiVersion(target);
  const items = (list.items as unknown[]).map((item) =>
    partialObjectMetadata(typeof item === "object" && item !== null ? (item as Obj) : {}, apiVersion),
  );
  return {
    kind: "PartialObjectMetadataList",
    apiVersion,
    metadata: listMeta(list.metadata),
    items: items.length > 0 ? items : null,
  };
}

/** ListMeta as upstream encodes it: empty fields are omitted. */
export function listMeta(metadata: unknown): Obj {
  const out: Obj = {};
  if (typeof metadata !== "object" || metadata === null) return out;
  const m = metadata as Obj;
  if (typeof m.resourceVersion === "string" && m.resourceVersion !== "")
    out.resourceVersion = m.resourceVersion;
  if (typeof m.continue === "string" && m.continue !== "") out.continue = m.continue;
  if (typeof m.remainingItemCount === "number") out.remainingItemCount = m.remainingItemCount;
  return out;
}
