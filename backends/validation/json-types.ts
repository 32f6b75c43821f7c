// JSON value types of fields, checked before anything else: a value of the wrong type is always
// an error (400), worded as upstream's decoder words it.

export type GoType =
  | "string"
  | "bool"
  | "int64"
  | "int32"
  | "map[string]string"
  | "[]string"
  | "object"
  | "[]object";

/** Field types by dotted path below the object's root, e.g. `metadata.labels`. */
export type FieldTypes = Readonly<Record<string, GoType>>;

export const OBJECT_META_TYPES: FieldTypes = {
  metadata: "object",
  "metadata.name": "string",
  "metadata.generateName": "string",
  "metadata.namespace": "string",
  "metadata.uid": "string",
  "metadata.resourceVersion": "string",
  "metadata.generation": "int64",
  "metadata.creationTimestamp": "string",
  "metadata.deletionTimestamp": "string",
  "metadata.deletionGracePeriodSeconds": "int64",
  "metadata.labels": "map[string]string",
  "metadata.annotations": "map[string]string",
  "metadata.finalizers": "[]string",
  "metadata.ownerReferences": "[]object",
  "metadata.managedFields": "[]object",
  apiVersion: "string",
  kind: "string",
};

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

function fits(value: unknown, type: GoType): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "bool":
      return typeof value === "boolean";
    case "int64":
    case "int32":
      return typeof value === "number" && Number.isInteger(value);
    case "object":
      return typeof value === "object" && !Array.isArray(value);
    case "map[string]string":
      return (
        typeof value === "object" &&
        !Array.isArray(value) &&
        Object.values(value as object).every((v) => typeof v === "string" || v === null)
      );
    case "[]string":
      return Array.isArray(value) && value.every((v) => typeof v === "string");
    case "[]object":
      return (
        Array.isArray(value) && value.every((v) => typeof v === "object" && v !== null && !Array.isArray(v))
      );
  }
}

function lookup(object: Record<string, unknown>, path: string): unknown {
  let cur: unknown = object;
  for (const part of path.split(".")) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The first field whose value has the wrong type, as upstream's decoder message; undefined when all fit. */
export function typeMismatch(
  object: Record<string, unknown>,
  kind: string,
  types: FieldTypes,
): string | undefined {
  for (const [path, type] of Object.entries(types)) {
    const value = lookup(object, path);
    // null is "not set" for every field, as Go's decoder treats it.
    if (value === undefined || value === null || fits(value, type)) continue;
    const shown = Array.isArray(value) ? "array" : typeof value === "object" ? "object" : jsonKind(value);
    return `json: cannot unmarshal ${shown} into Go struct field ${kind}.${path} of type ${type}`;
  }
  return undefined;
}
