// Definitions of built-in kinds from the catalog, one per named type as upstream publishes them
// (`io.k8s.api.apps.v1.DeploymentSpec`), so `kubectl explain` shows field types by name and the
// documents stay small: a type shared by many kinds (PodSpec) is written once per document.
import {
  builtinCatalog,
  type Catalog,
  type FieldSpec,
  type ParsedRef,
  packageGroup,
  parseRef,
} from "../../backends/catalog/index.ts";
import type { Naming } from "../../backends/naming/index.ts";
import { API_VERSION_DESCRIPTION, KIND_DESCRIPTION } from "./definitions.ts";
import type { Definition, GroupVersionKind, SchemaObject } from "./model.ts";
import { definitionRoot, metaDefinition, preferredDefinitionPrefix } from "./names.ts";

type Writable = Record<string, unknown>;

const API_VERSION_PROPERTY = { description: API_VERSION_DESCRIPTION, type: "string" };
const KIND_PROPERTY = { description: KIND_DESCRIPTION, type: "string" };

/** Upstream's shared value types, published as definitions of their own. */
function specialDefinitions(naming: Naming): Record<string, { name: string; schema: SchemaObject }> {
  const root = definitionRoot(naming);
  return {
    quantity: {
      name: `${root}.apimachinery.pkg.api.resource.Quantity`,
      schema: {
        description:
          "An amount with an optional unit suffix: decimal (k, M, G, T, P, E), binary (Ki, Mi, Gi, Ti, Pi, Ei) or milli (m), e.g. `500m` or `2Gi`.",
        type: "string",
      },
    },
    intOrString: {
      name: `${root}.apimachinery.pkg.util.intstr.IntOrString`,
      schema: { description: "Either an integer or a string.", type: "string", format: "int-or-string" },
    },
    time: {
      name: metaDefinition(naming, "Time"),
      schema: {
        description: "A point in time, written in RFC 3339 form in UTC.",
        type: "string",
        format: "date-time",
      },
    },
    microTime: {
      name: metaDefinition(naming, "MicroTime"),
      schema: {
        description: "A point in time with microsecond precision, in RFC 3339 form.",
        type: "string",
        format: "date-time",
      },
    },
    fieldsV1: {
      name: metaDefinition(naming, "FieldsV1"),
      schema: { description: "A set of fields, in the managed-fields encoding.", type: "object" },
    },
    rawExtension: {
      name: `${root}.apimachinery.pkg.runtime.RawExtension`,
      schema: { description: "An embedded object of any kind, kept as written.", type: "object" },
    },
  };
}

const SCALARS: Readonly<Record<string, SchemaObject>> = {
  string: { type: "string" },
  bool: { type: "boolean" },
  int32: { type: "integer", format: "int32" },
  int64: { type: "integer", format: "int64" },
  double: { type: "number", format: "double" },
  bytes: { type: "string", format: "byte" },
  duration: { type: "string" },
  json: {},
};

/** The definition name of a catalog type under a naming preset. */
export function catalogDefinitionName(naming: Naming, packageId: string, name: string): string {
  const g = packageGroup(packageId);
  if (g.prefix === "meta") return metaDefinition(naming, name);
  const group = g.domain ? naming.group(g.prefix) : g.prefix;
  return `${preferredDefinitionPrefix(naming, group, g.version)}.${name}`;
}

class Writer {
  readonly out = new Map<string, SchemaObject>();
  readonly #naming: Naming;
  readonly #catalog: Catalog;
  readonly #special: ReturnType<typeof specialDefinitions>;

  constructor(naming: Naming, catalog: Catalog) {
    this.#naming = naming;
    this.#catalog = catalog;
    this.#special = specialDefinitions(naming);
  }

  /** Writes a type's definition (and what it refers to); returns its name. */
  type(id: string): string {
    const t = this.#catalog.mustType(id);
    const name = catalogDefinitionName(this.#naming, t.packageId, t.name);
    if (this.out.has(name)) return name;
    // Reserve the name first: a type may refer back to itself.
    this.out.set(name, {});
    let schema: Writable;
    if (t.spec.jsonAs) {
      schema = { description: t.spec.description, ...this.#ref(parseRef(t.packageId, t.spec.jsonAs)) };
    } else {
      const properties: Writable = {};
      const required: string[] = [];
      this.#fields(t.packageId, t.spec.fields, properties, required);
      schema = { description: t.spec.description, type: "object", properties };
      if (required.length > 0) schema.required = required.sort();
      if (t.spec.structType) schema["x-kubernetes-map-type"] = t.spec.structType;
    }
    this.out.set(name, schema);
    return name;
  }

  #fields(
    packageId: string,
    fields: Readonly<Record<string, FieldSpec>>,
    properties: Writable,
    required: string[],
  ): void {
    for (const [key, field] of Object.entries(fields)) {
      const ref = parseRef(packageId, field.type);
      if (field.inline && ref.kind === "type") {
        const inner = this.#catalog.mustType(ref.id);
        this.#fields(inner.packageId, inner.spec.fields, properties, required);
        continue;
      }
      const p: Writable = { description: field.description, ...this.#ref(ref) };
      if (field.enum) {
        if (ref.kind === "list") p.items = { ...(p.items as Writable), enum: field.enum };
        else p.enum = field.enum;
      }
      if (field.listType) p["x-kubernetes-list-type"] = field.listType;
      if (field.listMapKeys) p["x-kubernetes-list-map-keys"] = field.listMapKeys;
      if (field.mapType ?? field.structType) p["x-kubernetes-map-type"] = field.mapType ?? field.structType;
      if (field.patchStrategy) p["x-kubernetes-patch-strategy"] = field.patchStrategy;
      if (field.patchMergeKey) p["x-kubernetes-patch-merge-key"] = field.patchMergeKey;
      properties[key] = p;
      if (field.required) required.push(key);
    }
  }

  #ref(ref: ParsedRef): Writable {
    switch (ref.kind) {
      case "scalar": {
        const special = this.#special[ref.scalar as keyof ReturnType<typeof specialDefinitions>];
        if (special) {
          this.out.set(special.name, special.schema);
          return { $ref: special.name };
        }
        return { ...SCALARS[ref.scalar] };
      }
      case "list":
        return { type: "array", items: this.#ref(ref.of) };
      case "map":
        return { type: "object", additionalProperties: this.#ref(ref.of) };
      case "type":
        return { $ref: this.type(ref.id) };
    }
  }
}

/**
 * The definitions of a built-in kind at one version: the kind itself (named `kindName`, with
 * apiVersion, kind and the group-version-kind extension) and every type it reaches.
 */
export function catalogKindDefinitions(
  naming: Naming,
  catalogType: string,
  kindName: string,
  gvk: GroupVersionKind,
  catalog: Catalog = builtinCatalog(),
): Definition[] {
  const writer = new Writer(naming, catalog);
  const written = writer.type(catalogType);
  const root = writer.out.get(written) as Writable;
  writer.out.delete(written);
  writer.out.set(kindName, {
    ...root,
    properties: { apiVersion: API_VERSION_PROPERTY, kind: KIND_PROPERTY, ...(root.properties as Writable) },
    "x-kubernetes-group-version-kind": [{ group: gvk.group, kind: gvk.kind, version: gvk.version }],
  });
  return [...writer.out].map(([name, schema]) => ({ name, schema }));
}
