// The CEL type of a value under an OpenAPI v3 structural schema, with the size bounds the cost
// estimator needs. Mirrors upstream's mapping: object with properties -> message type (escaped field
// names), additionalProperties -> map, items -> list, integer -> int, number -> double, string with
// format byte/date/date-time/duration -> bytes/timestamp/timestamp/duration, int-or-string -> dyn.
import { escapePropertyName } from "./escaping.ts";
import {
  JSON_DATE_SIZE,
  MAX_DATETIME_SIZE_JSON,
  MAX_DURATION_SIZE_JSON,
  MAX_REQUEST_SIZE_BYTES,
  MIN_BOOL_SIZE,
  MIN_DATETIME_SIZE_JSON,
  MIN_DURATION_SIZE_JSON,
  MIN_NUMBER_SIZE,
  MIN_STRING_SIZE,
} from "./limits.ts";

/**
 * The subset of a structural schema (JSONSchemaProps) the CEL environment reads. Structurally
 * compatible with the schema type of backends/schema.
 */
export interface CelSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: { readonly [name: string]: CelSchema };
  readonly additionalProperties?: CelSchema | boolean;
  readonly items?: CelSchema | readonly CelSchema[];
  readonly required?: readonly string[];
  readonly default?: unknown;
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
  readonly "x-kubernetes-list-type"?: string;
}

/** One field of an object type: its JSON name, its CEL (escaped) name and its type. */
export interface DeclField {
  readonly jsonName: string;
  readonly celName: string;
  readonly type: DeclType;
  readonly required: boolean;
}

/** Base class of the values of object types; each object type has its own subclass. */
export class CelObject extends Map<string, unknown> {}

interface Sized {
  /** Serialized size of the smallest value of the type, in bytes. */
  readonly minSize: number;
  /** Largest length (strings, bytes), element count (lists, maps) or serialized length (dyn). */
  readonly maxElements: number;
}

export type DeclType =
  | (Sized & {
      readonly kind: "object";
      /** The type name in CEL: unique per object type. */
      readonly name: string;
      readonly fields: ReadonlyMap<string, DeclField>;
      /** Constructor of this type's values. */
      readonly ctor: new () => CelObject;
    })
  | (Sized & { readonly kind: "list"; readonly items: DeclType })
  | (Sized & { readonly kind: "map"; readonly values: DeclType })
  | (Sized & { readonly kind: "string" | "bytes" | "duration" | "dyn" })
  | (Sized & { readonly kind: "timestamp"; readonly dateOnly: boolean })
  | (Sized & { readonly kind: "int" | "double" | "bool" });

export const DYN: DeclType = { kind: "dyn", minSize: 1, maxElements: MAX_REQUEST_SIZE_BYTES - 2 };
export const INT: DeclType = { kind: "int", minSize: MIN_NUMBER_SIZE, maxElements: 0 };
export const DOUBLE: DeclType = { kind: "double", minSize: MIN_NUMBER_SIZE, maxElements: 0 };
export const BOOL: DeclType = { kind: "bool", minSize: MIN_BOOL_SIZE, maxElements: 0 };
export const STRING: DeclType = {
  kind: "string",
  minSize: MIN_STRING_SIZE,
  maxElements: MAX_REQUEST_SIZE_BYTES - 2,
};

/** The CEL type name of a declared type, as the cel-js type checker spells it. */
export function celTypeName(t: DeclType): string {
  switch (t.kind) {
    case "object":
      return t.name;
    case "list":
      return `list<${celTypeName(t.items)}>`;
    case "map":
      return `map<string, ${celTypeName(t.values)}>`;
    case "timestamp":
      return "google.protobuf.Timestamp";
    case "duration":
      return "google.protobuf.Duration";
    default:
      return t.kind;
  }
}

/** Every object type reachable from `t`, children before parents. */
export function objectTypesOf(t: DeclType, into: Set<DeclType> = new Set()): Set<DeclType> {
  switch (t.kind) {
    case "object":
      if (into.has(t)) return into;
      for (const f of t.fields.values()) objectTypesOf(f.type, into);
      into.add(t);
      return into;
    case "list":
      return objectTypesOf(t.items, into);
    case "map":
      return objectTypesOf(t.values, into);
    default:
      return into;
  }
}

let typeCounter = 0;
const cache = new WeakMap<CelSchema, { plain?: DeclType | null; root?: DeclType | null }>();

/**
 * The CEL type of values under `schema`, or undefined when CEL cannot see them (e.g. a list whose
 * items have no type). `isResourceRoot` (the root of a custom resource or an embedded resource) adds
 * `apiVersion`, `kind` and `metadata.name`/`metadata.generateName`, the only metadata rules see.
 * Results are cached per schema object, so values and environments built from one schema agree.
 */
export function declTypeFromSchema(schema: CelSchema, isResourceRoot = false): DeclType | undefined {
  let entry = cache.get(schema);
  if (entry === undefined) {
    entry = {};
    cache.set(schema, entry);
  }
  const cached = isResourceRoot ? entry.root : entry.plain;
  if (cached !== undefined) return cached ?? undefined;
  const built = build(isResourceRoot ? withTypeAndObjectMeta(schema) : schema) ?? null;
  if (isResourceRoot) entry.root = built;
  else entry.plain = built;
  return built ?? undefined;
}

const STRING_SCHEMA: CelSchema = { type: "string" };

function withTypeAndObjectMeta(schema: CelSchema): CelSchema {
  const props = schema.properties;
  const meta = props?.metadata?.properties;
  if (
    props?.kind?.type === "string" &&
    props.apiVersion?.type === "string" &&
    props.metadata?.type === "object" &&
    meta?.name?.type === "string" &&
    meta.generateName?.type === "string"
  ) {
    return schema;
  }
  return {
    ...schema,
    properties: {
      ...schema.properties,
      apiVersion: STRING_SCHEMA,
      kind: STRING_SCHEMA,
      metadata: { type: "object", properties: { name: STRING_SCHEMA, generateName: STRING_SCHEMA } },
    },
  };
}

function child(schema: CelSchema): DeclType | undefined {
  return declTypeFromSchema(schema, schema["x-kubernetes-embedded-resource"] === true);
}

function build(s: CelSchema): DeclType | undefined {
  if (s["x-kubernetes-int-or-string"] === true) return DYN;
  switch (s.type) {
    case "array": {
      const itemsSchema = s.items;
      if (itemsSchema === undefined || Array.isArray(itemsSchema)) return undefined;
      const items = child(itemsSchema as CelSchema);
      if (items === undefined) return undefined;
      const maxElements =
        s.maxItems !== undefined
          ? Math.max(0, s.maxItems)
          : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (items.minSize + 1));
      return { kind: "list", items, minSize: 2, maxElements };
    }
    case "object": {
      const ap = s.additionalProperties;
      if (ap !== undefined && typeof ap === "object") {
        const values = child(ap);
        if (values === undefined) return undefined;
        const maxElements =
          s.maxProperties !== undefined
            ? Math.max(0, s.maxProperties)
            : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (values.minSize + 6));
        return { kind: "map", values, minSize: 2, maxElements };
      }
      const required = new Set(s.required ?? []);
      const fields = new Map<string, DeclField>();
      let minSize = 2;
      for (const [jsonName, prop] of Object.entries(s.properties ?? {})) {
        const type = child(prop);
        if (type === undefined) continue;
        const celName = escapePropertyName(jsonName);
        if (celName !== undefined) {
          fields.set(celName, { jsonName, celName, type, required: required.has(jsonName) });
        }
        if (required.has(jsonName) && prop.default === undefined)
          minSize += jsonName.length + type.minSize + 4;
      }
      const name = `selfType${++typeCounter}`;
      // A distinct constructor per type: the type checker finds a value's type by its constructor.
      const ctor = { [name]: class extends CelObject {} }[name] as new () => CelObject;
      return { kind: "object", name, fields, ctor, minSize, maxElements: 0 };
    }
    case "string":
      switch (s.format) {
        case "byte":
          return {
            kind: "bytes",
            minSize: MIN_STRING_SIZE,
            maxElements: s.maxLength !== undefined ? Math.max(0, s.maxLength) : MAX_REQUEST_SIZE_BYTES - 2,
          };
        case "duration":
          return { kind: "duration", minSize: MIN_DURATION_SIZE_JSON, maxElements: MAX_DURATION_SIZE_JSON };
        case "date":
          return { kind: "timestamp", dateOnly: true, minSize: JSON_DATE_SIZE, maxElements: JSON_DATE_SIZE };
        case "date-time":
          return {
            kind: "timestamp",
            dateOnly: false,
            minSize: MIN_DATETIME_SIZE_JSON,
            maxElements: MAX_DATETIME_SIZE_JSON,
          };
      }
      // maxLength counts code points; a code point may take 4 bytes, and sizes are in bytes.
      if (s.maxLength !== undefined)
        return { kind: "string", minSize: MIN_STRING_SIZE, maxElements: Math.max(0, s.maxLength) * 4 };
      return STRING;
    case "boolean":
      return BOOL;
    case "number":
      return DOUBLE;
    case "integer":
      return INT;
  }
  return undefined;
}
