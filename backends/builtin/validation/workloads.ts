// The controllers that keep pods running: Deployment, ReplicaSet, StatefulSet, DaemonSet and
// ReplicationController. They share the selector/template rules; each adds its own strategy.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { regexError } from "../../validation/names.ts";
import { validateAnnotations } from "../../validation/object-meta.ts";
import { validateLabelMap } from "./fast.ts";
import { validatePodTemplateSpec } from "./pod-spec.ts";
import { isEmptySelector, selection, validateLabelSelector } from "./selectors.ts";
import {
  FIELD_IMMUTABLE,
  IS_NEGATIVE,
  type Json,
  nonNegative,
  num,
  obj,
  objOrEmpty,
  semanticEqual,
  size,
  str,
} from "./util.ts";

export const SELECTOR_MISMATCH = "`selector` does not match template `labels`";

const PERCENT = /^[0-9]+%$/;

/** An int-or-string that is a non-negative count or a percentage. */
export function validatePositiveIntOrPercent(errs: FieldError[], v: unknown, path: string): void {
  if (typeof v === "string") {
    if (!PERCENT.test(v))
      errs.push(
        field.invalid(
          path,
          v,
          regexError(
            "a valid percent string must be a numeric string followed by an ending '%'",
            "[0-9]+%",
            "1%",
            "93%",
          ),
        ),
      );
  } else if (typeof v === "number") {
    if (v < 0) errs.push(field.invalid(path, v, IS_NEGATIVE));
  }
}

/** The percentage of a valid percent string. */
function percentValue(v: unknown): number | undefined {
  return typeof v === "string" && PERCENT.test(v) ? Number(v.slice(0, -1)) : undefined;
}

/** The number an int-or-string stands for (a bad string reads as its integer, or 0). */
export function intOrPercentValue(v: unknown): number {
  const percent = percentValue(v);
  if (percent !== undefined) return percent;
  if (typeof v === "number") return v;
  if (typeof v === "string" && /^[+-]?[0-9]+$/.test(v)) return Number(v);
  return 0;
}

export function isNotMoreThan100Percent(errs: FieldError[], v: unknown, path: string): void {
  const percent = percentValue(v);
  if (percent !== undefined && percent > 100)
    errs.push(field.invalid(path, v, "must not be greater than 100%"));
}

function templateRestartPolicy(errs: FieldError[], template: Json, path: string, kind: string): void {
  const spec = objOrEmpty(template.spec);
  // Values outside the enum are the schema's; of its members, only Always suits a controller.
  const policy = str(spec.restartPolicy);
  if (policy === "OnFailure" || policy === "Never")
    errs.push(field.notSupported(`${path}.spec.restartPolicy`, policy, ["Always"]));
  if (spec.activeDeadlineSeconds != null)
    errs.push(
      field.forbidden(
        `${path}.spec.activeDeadlineSeconds`,
        `activeDeadlineSeconds in ${kind} is not Supported`,
      ),
    );
}

/** The selector/template part of Deployments and ReplicaSets. */
function validateReplicaSetLike(errs: FieldError[], spec: Json, naming: Naming): void {
  nonNegative(errs, spec.replicas, "spec.replicas");
  const selector = spec.selector;
  // An absent selector is the schema's `Required value` (the template then matches nothing).
  if (selector !== undefined && selector !== null) {
    validateLabelSelector(errs, selector, "spec.selector");
    if (isEmptySelector(selector))
      errs.push(field.invalid("spec.selector", selector, "empty selector is invalid for deployment"));
  }
  const sel = selection(selector);
  if (!sel.valid) {
    errs.push(field.invalid("spec.selector", selector ?? null, "invalid label selector"));
    return;
  }
  const template = objOrEmpty(spec.template);
  const labels = objOrEmpty(template.metadata).labels;
  if (!sel.everything && !sel.matches(labels))
    errs.push(field.invalid("spec.template.metadata.labels", labels ?? null, SELECTOR_MISMATCH));
  validatePodTemplateSpec(errs, template, "spec.template", { naming });
  templateRestartPolicy(errs, template, "spec.template", "ReplicaSet");
}

export function validateDeployment(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  validateReplicaSetLike(errs, spec, naming);
  const strategy = objOrEmpty(spec.strategy);
  const rollingUpdate = obj(strategy.rollingUpdate);
  const type = str(strategy.type);
  if (type === "Recreate" && rollingUpdate) {
    errs.push(
      field.forbidden(
        "spec.strategy.rollingUpdate",
        "may not be specified when strategy `type` is 'Recreate'",
      ),
    );
  } else if (type === "RollingUpdate" && rollingUpdate) {
    const p = "spec.strategy.rollingUpdate";
    validatePositiveIntOrPercent(errs, rollingUpdate.maxUnavailable, `${p}.maxUnavailable`);
    validatePositiveIntOrPercent(errs, rollingUpdate.maxSurge, `${p}.maxSurge`);
    if (
      intOrPercentValue(rollingUpdate.maxUnavailable) === 0 &&
      intOrPercentValue(rollingUpdate.maxSurge) === 0
    )
      errs.push(
        field.invalid(
          `${p}.maxUnavailable`,
          rollingUpdate.maxUnavailable ?? 0,
          "may not be 0 when `maxSurge` is 0",
        ),
      );
    isNotMoreThan100Percent(errs, rollingUpdate.maxUnavailable, `${p}.maxUnavailable`);
  }
  nonNegative(errs, spec.minReadySeconds, "spec.minReadySeconds");
  nonNegative(errs, spec.revisionHistoryLimit, "spec.revisionHistoryLimit");
  const deadline = num(spec.progressDeadlineSeconds);
  if (deadline !== undefined) {
    nonNegative(errs, deadline, "spec.progressDeadlineSeconds");
    if (deadline <= (num(spec.minReadySeconds) ?? 0))
      errs.push(
        field.invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"),
      );
  }
  return errs;
}

/** apps/v1 controllers may not change what they select. */
function selectorImmutable(errs: FieldError[], object: Json, old: Json): void {
  const now = objOrEmpty(object.spec).selector;
  if (!semanticEqual(now, objOrEmpty(old.spec).selector))
    errs.push(field.invalid("spec.selector", now ?? null, FIELD_IMMUTABLE));
}

export function validateDeploymentUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs = validateDeployment(object, naming);
  selectorImmutable(errs, object, old);
  return errs;
}

export function validateReplicaSet(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  nonNegative(errs, spec.replicas, "spec.replicas");
  nonNegative(errs, spec.minReadySeconds, "spec.minReadySeconds");
  // The replica count is checked once; drop it before the shared part checks it again.
  const { replicas: _, ...rest } = spec;
  validateReplicaSetLike(errs, rest, naming);
  return errs;
}

export function validateReplicaSetUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs = validateReplicaSet(object, naming);
  selectorImmutable(errs, object, old);
  return errs;
}

export function validateDaemonSet(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  const selector = spec.selector;
  validateLabelSelector(errs, selector, "spec.selector");
  const sel = selection(selector);
  const template = objOrEmpty(spec.template);
  const labels = objOrEmpty(template.metadata).labels;
  if (sel.valid && !sel.matches(labels))
    errs.push(field.invalid("spec.template.metadata.labels", labels ?? null, SELECTOR_MISMATCH));
  if (isEmptySelector(selector))
    errs.push(field.invalid("spec.selector", selector, "empty selector is invalid for daemonset"));
  validatePodTemplateSpec(errs, template, "spec.template", { naming });
  templateRestartPolicy(errs, template, "spec.template", "DaemonSet");
  nonNegative(errs, spec.minReadySeconds, "spec.minReadySeconds");
  const strategy = objOrEmpty(spec.updateStrategy);
  const rollingUpdate = obj(strategy.rollingUpdate);
  if (str(strategy.type) === "RollingUpdate" && rollingUpdate) {
    const p = "spec.updateStrategy.rollingUpdate";
    validatePositiveIntOrPercent(errs, rollingUpdate.maxUnavailable, `${p}.maxUnavailable`);
    validatePositiveIntOrPercent(errs, rollingUpdate.maxSurge, `${p}.maxSurge`);
    isNotMoreThan100Percent(errs, rollingUpdate.maxUnavailable, `${p}.maxUnavailable`);
    isNotMoreThan100Percent(errs, rollingUpdate.maxSurge, `${p}.maxSurge`);
    const hasUnavailable = intOrPercentValue(rollingUpdate.maxUnavailable) !== 0;
    const hasSurge = intOrPercentValue(rollingUpdate.maxSurge) !== 0;
    if (hasUnavailable && hasSurge)
      errs.push(
        field.invalid(
          `${p}.maxSurge`,
          rollingUpdate.maxSurge,
          "may not be set when maxUnavailable is non-zero",
        ),
      );
    else if (!hasUnavailable && !hasSurge)
      errs.push(field.required(`${p}.maxUnavailable`, "cannot be 0 when maxSurge is 0"));
  }
  nonNegative(errs, spec.revisionHistoryLimit, "spec.revisionHistoryLimit");
  return errs;
}

export function validateDaemonSetUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs = validateDaemonSet(object, naming);
  selectorImmutable(errs, object, old);
  return errs;
}

export const STATEFULSET_UPDATE_FORBIDDEN =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

export function validateStatefulSet(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  const strategy = objOrEmpty(spec.updateStrategy);
  const rollingUpdate = obj(strategy.rollingUpdate);
  if (str(strategy.type) === "OnDelete" && rollingUpdate) {
    errs.push(
      field.invalid(
        "spec.updateStrategy.rollingUpdate",
        rollingUpdate,
        "only allowed for updateStrategy 'RollingUpdate'",
      ),
    );
  } else if (str(strategy.type) === "RollingUpdate" && rollingUpdate) {
    nonNegative(errs, rollingUpdate.partition, "spec.updateStrategy.rollingUpdate.partition");
  }
  nonNegative(errs, spec.replicas, "spec.replicas");
  nonNegative(errs, spec.minReadySeconds, "spec.minReadySeconds");
  const ordinals = obj(spec.ordinals);
  if (ordinals) nonNegative(errs, ordinals.start, "spec.ordinals.start");
  const selector = spec.selector;
  // An absent selector is the schema's `Required value` (the template then matches nothing).
  if (selector !== undefined && selector !== null) {
    validateLabelSelector(errs, selector, "spec.selector");
    if (isEmptySelector(selector))
      errs.push(field.invalid("spec.selector", selector, "empty selector is invalid for statefulset"));
  }
  const sel = selection(selector);
  const template = objOrEmpty(spec.template);
  if (!sel.valid) {
    errs.push(field.invalid("spec.selector", selector ?? null, ""));
  } else {
    // StatefulSets check their template's labels only: the pod spec may mount claims that the
    // claim templates create, so upstream leaves the spec to pod creation.
    const meta = objOrEmpty(template.metadata);
    if (!sel.everything && !sel.matches(meta.labels))
      errs.push(field.invalid("spec.template.metadata.labels", meta.labels ?? null, SELECTOR_MISMATCH));
    if (meta.labels !== undefined) validateLabelMap(errs, meta.labels, "spec.template.labels");
    if (meta.annotations !== undefined)
      errs.push(...validateAnnotations(meta.annotations, "spec.template.annotations"));
  }
  const templateSpec = objOrEmpty(template.spec);
  const policy = str(templateSpec.restartPolicy);
  if (policy === "OnFailure" || policy === "Never")
    errs.push(field.notSupported("spec.template.spec.restartPolicy", policy, ["Always"]));
  if (templateSpec.activeDeadlineSeconds != null)
    errs.push(
      field.forbidden(
        "spec.template.spec.activeDeadlineSeconds",
        "activeDeadlineSeconds in StatefulSet is not Supported",
      ),
    );
  return errs;
}

const STATEFULSET_MUTABLE = [
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
];

export function validateStatefulSetUpdate(object: Json, old: Json): FieldError[] {
  const errs = validateStatefulSet(object);
  const now: Json = { ...objOrEmpty(object.spec) };
  const before: Json = { ...objOrEmpty(old.spec) };
  for (const key of STATEFULSET_MUTABLE) {
    delete now[key];
    delete before[key];
  }
  if (!semanticEqual(now, before)) errs.push(field.forbidden("spec", STATEFULSET_UPDATE_FORBIDDEN));
  return errs;
}

export function validateReplicationController(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  nonNegative(errs, spec.minReadySeconds, "spec.minReadySeconds");
  const selector = obj(spec.selector);
  if (size(selector) === 0) errs.push(field.required("spec.selector"));
  nonNegative(errs, spec.replicas, "spec.replicas");
  const template = obj(spec.template);
  if (!template) {
    errs.push(field.required("spec.template"));
    return errs;
  }
  if (selector && size(selector) > 0) {
    const labels = objOrEmpty(objOrEmpty(template.metadata).labels);
    for (const k in selector) {
      if (labels[k] !== selector[k]) {
        errs.push(
          field.invalid(
            "spec.template.metadata.labels",
            objOrEmpty(template.metadata).labels ?? null,
            SELECTOR_MISMATCH,
          ),
        );
        break;
      }
    }
  }
  validatePodTemplateSpec(errs, template, "spec.template", { naming });
  templateRestartPolicy(errs, template, "spec.template", "ReplicationController");
  return errs;
}
