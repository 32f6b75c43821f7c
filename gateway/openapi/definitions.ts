// The schemas operations refer to. Field-level schemas of the kinds come later (with schema
// validation); until then a kind's schema says only what every object has — apiVersion, kind and
// metadata — and leaves the rest open: no `additionalProperties: false`, no invented field list.
// A list kind's shape is generic (items of the kind plus list metadata), so it is spelled out.
// Meta types are open objects for the same reason.
import type { Naming } from "../../backends/naming/index.ts";
import type { StructuralSchema } from "../../backends/schema/structural/index.ts";
import type { Definition, GroupVersionKind, SchemaObject } from "./model.ts";
import { metaDefinition } from "./names.ts";

export const META_TYPES = [
  "ObjectMeta",
  "ListMeta",
  "Status",
  "DeleteOptions",
  "WatchEvent",
  "Patch",
] as const;
export type MetaType = (typeof META_TYPES)[number];

export const API_VERSION_DESCRIPTION =
  "The group and version of the schema this object is written in, such as `apps/v1`.";
export const KIND_DESCRIPTION =
  "The object's type in CamelCase, such as `Deployment`; the endpoint implies it when left out.";

const metaDescriptions: Readonly<Record<MetaType, string>> = {
  ObjectMeta: "Metadata every stored object carries: name, namespace, labels, annotations and the like.",
  ListMeta: "Metadata of a list: the revision it was read at and how to continue a chunked read.",
  Status: "The outcome of a request that returns no object, and the shape of every error.",
  DeleteOptions: "Options of a delete request: grace period, preconditions and how dependents are handled.",
  WatchEvent: "One change in a watch stream: the kind of change and the object it concerns.",
  Patch: "A patch body, in one of the patch media types.",
};

/** The schema of a meta type: an open object. */
export function metaTypeDefinition(naming: Naming, type: MetaType): Definition {
  return {
    name: metaDefinition(naming, type),
    schema: { description: metaDescriptions[type], type: "object" },
  };
}

function gvkExtension(gvk: GroupVersionKind): { group: string; kind: string; version: string }[] {
  return [{ group: gvk.group, kind: gvk.kind, version: gvk.version }];
}

/** The schema of a kind: the fields every object has, the rest left open. */
export function kindDefinition(naming: Naming, name: string, gvk: GroupVersionKind): Definition {
  return {
    name,
    schema: {
      description: `${gvk.kind} (field schema not published yet).`,
      type: "object",
      properties: {
        apiVersion: { description: API_VERSION_DESCRIPTION, type: "string" },
        kind: { description: KIND_DESCRIPTION, type: "string" },
        metadata: { $ref: metaDefinition(naming, "ObjectMeta"), description: "Standard object's metadata." },
      },
      "x-kubernetes-group-version-kind": gvkExtension(gvk),
    },
  };
}

/** A kind with a structural schema of its own (a custom resource's version). */
export function schemaKindDefinition(
  naming: Naming,
  name: string,
  gvk: GroupVersionKind,
  schema: StructuralSchema,
): Definition {
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = schema.properties ?? {};
  return {
    name,
    schema: {
      ...schema,
      type: "object",
      properties: {
        apiVersion: { description: API_VERSION_DESCRIPTION, type: "string" },
        kind: { description: KIND_DESCRIPTION, type: "string" },
        metadata: { $ref: metaDefinition(naming, "ObjectMeta"), description: "Standard object's metadata." },
        ...rest,
      },
      "x-kubernetes-group-version-kind": gvkExtension(gvk),
    },
  };
}

/** The schema of a list kind: items of the kind, with list metadata. */
export function listDefinition(
  naming: Naming,
  name: string,
  itemDefinition: string,
  gvk: GroupVersionKind,
): Definition {
  return {
    name,
    schema: {
      description: `${gvk.kind} is a list of ${itemDefinition.split(".").pop()}.`,
      type: "object",
      required: ["items"],
      properties: {
        apiVersion: { description: API_VERSION_DESCRIPTION, type: "string" },
        items: { description: "List of objects.", type: "array", items: { $ref: itemDefinition } },
        kind: { description: KIND_DESCRIPTION, type: "string" },
        metadata: { $ref: metaDefinition(naming, "ListMeta"), description: "Standard list metadata." },
      },
      "x-kubernetes-group-version-kind": gvkExtension(gvk),
    },
  };
}

/** Renders neutral `$ref` values (bare definition names) into a document's reference form. */
export function renderSchema(schema: SchemaObject, format: "v2" | "v3"): SchemaObject {
  return renderValue(schema, format) as SchemaObject;
}

function renderValue(value: unknown, format: "v2" | "v3", propertyMap = false): unknown {
  if (Array.isArray(value)) return value.map((v) => renderValue(v, format));
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const ref = !propertyMap && typeof object.$ref === "string" ? object.$ref : undefined;
  for (const [key, v] of Object.entries(object)) {
    if (key === "$ref" && !propertyMap) continue;
    // Extension values are data, not schemas; in a `properties` map every key names a schema
    // (a CRD schema's `x-kubernetes-validations` field is one).
    if (propertyMap) out[key] = renderValue(v, format);
    else if (key.startsWith("x-")) out[key] = v;
    else out[key] = renderValue(v, format, key === "properties");
  }
  if (ref === undefined) return out;
  if (format === "v2") return { $ref: `#/definitions/${ref}`, ...out };
  const target = `#/components/schemas/${ref}`;
  // OpenAPI 3.0 ignores the siblings of a $ref, so a described reference is wrapped in allOf.
  return Object.keys(out).length === 0 ? { $ref: target } : { allOf: [{ $ref: target }], ...out };
}

/** The definition names a schema refers to. */
export function schemaReferences(schema: SchemaObject): string[] {
  const refs: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (value === null || typeof value !== "object") return;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key === "$ref" && typeof v === "string") refs.push(v);
      else if (key === "properties" && v && typeof v === "object") for (const p of Object.values(v)) visit(p);
      else if (!key.startsWith("x-")) visit(v);
    }
  };
  visit(schema);
  return refs;
}
