// Pods and PodTemplates. A Pod's spec is frozen once created, except for the few fields the
// scheduler, the kubelet and users are allowed to move: images, a shrinking deadline, added
// tolerations, removed scheduling gates and (for gated pods) tighter node constraints.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { validatePodSpec, validatePodTemplateSpec, validateTolerations } from "./pod-spec.ts";
import {
  arr,
  describeDiff,
  inclusiveRange,
  type Json,
  num,
  obj,
  objOrEmpty,
  semanticEqual,
  str,
} from "./util.ts";

const MAX_INT32 = 2147483647;

export const POD_UPDATE_FORBIDDEN =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

function podMetaName(object: Json): string {
  return str(objOrEmpty(object.metadata).name);
}

/** What create and update both check: the spec, and the pod-only rules on top of it. */
function validatePodCommon(errs: FieldError[], object: Json, naming: Naming): void {
  const spec = objOrEmpty(object.spec);
  const name = podMetaName(object);
  validatePodSpec(errs, spec, "spec", { naming, isPod: true, ...(name ? { podName: name } : {}) });
  if (str(spec.serviceAccountName) === "") {
    const volumes = arr(spec.volumes);
    for (let i = 0; i < volumes.length; i++) {
      const sources = arr(objOrEmpty(objOrEmpty(volumes[i]).projected).sources);
      for (let j = 0; j < sources.length; j++) {
        if (objOrEmpty(sources[j]).serviceAccountToken != null) {
          errs.push(
            field.forbidden(
              `spec.volumes[${i}].projected.sources[${j}].serviceAccountToken`,
              "must not be specified when serviceAccountName is not set",
            ),
          );
        }
      }
    }
  }
}

export function validatePod(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  validatePodCommon(errs, object, naming);
  const spec = objOrEmpty(object.spec);
  if (arr(spec.ephemeralContainers).length > 0)
    errs.push(field.forbidden("spec.ephemeralContainers", "cannot be set on create"));
  if (str(spec.nodeName) !== "" && arr(spec.schedulingGates).length > 0)
    errs.push(field.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"));
  return errs;
}

/** Same number of containers; images present and without surrounding blanks. Answers "stop". */
function validateContainerUpdates(
  errs: FieldError[],
  now: readonly unknown[],
  old: readonly unknown[],
  path: string,
): boolean {
  if (now.length !== old.length) {
    errs.push(field.forbidden(path, "pod updates may not add or remove containers"));
    return true;
  }
  for (let i = 0; i < now.length; i++) {
    const image = str(objOrEmpty(now[i]).image);
    if (image === "") errs.push(field.required(`${path}[${i}].image`));
    if (image.trim().length !== image.length)
      errs.push(field.invalid(`${path}[${i}].image`, image, "must not have leading or trailing whitespace"));
  }
  return false;
}

function withoutSeconds(t: unknown): Json {
  const { tolerationSeconds: _, ...rest } = objOrEmpty(t);
  return rest;
}

/** Existing tolerations stay (their tolerationSeconds may change); new ones may be added. */
function validateOnlyAddedTolerations(
  errs: FieldError[],
  now: readonly unknown[],
  old: readonly unknown[],
  path: string,
): void {
  for (const o of old) {
    const want = withoutSeconds(o);
    if (!now.some((n) => semanticEqual(withoutSeconds(n), want))) {
      errs.push(
        field.forbidden(path, "existing toleration can not be modified except its tolerationSeconds"),
      );
      return;
    }
  }
  validateTolerations(errs, now, path);
}

function validateOnlyDeletedSchedulingGates(
  errs: FieldError[],
  now: readonly unknown[],
  old: readonly unknown[],
  path: string,
): void {
  if (now.length === 0) return;
  const oldNames = new Set(old.map((g) => str(objOrEmpty(g).name)));
  const reported = new Set<string>();
  // The last position of a repeated name is the one reported, as upstream's map keeps it.
  const last = new Map<string, number>();
  now.forEach((g, i) => {
    last.set(str(objOrEmpty(g).name), i);
  });
  for (const [name, i] of last) {
    if (oldNames.has(name) || reported.has(name)) continue;
    reported.add(name);
    errs.push(
      field.forbidden(
        `${path}[${i}].name`,
        `only deletion is allowed, but found new scheduling gate '${name}'`,
      ),
    );
  }
}

function termHasOnlyAdditions(nowTerm: Json, oldTerm: Json): boolean {
  const oldExprs = arr(oldTerm.matchExpressions);
  const oldFields = arr(oldTerm.matchFields);
  const newExprs = arr(nowTerm.matchExpressions);
  const newFields = arr(nowTerm.matchFields);
  if (oldExprs.length === 0 && oldFields.length === 0 && (newExprs.length > 0 || newFields.length > 0))
    return false;
  if (oldExprs.length > 0) {
    if (newExprs.length < oldExprs.length) return false;
    if (!semanticEqual(newExprs.slice(0, oldExprs.length), oldExprs)) return false;
  }
  if (oldFields.length > 0) {
    if (newFields.length < oldFields.length) return false;
    if (!semanticEqual(newFields.slice(0, oldFields.length), oldFields)) return false;
  }
  return true;
}

function validateNodeAffinityMutation(
  errs: FieldError[],
  now: Json | undefined,
  old: Json | undefined,
  path: string,
): void {
  const oldRequired = obj(old?.requiredDuringSchedulingIgnoredDuringExecution);
  if (!oldRequired) return;
  const oldTerms = arr(oldRequired.nodeSelectorTerms);
  const newTerms = arr(obj(now?.requiredDuringSchedulingIgnoredDuringExecution)?.nodeSelectorTerms);
  const termsPath = `${path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
  if (oldTerms.length > 0 && oldTerms.length !== newTerms.length) {
    errs.push(
      field.invalid(
        termsPath,
        newTerms,
        "no additions/deletions to non-empty NodeSelectorTerms list are allowed",
      ),
    );
    return;
  }
  for (let i = 0; i < oldTerms.length; i++) {
    if (!termHasOnlyAdditions(objOrEmpty(newTerms[i]), objOrEmpty(oldTerms[i])))
      errs.push(
        field.invalid(
          `${termsPath}[${i}]`,
          newTerms[i],
          "only additions are allowed (no mutations or deletions)",
        ),
      );
  }
}

export function validatePodUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  validatePodCommon(errs, object, naming);
  const spec = objOrEmpty(object.spec);
  const oldSpec = objOrEmpty(old.spec);
  if (validateContainerUpdates(errs, arr(spec.containers), arr(oldSpec.containers), "spec.containers"))
    return errs;
  if (
    validateContainerUpdates(
      errs,
      arr(spec.initContainers),
      arr(oldSpec.initContainers),
      "spec.initContainers",
    )
  )
    return errs;

  const deadline = num(spec.activeDeadlineSeconds);
  const oldDeadline = num(oldSpec.activeDeadlineSeconds);
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > MAX_INT32) {
      errs.push(field.invalid("spec.activeDeadlineSeconds", deadline, inclusiveRange(0, MAX_INT32)));
      return errs;
    }
    if (oldDeadline !== undefined && oldDeadline < deadline) {
      errs.push(
        field.invalid("spec.activeDeadlineSeconds", deadline, "must be less than or equal to previous value"),
      );
      return errs;
    }
  } else if (oldDeadline !== undefined) {
    errs.push(
      field.invalid(
        "spec.activeDeadlineSeconds",
        null,
        "must not update from a positive integer to nil value",
      ),
    );
  }

  validateOnlyAddedTolerations(errs, arr(spec.tolerations), arr(oldSpec.tolerations), "spec.tolerations");
  validateOnlyDeletedSchedulingGates(
    errs,
    arr(spec.schedulingGates),
    arr(oldSpec.schedulingGates),
    "spec.schedulingGates",
  );

  if (semanticEqual(spec, oldSpec)) return errs;

  // The spec as it would be had only the updatable fields changed.
  const munged: Json = { ...spec };
  const oldContainers = arr(oldSpec.containers);
  munged.containers = arr(spec.containers).map((c, i) => ({
    ...objOrEmpty(c),
    image: objOrEmpty(oldContainers[i]).image,
  }));
  const oldInit = arr(oldSpec.initContainers);
  if (spec.initContainers !== undefined)
    munged.initContainers = arr(spec.initContainers).map((c, i) => ({
      ...objOrEmpty(c),
      image: objOrEmpty(oldInit[i]).image,
    }));
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.schedulingGates = oldSpec.schedulingGates;
  munged.tolerations = oldSpec.tolerations;
  const oldGrace = num(oldSpec.terminationGracePeriodSeconds);
  if (oldGrace !== undefined && oldGrace < 0 && num(spec.terminationGracePeriodSeconds) === 1)
    munged.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds;

  if (arr(oldSpec.schedulingGates).length > 0) {
    // A pod that is not scheduled yet may get tighter node constraints.
    if (!semanticEqual(munged.nodeSelector, oldSpec.nodeSelector)) {
      const now = objOrEmpty(munged.nodeSelector);
      const before = objOrEmpty(oldSpec.nodeSelector);
      for (const k in before) {
        if (now[k] !== before[k]) {
          errs.push(
            field.invalid(
              "spec.nodeSelector",
              munged.nodeSelector ?? null,
              "only additions to spec.nodeSelector are allowed (no mutations or deletions)",
            ),
          );
          break;
        }
      }
      munged.nodeSelector = oldSpec.nodeSelector;
    }
    const oldAffinity = obj(oldSpec.affinity);
    const mungedAffinity = obj(munged.affinity);
    const oldNodeAffinity = obj(oldAffinity?.nodeAffinity);
    const newNodeAffinity = obj(mungedAffinity?.nodeAffinity);
    if (!semanticEqual(oldNodeAffinity, newNodeAffinity)) {
      validateNodeAffinityMutation(errs, newNodeAffinity, oldNodeAffinity, "spec.affinity.nodeAffinity");
      if (!mungedAffinity) {
        if (oldNodeAffinity) munged.affinity = { nodeAffinity: oldNodeAffinity };
      } else if (
        !oldAffinity &&
        mungedAffinity.podAffinity == null &&
        mungedAffinity.podAntiAffinity == null
      ) {
        delete munged.affinity;
      } else {
        munged.affinity = { ...mungedAffinity, nodeAffinity: oldNodeAffinity };
      }
    }
  }

  if (!semanticEqual(munged, oldSpec)) {
    errs.push(field.forbidden("spec", `${POD_UPDATE_FORBIDDEN}\n${describeDiff(oldSpec, munged, "spec")}`));
  }
  return errs;
}

/**
 * An update through `pods/ephemeralcontainers` (which changes nothing else, see the strategy):
 * the pod must still be valid, and ephemeral containers already there are neither removed nor
 * changed (matched by name, since patches do not keep their order). Mirror pods have none.
 */
export function validatePodEphemeralContainersUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  validatePodCommon(errs, object, naming);
  const oldAnnotations = objOrEmpty(objOrEmpty(old.metadata).annotations);
  if (Object.hasOwn(oldAnnotations, naming.label("config.mirror")))
    return [field.forbidden("", "static pods do not support ephemeral containers")];
  const byName = new Map<string, unknown>();
  for (const c of arr(objOrEmpty(object.spec).ephemeralContainers)) byName.set(str(objOrEmpty(c).name), c);
  for (const before of arr(objOrEmpty(old.spec).ephemeralContainers)) {
    const name = str(objOrEmpty(before).name);
    const now = byName.get(name);
    if (now === undefined)
      errs.push(
        field.forbidden(
          "spec.ephemeralContainers",
          `existing ephemeral containers "${name}" may not be removed\n`,
        ),
      );
    else if (!semanticEqual(before, now))
      errs.push(
        field.forbidden(
          "spec.ephemeralContainers",
          `existing ephemeral containers "${name}" may not be changed\n${describeDiff(before, now, "")}`,
        ),
      );
  }
  return errs;
}

export function validatePodTemplate(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  validatePodTemplateSpec(errs, object.template, "template", { naming });
  return errs;
}
