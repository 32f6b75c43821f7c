// A catalog type as an OpenAPI v3 structural schema (DESIGN.md, Types): the one form validation,
// pruning and OpenAPI publishing share for built-in kinds and custom resources. Each type expands
// once per catalog; shared sub-schemas are the same object, so compiling a kind compiles each
// type once.
import type { StructuralSchema } from "../schema/structural/index.ts";
import { type Catalog, type ParsedRef, parseRef, type ScalarType } from "./catalog.ts";
import type { FieldSpec } from "./model.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const SCALAR_SCHEMAS: Readonly<Record<ScalarType, StructuralSchema>> = {
  string: { type: "string" },
  bool: { type: "boolean" },
  int32: { type: "integer", format: "int32" },
  int64: { type: "integer", format: "int64" },
  double: { type: "number", format: "double" },
  bytes: { type: "string", format: "byte" },
  // A quantity is written as a string or a number; `quantity` is the built-in format that checks it.
  quantity: { "x-kubernetes-int-or-string": true, format: "quantity" },
  intOrString: { "x-kubernetes-int-or-string": true },
  time: { type: "string", format: "date-time" },
  microTime: { type: "string", format: "date-time" },
  duration: { type: "string" },
  rawExtension: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
  json: { "x-kubernetes-preserve-unknown-fields": true },
  fieldsV1: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
};

// A type that refers back to itself is cut off there and left open.
const CYCLE: StructuralSchema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

export class SchemaExpander {
  readonly #catalog: Catalog;
  readonly #types = new Map<string, StructuralSchema>();
  readonly #expanding = new Set<string>();

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  /** The schema of a named type (`apps/v1.Deployment`), description included. */
  type(id: string): StructuralSchema {
    const done = this.#types.get(id);
    if (done) return done;
    if (this.#expanding.has(id)) return CYCLE;
    this.#expanding.add(id);
    try {
      const resolved = this.#catalog.mustType(id);
      const { spec } = resolved;
      let schema: StructuralSchema;
      if (spec.jsonAs) {
        schema = { ...this.#ref(parseRef(resolved.packageId, spec.jsonAs)), description: spec.description };
      } else {
        const properties: Record<string, StructuralSchema> = {};
        const required: string[] = [];
        this.#collect(resolved.packageId, spec.fields, properties, required);
        schema = {
          description: spec.description,
          type: "object",
          properties,
          ...(required.length > 0 ? { required } : {}),
          ...(spec.structType ? { "x-kubernetes-map-type": spec.structType } : {}),
        };
      }
      this.#types.set(id, schema);
      return schema;
    } finally {
      this.#expanding.delete(id);
    }
  }

  /** Properties of a struct, inline (embedded) fields flattened into it. */
  #collect(
    packageId: string,
    fields: Readonly<Record<string, FieldSpec>>,
    properties: Record<string, StructuralSchema>,
    required: string[],
  ): void {
    for (const [name, field] of Object.entries(fields)) {
      const ref = parseRef(packageId, field.type);
      if (field.inline) {
        if (ref.kind !== "type") throw new Error(`inline field ${name} must name a struct type`);
        const inner = this.#catalog.mustType(ref.id);
        this.#collect(inner.packageId, inner.spec.fields, properties, required);
        continue;
      }
      properties[name] = this.#field(ref, field);
      if (field.required) required.push(name);
    }
  }

  #field(ref: ParsedRef, field: FieldSpec): StructuralSchema {
    const base = this.#ref(ref);
    const out: Mutable<StructuralSchema> = { ...base, description: field.description };
    if (field.enum) {
      if (ref.kind === "list") out.items = { ...(base.items as StructuralSchema), enum: field.enum };
      else out.enum = field.enum;
    }
    if (field.default !== undefined) out.default = field.default;
    if (field.listType) out["x-kubernetes-list-type"] = field.listType;
    if (field.listMapKeys) out["x-kubernetes-list-map-keys"] = field.listMapKeys;
    if (field.mapType) out["x-kubernetes-map-type"] = field.mapType;
    if (field.structType) out["x-kubernetes-map-type"] = field.structType;
    if (field.patchStrategy) out["x-kubernetes-patch-strategy"] = field.patchStrategy;
    if (field.patchMergeKey) out["x-kubernetes-patch-merge-key"] = field.patchMergeKey;
    if (field.nullable) out.nullable = true;
    return out;
  }

  #ref(ref: ParsedRef): StructuralSchema {
    switch (ref.kind) {
      case "scalar":
        return SCALAR_SCHEMAS[ref.scalar];
      case "list":
        return { type: "array", items: this.#ref(ref.of) };
      case "map":
        return { type: "object", additionalProperties: this.#ref(ref.of) };
      case "type":
        return this.type(ref.id);
    }
  }
}
