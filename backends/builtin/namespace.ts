// Namespace (core/v1, cluster-scoped). The server owns status and spec.finalizers: a create
// starts Active with the product's own finalizer; updates of the main resource keep both, and
// only the `status` and `finalize` subresources change them. A label mirrors the name.

import {
  asArray,
  asObject,
  asString,
  childPath,
  cloneJson,
  ensureObject,
  indexPath,
  type JsonObject,
  metadataOf,
} from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import type { Strategy } from "../registry/strategy.ts";
import {
  OBJECT_META_FIELDS,
  validateFinalizerName,
  validateMetadataFinalizerNames,
  validateStandardFinalizerName,
} from "../validation/object-meta.ts";
import { ageColumn } from "./human-duration.ts";
import { type BuiltinKind, CORE_V1, column } from "./kind.ts";

export const NAMESPACE_ACTIVE = "Active";
export const NAMESPACE_TERMINATING = "Terminating";

const NAMESPACE_TYPES = {
  spec: "object",
  "spec.finalizers": "[]string",
  status: "object",
  "status.phase": "string",
  "status.conditions": "[]object",
} as const;

export function namespaceKind(naming: Naming): BuiltinKind {
  const nameLabel = naming.label("metadata.name");

  // The label always equals the name, whatever the request said.
  const setNameLabel = (object: JsonObject) => {
    const meta = ensureObject(object, "metadata");
    const name = asString(meta.name);
    if (name !== "") ensureObject(meta, "labels")[nameLabel] = name;
  };

  const specFinalizerErrors = (object: JsonObject, indexed: boolean): FieldError[] => {
    const path = "spec.finalizers";
    return asArray(asObject(object.spec)?.finalizers).flatMap((f, i) => {
      const p = indexed ? indexPath(path, i) : path;
      const name = asString(f);
      return [...validateFinalizerName(name, p), ...validateStandardFinalizerName(name, naming, p)];
    });
  };

  const copyFrom = (object: JsonObject, old: JsonObject, key: string) => {
    if (old[key] === undefined) delete object[key];
    else object[key] = cloneJson(old[key]);
  };

  const strategy: Strategy = {
    // A namespace is held by its own spec.finalizers (emptied by the namespace controller once
    // the content is gone) as well as by metadata.finalizers.
    pendingFinalizers(object) {
      return [
        ...asArray(asObject(object.spec)?.finalizers).map(asString),
        ...asArray(metadataOf(object).finalizers).map(asString),
      ];
    },
    prepareForDelete(object) {
      object.status = { ...(asObject(object.status) ?? {}), phase: NAMESPACE_TERMINATING };
    },
    prepareForCreate(object) {
      object.status = { phase: NAMESPACE_ACTIVE };
      const spec = ensureObject(object, "spec");
      const finalizers = asArray(spec.finalizers).map(asString);
      if (!finalizers.includes(naming.productName)) finalizers.push(naming.productName);
      spec.finalizers = finalizers;
      setNameLabel(object);
    },
    prepareForUpdate(object, old) {
      const spec = ensureObject(object, "spec");
      const oldFinalizers = asObject(old.spec)?.finalizers;
      if (oldFinalizers === undefined) delete spec.finalizers;
      else spec.finalizers = cloneJson(oldFinalizers);
      copyFrom(object, old, "status");
      setNameLabel(object);
    },
    validate(object) {
      return [
        ...validateMetadataFinalizerNames(object.metadata, naming),
        ...specFinalizerErrors(object, false),
      ];
    },
    validateUpdate(object) {
      return [
        ...validateMetadataFinalizerNames(object.metadata, naming),
        ...specFinalizerErrors(object, false),
      ];
    },
    returnDeletedObject: true,
    fieldTypes: NAMESPACE_TYPES,
    nameRule: "dns-label",
    knownFields: {
      apiVersion: true,
      kind: true,
      metadata: OBJECT_META_FIELDS,
      spec: { finalizers: true },
      status: {
        phase: true,
        conditions: {
          "[]": { type: true, status: true, lastTransitionTime: true, reason: true, message: true },
        },
      },
    },
  };

  const status: Strategy = {
    prepareForUpdate(object, old) {
      copyFrom(object, old, "spec");
      setNameLabel(object);
    },
    validateUpdate(object) {
      const errs = validateMetadataFinalizerNames(object.metadata, naming);
      const phase = asString(asObject(object.status)?.phase);
      const deleting = metadataOf(object).deletionTimestamp;
      if (deleting === undefined || deleting === null) {
        if (phase !== NAMESPACE_ACTIVE) {
          errs.push(
            field.invalid(
              childPath("status", "Phase"),
              phase,
              "may only be 'Active' if `deletionTimestamp` is empty",
            ),
          );
        }
      } else if (phase !== NAMESPACE_TERMINATING) {
        errs.push(
          field.invalid(
            childPath("status", "Phase"),
            phase,
            "may only be 'Terminating' if `deletionTimestamp` is not empty",
          ),
        );
      }
      return errs;
    },
    fieldTypes: NAMESPACE_TYPES,
    nameRule: "dns-label",
    knownFields: strategy.knownFields,
  };

  const finalize: Strategy = {
    prepareForUpdate(object, old) {
      copyFrom(object, old, "status");
      setNameLabel(object);
    },
    validateUpdate(object) {
      return [
        ...validateMetadataFinalizerNames(object.metadata, naming),
        ...specFinalizerErrors(object, true),
      ];
    },
    fieldTypes: NAMESPACE_TYPES,
    nameRule: "dns-label",
    knownFields: strategy.knownFields,
  };

  return {
    schema: {
      group: "",
      versions: CORE_V1,
      plural: "namespaces",
      singular: "namespace",
      kind: "Namespace",
      listKind: "NamespaceList",
      shortNames: ["ns"],
      categories: [],
      namespaced: false,
      // No deletecollection: namespaces are deleted one by one.
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      subresources: ["status", "finalize"],
      allowCreateOnUpdate: false,
      selectableFields: (object) => ({ "status.phase": asString(asObject(object.status)?.phase) }),
      tableColumns: [
        column("Status", "Whether the namespace is in use or being removed.", (object) =>
          asString(asObject(object.status)?.phase),
        ),
        ageColumn(),
      ],
    },
    strategy,
    subresourceStrategies: { status, finalize },
  };
}
