// ConfigMap (core/v1): string data and binary data under config keys, 1 MiB in all, frozen
// once `immutable` is true.

import { asObject, type JsonObject, jsonEqual, keyPath } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import type { ResourceIdentity } from "../registry/errors.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import type { Strategy } from "../registry/strategy.ts";
import { byteLength, isConfigMapKey } from "../validation/names.ts";
import { OBJECT_META_FIELDS, validateMetadataFinalizerNames } from "../validation/object-meta.ts";
import { decodedLength, readBytesMap, readStringMap } from "./decode.ts";
import { ageColumn } from "./human-duration.ts";
import { ALL_VERBS, type BuiltinKind, CORE_V1, column } from "./kind.ts";

/** The most bytes a ConfigMap's or Secret's values may hold together. */
export const MAX_DATA_SIZE = 1024 * 1024;
export const IMMUTABLE_DETAIL = "field is immutable when `immutable` is set";

const IDENTITY: ResourceIdentity = { group: "", resource: "configmaps", kind: "ConfigMap" };

function dataErrors(object: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = asObject(object.data) ?? {};
  const binary = asObject(object.binaryData) ?? {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(field.invalid(keyPath("data", key), key, msg));
    if (Object.hasOwn(binary, key)) {
      errs.push(field.invalid(keyPath("data", key), key, "duplicate of key present in binaryData"));
    }
    total += typeof value === "string" ? byteLength(value) : 0;
  }
  for (const [key, value] of Object.entries(binary)) {
    for (const msg of isConfigMapKey(key)) errs.push(field.invalid(keyPath("binaryData", key), key, msg));
    total += decodedLength(value);
  }
  // The empty path: the limit concerns the whole object.
  if (total > MAX_DATA_SIZE) errs.push(field.tooLong("", MAX_DATA_SIZE));
  return errs;
}

/** Equality of two data maps, absent and empty counting alike. */
export function sameMap(a: unknown, b: unknown): boolean {
  return jsonEqual(asObject(a) ?? {}, asObject(b) ?? {});
}

export function configMapKind(naming: Naming): BuiltinKind {
  const read = (object: JsonObject) => {
    readStringMap(IDENTITY, object, "data");
    readBytesMap(IDENTITY, object, "binaryData");
  };
  const strategy: Strategy = {
    prepareForCreate: read,
    prepareForUpdate: read,
    validate(object) {
      return [...validateMetadataFinalizerNames(object.metadata, naming), ...dataErrors(object)];
    },
    validateUpdate(object, old) {
      const errs = validateMetadataFinalizerNames(object.metadata, naming);
      if (old.immutable === true) {
        if (object.immutable !== true) errs.push(field.forbidden("immutable", IMMUTABLE_DETAIL));
        if (!sameMap(object.data, old.data)) errs.push(field.forbidden("data", IMMUTABLE_DETAIL));
        if (!sameMap(object.binaryData, old.binaryData))
          errs.push(field.forbidden("binaryData", IMMUTABLE_DETAIL));
      }
      errs.push(...dataErrors(object));
      return errs;
    },
    fieldTypes: { immutable: "bool" },
    nameRule: "dns-subdomain",
    knownFields: {
      apiVersion: true,
      kind: true,
      metadata: OBJECT_META_FIELDS,
      immutable: true,
      data: { "*": true },
      binaryData: { "*": true },
    },
  };
  return {
    schema: {
      group: "",
      versions: CORE_V1,
      plural: "configmaps",
      singular: "configmap",
      kind: "ConfigMap",
      listKind: "ConfigMapList",
      shortNames: ["cm"],
      categories: [],
      namespaced: true,
      verbs: ALL_VERBS,
      subresources: [],
      allowCreateOnUpdate: false,
      tableColumns: [
        column(
          "Data",
          "Number of entries in data and binaryData.",
          (object) =>
            Object.keys(asObject(object.data) ?? {}).length +
            Object.keys(asObject(object.binaryData) ?? {}).length,
        ),
        ageColumn(),
      ],
    },
    strategy,
  };
}
