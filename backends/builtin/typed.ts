// A built-in kind's TypedSchema from the catalog: Go-style type check, pruning, the kind's
// defaulters, and structural validation (enums, formats, required fields, list keys, integer
// ranges and quantities).
import { type Catalog, DecodeChecks, SchemaExpander } from "../catalog/index.ts";
import type { JsonObject, TypedSchema } from "../registry/strategy.ts";
import { compileSchema, type StructuralSchema } from "../schema/structural/index.ts";
import { compileGoForm } from "./go-form.ts";

const API_VERSION: StructuralSchema = {
  type: "string",
  description: "The group and version of the schema this object is written in, such as `apps/v1`.",
};
const KIND: StructuralSchema = {
  type: "string",
  description: "The object's type in CamelCase, such as `Deployment`; the endpoint implies it when left out.",
};

interface Derived {
  readonly expander: SchemaExpander;
  readonly decode: DecodeChecks;
  /** Whole-object schemas by type id, kept so a kind compiles once per catalog. */
  readonly kinds: Map<string, StructuralSchema>;
}

const derivedByCatalog = new WeakMap<Catalog, Derived>();

function derived(catalog: Catalog): Derived {
  let d = derivedByCatalog.get(catalog);
  if (!d) {
    d = { expander: new SchemaExpander(catalog), decode: new DecodeChecks(catalog), kinds: new Map() };
    derivedByCatalog.set(catalog, d);
  }
  return d;
}

/** The schema of a kind's whole object: its type plus apiVersion and kind. */
export function kindSchema(catalog: Catalog, typeId: string): StructuralSchema {
  const d = derived(catalog);
  let schema = d.kinds.get(typeId);
  if (!schema) {
    const type = d.expander.type(typeId);
    schema = { ...type, properties: { apiVersion: API_VERSION, kind: KIND, ...type.properties } };
    d.kinds.set(typeId, schema);
  }
  return schema;
}

export function catalogTypedSchema(
  catalog: Catalog,
  typeId: string,
  defaulter?: (value: unknown) => void,
): TypedSchema {
  const schema = compileSchema(kindSchema(catalog, typeId), { builtin: true });
  const decodeError = derived(catalog).decode.forType(typeId);
  const goForm = compileGoForm(catalog, typeId);
  return {
    decodeError,
    prune(object: JsonObject) {
      // The whole object is pruned by the kind's schema, metadata included (ObjectMeta's fields).
      const unknown = schema.prune(object, { root: false });
      schema.dropNulls(object);
      return unknown;
    },
    // Defaulting sees the object as upstream's Go decoding leaves it, and what it yields is
    // brought into the form upstream's Go encoding gives it, which is what is stored.
    default(object) {
      goForm.decoded(object);
      defaulter?.(object);
      goForm.encoded(object);
    },
    validate: (object) => schema.validate(object),
    validateUpdate: (object, old) => schema.validateUpdate(object, old),
  };
}
