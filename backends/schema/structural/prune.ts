// Pruning: fields the schema does not specify are removed, and their paths reported (for
// `fieldValidation=Warn|Strict`: `unknown field "spec.foo"`). As upstream:
// - below `x-kubernetes-preserve-unknown-fields` unknown fields stay, but declared properties
//   and map values are pruned again by their own schemas;
// - an embedded resource keeps apiVersion, kind and metadata, and its metadata is cut down to
//   ObjectMeta's fields (those paths come after the others, e.g. `spec.template.metadata.foo`);
// - at a resource's root, apiVersion, kind and metadata are left to the generic metadata handling;
// - a map or list without a schema for its elements (e.g. `additionalProperties: true`) loses
//   every field inside objects below it.
// Also here: dropping `null` fields that are neither nullable nor defaulted, which upstream does
// right after pruning.
import { coerceEmbeddedMetadata } from "./embedded-meta.ts";
import type { SchemaNode } from "./node.ts";
import { INDEX, MAP_KEY, PathStack, PROPERTY } from "./path-stack.ts";

export interface PruneOptions {
  /**
   * The value is a whole resource (default true): apiVersion, kind and metadata at its top are
   * not pruned here. False for a value inside a resource, e.g. a default value.
   */
  readonly root?: boolean;
}

function isMetaField(key: string): boolean {
  return key === "apiVersion" || key === "kind" || key === "metadata";
}

class Pruner {
  readonly path = new PathStack();
  readonly unknown: string[] = [];
  readonly metadataUnknown: string[] = [];

  private record(key: string): void {
    this.path.push(PROPERTY, key);
    this.unknown.push(this.path.dotted());
    this.path.pop();
  }

  prune(x: unknown, s: SchemaNode | undefined, embedded: boolean): void {
    this.walk(x, s, embedded, s?.preserveUnknown === true);
  }

  /**
   * `keepUnknown`: below preserve-unknown-fields, where only what has a schema is pruned (items
   * of lists stay in that mode; declared properties and map values are pruned by their schemas).
   */
  private walk(x: unknown, s: SchemaNode | undefined, embedded: boolean, keepUnknown: boolean): void {
    if (keepUnknown && s === undefined) return;
    if (typeof x !== "object" || x === null) return;
    const path = this.path;
    if (Array.isArray(x)) {
      const items = s?.items;
      for (let i = 0; i < x.length; i++) {
        path.push(INDEX, i);
        if (keepUnknown) this.walk(x[i], items, items?.embedded ?? false, true);
        else this.prune(x[i], items, items?.embedded ?? false);
        path.pop();
      }
      return;
    }
    const object = x as Record<string, unknown>;
    if (s === undefined) {
      for (const key of Object.keys(object)) {
        this.record(key);
        delete object[key];
      }
      return;
    }
    if (s.embedded) coerceEmbeddedMetadata(object, path.field(""), this.metadataUnknown);
    const props = s.properties;
    const additional = s.additional;
    for (const key in object) {
      if (embedded && isMetaField(key)) continue;
      const prop = props?.get(key);
      if (prop !== undefined) {
        path.push(PROPERTY, key);
        this.prune(object[key], prop, prop.embedded);
        path.pop();
      } else if (additional !== undefined) {
        const values = typeof additional === "object" ? additional : undefined;
        path.push(MAP_KEY, key);
        this.prune(object[key], values, values?.embedded ?? false);
        path.pop();
      } else if (!keepUnknown) {
        // A stray apiVersion/kind/metadata at the very top is dropped without a report.
        if (!isMetaField(key) || path.depth > 0) this.record(key);
        delete object[key];
      }
    }
  }
}

/** Prunes `value` in place by a compiled node; returns the removed fields' paths. */
export function pruneNode(n: SchemaNode, value: unknown, options: PruneOptions = {}): string[] {
  const p = new Pruner();
  p.prune(value, n, (options.root ?? true) || n.embedded);
  if (p.unknown.length === 0 && p.metadataUnknown.length === 0) return p.unknown;
  return [...p.unknown.sort(), ...p.metadataUnknown.sort()];
}

function fieldSchema(s: SchemaNode | undefined, key: string): SchemaNode | undefined {
  if (s === undefined) return undefined;
  const prop = s.properties?.get(key);
  if (prop !== undefined) return prop;
  return typeof s.additional === "object" ? s.additional : undefined;
}

/**
 * Removes `null` object fields whose schema is neither nullable nor has a default (a null with a
 * default is left for defaulting to fill). Null list elements stay, and fail validation.
 */
export function dropNullsNode(s: SchemaNode | undefined, x: unknown): void {
  if (typeof x !== "object" || x === null) return;
  if (Array.isArray(x)) {
    const items = s?.items;
    for (const item of x) dropNullsNode(items, item);
    return;
  }
  const object = x as Record<string, unknown>;
  for (const key in object) {
    const sub = fieldSchema(s, key);
    const v = object[key];
    if (v === null) {
      if (sub !== undefined && !sub.nullable && sub.defaultValue === undefined) delete object[key];
    } else if (sub !== undefined && typeof v === "object") {
      dropNullsNode(sub, v);
    }
  }
}
