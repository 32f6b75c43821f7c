// The lifecycle of a CustomResourceDefinition object (apiextensions/v1), as upstream's registry
// strategy runs it:
// - create: v1 defaults, status cleared, storedVersions seeded with the storage version,
//   generation 1, then the full validation (crd-validation.ts);
// - update of the main resource: status kept from the stored object (plus the storage version
//   added to storedVersions when new), generation bumped when the spec changes, validation with
//   upstream's update rules (immutable group and plural; scope and kind once Established; rules
//   relaxed where the stored object already broke them);
// - status subresource: the spec is kept, only acceptedNames are checked;
// - delete (with the `cleanupFinalizer` option): the cleanup finalizer holds the object and
//   Terminating is set, so that a controller can remove the custom resources first.
import { asArray, asObject, asString, cloneJson, type JsonObject, jsonEqual } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import { copyAnyDepth } from "../registry/depth.ts";
import type { FieldError } from "../registry/field-error.ts";
import type { Strategy } from "../registry/strategy.ts";
import { setCrdCondition } from "./crd-status.ts";
import {
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionStatus,
  validateCustomResourceDefinitionUpdate,
} from "./crd-validation.ts";
import { defaultCustomResourceDefinition, storageVersionOf } from "./crd-view.ts";

export { crdStatus } from "./crd-status.ts";

/** The finalizer that holds a deleted CRD until its custom resources are gone. */
export function crdCleanupFinalizer(naming: Naming): string {
  return `customresourcecleanup.${naming.group("apiextensions")}`;
}

function metadata(object: JsonObject): JsonObject {
  const m = asObject(object.metadata);
  if (m) return m;
  const created: JsonObject = {};
  object.metadata = created;
  return created;
}

function addStoredVersion(crd: JsonObject): void {
  const storage = storageVersionOf(crd);
  if (!storage) return;
  const name = asString(storage.name);
  const status = asObject(crd.status) ?? {};
  const stored = asArray(status.storedVersions).map(asString);
  if (!stored.includes(name)) status.storedVersions = [...stored, name];
  crd.status = status;
}

function setCondition(crd: JsonObject, condition: JsonObject, now: string): void {
  const status = asObject(crd.status) ?? {};
  crd.status = status;
  const conditions = asArray(status.conditions).map((c) => asObject(c) ?? {});
  setCrdCondition(conditions, condition, now);
  status.conditions = conditions;
}

export interface CrdStrategyOptions {
  /**
   * Hold deleted definitions with the cleanup finalizer (and set Terminating) until a controller
   * has removed their custom resources and the finalizer, as upstream does. Off by default: without
   * that controller a deleted definition would never go.
   */
  readonly cleanupFinalizer?: boolean;
}

/**
 * Strategies for CustomResourceDefinition objects: `main` for the resource, `status` for the
 * status subresource. Generation is kept here (1 on create, +1 when the spec changes), so
 * `tracksGeneration` is off.
 */
export function crdStrategy(
  naming: Naming,
  options: CrdStrategyOptions = {},
): { main: Strategy; status: Strategy } {
  const finalizer = crdCleanupFinalizer(naming);
  // The registry calls `validate` on creates and updates of the main resource (and
  // `validateUpdate` on updates); upstream validates an update with rules of its own. The old
  // object seen by prepareForUpdate tells the two apart, so each write is validated once.
  const updating = new WeakMap<JsonObject, JsonObject>();
  const validated = new WeakSet<JsonObject>();

  const deletionHooks: Pick<Strategy, "pendingFinalizers" | "prepareForDelete"> = {
    pendingFinalizers(object) {
      const finalizers = asArray(metadata(object).finalizers).map(asString);
      // Before deletion starts the cleanup finalizer is still to come; it then holds the object
      // until a controller removes it.
      if (asString(metadata(object).deletionTimestamp) !== "" || finalizers.includes(finalizer))
        return finalizers;
      return [...finalizers, finalizer];
    },
    prepareForDelete(object) {
      const m = metadata(object);
      const finalizers = asArray(m.finalizers).map(asString);
      if (!finalizers.includes(finalizer)) m.finalizers = [...finalizers, finalizer];
      setCondition(
        object,
        {
          type: "Terminating",
          status: "True",
          reason: "InstanceDeletionPending",
          message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        },
        asString(m.deletionTimestamp) || `${new Date().toISOString().slice(0, 19)}Z`,
      );
    },
  };

  const main: Strategy = {
    prepareForCreate(object) {
      defaultCustomResourceDefinition(object);
      object.status = {};
      addStoredVersion(object);
      metadata(object).generation = 1;
    },
    prepareForUpdate(object, old) {
      defaultCustomResourceDefinition(object);
      if (old.status === undefined) delete object.status;
      else object.status = cloneJson(old.status);
      const oldGeneration = asObject(old.metadata)?.generation;
      metadata(object).generation =
        (typeof oldGeneration === "number" ? oldGeneration : 0) + (jsonEqual(object.spec, old.spec) ? 0 : 1);
      addStoredVersion(object);
      updating.set(object, old);
    },
    validate(object): FieldError[] {
      const old = updating.get(object);
      if (!old) return validateCustomResourceDefinition(object, naming);
      validated.add(object);
      return validateCustomResourceDefinitionUpdate(object, old, naming);
    },
    validateUpdate(object, old): FieldError[] {
      if (validated.has(object)) return [];
      validated.add(object);
      return validateCustomResourceDefinitionUpdate(object, old, naming);
    },
    tracksGeneration: false,
    nameRule: "dns-subdomain",
    ...(options.cleanupFinalizer ? deletionHooks : {}),
  };

  const status: Strategy = {
    prepareForUpdate(object, old) {
      if (old.spec === undefined) delete object.spec;
      // A definition stored before the nesting limit may be too deep for cloneJson.
      else object.spec = copyAnyDepth(old.spec);
      defaultCustomResourceDefinition(object);
    },
    validateUpdate(object): FieldError[] {
      return validateCustomResourceDefinitionStatus(object);
    },
    tracksGeneration: false,
  };
  return { main, status };
}
