// Checks of an object's metadata with upstream's field paths and detail texts, and the tree of
// ObjectMeta's JSON fields. `validateObjectMeta`/`validateObjectMetaUpdate` are the generic
// checks every kind gets; the built-in strategies add only what their kinds add on top.

import {
  asArray,
  asObject,
  asString,
  childPath,
  indexPath,
  type JsonObject,
  jsonEqual,
} from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import type { KnownFields } from "../registry/strategy.ts";
import {
  byteLength,
  isAnnotationsSizeValid,
  isQualifiedName,
  isValidLabelValue,
  type NameRule,
  TOTAL_ANNOTATION_SIZE_LIMIT,
  validateName,
} from "./names.ts";

export const FIELD_IMMUTABLE = "field is immutable";
export const FINALIZER_ORPHAN_DEPENDENTS = "orphan";
export const FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion";
const FIELD_MANAGER_MAX_LENGTH = 128;
const MAX_SUBRESOURCE_NAME_LENGTH = 256;

/** ObjectMeta's JSON fields (meta/v1), for unknown-field detection. */
export const OBJECT_META_FIELDS: KnownFields = {
  name: true,
  generateName: true,
  namespace: true,
  selfLink: true,
  uid: true,
  resourceVersion: true,
  generation: true,
  creationTimestamp: true,
  deletionTimestamp: true,
  deletionGracePeriodSeconds: true,
  labels: { "*": true },
  annotations: { "*": true },
  ownerReferences: {
    "[]": { apiVersion: true, kind: true, name: true, uid: true, controller: true, blockOwnerDeletion: true },
  },
  finalizers: true,
  managedFields: {
    "[]": {
      manager: true,
      operation: true,
      apiVersion: true,
      time: true,
      fieldsType: true,
      fieldsV1: true,
      subresource: true,
    },
  },
};

export interface ObjectMetaRules {
  readonly namespaced: boolean;
  readonly nameRule: NameRule;
}

/** Metadata checks on create (name generation already done), in upstream's order. */
export function validateObjectMeta(meta: unknown, rules: ObjectMetaRules, path = "metadata"): FieldError[] {
  const m = asObject(meta) ?? {};
  const errs: FieldError[] = [];
  const generateName = asString(m.generateName);
  if (generateName !== "") {
    for (const msg of validateName(rules.nameRule, generateName, true)) {
      errs.push(field.invalid(childPath(path, "generateName"), generateName, msg));
    }
  }
  const name = asString(m.name);
  if (name === "") {
    errs.push(field.required(childPath(path, "name"), "name or generateName is required"));
  } else {
    for (const msg of validateName(rules.nameRule, name))
      errs.push(field.invalid(childPath(path, "name"), name, msg));
  }
  const namespace = asString(m.namespace);
  if (rules.namespaced) {
    if (namespace === "") errs.push(field.required(childPath(path, "namespace")));
    else {
      for (const msg of validateName("dns-label", namespace)) {
        errs.push(field.invalid(childPath(path, "namespace"), namespace, msg));
      }
    }
  } else if (namespace !== "") {
    errs.push(field.forbidden(childPath(path, "namespace"), "not allowed on this type"));
  }
  if (typeof m.generation === "number" && m.generation < 0) {
    errs.push(
      field.invalid(childPath(path, "generation"), m.generation, "must be greater than or equal to 0"),
    );
  }
  errs.push(...validateLabels(m.labels, childPath(path, "labels")));
  errs.push(...validateAnnotations(m.annotations, childPath(path, "annotations")));
  errs.push(...validateOwnerReferences(m.ownerReferences, childPath(path, "ownerReferences")));
  errs.push(...validateFinalizers(m.finalizers, childPath(path, "finalizers")));
  errs.push(...validateManagedFields(m.managedFields, childPath(path, "managedFields")));
  return errs;
}

export interface ObjectMetaUpdateOptions {
  /**
   * Refuse an update without metadata.resourceVersion (default true). Upstream fills it in for
   * unconditional updates before validating, so callers that validate earlier turn this off.
   */
  readonly requireResourceVersion?: boolean;
}

/**
 * What upstream does to an update's metadata before any check: generation stays the old one, an
 * absent uid is the old one, creationTimestamp and a set deletionTimestamp cannot change, and an
 * absent deletionGracePeriodSeconds keeps the old value. Call before validateObjectMetaUpdate.
 */
export function carryOverMetadata(meta: JsonObject, oldMeta: unknown): void {
  const old = asObject(oldMeta) ?? {};
  if (old.generation === undefined) delete meta.generation;
  else meta.generation = old.generation;
  if (asString(meta.uid) === "" && old.uid !== undefined) meta.uid = old.uid;
  if (asString(old.creationTimestamp) !== "") meta.creationTimestamp = old.creationTimestamp;
  if (asString(old.deletionTimestamp) !== "") meta.deletionTimestamp = old.deletionTimestamp;
  const grace = old.deletionGracePeriodSeconds;
  if (grace !== undefined && grace !== null && (meta.deletionGracePeriodSeconds ?? null) === null) {
    meta.deletionGracePeriodSeconds = grace;
  }
}

/** Metadata checks on update, in upstream's order. */
export function validateObjectMetaUpdate(
  meta: unknown,
  oldMeta: unknown,
  options: ObjectMetaUpdateOptions = {},
  path = "metadata",
): FieldError[] {
  const m = asObject(meta) ?? {};
  const old = asObject(oldMeta) ?? {};
  const errs: FieldError[] = [];
  if (old.deletionTimestamp !== undefined && old.deletionTimestamp !== null) {
    errs.push(...validateNoNewFinalizers(m.finalizers, old.finalizers, childPath(path, "finalizers")));
  }
  if ((options.requireResourceVersion ?? true) && asString(m.resourceVersion) === "") {
    errs.push(field.invalid(childPath(path, "resourceVersion"), "", "must be specified for an update"));
  }
  const generation = typeof m.generation === "number" ? m.generation : 0;
  const oldGeneration = typeof old.generation === "number" ? old.generation : 0;
  if (generation < oldGeneration) {
    errs.push(field.invalid(childPath(path, "generation"), generation, "must not be decremented"));
  }
  for (const key of ["name", "namespace", "uid"]) {
    const now = asString(m[key]);
    if (now !== asString(old[key])) errs.push(field.invalid(childPath(path, key), now, FIELD_IMMUTABLE));
  }
  for (const key of ["creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"]) {
    const now = m[key] ?? null;
    if (!jsonEqual(now, old[key] ?? null))
      errs.push(field.invalid(childPath(path, key), now, FIELD_IMMUTABLE));
  }
  errs.push(...validateLabels(m.labels, childPath(path, "labels")));
  errs.push(...validateAnnotations(m.annotations, childPath(path, "annotations")));
  errs.push(...validateOwnerReferences(m.ownerReferences, childPath(path, "ownerReferences")));
  errs.push(...validateManagedFields(m.managedFields, childPath(path, "managedFields")));
  return errs;
}

/** Label keys must be qualified names and values valid label values; errors name the map. */
export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(asObject(labels) ?? {})) {
    errs.push(...validateLabelName(k, path));
    const value = asString(v);
    for (const msg of isValidLabelValue(value)) errs.push(field.invalid(path, value, msg));
  }
  return errs;
}

export function validateLabelName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((msg) => field.invalid(path, name, msg));
}

/** Annotation keys are qualified names in any case; all keys and values together ≤ 256 KiB. */
export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const map = asObject(annotations) ?? {};
  for (const k of Object.keys(map)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(field.invalid(path, k, msg));
  }
  if (!isAnnotationsSizeValid(map)) errs.push(field.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

export function validateOwnerReferences(ownerReferences: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const refs = asArray(ownerReferences);
  let firstController = "";
  for (const item of refs) {
    const ref = asObject(item) ?? {};
    errs.push(...validateOwnerReference(ref, path));
    if (ref.controller === true) {
      const current = `${asString(ref.kind)}/${asString(ref.name)}`;
      if (firstController !== "") {
        errs.push(
          field.invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

function validateOwnerReference(ref: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = asString(ref.apiVersion);
  const kind = asString(ref.kind);
  const gv = parseGroupVersion(apiVersion);
  if (gv.version === "") {
    errs.push(field.invalid(childPath(path, "apiVersion"), apiVersion, "version must not be empty"));
  }
  if (kind === "") errs.push(field.invalid(childPath(path, "kind"), kind, "kind must not be empty"));
  if (asString(ref.name) === "") {
    errs.push(field.invalid(childPath(path, "name"), asString(ref.name), "name must not be empty"));
  }
  if (asString(ref.uid) === "")
    errs.push(field.invalid(childPath(path, "uid"), asString(ref.uid), "uid must not be empty"));
  // Core Events may not own anything.
  if (gv.group === "" && gv.version === "v1" && kind === "Event") {
    errs.push(
      field.invalid(path, ref, `${gv.group}/${gv.version}, Kind=${kind} is disallowed from being an owner`),
    );
  }
  return errs;
}

/** Upstream's reading of an apiVersion; anything with two or more '/' yields nothing. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === "" || apiVersion === "/") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? "", version: parts[1] ?? "" };
  return { group: "", version: "" };
}

/** Each finalizer is a qualified name; `orphan` and `foregroundDeletion` exclude each other. */
export function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = asArray(finalizers).map(asString);
  for (const f of list) errs.push(...validateFinalizerName(f, path));
  if (list.includes(FINALIZER_ORPHAN_DEPENDENTS) && list.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errs.push(
      field.invalid(
        path,
        list,
        `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`,
      ),
    );
  }
  return errs;
}

export function validateFinalizerName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((msg) => field.invalid(path, name, msg));
}

/** The finalizer names the product itself defines; any other name needs a domain prefix. */
export function standardFinalizers(naming: Naming): readonly string[] {
  return [naming.productName, FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS];
}

/**
 * The core group's extra finalizer rule: a name without '/' must be a standard one (the product's
 * own namespace finalizer, `orphan` or `foregroundDeletion`).
 */
export function validateStandardFinalizerName(name: string, naming: Naming, path: string): FieldError[] {
  if (!name.includes("/") && !standardFinalizers(naming).includes(name)) {
    return [field.invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified")];
  }
  return [];
}

/** validateStandardFinalizerName over `metadata.finalizers[i]`. */
export function validateMetadataFinalizerNames(
  meta: unknown,
  naming: Naming,
  path = "metadata",
): FieldError[] {
  const finalizers = asArray(asObject(meta)?.finalizers);
  return finalizers.flatMap((f, i) =>
    validateStandardFinalizerName(asString(f), naming, indexPath(childPath(path, "finalizers"), i)),
  );
}

function validateNoNewFinalizers(finalizers: unknown, oldFinalizers: unknown, path: string): FieldError[] {
  const old = new Set(asArray(oldFinalizers).map(asString));
  const extra = [...new Set(asArray(finalizers).map(asString))].filter((f) => !old.has(f)).sort();
  if (extra.length === 0) return [];
  const goList = `[]string{${extra.map((f) => JSON.stringify(f)).join(", ")}}`;
  return [
    field.forbidden(
      path,
      `no new finalizers can be added if the object is being deleted, found new finalizers ${goList}`,
    ),
  ];
}

export function validateManagedFields(managedFields: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  asArray(managedFields).forEach((item, i) => {
    const entry = asObject(item) ?? {};
    const p = indexPath(path, i);
    const operation = asString(entry.operation);
    if (operation !== "Apply" && operation !== "Update") {
      errs.push(field.invalid(childPath(p, "operation"), operation, "must be `Apply` or `Update`"));
    }
    const fieldsType = asString(entry.fieldsType);
    if (fieldsType !== "" && fieldsType !== "FieldsV1") {
      errs.push(field.invalid(childPath(p, "fieldsType"), fieldsType, "must be `FieldsV1`"));
    }
    errs.push(...validateFieldManager(asString(entry.manager), childPath(p, "manager")));
    if (byteLength(asString(entry.subresource)) > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push(field.tooLong(childPath(p, "subresource"), MAX_SUBRESOURCE_NAME_LENGTH));
    }
  });
  return errs;
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** A field manager: at most 128 bytes, printable characters only. */
export function validateFieldManager(manager: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH)
    errs.push(field.tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of manager) {
    if (!printable.test(ch)) {
      const code = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
      errs.push(field.invalid(path, manager, `invalid character U+${code} (at position ${position})`));
    }
    position += byteLength(ch);
  }
  return errs;
}
