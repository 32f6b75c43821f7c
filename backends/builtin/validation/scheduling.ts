// Kinds that steer scheduling and scaling: PodDisruptionBudget, HorizontalPodAutoscaler,
// PriorityClass and RuntimeClass.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { isValidPathSegmentName } from "../../validation/names.ts";
import { validateLabelMap } from "./fast.ts";
import { validateTolerations } from "./pod-spec.ts";
import {
  quantityOf,
  sign,
  validateContainerResourceName,
  validateResourceRequirements,
} from "./resources.ts";
import { validateLabelSelector } from "./selectors.ts";
import {
  arr,
  dnsLabel,
  immutable,
  type Json,
  num,
  obj,
  objOrEmpty,
  requiredIfPresent,
  semanticEqual,
  str,
} from "./util.ts";
import { isNotMoreThan100Percent, validatePositiveIntOrPercent } from "./workloads.ts";

// ---- PodDisruptionBudget ----------------------------------------------------------------------

export function validatePodDisruptionBudget(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  if (spec.minAvailable != null && spec.maxUnavailable != null)
    errs.push(field.invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  for (const key of ["minAvailable", "maxUnavailable"] as const) {
    if (spec[key] == null) continue;
    validatePositiveIntOrPercent(errs, spec[key], `spec.${key}`);
    isNotMoreThan100Percent(errs, spec[key], `spec.${key}`);
  }
  validateLabelSelector(errs, spec.selector, "spec.selector");
  // unhealthyPodEvictionPolicy is an enum the schema checks.
  return errs;
}

// ---- HorizontalPodAutoscaler ------------------------------------------------------------------

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const METRIC_SOURCES: Readonly<Record<string, string>> = {
  Object: "object",
  Pods: "pods",
  Resource: "resource",
  ContainerResource: "containerResource",
  External: "external",
};
const SELECT_POLICIES = ["Disabled", "Max", "Min"];
const SCALING_POLICY_TYPES = ["Percent", "Pods"];

function validateCrossVersionObjectReference(errs: FieldError[], ref: Json, path: string): void {
  for (const key of ["kind", "name"] as const) {
    const value = str(ref[key]);
    if (value === "") requiredIfPresent(errs, ref[key], `${path}.${key}`);
    else
      for (const msg of isValidPathSegmentName(value)) errs.push(field.invalid(`${path}.${key}`, value, msg));
  }
}

function validateMetricTarget(errs: FieldError[], target: Json, path: string): void {
  const type = str(target.type);
  if (target.type !== undefined) {
    if (type === "") errs.push(field.required(`${path}.type`, "must specify a metric target type"));
    if (type !== "Utilization" && type !== "Value" && type !== "AverageValue")
      errs.push(field.invalid(`${path}.type`, type, "must be either Utilization, Value, or AverageValue"));
  }
  for (const key of ["value", "averageValue"] as const) {
    const q = quantityOf(target[key]);
    if (q && sign(q) !== 1) errs.push(field.invalid(`${path}.${key}`, target[key], "must be positive"));
  }
  const utilization = num(target.averageUtilization);
  if (utilization !== undefined && utilization < 1)
    errs.push(field.invalid(`${path}.averageUtilization`, utilization, "must be greater than 0"));
}

function validateMetricIdentifier(errs: FieldError[], id: Json, path: string): void {
  if (str(id.name) === "") requiredIfPresent(errs, id.name, `${path}.name`, "must specify a metric name");
  else
    for (const msg of isValidPathSegmentName(str(id.name)))
      errs.push(field.invalid(`${path}.name`, str(id.name), msg));
  if (id.selector != null) validateLabelSelector(errs, id.selector, `${path}.selector`);
}

function validateResourceMetric(errs: FieldError[], src: Json, path: string, naming: Naming): void {
  const name = str(src.name);
  if (name === "") requiredIfPresent(errs, src.name, `${path}.name`, "must specify a resource name");
  else validateContainerResourceName(errs, name, `${path}.name`, naming);
  // An absent target is the schema's `Required value`; its parts are checked once present.
  if (src.target === undefined) return;
  const target = objOrEmpty(src.target);
  validateMetricTarget(errs, target, `${path}.target`);
  if (target.averageUtilization == null && target.averageValue == null)
    errs.push(
      field.required(
        `${path}.target.averageUtilization`,
        "must set either a target raw value or a target utilization",
      ),
    );
  if (target.averageUtilization != null && target.averageValue != null)
    errs.push(
      field.forbidden(
        `${path}.target.averageValue`,
        "may not set both a target raw value and a target utilization",
      ),
    );
}

function validateMetricSpec(errs: FieldError[], metric: Json, path: string, naming: Naming): void {
  const type = str(metric.type);
  if (type === "") requiredIfPresent(errs, metric.type, `${path}.type`, "must specify a metric source type");
  const present: string[] = [];
  for (const source of Object.values(METRIC_SOURCES)) if (metric[source] != null) present.push(source);
  const first = present[0];
  if (first !== undefined && present.length >= 1) {
    const src = objOrEmpty(metric[first]);
    const p = `${path}.${first}`;
    switch (first) {
      case "object":
        validateCrossVersionObjectReference(errs, objOrEmpty(src.describedObject), `${p}.describedObject`);
        validateMetricIdentifier(errs, objOrEmpty(src.metric), `${p}.metric`);
        if (src.target === undefined) break;
        validateMetricTarget(errs, objOrEmpty(src.target), `${p}.target`);
        if (objOrEmpty(src.target).value == null && objOrEmpty(src.target).averageValue == null)
          errs.push(
            field.required(`${p}.target.averageValue`, "must set either a target value or averageValue"),
          );
        break;
      case "pods":
        validateMetricIdentifier(errs, objOrEmpty(src.metric), `${p}.metric`);
        if (src.target === undefined) break;
        validateMetricTarget(errs, objOrEmpty(src.target), `${p}.target`);
        if (objOrEmpty(src.target).averageValue == null)
          errs.push(
            field.required(`${p}.target.averageValue`, "must specify a positive target averageValue"),
          );
        break;
      case "external":
        validateMetricIdentifier(errs, objOrEmpty(src.metric), `${p}.metric`);
        if (src.target === undefined) break;
        validateMetricTarget(errs, objOrEmpty(src.target), `${p}.target`);
        if (objOrEmpty(src.target).value == null && objOrEmpty(src.target).averageValue == null)
          errs.push(
            field.required(
              `${p}.target.averageValue`,
              "must set either a target value for metric or a per-pod target",
            ),
          );
        if (objOrEmpty(src.target).value != null && objOrEmpty(src.target).averageValue != null)
          errs.push(
            field.forbidden(
              `${p}.target.value`,
              "may not set both a target value for metric and a per-pod target",
            ),
          );
        break;
      case "resource":
        validateResourceMetric(errs, src, p, naming);
        break;
      case "containerResource":
        validateResourceMetric(errs, src, p, naming);
        if (str(src.container) === "")
          requiredIfPresent(errs, src.container, `${p}.container`, "must specify a container");
        else dnsLabel(errs, str(src.container), `${p}.container`);
        break;
    }
  }
  const expected = METRIC_SOURCES[type];
  if (expected !== undefined && !present.includes(expected))
    errs.push(field.required(`${path}.${expected}`, "must populate information for the given metric source"));
  if (present.length !== 1) {
    for (const source of present) {
      if (source !== expected)
        errs.push(field.forbidden(`${path}.${source}`, "must populate the given metric source only"));
    }
  }
}

function validateScalingRules(errs: FieldError[], rules: Json, path: string): void {
  const window = num(rules.stabilizationWindowSeconds);
  if (window !== undefined && window < 0)
    errs.push(
      field.invalid(`${path}.stabilizationWindowSeconds`, window, "must be greater than or equal to zero"),
    );
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS)
    errs.push(
      field.invalid(
        `${path}.stabilizationWindowSeconds`,
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  if (rules.selectPolicy != null && !SELECT_POLICIES.includes(str(rules.selectPolicy)))
    errs.push(field.notSupported(`${path}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  const policies = arr(rules.policies);
  if (policies.length === 0)
    errs.push(field.required(`${path}.policies`, "must specify at least one Policy"));
  for (let i = 0; i < policies.length; i++) {
    const policy = objOrEmpty(policies[i]);
    const p = `${path}.policies[${i}]`;
    // type, value and periodSeconds are required: the schema reports them absent.
    const type = str(policy.type);
    if (policy.type !== undefined && !SCALING_POLICY_TYPES.includes(type))
      errs.push(field.notSupported(`${p}.type`, type, SCALING_POLICY_TYPES));
    const value = num(policy.value);
    if (value !== undefined && value <= 0)
      errs.push(field.invalid(`${p}.value`, value, "must be greater than zero"));
    const period = num(policy.periodSeconds);
    if (period === undefined) continue;
    if (period <= 0) errs.push(field.invalid(`${p}.periodSeconds`, period, "must be greater than zero"));
    if (period > MAX_PERIOD_SECONDS)
      errs.push(
        field.invalid(`${p}.periodSeconds`, period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`),
      );
  }
}

export function validateHorizontalPodAutoscaler(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  const min = num(spec.minReplicas);
  // An absent maxReplicas is the schema's `Required value`.
  const max = num(spec.maxReplicas);
  if (min !== undefined && min < 1)
    errs.push(field.invalid("spec.minReplicas", min, "must be greater than or equal to 1"));
  if (max !== undefined && max < 1)
    errs.push(field.invalid("spec.maxReplicas", max, "must be greater than 0"));
  if (min !== undefined && max !== undefined && max < min)
    errs.push(field.invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
  validateCrossVersionObjectReference(errs, objOrEmpty(spec.scaleTargetRef), "spec.scaleTargetRef");
  const metrics = arr(spec.metrics);
  for (let i = 0; i < metrics.length; i++)
    validateMetricSpec(errs, objOrEmpty(metrics[i]), `spec.metrics[${i}]`, naming);
  const behavior = obj(spec.behavior);
  if (behavior) {
    for (const key of ["scaleUp", "scaleDown"] as const) {
      const rules = obj(behavior[key]);
      if (rules) validateScalingRules(errs, rules, `spec.behavior.${key}`);
    }
  }
  return errs;
}

// ---- PriorityClass ----------------------------------------------------------------------------

/** The most a user-defined priority may be; higher values are the system's own. */
export const HIGHEST_USER_PRIORITY = 1000000000;
const SYSTEM_PREFIX = "system-";
const SYSTEM_CLASSES: Readonly<Record<string, number>> = {
  "system-cluster-critical": 2 * HIGHEST_USER_PRIORITY,
  "system-node-critical": 2 * HIGHEST_USER_PRIORITY + 1000,
};

export function validatePriorityClass(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(objOrEmpty(object.metadata).name);
  const value = num(object.value) ?? 0;
  if (name.startsWith(SYSTEM_PREFIX)) {
    const known = SYSTEM_CLASSES[name];
    let problem: string | undefined;
    if (known === undefined) problem = `${name} is not a known system priority class`;
    else if (known !== value) problem = `value of ${name} PriorityClass must be ${known}`;
    else if (object.globalDefault === true) problem = `globalDefault of ${name} PriorityClass must be false`;
    if (problem !== undefined)
      errs.push(
        field.forbidden(
          "metadata.name",
          `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${problem}`,
        ),
      );
  } else if (value > HIGHEST_USER_PRIORITY) {
    errs.push(
      field.forbidden(
        "value",
        `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`,
      ),
    );
  }
  return errs;
}

export function validatePriorityClassUpdate(object: Json, old: Json): FieldError[] {
  const errs: FieldError[] = [];
  if ((num(object.value) ?? 0) !== (num(old.value) ?? 0))
    errs.push(field.forbidden("value", "may not be changed in an update."));
  immutable(errs, object.preemptionPolicy, old.preemptionPolicy, "preemptionPolicy");
  return errs;
}

// ---- RuntimeClass -----------------------------------------------------------------------------

export function validateRuntimeClass(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  if (object.handler !== undefined) dnsLabel(errs, str(object.handler), "handler");
  const overhead = obj(object.overhead);
  if (overhead?.podFixed != null)
    validateResourceRequirements(errs, { limits: overhead.podFixed }, "overhead", naming);
  const scheduling = obj(object.scheduling);
  if (scheduling) {
    if (scheduling.nodeSelector != null)
      validateLabelMap(errs, scheduling.nodeSelector, "scheduling.nodeSelector");
    const tolerations = arr(scheduling.tolerations);
    const path = "scheduling.tolerations";
    validateTolerations(errs, tolerations, `${path}.tolerations`);
    const seen: Json[] = [];
    for (let i = 0; i < tolerations.length; i++) {
      const t = objOrEmpty(tolerations[i]);
      const key = { key: t.key, operator: t.operator, value: t.value, effect: t.effect };
      if (seen.some((s) => semanticEqual(s, key))) errs.push(field.duplicate(`${path}[${i}]`, t));
      else seen.push(key);
    }
  }
  return errs;
}

export function validateRuntimeClassUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs = validateRuntimeClass(object, naming);
  immutable(errs, object.handler, old.handler, "handler");
  return errs;
}
