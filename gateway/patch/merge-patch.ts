// JSON merge patch (RFC 7386) as kube-apiserver 1.27 applies it (evanphx/json-patch v4): objects
// merge key by key, null removes, anything else replaces. Upstream's departures from the RFC are
// kept: a patch that is null or a scalar is refused ("Invalid JSON Patch"), and null members are
// also dropped from objects inside an added value, lists included, unless that value replaces an
// existing object. With fieldValidation other than "Ignore", a patch that is not an object is
// refused while decoding. The inputs are not modified.

import { cloneJson } from "../../backends/common/json.ts";
import { guardDepth, jsonKind, PatchError } from "./patch-error.ts";

type JsonMap = Record<string, unknown>;

export interface MergePatchOptions {
  /** The request's fieldValidation; upstream's default is "Warn". */
  readonly fieldValidation?: string;
}

function isMap(v: unknown): v is JsonMap {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function setKey(object: JsonMap, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Drops null members of objects at any depth (null list items stay); a new value carries no deletions. */
export function pruneNulls(value: unknown): unknown {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (isMap(v)) {
      for (const k of Object.keys(v)) {
        if (v[k] === null) delete v[k];
        else stack.push(v[k]);
      }
    }
  }
  return value;
}

/** The merge of one value: into an object an object merges; anything else takes the patch. */
function mergeValue(current: unknown, patch: unknown): unknown {
  if (!isMap(current)) return pruneNulls(patch);
  if (!isMap(patch)) return patch;
  mergeObjects(current, patch);
  return current;
}

function mergeObjects(doc: JsonMap, patch: JsonMap): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete doc[key];
    else if (!Object.hasOwn(doc, key) || doc[key] === null) setKey(doc, key, pruneNulls(value));
    else setKey(doc, key, mergeValue(doc[key], value));
  }
}

/** Applies a merge patch to a value and returns the result. Throws PatchError (400). */
export function applyMergePatch(target: unknown, patch: unknown, options: MergePatchOptions = {}): unknown {
  if (options.fieldValidation !== "Ignore" && patch !== null && !isMap(patch)) {
    throw new PatchError(
      400,
      `error decoding patch: json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`,
    );
  }
  return guardDepth(() => {
    if (Array.isArray(patch)) return pruneNulls(cloneJson(patch));
    if (!isMap(patch)) throw new PatchError(400, "Invalid JSON Patch");
    if (target === null) throw new PatchError(400, "Invalid JSON Document");
    const ownPatch = cloneJson(patch);
    if (!isMap(target)) return pruneNulls(ownPatch);
    const doc = cloneJson(target);
    mergeObjects(doc, ownPatch);
    return doc;
  }, target);
}
