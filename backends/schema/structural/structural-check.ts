// Whether a CRD's OpenAPI v3 schema may be served, with upstream's field errors and texts:
// - the structural rules (every specified field has a type, junctors only validate values, root
//   metadata restricts only name and generateName, embedded resources are objects, ...), errors
//   sorted as upstream sorts them;
// - default values: pruned, valid against their schema, with valid metadata;
// - the remaining OpenAPI rules (unsupported keywords, additionalProperties vs properties, list
//   and map types, list-map keys, x-kubernetes-validations entries without CEL).
// CEL compilation and cost estimation of x-kubernetes-validations belong to the CEL module.
import { RE2JS } from "re2js";
import {
  cloneJson,
  jsonEqual,
  asArray as list,
  asObject as obj,
  asString as str,
} from "../../common/json.ts";
import { type FieldError, field, formatFieldError } from "../../registry/field-error.ts";
import { objectMetaDecodeError, validateEmbeddedResource } from "./embedded-meta.ts";
import { isJsonObject } from "./json-value.ts";
import { compileNode, type SchemaNode } from "./node.ts";
import { INDEX, MAP_KEY, PathStack, PROPERTY } from "./path-stack.ts";
import { pruneNode } from "./prune.ts";
import type { StructuralSchema } from "./types.ts";
import { validateNode } from "./validate.ts";

type Json = Record<string, unknown>;

export interface SchemaCheckOptions {
  /** The version enables the status subresource: only some keywords may appear at the root. */
  readonly statusSubresource?: boolean;
}

const child = (path: string, name: string): string => (path === "" ? name : `${path}.${name}`);
const key = (path: string, k: string): string => `${path}[${k}]`;
const index = (path: string, i: number): string => `${path}[${i}]`;

function props(s: Json): [string, Json][] {
  const p = obj(s.properties);
  if (!p) return [];
  const out: [string, Json][] = [];
  for (const [k, v] of Object.entries(p)) out.push([k, obj(v) ?? {}]);
  return out;
}

function itemsSchema(s: Json): Json | undefined {
  return obj(s.items);
}

function apSchema(s: Json): Json | undefined {
  return obj(s.additionalProperties);
}

const hasAP = (s: Json): boolean => s.additionalProperties !== undefined && s.additionalProperties !== null;
const isTrue = (v: unknown): boolean => v === true;
const nonEmptyList = (v: unknown): boolean => Array.isArray(v) && v.length > 0;
const nonEmptyMap = (v: unknown): boolean => isJsonObject(v) && Object.keys(v).length > 0;
const defined = (v: unknown): boolean => v !== undefined && v !== null;

// ---------------------------------------------------------------------------------------------
// Conversion to upstream's structural form: keywords it cannot represent stop everything.

/** The reason upstream cannot even read the schema as structural, if any. */
export function unsupportedKeyword(s: unknown): string | undefined {
  const node = obj(s);
  if (!node) return undefined;
  if (str(node.id) !== "") return "OpenAPIV3Schema 'id' is not supported";
  if (str(node.$schema) !== "") return "OpenAPIV3Schema 'schema' is not supported";
  if (str(node.$ref) !== "") return "OpenAPIV3Schema '$ref' is not supported";
  if (nonEmptyMap(node.patternProperties)) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (nonEmptyMap(node.dependencies)) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (defined(node.additionalItems)) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (nonEmptyMap(node.definitions)) return "OpenAPIV3Schema 'definitions' is not supported";
  for (const sub of [node.not, ...list(node.allOf), ...list(node.anyOf), ...list(node.oneOf)]) {
    const e = unsupportedKeyword(sub);
    if (e) return e;
  }
  const e = unsupportedKeyword(apSchema(node));
  if (e) return e;
  if (node["x-kubernetes-preserve-unknown-fields"] === false)
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  if (Array.isArray(node.items)) {
    if (node.items.length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  } else {
    const ie = unsupportedKeyword(itemsSchema(node));
    if (ie) return ie;
  }
  for (const [, p] of props(node)) {
    const pe = unsupportedKeyword(p);
    if (pe) return pe;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The structural invariants.

type Level = "root" | "item" | "field";

const INT_OR_STRING_BRANCHES = [{ type: "integer" }, { type: "string" }];

// A junctor branch equal to `{type: integer}` / `{type: string}` and nothing else.
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  const branches = list(anyOf);
  return branches.length === 2 && branches.every((b, i) => jsonEqual(b, INT_OR_STRING_BRANCHES[i]));
}

function isIntOrStringAllOf(allOf: unknown): boolean {
  const first = obj(list(allOf)[0]);
  return first !== undefined && isIntOrStringAnyOf(first.anyOf);
}

function patternError(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

function invariants(s: Json, level: Level, path: string, errs: FieldError[]): void {
  const type = str(s.type);
  const embedded = isTrue(s["x-kubernetes-embedded-resource"]);
  const intOrString = isTrue(s["x-kubernetes-int-or-string"]);
  const preserve = isTrue(s["x-kubernetes-preserve-unknown-fields"]);
  if (type === "array" && !itemsSchema(s))
    errs.push(field.required(child(path, "items"), "must be specified"));
  const items = itemsSchema(s);
  if (items) invariants(items, "item", child(path, "items"), errs);
  for (const [k, p] of props(s)) invariants(p, "field", key(child(path, "properties"), k), errs);

  if (hasAP(s)) {
    if (level === "root")
      errs.push(field.forbidden(child(path, "additionalProperties"), "must not be used at the root"));
    const ap = apSchema(s);
    if (ap) invariants(ap, "field", child(path, "additionalProperties"), errs);
  }
  if (intOrString && preserve)
    errs.push(
      field.invalid(
        child(path, "x-kubernetes-preserve-unknown-fields"),
        true,
        "must be false if x-kubernetes-int-or-string is true",
      ),
    );
  if (intOrString && embedded)
    errs.push(
      field.invalid(
        child(path, "x-kubernetes-embedded-resource"),
        true,
        "must be false if x-kubernetes-int-or-string is true",
      ),
    );

  valueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAllOf(s.allOf), path, errs);

  const checkMetadata = level === "root" || embedded;
  if (embedded && type !== "object") {
    const detail = "must be object if x-kubernetes-embedded-resource is true";
    errs.push(
      type === ""
        ? field.required(child(path, "type"), detail)
        : field.invalid(child(path, "type"), type, detail),
    );
  } else if (type === "" && !intOrString && !preserve) {
    const detail =
      level === "root"
        ? "must not be empty at the root"
        : level === "item"
          ? "must not be empty for specified array items"
          : "must not be empty for specified object fields";
    errs.push(field.required(child(path, "type"), detail));
  }
  if (embedded && hasAP(s))
    errs.push(
      field.forbidden(
        child(path, "additionalProperties"),
        "must not be used if x-kubernetes-embedded-resource is set",
      ),
    );
  if (level === "root" && type !== "" && type !== "object")
    errs.push(field.invalid(child(path, "type"), type, "must be object at the root"));

  const properties = obj(s.properties) ?? {};
  for (const name of ["kind", "apiVersion"]) {
    const p = obj(properties[name]);
    if (p && checkMetadata && str(p.type) !== "string")
      errs.push(
        field.invalid(child(key(child(path, "properties"), name), "type"), str(p.type), "must be string"),
      );
  }
  const metadata = Object.hasOwn(properties, "metadata") ? (obj(properties.metadata) ?? {}) : undefined;
  if (metadata)
    metadataInvariants(metadata, checkMetadata, level, key(child(path, "properties"), "metadata"), errs);

  if (embedded && !preserve && props(s).length === 0)
    errs.push(
      field.required(
        child(path, "properties"),
        "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
      ),
    );
}

function metadataInvariants(
  s: Json,
  checkMetadata: boolean,
  level: Level,
  path: string,
  errs: FieldError[],
): void {
  const type = str(s.type);
  if (checkMetadata && type !== "object")
    errs.push(field.invalid(child(path, "type"), type, "must be object"));
  if (level !== "root") return;
  // At the root, metadata may only say `type: object` and restrict name and generateName.
  const names = Object.keys(obj(s.properties) ?? {});
  const onlyNames =
    names.length === 0 ||
    (names.length === 1 && (names[0] === "name" || names[0] === "generateName")) ||
    (names.length === 2 && names.includes("name") && names.includes("generateName"));
  if (!onlyNames || metadataSpecifiesMore(s))
    errs.push(
      field.forbidden(
        path,
        "must not specify anything other than name and generateName, but metadata is implicitly specified",
      ),
    );
}

// Keywords the structural form keeps; type and default are ignored for root metadata.
const NOT_STRUCTURAL = new Set(["type", "default", "example", "externalDocs", "properties"]);
const NIL_WHEN_EMPTY = new Set(["enum", "allOf", "anyOf", "oneOf", "x-kubernetes-validations"]);

function metadataSpecifiesMore(s: Json): boolean {
  for (const [k, v] of Object.entries(s)) {
    if (NOT_STRUCTURAL.has(k) || v === undefined || v === null) continue;
    if (k === "additionalProperties") return true;
    if (v === false || v === "") continue;
    if (NIL_WHEN_EMPTY.has(k) && Array.isArray(v) && v.length === 0) continue;
    return true;
  }
  return false;
}

function valueValidation(
  s: Json,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  path: string,
  errs: FieldError[],
): void {
  if (!skipAnyOf)
    for (const [i, b] of list(s.anyOf).entries()) nested(obj(b), false, index(child(path, "anyOf"), i), errs);
  for (const [i, b] of list(s.allOf).entries())
    nested(obj(b), skipFirstAllOfAnyOf && i === 0, index(child(path, "allOf"), i), errs);
  for (const [i, b] of list(s.oneOf).entries()) nested(obj(b), false, index(child(path, "oneOf"), i), errs);
  nested(obj(s.not), false, child(path, "not"), errs);
  const pattern = str(s.pattern);
  if (pattern !== "") {
    const e = patternError(pattern);
    if (e)
      errs.push(
        field.invalid(child(path, "pattern"), pattern, `must be a valid regular expression, but isn't: ${e}`),
      );
  }
}

// A branch of allOf/anyOf/oneOf/not: value validation only.
function nested(v: Json | undefined, skipAnyOf: boolean, path: string, errs: FieldError[]): void {
  if (!v) return;
  valueValidation(v, skipAnyOf, false, path, errs);
  nested(itemsSchema(v), false, child(path, "items"), errs);
  for (const [k, p] of props(v)) nested(p, false, key(child(path, "properties"), k), errs);
  const forbid = (name: string, detail: string): void => {
    errs.push(field.forbidden(child(path, name), detail));
  };
  if (str(v.type) !== "") forbid("type", "must be empty to be structural");
  if (hasAP(v)) forbid("additionalProperties", "must be undefined to be structural");
  if (defined(v.default)) forbid("default", "must be undefined to be structural");
  if (str(v.title) !== "") forbid("title", "must be empty to be structural");
  if (str(v.description) !== "") forbid("description", "must be empty to be structural");
  if (isTrue(v.nullable)) forbid("nullable", "must be false to be structural");
  if (isTrue(v["x-kubernetes-preserve-unknown-fields"]))
    forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural");
  if (isTrue(v["x-kubernetes-embedded-resource"]))
    forbid("x-kubernetes-embedded-resource", "must be false to be structural");
  if (isTrue(v["x-kubernetes-int-or-string"]))
    forbid("x-kubernetes-int-or-string", "must be false to be structural");
  if (nonEmptyList(v["x-kubernetes-list-map-keys"]))
    forbid("x-kubernetes-list-map-keys", "must be empty to be structural");
  if (defined(v["x-kubernetes-list-type"]))
    forbid("x-kubernetes-list-type", "must be undefined to be structural");
  if (defined(v["x-kubernetes-map-type"]))
    forbid("x-kubernetes-map-type", "must be undefined to be structural");
  if (nonEmptyList(v["x-kubernetes-validations"]))
    forbid("x-kubernetes-validations", "must be empty to be structural");
  if (Object.hasOwn(obj(v.properties) ?? {}, "metadata"))
    errs.push(
      field.forbidden(
        key(child(path, "properties"), "metadata"),
        "must not be specified in a nested context",
      ),
    );
}

// Everything a junctor of the root mentions must also be specified structurally.
function completeness(v: Json, s: Json | undefined, sPath: string, vPath: string, errs: FieldError[]): void {
  const junctors: [Json | undefined, string][] = [[obj(v.not), child(vPath, "not")]];
  for (const [i, b] of list(v.allOf).entries()) junctors.push([obj(b), index(child(vPath, "allOf"), i)]);
  for (const [i, b] of list(v.anyOf).entries()) junctors.push([obj(b), index(child(vPath, "anyOf"), i)]);
  for (const [i, b] of list(v.oneOf).entries()) junctors.push([obj(b), index(child(vPath, "oneOf"), i)]);
  for (const [b, p] of junctors) nestedCompleteness(b, s, sPath, p, errs);
}

function nestedCompleteness(
  v: Json | undefined,
  s: Json | undefined,
  sPath: string,
  vPath: string,
  errs: FieldError[],
): void {
  if (!v) return;
  if (!s) {
    errs.push(field.required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  completeness(v, s, sPath, vPath, errs);
  nestedCompleteness(itemsSchema(v), itemsSchema(s), child(sPath, "items"), child(vPath, "items"), errs);
  const sProps = obj(s.properties) ?? {};
  for (const [k, p] of props(v)) {
    const sp = key(child(sPath, "properties"), k);
    const vp = key(child(vPath, "properties"), k);
    if (!Object.hasOwn(sProps, k)) errs.push(field.required(sp, `because it is defined in ${vp}`));
    else nestedCompleteness(p, obj(sProps[k]) ?? {}, sp, vp, errs);
  }
}

/** Upstream's structural-schema errors for a schema at `path` (empty when it is structural). */
export function structuralErrors(schema: StructuralSchema | unknown, path: string): FieldError[] {
  const s = obj(schema) ?? {};
  const errs: FieldError[] = [];
  invariants(s, "root", path, errs);
  completeness(s, s, path, path, errs);
  // Upstream sorts by the rendered error so the order does not depend on map iteration.
  return errs
    .map((e) => [formatFieldError(e), e] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, e]) => e);
}

/** Whether upstream would serve this schema: readable as structural, and no structural errors. */
export function isStructural(schema: StructuralSchema | unknown): boolean {
  return unsupportedKeyword(schema) === undefined && structuralErrors(schema, "").length === 0;
}

// ---------------------------------------------------------------------------------------------
// Defaults: valid, pruned, with valid metadata.

const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

type Step = { readonly key: string } | { readonly index: true };

// The object a default inside resource metadata sits in, so the metadata can be checked whole.
function surroundingObject(steps: readonly Step[], value: unknown): Json {
  let x = value;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i] as Step;
    x = "key" in step ? { [step.key]: x } : [x];
  }
  const root = obj(x) ?? {};
  if (!Object.hasOwn(root, "kind")) root.kind = "Validation";
  if (!Object.hasOwn(root, "apiVersion")) root.apiVersion = "validation/v1";
  return root;
}

// The first embedded apiVersion/kind/metadata that does not decode (upstream's coercion).
function coerceError(
  n: SchemaNode,
  value: unknown,
  base: string,
  asEmbedded: boolean,
): FieldError | undefined {
  const path = new PathStack();
  const walk = (x: unknown, s: SchemaNode | undefined, embedded: boolean): FieldError | undefined => {
    if (s === undefined || typeof x !== "object" || x === null) return undefined;
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        path.push(INDEX, i);
        const e = walk(x[i], s.items, s.items?.embedded ?? false);
        path.pop();
        if (e) return e;
      }
      return undefined;
    }
    const object = x as Json;
    for (const k of Object.keys(object)) {
      const v = object[k];
      if (embedded && (k === "apiVersion" || k === "kind") && typeof v !== "string") {
        path.push(PROPERTY, k);
        const at = path.field(base);
        path.pop();
        return field.invalid(at, v, "must be a string");
      }
      if (embedded && k === "metadata") {
        const decode = objectMetaDecodeError(v);
        if (decode) {
          path.push(PROPERTY, k);
          const at = path.field(base);
          path.pop();
          return field.invalid(at, v, decode);
        }
      }
      const prop = s.properties?.get(k);
      const sub = prop ?? (typeof s.additional === "object" ? s.additional : undefined);
      if (sub === undefined) continue;
      path.push(prop ? PROPERTY : MAP_KEY, k);
      const e = walk(v, sub, sub.embedded);
      path.pop();
      if (e) return e;
    }
    return undefined;
  };
  return walk(value, n, asEmbedded);
}

function validateEmbeddedOnly(
  n: SchemaNode,
  value: unknown,
  base: string,
  asEmbedded: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  const path = new PathStack();
  const walk = (x: unknown, s: SchemaNode | undefined, embedded: boolean): void => {
    if (s === undefined || typeof x !== "object" || x === null) return;
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        path.push(INDEX, i);
        walk(x[i], s.items, s.items?.embedded ?? false);
        path.pop();
      }
      return;
    }
    const object = x as Json;
    if (embedded) errs.push(...validateEmbeddedResource(object, path.field(base)));
    for (const k of Object.keys(object)) {
      const prop = s.properties?.get(k);
      const sub = prop ?? (typeof s.additional === "object" ? s.additional : undefined);
      if (sub === undefined) continue;
      path.push(prop ? PROPERTY : MAP_KEY, k);
      walk(object[k], sub, sub.embedded);
      path.pop();
    }
  };
  walk(value, n, asEmbedded);
  return errs;
}

function aggregate(errs: readonly FieldError[]): string {
  const texts = errs.map(formatFieldError);
  return texts.length === 1 ? (texts[0] as string) : `[${texts.join(", ")}]`;
}

function checkDefaults(root: Json, path: string, errs: FieldError[]): void {
  const rootNode = compileNode(root as StructuralSchema);
  // The root of a resource counts as an embedded resource for these checks.
  const embeddedAt = (n: SchemaNode): boolean => n.embedded || n === rootNode;
  const visit = (
    s: Json,
    n: SchemaNode,
    p: string,
    insideMeta: boolean,
    steps: Step[],
    resourceRoot: SchemaNode,
  ): void => {
    let inMeta = insideMeta;
    let around = steps;
    let top = resourceRoot;
    // Defaults inside an embedded resource's metadata are checked within that resource.
    if (embeddedAt(n)) {
      inMeta = false;
      around = [];
      top = n;
    }
    if (defined(s.default)) {
      const value = s.default;
      const defaultPath = child(p, "default");
      if (inMeta) {
        const surrounding = surroundingObject(around, cloneJson(value));
        const coerce = coerceError(top, surrounding, "", true);
        const metaErrs = coerce ? [] : validateEmbeddedOnly(top, surrounding, "", true);
        if (coerce)
          errs.push(
            field.invalid(defaultPath, value, `must result in valid metadata: ${formatFieldError(coerce)}`),
          );
        else if (metaErrs.length > 0)
          errs.push(
            field.invalid(defaultPath, value, `must result in valid metadata: ${aggregate(metaErrs)}`),
          );
        else errs.push(...validateNode(n, value, { basePath: defaultPath }));
      } else {
        const pruned = cloneJson(value);
        pruneNode(n, pruned, { root: embeddedAt(n) });
        if (!jsonEqual(pruned, value))
          errs.push(field.invalid(defaultPath, value, "must not have unknown fields"));
        const coerce = coerceError(n, value, defaultPath, embeddedAt(n));
        if (coerce) errs.push(coerce);
        else {
          const metaErrs = validateEmbeddedOnly(n, value, defaultPath, embeddedAt(n));
          if (metaErrs.length > 0) errs.push(...metaErrs);
          else errs.push(...validateNode(n, value, { basePath: defaultPath }));
        }
      }
    }
    // additionalProperties may not have defaults (checked elsewhere), so they are not visited.
    const items = itemsSchema(s);
    if (items && n.items) visit(items, n.items, child(p, "items"), inMeta, [...around, { index: true }], top);
    for (const [k, sub] of props(s)) {
      const subNode = n.properties?.get(k);
      if (!subNode) continue;
      const subInMeta = inMeta || (embeddedAt(n) && META_FIELDS.has(k));
      visit(sub, subNode, key(child(p, "properties"), k), subInMeta, [...around, { key: k }], top);
    }
  };
  visit(root, rootNode, path, false, [], rootNode);
}

// ---------------------------------------------------------------------------------------------
// The remaining OpenAPI rules.

const OPENAPI_TYPES = ["array", "boolean", "integer", "number", "object", "string"];

interface Context {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
}

function openAPIRules(s: Json, path: string, ctx: Context, isRoot: boolean, errs: FieldError[]): void {
  const type = str(s.type);
  if (type !== "" && !OPENAPI_TYPES.includes(type))
    errs.push(field.notSupported(child(path, "type"), type, OPENAPI_TYPES));
  if (defined(s.default) && !ctx.allowDefaults) {
    const reason = ctx.disallowDefaultsReason;
    errs.push(field.forbidden(child(path, "default"), `must not be set${reason ? ` ${reason}` : ""}`));
  }
  if (str(s.id) !== "") errs.push(field.forbidden(child(path, "id"), "id is not supported"));
  if (defined(s.additionalItems))
    errs.push(field.forbidden(child(path, "additionalItems"), "additionalItems is not supported"));
  if (nonEmptyMap(s.patternProperties))
    errs.push(field.forbidden(child(path, "patternProperties"), "patternProperties is not supported"));
  if (nonEmptyMap(s.definitions))
    errs.push(field.forbidden(child(path, "definitions"), "definitions is not supported"));
  if (defined(s.dependencies))
    errs.push(field.forbidden(child(path, "dependencies"), "dependencies is not supported"));
  if (defined(s.$ref)) errs.push(field.forbidden(child(path, "$ref"), "$ref is not supported"));
  if (type === "null")
    errs.push(
      field.forbidden(child(path, "type"), "type cannot be set to null, use nullable as an alternative"),
    );
  if (nonEmptyList(s.items))
    errs.push(field.forbidden(child(path, "items"), "items must be a schema object and not an array"));
  if (ctx.insideResourceMeta && isTrue(s["x-kubernetes-embedded-resource"]))
    errs.push(
      field.forbidden(
        child(path, "x-kubernetes-embedded-resource"),
        "must not be used inside of resource meta",
      ),
    );

  if (isTrue(s.uniqueItems))
    errs.push(
      field.forbidden(
        child(path, "uniqueItems"),
        "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
      ),
    );
  if (hasAP(s)) {
    if (props(s).length > 0 && (s.additionalProperties === false || apSchema(s)))
      errs.push(
        field.forbidden(
          child(path, "additionalProperties"),
          "additionalProperties and properties are mutual exclusive",
        ),
      );
    const sub: Context = ctx.insideResourceMeta
      ? {
          ...ctx,
          allowDefaults: false,
          disallowDefaultsReason: "inside additionalProperties applying to object metadata",
        }
      : ctx;
    const ap = apSchema(s);
    if (ap) openAPIRules(ap, child(path, "additionalProperties"), sub, false, errs);
  }
  const embedded = isTrue(s["x-kubernetes-embedded-resource"]);
  for (const [k, p] of props(s)) {
    let sub = ctx;
    if ((isRoot || embedded) && META_FIELDS.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
    }
    openAPIRules(p, key(child(path, "properties"), k), sub, false, errs);
  }
  const not = obj(s.not);
  if (not) openAPIRules(not, child(path, "not"), ctx, false, errs);
  for (const name of ["allOf", "oneOf", "anyOf"]) {
    list(s[name]).forEach((b, i) => {
      const branch = obj(b);
      if (branch) openAPIRules(branch, index(child(path, name), i), ctx, false, errs);
    });
  }
  for (const [k, d] of Object.entries(obj(s.definitions) ?? {})) {
    const def = obj(d);
    if (def) openAPIRules(def, key(child(path, "definitions"), k), ctx, false, errs);
  }
  const items = itemsSchema(s);
  if (items) openAPIRules(items, child(path, "items"), ctx, false, errs);
  if (Array.isArray(s.items))
    s.items.forEach((b, i) => {
      const item = obj(b);
      if (item) openAPIRules(item, index(child(path, "items"), i), ctx, false, errs);
    });
  for (const [k, d] of Object.entries(obj(s.dependencies) ?? {})) {
    const dep = obj(d);
    if (dep) openAPIRules(dep, key(child(path, "dependencies"), k), ctx, false, errs);
  }

  if (s["x-kubernetes-preserve-unknown-fields"] === false)
    errs.push(
      field.invalid(child(path, "x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"),
    );
  const mapType = s["x-kubernetes-map-type"];
  if (defined(mapType) && type !== "object") {
    const detail = "must be object if x-kubernetes-map-type is specified";
    errs.push(
      type === ""
        ? field.required(child(path, "type"), detail)
        : field.invalid(child(path, "type"), type, detail),
    );
  }
  if (defined(mapType) && mapType !== "atomic" && mapType !== "granular")
    errs.push(field.notSupported(child(path, "x-kubernetes-map-type"), mapType, ["atomic", "granular"]));

  const listType = s["x-kubernetes-list-type"];
  const hasListType = defined(listType);
  if (hasListType && type !== "array") {
    const detail = "must be array if x-kubernetes-list-type is specified";
    errs.push(
      type === ""
        ? field.required(child(path, "type"), detail)
        : field.invalid(child(path, "type"), type, detail),
    );
  } else if (listType === "set" && items) {
    const itemType = str(items.type);
    const atomic = "must be atomic as item of a list with x-kubernetes-list-type=set";
    if (itemType === "array") {
      const itemList = items["x-kubernetes-list-type"];
      if (defined(itemList) && itemList !== "atomic")
        errs.push(field.invalid(child(child(path, "items"), "x-kubernetes-list-type"), itemList, atomic));
    } else if (itemType === "object") {
      if (items["x-kubernetes-map-type"] !== "atomic")
        // Upstream reports the items' list type here (usually unset, so null).
        errs.push(
          field.invalid(
            child(child(path, "items"), "x-kubernetes-map-type"),
            items["x-kubernetes-list-type"] ?? null,
            atomic,
          ),
        );
    }
  }
  if (hasListType && listType !== "atomic" && listType !== "set" && listType !== "map")
    errs.push(field.notSupported(child(path, "x-kubernetes-list-type"), listType, ["atomic", "set", "map"]));

  const mapKeys = list(s["x-kubernetes-list-map-keys"]);
  if (mapKeys.length > 0) {
    const detail = "must be map if x-kubernetes-list-map-keys is non-empty";
    if (!hasListType) errs.push(field.required(child(path, "x-kubernetes-list-type"), detail));
    else if (listType !== "map")
      errs.push(field.invalid(child(path, "x-kubernetes-list-type"), listType, detail));
  }
  if (listType === "map") {
    if (mapKeys.length === 0)
      errs.push(
        field.required(
          child(path, "x-kubernetes-list-map-keys"),
          "must not be empty if x-kubernetes-list-type is map",
        ),
      );
    if (!defined(s.items))
      errs.push(field.required(child(path, "items"), "must have a schema if x-kubernetes-list-type is map"));
    if (Array.isArray(s.items))
      errs.push(
        field.invalid(
          child(path, "items"),
          s.items,
          "must only have a single schema if x-kubernetes-list-type is map",
        ),
      );
    if (items && str(items.type) !== "object")
      errs.push(
        field.invalid(
          child(child(path, "items"), "type"),
          str(items.type),
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    if (items && str(items.type) === "object") {
      const itemProps = obj(items.properties) ?? {};
      const seen = new Set<unknown>();
      for (const k of mapKeys) {
        const p = typeof k === "string" && Object.hasOwn(itemProps, k) ? obj(itemProps[k]) : undefined;
        if (p) {
          const t = str(p.type);
          if (t === "array" || t === "object")
            errs.push(
              field.invalid(
                child(key(child(child(path, "items"), "properties"), String(k)), "type"),
                str(items.type),
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
        } else {
          errs.push(
            field.invalid(
              child(path, "x-kubernetes-list-map-keys"),
              mapKeys,
              "entries must all be names of item properties",
            ),
          );
        }
        if (seen.has(k))
          errs.push(
            field.invalid(
              child(path, "x-kubernetes-list-map-keys"),
              mapKeys,
              "must not contain duplicate entries",
            ),
          );
        seen.add(k);
      }
    }
  }
  if (items && (listType === "set" || listType === "map")) {
    if (isTrue(items.nullable))
      errs.push(
        field.forbidden(
          child(child(path, "items"), "nullable"),
          `cannot be nullable when x-kubernetes-list-type is ${listType}`,
        ),
      );
    if (listType === "map") {
      const required = new Set(list(items.required));
      const itemProps = obj(items.properties) ?? {};
      for (const k of mapKeys) {
        if (typeof k !== "string" || !Object.hasOwn(itemProps, k)) continue;
        const p = obj(itemProps[k]) ?? {};
        const at = key(child(child(path, "items"), "properties"), k);
        if (!required.has(k) && !defined(p.default))
          errs.push(
            field.required(
              child(at, "default"),
              "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            ),
          );
        if (isTrue(p.nullable))
          errs.push(
            field.forbidden(
              child(at, "nullable"),
              "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
            ),
          );
      }
    }
  }

  list(s["x-kubernetes-validations"]).forEach((r, i) => {
    const rule = obj(r) ?? {};
    const at = index(child(path, "x-kubernetes-validations"), i);
    const ruleText = str(rule.rule).trim();
    const message = str(rule.message);
    const trimmedMessage = message.trim();
    if (ruleText === "") errs.push(field.required(child(at, "rule"), "rule is not specified"));
    else if (message !== "" && trimmedMessage === "")
      errs.push(field.invalid(child(at, "message"), message, "message must be non-empty if specified"));
    else if (/[\n\r]/.test(trimmedMessage))
      errs.push(field.invalid(child(at, "message"), message, "message must not contain line breaks"));
    else if (/[\n\r]/.test(ruleText) && trimmedMessage === "")
      errs.push(
        field.required(child(at, "message"), "message must be specified if rule contains line breaks"),
      );
    const messageExpression = str(rule.messageExpression);
    if (messageExpression !== "" && messageExpression.trim() === "")
      errs.push(
        field.required(child(at, "messageExpression"), "messageExpression must be non-empty if specified"),
      );
  });
}

// JSONSchemaProps' fields in upstream's declaration order, with how a zero value looks.
const ROOT_FIELDS: readonly (readonly [string, string, "bool" | "string" | "any"])[] = [
  ["id", "ID", "string"],
  ["$schema", "Schema", "string"],
  ["$ref", "Ref", "any"],
  ["description", "Description", "string"],
  ["type", "Type", "string"],
  ["nullable", "Nullable", "bool"],
  ["format", "Format", "string"],
  ["title", "Title", "string"],
  ["default", "Default", "any"],
  ["maximum", "Maximum", "any"],
  ["exclusiveMaximum", "ExclusiveMaximum", "bool"],
  ["minimum", "Minimum", "any"],
  ["exclusiveMinimum", "ExclusiveMinimum", "bool"],
  ["maxLength", "MaxLength", "any"],
  ["minLength", "MinLength", "any"],
  ["pattern", "Pattern", "string"],
  ["maxItems", "MaxItems", "any"],
  ["minItems", "MinItems", "any"],
  ["uniqueItems", "UniqueItems", "bool"],
  ["multipleOf", "MultipleOf", "any"],
  ["enum", "Enum", "any"],
  ["maxProperties", "MaxProperties", "any"],
  ["minProperties", "MinProperties", "any"],
  ["required", "Required", "any"],
  ["items", "Items", "any"],
  ["allOf", "AllOf", "any"],
  ["oneOf", "OneOf", "any"],
  ["anyOf", "AnyOf", "any"],
  ["not", "Not", "any"],
  ["properties", "Properties", "any"],
  ["additionalProperties", "AdditionalProperties", "any"],
  ["patternProperties", "PatternProperties", "any"],
  ["dependencies", "Dependencies", "any"],
  ["additionalItems", "AdditionalItems", "any"],
  ["definitions", "Definitions", "any"],
  ["externalDocs", "ExternalDocs", "any"],
  ["example", "Example", "any"],
  ["x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields", "any"],
  ["x-kubernetes-embedded-resource", "XEmbeddedResource", "bool"],
  ["x-kubernetes-int-or-string", "XIntOrString", "bool"],
  ["x-kubernetes-list-map-keys", "XListMapKeys", "any"],
  ["x-kubernetes-list-type", "XListType", "any"],
  ["x-kubernetes-map-type", "XMapType", "any"],
  ["x-kubernetes-validations", "XValidations", "any"],
];

const ALLOWED_AT_STATUS_ROOT = [
  "Description",
  "Type",
  "Format",
  "Title",
  "Maximum",
  "ExclusiveMaximum",
  "Minimum",
  "ExclusiveMinimum",
  "MaxLength",
  "MinLength",
  "Pattern",
  "MaxItems",
  "MinItems",
  "UniqueItems",
  "MultipleOf",
  "Required",
  "Items",
  "Properties",
  "ExternalDocs",
  "Example",
  "XPreserveUnknownFields",
  "XValidations",
];

function statusRootError(s: Json, path: string): FieldError | undefined {
  for (const [json, name, zero] of ROOT_FIELDS) {
    const v = s[json];
    if (v === undefined || v === null) continue;
    if ((zero === "bool" && v === false) || (zero === "string" && v === "")) continue;
    if (name === "Type") {
      if (v !== "object")
        return field.invalid(
          child(path, "type"),
          v,
          `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
        );
      continue;
    }
    if (!ALLOWED_AT_STATUS_ROOT.includes(name))
      return field.invalid(
        path,
        s,
        `only [${ALLOWED_AT_STATUS_ROOT.join(" ")}] fields are allowed at the root of the schema if the status subresource is enabled`,
      );
  }
  return undefined;
}

/**
 * Every problem upstream finds in a version's `openAPIV3Schema` at `path` (e.g.
 * `spec.versions[0].schema.openAPIV3Schema`), in upstream's order; empty when the schema can be
 * served. CEL rules are compiled and costed elsewhere.
 */
export function validateOpenAPISchema(
  schema: StructuralSchema | unknown,
  path: string,
  options: SchemaCheckOptions = {},
): FieldError[] {
  const s = obj(schema) ?? {};
  const errs: FieldError[] = [];
  if (options.statusSubresource) {
    const e = statusRootError(s, path);
    if (e) errs.push(e);
  }
  if (isTrue(s.nullable))
    errs.push(field.forbidden(child(path, "nullable"), "nullable cannot be true at the root"));
  const unsupported = unsupportedKeyword(s);
  if (unsupported === undefined) {
    const structural = structuralErrors(s, path);
    if (structural.length > 0) errs.push(...structural);
    else checkDefaults(s, path, errs);
  }
  openAPIRules(
    s,
    path,
    { allowDefaults: true, disallowDefaultsReason: "", insideResourceMeta: false },
    true,
    errs,
  );
  // Reading the schema failed on something the rules above did not already name.
  if (errs.length === 0 && unsupported !== undefined) errs.push(field.invalid(path, "", unsupported));
  return errs;
}
