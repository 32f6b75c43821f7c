// A schema compiled once into nodes with everything the walkers need precomputed: property maps,
// the type list the validator checks, the kept format, the compiled pattern, and per-subtree flags
// that let defaulting and the metadata/list-type checks skip subtrees that have nothing for them.
import { RE2JS } from "re2js";
import { cloneJson } from "../../common/json.ts";
import { type FormatCheck, formatCheck } from "./formats.ts";
import { canonicalJson } from "./json-value.ts";
import { pruneNode } from "./prune.ts";
import type { StructuralSchema } from "./types.ts";

export interface CompileOptions {
  /**
   * Built-in kinds: also check the formats `quantity` (string or number holding a resource
   * quantity) and `int32`/`int64` (integer range). CRDs leave these unchecked, as upstream does.
   */
  readonly builtin?: boolean;
}

export interface SchemaNode {
  readonly schema: StructuralSchema;
  /** The types the value may have; int-or-string reads as ["integer", "string"]. */
  readonly typeNames: readonly string[];
  readonly typeText: string;
  /** By JSON kind (null, string, integer, float, boolean, array, object): the type list accepts it. */
  readonly acceptsKind: readonly boolean[];
  readonly nullable: boolean;
  /**
   * A built-in kind's field: null is Go's zero value there, so validation lets it pass (input
   * nulls are still dropped; the server's own objects may hold them, as an aggregated
   * ClusterRole's `rules` does).
   */
  readonly zeroNull: boolean;
  /** The format the validator sees ("" for formats upstream strips). */
  readonly format: string;
  readonly formatCheck: FormatCheck | undefined;
  readonly quantity: boolean;
  readonly intRange: "int32" | "int64" | undefined;

  readonly properties: ReadonlyMap<string, SchemaNode> | undefined;
  readonly items: SchemaNode | undefined;
  /** A schema for map values, `true` (any value, pruned as unknown) or `false` (no other keys). */
  readonly additional: SchemaNode | boolean | undefined;
  readonly required: readonly string[];

  readonly enumValues: readonly unknown[] | undefined;
  /**
   * The enum for lookups: scalars as they are, lists and maps as canonical JSON (apart, so that
   * no string can match a map); a check costs the same whether the enum has ten values or 100k.
   */
  readonly enumScalars: ReadonlySet<unknown>;
  readonly enumCompounds: ReadonlySet<string>;
  /** The enum as upstream lists it in "supported values" (strings as is, others as JSON). */
  readonly enumSupported: readonly string[];
  readonly minimum: number | undefined;
  readonly maximum: number | undefined;
  readonly exclusiveMinimum: boolean;
  readonly exclusiveMaximum: boolean;
  readonly multipleOf: number | undefined;
  readonly minLength: number | undefined;
  readonly maxLength: number | undefined;
  readonly pattern: string | undefined;
  readonly patternRegex: RE2JS | undefined;
  /** Go's compile error for an invalid pattern (every value then fails with it). */
  readonly patternError: string | undefined;
  readonly minItems: number | undefined;
  readonly maxItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly minProperties: number | undefined;
  readonly maxProperties: number | undefined;

  readonly allOf: readonly SchemaNode[] | undefined;
  readonly anyOf: readonly SchemaNode[] | undefined;
  readonly oneOf: readonly SchemaNode[] | undefined;
  readonly not: SchemaNode | undefined;
  readonly hasJunctors: boolean;

  readonly preserveUnknown: boolean;
  readonly embedded: boolean;
  readonly intOrString: boolean;
  readonly listType: "set" | "map" | undefined;
  readonly listMapKeys: readonly string[];

  /** The default value (pruned); undefined when there is none (a `null` default is none). */
  readonly defaultValue: unknown;
  /** Properties that have a default. */
  readonly defaulted: readonly (readonly [string, SchemaNode])[];
  /** Properties whose subtree has defaults somewhere. */
  readonly defaultChildren: readonly (readonly [string, SchemaNode])[];
  /** Defaulting has something to do in this subtree. */
  readonly defaultsBelow: boolean;
  /** An embedded resource or a set/map list is in this subtree. */
  readonly extrasBelow: boolean;
  /** allOf/anyOf/oneOf/not appear in this subtree (their errors may repeat). */
  readonly junctorsBelow: boolean;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function schemaOf(value: unknown): StructuralSchema | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as StructuralSchema)
    : undefined;
}

const compiledByOptions = new Map<boolean, WeakMap<StructuralSchema, SchemaNode>>();

/** Compiles a schema (cached per schema object); shared or cyclic sub-schemas compile once. */
export function compileNode(schema: StructuralSchema, options: CompileOptions = {}): SchemaNode {
  const builtin = options.builtin === true;
  let cache = compiledByOptions.get(builtin);
  if (!cache) {
    cache = new WeakMap();
    compiledByOptions.set(builtin, cache);
  }
  const cached = cache.get(schema);
  if (cached) return cached;
  const built: Mutable<SchemaNode>[] = [];
  const local = new Map<StructuralSchema, Mutable<SchemaNode>>();
  const root = build(schema, builtin, local, built);
  computeFlags(built);
  // Defaults are served pruned by their own schema, as upstream prunes them when loading a CRD.
  for (const n of built) {
    if (typeof n.defaultValue === "object" && n.defaultValue !== null) {
      const copy = cloneJson(n.defaultValue);
      pruneNode(n, copy, { root: false });
      n.defaultValue = copy;
    }
  }
  for (const [s, n] of local) cache.set(s, n);
  return root;
}

function build(
  schema: StructuralSchema,
  builtin: boolean,
  local: Map<StructuralSchema, Mutable<SchemaNode>>,
  built: Mutable<SchemaNode>[],
): Mutable<SchemaNode> {
  const existing = local.get(schema);
  if (existing) return existing;
  const intOrString = schema["x-kubernetes-int-or-string"] === true;
  const type = typeof schema.type === "string" ? schema.type : "";
  const rawFormat = typeof schema.format === "string" ? schema.format : "";
  const quantity = builtin && rawFormat === "quantity";
  const intRange = builtin && (rawFormat === "int32" || rawFormat === "int64") ? rawFormat : undefined;
  const check = rawFormat === "" ? undefined : formatCheck(rawFormat);
  const typeNames = quantity ? [] : intOrString ? ["integer", "string"] : type === "" ? [] : [type];
  const enumValues = Array.isArray(schema.enum) && schema.enum.length > 0 ? schema.enum : undefined;
  const listType = schema["x-kubernetes-list-type"];
  const pattern = typeof schema.pattern === "string" && schema.pattern !== "" ? schema.pattern : undefined;
  let patternRegex: RE2JS | undefined;
  let patternError: string | undefined;
  if (pattern !== undefined) {
    try {
      patternRegex = RE2JS.compile(pattern);
    } catch (e) {
      patternError = e instanceof Error ? e.message : String(e);
    }
  }
  const node: Mutable<SchemaNode> = {
    schema,
    typeNames,
    typeText: typeNames.join(","),
    acceptsKind: [
      false,
      typeNames.includes("string"),
      typeNames.includes("integer") || typeNames.includes("number"),
      typeNames.includes("number"),
      typeNames.includes("boolean"),
      typeNames.includes("array"),
      typeNames.includes("object"),
    ],
    nullable: schema.nullable === true,
    zeroNull: builtin,
    // Upstream strips formats it does not know; the builtin extras are handled apart.
    format: check ? rawFormat : "",
    formatCheck: check,
    quantity,
    intRange,
    properties: undefined,
    items: undefined,
    additional: undefined,
    required: Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
    enumValues,
    enumScalars: new Set(enumValues?.filter((v) => typeof v !== "object" || v === null)),
    enumCompounds: new Set(
      enumValues?.filter((v) => typeof v === "object" && v !== null).map((v) => canonicalJson(v)),
    ),
    enumSupported: enumValues ? enumValues.map((v) => (typeof v === "string" ? v : canonicalJson(v))) : [],
    minimum: num(schema.minimum),
    maximum: num(schema.maximum),
    exclusiveMinimum: schema.exclusiveMinimum === true,
    exclusiveMaximum: schema.exclusiveMaximum === true,
    multipleOf: num(schema.multipleOf),
    minLength: num(schema.minLength),
    maxLength: num(schema.maxLength),
    pattern,
    patternRegex,
    patternError,
    minItems: num(schema.minItems),
    maxItems: num(schema.maxItems),
    uniqueItems: schema.uniqueItems === true,
    minProperties: num(schema.minProperties),
    maxProperties: num(schema.maxProperties),
    allOf: undefined,
    anyOf: undefined,
    oneOf: undefined,
    not: undefined,
    hasJunctors: false,
    preserveUnknown: schema["x-kubernetes-preserve-unknown-fields"] === true,
    embedded: schema["x-kubernetes-embedded-resource"] === true,
    intOrString,
    listType: listType === "set" ? "set" : listType === "map" ? "map" : undefined,
    listMapKeys: Array.isArray(schema["x-kubernetes-list-map-keys"])
      ? schema["x-kubernetes-list-map-keys"].filter((k) => typeof k === "string")
      : [],
    defaultValue: schema.default === null ? undefined : schema.default,
    defaulted: [],
    defaultChildren: [],
    defaultsBelow: false,
    extrasBelow: false,
    junctorsBelow: false,
  };
  local.set(schema, node);
  built.push(node);

  const props = schemaOf(schema.properties);
  if (props) {
    const map = new Map<string, SchemaNode>();
    for (const [key, sub] of Object.entries(props)) {
      const s = schemaOf(sub);
      if (s) map.set(key, build(s, builtin, local, built));
    }
    if (map.size > 0) node.properties = map;
  }
  const items = schemaOf(schema.items);
  if (items) node.items = build(items, builtin, local, built);
  const ap = schema.additionalProperties;
  if (typeof ap === "boolean") node.additional = ap;
  else if (schemaOf(ap)) node.additional = build(ap as StructuralSchema, builtin, local, built);
  const branches = (list: unknown): SchemaNode[] | undefined => {
    if (!Array.isArray(list) || list.length === 0) return undefined;
    const out: SchemaNode[] = [];
    for (const b of list) {
      const s = schemaOf(b);
      if (s) out.push(build(s, builtin, local, built));
    }
    return out.length > 0 ? out : undefined;
  };
  node.allOf = branches(schema.allOf);
  node.anyOf = branches(schema.anyOf);
  node.oneOf = branches(schema.oneOf);
  const not = schemaOf(schema.not);
  if (not) node.not = build(not, builtin, local, built);
  node.hasJunctors =
    node.allOf !== undefined || node.anyOf !== undefined || node.oneOf !== undefined || not !== undefined;
  return node;
}

function structuralChildren(n: SchemaNode): SchemaNode[] {
  const out: SchemaNode[] = [];
  if (n.properties) for (const p of n.properties.values()) out.push(p);
  if (n.items) out.push(n.items);
  if (typeof n.additional === "object") out.push(n.additional);
  return out;
}

// Flags are monotone over the (possibly cyclic) node graph: iterate until nothing changes.
function computeFlags(nodes: Mutable<SchemaNode>[]): void {
  for (const n of nodes) {
    const defaulted: [string, SchemaNode][] = [];
    if (n.properties)
      for (const [k, p] of n.properties) if (p.defaultValue !== undefined) defaulted.push([k, p]);
    n.defaulted = defaulted;
  }
  let changed = true;
  while (changed) {
    changed = false;
    for (const n of nodes) {
      const children = structuralChildren(n);
      const branchNodes = [
        ...(n.allOf ?? []),
        ...(n.anyOf ?? []),
        ...(n.oneOf ?? []),
        ...(n.not ? [n.not] : []),
      ];
      const ap = typeof n.additional === "object" ? n.additional : undefined;
      const defaultsBelow =
        n.defaulted.length > 0 ||
        (ap !== undefined && (ap.defaultValue !== undefined || ap.defaultsBelow)) ||
        (n.items !== undefined && (n.items.defaultValue !== undefined || n.items.defaultsBelow)) ||
        children.some((c) => c.defaultsBelow);
      const extrasBelow = n.embedded || n.listType !== undefined || children.some((c) => c.extrasBelow);
      const junctorsBelow =
        branchNodes.length > 0 ||
        children.some((c) => c.junctorsBelow) ||
        branchNodes.some((c) => c.junctorsBelow);
      if (
        defaultsBelow !== n.defaultsBelow ||
        extrasBelow !== n.extrasBelow ||
        junctorsBelow !== n.junctorsBelow
      ) {
        n.defaultsBelow = defaultsBelow;
        n.extrasBelow = extrasBelow;
        n.junctorsBelow = junctorsBelow;
        changed = true;
      }
    }
  }
  for (const n of nodes) {
    const children: [string, SchemaNode][] = [];
    if (n.properties) for (const [k, p] of n.properties) if (p.defaultsBelow) children.push([k, p]);
    n.defaultChildren = children;
  }
}
