// Defaulting by the schema's `default` values, as upstream does it for custom resources:
// - a property that is missing, or null while its schema is not nullable, gets a deep copy of its
//   default; then defaulting continues inside every value (so defaults inside a default apply);
// - map values (additionalProperties) and list elements that are null while not nullable take their
//   schema's default, if any;
// - default values were pruned by their own schema when the schema was compiled.
//
// Order of the steps when a request body is decoded (upstream's decoder, then its defaulter):
//   1. prune unknown fields (prune.ts), reporting their paths for fieldValidation;
//   2. drop null fields that are neither nullable nor defaulted (dropNullsNode);
//   3. cut embedded resources' metadata to ObjectMeta (part of 1 here);
//   4. apply defaults (this module);
//   5. validate (validate.ts): schema, then embedded resources, then list types; CEL rules after.
// Objects read from storage are defaulted too (by the storage version's schema), without pruning.
import { cloneJson } from "../../common/json.ts";
import type { SchemaNode } from "./node.ts";

function apply(x: unknown, s: SchemaNode): void {
  if (!s.defaultsBelow || typeof x !== "object" || x === null) return;
  if (Array.isArray(x)) {
    const items = s.items;
    if (items === undefined) return;
    const fill = items.defaultValue !== undefined && !items.nullable;
    for (let i = 0; i < x.length; i++) {
      if (fill && x[i] === null) x[i] = cloneJson(items.defaultValue);
      apply(x[i], items);
    }
    return;
  }
  const object = x as Record<string, unknown>;
  for (const [key, prop] of s.defaulted) {
    if (!Object.hasOwn(object, key) || (object[key] === null && !prop.nullable)) {
      object[key] = cloneJson(prop.defaultValue);
    }
  }
  const additional = s.additional;
  if (typeof additional === "object" && (additional.defaultsBelow || additional.defaultValue !== undefined)) {
    const props = s.properties;
    const fill = additional.defaultValue !== undefined && !additional.nullable;
    for (const key in object) {
      const prop = props?.get(key);
      if (prop !== undefined) {
        apply(object[key], prop);
        continue;
      }
      if (fill && object[key] === null) object[key] = cloneJson(additional.defaultValue);
      apply(object[key], additional);
    }
    return;
  }
  for (const [key, prop] of s.defaultChildren) {
    const v = object[key];
    if (v !== undefined && Object.hasOwn(object, key)) apply(v, prop);
  }
}

/** Applies a compiled node's defaults to `value` in place. */
export function defaultNode(n: SchemaNode, value: unknown): void {
  apply(value, n);
}
