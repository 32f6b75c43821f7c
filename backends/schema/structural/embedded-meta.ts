// Embedded resources (`x-kubernetes-embedded-resource`): their apiVersion, kind and metadata are
// checked and their metadata is cut down to ObjectMeta's fields, as upstream does for a RawExtension
// with TypeMeta and ObjectMeta inside a custom resource.
import { type FieldError, field } from "../../registry/field-error.ts";
import { pruneUnknownFields } from "../../registry/unknown-fields.ts";
import { maxLenError, regexError } from "../../validation/names.ts";
import { OBJECT_META_FIELDS, validateObjectMeta } from "../../validation/object-meta.ts";
import { isJsonObject } from "./json-value.ts";
import { childField } from "./path-stack.ts";

const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035Label = new RegExp(`^${DNS1035_LABEL_FMT}$`);

function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!dns1035Label.test(value))
    errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

function unmarshalError(value: unknown, where: string, type: string): string {
  return `json: cannot unmarshal ${goJsonKind(value)} into Go struct field ${where} of type ${type}`;
}

const RFC3339 = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$/;

// metav1.Time decodes itself: null, or an RFC 3339 string.
function timeError(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== "string")
    return `json: cannot unmarshal ${goJsonKind(value)} into Go value of type string`;
  if (RFC3339.test(value)) return undefined;
  return `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(value)} as "2006"`;
}

function int64Error(value: unknown, where: string): string | undefined {
  if (value === null) return undefined;
  if (typeof value === "number") {
    if (Number.isInteger(value) && Math.abs(value) < 2 ** 63) return undefined;
    return `json: cannot unmarshal number ${JSON.stringify(value)} into Go struct field ${where} of type int64`;
  }
  return unmarshalError(value, where, "int64");
}

function scalarError(
  value: unknown,
  where: string,
  type: string,
  want: "string" | "boolean",
): string | undefined {
  if (value === null || typeof value === want) return undefined;
  return unmarshalError(value, where, type);
}

type FieldCheck = (value: unknown) => string | undefined;

function mapOfStrings(where: string): FieldCheck {
  return (value) => {
    if (value === null) return undefined;
    if (!isJsonObject(value)) return unmarshalError(value, where, "map[string]string");
    for (const v of Object.values(value)) {
      const e = scalarError(v, where, "string", "string");
      if (e) return e;
    }
    return undefined;
  };
}

function listOf(where: string, listType: string, element: FieldCheck): FieldCheck {
  return (value) => {
    if (value === null) return undefined;
    if (!Array.isArray(value)) return unmarshalError(value, where, listType);
    for (const v of value) {
      const e = element(v);
      if (e) return e;
    }
    return undefined;
  };
}

function structOf(where: string, type: string, fields: Readonly<Record<string, FieldCheck>>): FieldCheck {
  return (value) => {
    if (value === null) return undefined;
    if (!isJsonObject(value)) return unmarshalError(value, where, type);
    for (const [k, v] of Object.entries(value)) {
      const check = fields[k];
      const e = check ? check(v) : undefined;
      if (e) return e;
    }
    return undefined;
  };
}

const str =
  (where: string, type = "string"): FieldCheck =>
  (v) =>
    scalarError(v, where, type, "string");
const bool =
  (where: string): FieldCheck =>
  (v) =>
    scalarError(v, where, "bool", "boolean");

const OWNER_REFERENCE = structOf("ObjectMeta.ownerReferences", "v1.OwnerReference", {
  apiVersion: str("OwnerReference.ownerReferences.apiVersion"),
  kind: str("OwnerReference.ownerReferences.kind"),
  name: str("OwnerReference.ownerReferences.name"),
  uid: str("OwnerReference.ownerReferences.uid", "types.UID"),
  controller: bool("OwnerReference.ownerReferences.controller"),
  blockOwnerDeletion: bool("OwnerReference.ownerReferences.blockOwnerDeletion"),
});

const MANAGED_FIELDS_ENTRY = structOf("ObjectMeta.managedFields", "v1.ManagedFieldsEntry", {
  manager: str("ManagedFieldsEntry.managedFields.manager"),
  operation: str("ManagedFieldsEntry.managedFields.operation", "v1.ManagedFieldsOperationType"),
  apiVersion: str("ManagedFieldsEntry.managedFields.apiVersion"),
  time: timeError,
  fieldsType: str("ManagedFieldsEntry.managedFields.fieldsType"),
  subresource: str("ManagedFieldsEntry.managedFields.subresource"),
});

const OBJECT_META_CHECKS: Readonly<Record<string, FieldCheck>> = {
  name: str("ObjectMeta.name"),
  generateName: str("ObjectMeta.generateName"),
  namespace: str("ObjectMeta.namespace"),
  selfLink: str("ObjectMeta.selfLink"),
  uid: str("ObjectMeta.uid", "types.UID"),
  resourceVersion: str("ObjectMeta.resourceVersion"),
  generation: (v) => int64Error(v, "ObjectMeta.generation"),
  creationTimestamp: timeError,
  deletionTimestamp: timeError,
  deletionGracePeriodSeconds: (v) => int64Error(v, "ObjectMeta.deletionGracePeriodSeconds"),
  labels: mapOfStrings("ObjectMeta.labels"),
  annotations: mapOfStrings("ObjectMeta.annotations"),
  ownerReferences: listOf("ObjectMeta.ownerReferences", "[]v1.OwnerReference", OWNER_REFERENCE),
  finalizers: listOf("ObjectMeta.finalizers", "[]string", str("ObjectMeta.finalizers")),
  managedFields: listOf("ObjectMeta.managedFields", "[]v1.ManagedFieldsEntry", MANAGED_FIELDS_ENTRY),
};

/** The error Go's decoder gives for this metadata as an ObjectMeta, or undefined if it decodes. */
export function objectMetaDecodeError(meta: unknown): string | undefined {
  if (meta === null) return undefined;
  if (!isJsonObject(meta))
    return `json: cannot unmarshal ${goJsonKind(meta)} into Go value of type v1.ObjectMeta`;
  for (const [k, v] of Object.entries(meta)) {
    const check = OBJECT_META_CHECKS[k];
    const e = check ? check(v) : undefined;
    if (e) return e;
  }
  return undefined;
}

/** Upstream's reading of an apiVersion: more than one '/' is an error. */
function groupVersionError(apiVersion: string): string | undefined {
  if (apiVersion === "" || apiVersion === "/") return undefined;
  return apiVersion.split("/").length > 2 ? `unexpected GroupVersion string: ${apiVersion}` : undefined;
}

/** Checks one embedded object (field paths in field.Path spelling below `path`). */
export function validateEmbeddedResource(x: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersionPath = childField(path, "apiVersion");
  const kindPath = childField(path, "kind");
  if (!Object.hasOwn(x, "apiVersion")) errs.push(field.required(apiVersionPath, "must not be empty"));
  if (!Object.hasOwn(x, "kind")) errs.push(field.required(kindPath, "must not be empty"));
  for (const key of Object.keys(x)) {
    const v = x[key];
    if (key === "apiVersion") {
      if (typeof v !== "string") errs.push(field.invalid(apiVersionPath, v, "must be a string"));
      else if (v === "") errs.push(field.invalid(apiVersionPath, v, "must not be empty"));
      else {
        const e = groupVersionError(v);
        if (e) errs.push(field.invalid(apiVersionPath, v, e));
      }
    } else if (key === "kind") {
      if (typeof v !== "string") errs.push(field.invalid(kindPath, v, "must be a string"));
      else if (v === "") errs.push(field.invalid(kindPath, v, "must not be empty"));
      else {
        const problems = isDNS1035Label(v.toLowerCase());
        if (problems.length > 0)
          errs.push(
            field.invalid(
              kindPath,
              v,
              `may have mixed case, but should otherwise match: ${problems.join(",")}`,
            ),
          );
      }
    } else if (key === "metadata") {
      const metaPath = childField(path, "metadata");
      const decodeError = objectMetaDecodeError(v);
      if (decodeError) {
        errs.push(field.invalid(metaPath, v, decodeError));
        continue;
      }
      const meta = isJsonObject(v) ? v : {};
      const name = typeof meta.name === "string" ? meta.name : "";
      const namespace = typeof meta.namespace === "string" ? meta.namespace : "";
      // Upstream fills a placeholder name: an embedded object need not have one.
      const checked = name === "" ? { ...meta, name: "fakename" } : meta;
      errs.push(
        ...validateObjectMeta(checked, { namespaced: namespace !== "", nameRule: "path-segment" }, metaPath),
      );
    }
  }
  return errs;
}

// ObjectMeta fields that vanish when empty after upstream's decode/encode round trip.
const DROPPED_WHEN_EMPTY = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

function isEmptyMetaValue(key: string, value: unknown): boolean {
  if (value === null || value === "") return true;
  if (key === "generation" && value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isJsonObject(value) && Object.keys(value).length === 0 && key !== "deletionGracePeriodSeconds";
}

/**
 * Cuts an embedded object's metadata down to ObjectMeta's fields and drops empty ones, as the
 * round trip through ObjectMeta does. Metadata that does not decode is left for validation.
 * `path` is the embedded object's field.Path; unknown paths are appended to `unknown`.
 */
export function coerceEmbeddedMetadata(x: Record<string, unknown>, path: string, unknown: string[]): void {
  const meta = x.metadata;
  if (!isJsonObject(meta) || objectMetaDecodeError(meta) !== undefined) return;
  unknown.push(...pruneUnknownFields(meta, OBJECT_META_FIELDS, childField(path, "metadata")));
  for (const key of Object.keys(meta)) {
    if (DROPPED_WHEN_EMPTY.has(key) && isEmptyMetaValue(key, meta[key])) delete meta[key];
  }
}
