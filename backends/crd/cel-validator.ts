// The x-kubernetes-validations rules of one schema, compiled once into a tree that mirrors the
// schema (only where rules exist), and run against an object with upstream's field paths, values
// and budget handling:
// - errors are `<path>: Invalid value: "<schema type>": <message>`; the root's path prints as
//   `<nil>` (upstream's nil field.Path), children as `spec.x`, `spec.map[key]`, `spec.list[0]`;
// - `oldSelf` follows the old object through properties and map values, and through the items
//   of x-kubernetes-list-type=map lists by their keys; other list items have no old value;
// - one budget is shared by every rule run for the object; once spent, validation stops.
import {
  type CelSchema,
  type CompiledRule,
  childCardinality,
  compileRule,
  evaluateRules,
  type SchemaContext,
} from "../cel/index.ts";
import { asArray, asObject, asString, type JsonObject } from "../common/json.ts";
import type { FieldError } from "../registry/field-error.ts";

export interface CelValidator {
  /** The schema's `type`, shown as the value of every error at this node. */
  readonly type: string;
  readonly ctx: SchemaContext;
  readonly rules: readonly CompiledRule[];
  readonly properties: ReadonlyMap<string, CelValidator> | undefined;
  readonly items: CelValidator | undefined;
  readonly additional: CelValidator | undefined;
  /** x-kubernetes-list-map-keys of a map list: old items correlate by these keys. */
  readonly mapKeys: readonly string[] | undefined;
}

function rulesOf(schema: JsonObject): JsonObject[] {
  return asArray(schema["x-kubernetes-validations"]).map((r) => asObject(r) ?? {});
}

function hasRules(schema: JsonObject | undefined): boolean {
  if (!schema) return false;
  if (rulesOf(schema).length > 0) return true;
  if (hasRules(asObject(schema.items))) return true;
  if (hasRules(asObject(schema.additionalProperties))) return true;
  const props = asObject(schema.properties);
  if (props) for (const p of Object.values(props)) if (hasRules(asObject(p))) return true;
  return false;
}

/** The rule specs of a schema node, as the CEL module reads them. */
export function ruleSpecs(
  schema: JsonObject,
): { rule: string; message?: string; messageExpression?: string }[] {
  return rulesOf(schema).map((r) => ({
    rule: asString(r.rule),
    ...(typeof r.message === "string" ? { message: r.message } : {}),
    ...(typeof r.messageExpression === "string" ? { messageExpression: r.messageExpression } : {}),
  }));
}

function build(
  schema: JsonObject,
  isResourceRoot: boolean,
  cardinality: number | "unbounded",
): CelValidator | undefined {
  if (!hasRules(schema)) return undefined;
  const celSchema = schema as CelSchema;
  const ctx: SchemaContext = { schema: celSchema, isResourceRoot, maxCardinality: cardinality };
  const rules = ruleSpecs(schema).map((r) => compileRule(r, ctx));
  let properties: Map<string, CelValidator> | undefined;
  const props = asObject(schema.properties);
  if (props) {
    for (const [name, p] of Object.entries(props)) {
      const ps = asObject(p);
      if (!ps) continue;
      const child = build(
        ps,
        ps["x-kubernetes-embedded-resource"] === true,
        childCardinality(cardinality, celSchema, "properties"),
      );
      if (child) {
        properties ??= new Map();
        properties.set(name, child);
      }
    }
  }
  const itemsSchema = asObject(schema.items);
  const items = itemsSchema
    ? build(
        itemsSchema,
        itemsSchema["x-kubernetes-embedded-resource"] === true,
        childCardinality(cardinality, celSchema, "items"),
      )
    : undefined;
  const apSchema = asObject(schema.additionalProperties);
  const additional = apSchema
    ? build(
        apSchema,
        apSchema["x-kubernetes-embedded-resource"] === true,
        childCardinality(cardinality, celSchema, "additionalProperties"),
      )
    : undefined;
  const mapKeys =
    schema["x-kubernetes-list-type"] === "map"
      ? asArray(schema["x-kubernetes-list-map-keys"]).filter((k): k is string => typeof k === "string")
      : undefined;
  return {
    type: asString(schema.type),
    ctx,
    rules,
    properties,
    items,
    additional,
    mapKeys: mapKeys && mapKeys.length > 0 ? mapKeys : undefined,
  };
}

/**
 * Compiles the rules of a schema (and of everything below it); undefined when it has none.
 * `isResourceRoot`: the schema describes a whole resource (the root of a CRD's schema, or an
 * embedded resource), whose rules see apiVersion, kind and metadata.name/generateName.
 */
export function celValidator(
  schema: JsonObject,
  isResourceRoot = true,
  cardinality: number | "unbounded" = 1,
): CelValidator | undefined {
  return build(schema, isResourceRoot, cardinality);
}

function fieldName(path: string): string {
  return path === "" ? "<nil>" : path;
}

function child(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

function mapListKey(item: unknown, keys: readonly string[]): string | undefined {
  const o = asObject(item);
  if (!o) return undefined;
  return JSON.stringify(keys.map((k) => o[k] ?? null));
}

/**
 * Runs the rules of `v` and of its descendants for `value` (and `old` on updates; undefined on
 * creates). Errors are appended to `errors`; returns the budget left (negative once spent, after
 * which no further rules ran). `path` is the field path of `value` ("" for the object's root).
 */
export function runCelValidator(
  v: CelValidator,
  path: string,
  value: unknown,
  old: unknown,
  budget: number,
  errors: FieldError[],
): number {
  if (value === null || value === undefined) return budget;
  let remaining = budget;
  if (v.rules.length > 0) {
    const oldSelf = old === null ? undefined : old;
    const outcome = evaluateRules(v.rules, value, oldSelf, v.ctx, remaining);
    for (const f of outcome.failures) {
      errors.push({ field: fieldName(path), type: "FieldValueInvalid", value: v.type, detail: f.message });
    }
    remaining = outcome.remainingBudget;
    if (remaining < 0) return remaining;
  }
  if (Array.isArray(value)) {
    const items = v.items;
    if (!items) return remaining;
    let oldByKey: Map<string, unknown> | undefined;
    if (v.mapKeys && Array.isArray(old)) {
      oldByKey = new Map();
      for (const o of old) {
        const k = mapListKey(o, v.mapKeys);
        if (k !== undefined) oldByKey.set(k, o);
      }
    }
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const k = oldByKey && v.mapKeys ? mapListKey(item, v.mapKeys) : undefined;
      const oldItem = k !== undefined ? oldByKey?.get(k) : undefined;
      remaining = runCelValidator(items, `${path}[${i}]`, item, oldItem, remaining, errors);
      if (remaining < 0) return remaining;
    }
    return remaining;
  }
  const object = asObject(value);
  if (!object) return remaining;
  const oldObject = asObject(old);
  if (v.additional) {
    for (const [k, x] of Object.entries(object)) {
      remaining = runCelValidator(v.additional, `${path}[${k}]`, x, oldObject?.[k], remaining, errors);
      if (remaining < 0) return remaining;
    }
  }
  if (v.properties) {
    for (const [k, x] of Object.entries(object)) {
      const sub = v.properties.get(k);
      if (!sub) continue;
      remaining = runCelValidator(sub, child(path, k), x, oldObject?.[k], remaining, errors);
      if (remaining < 0) return remaining;
    }
  }
  return remaining;
}
