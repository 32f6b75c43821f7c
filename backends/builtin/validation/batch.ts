// Jobs and CronJobs: counts, completion modes, failure policies, the generated selector, what a
// running Job may still change, and CronJob schedules and time zones.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { isDNS1123Label, isQualifiedName as qualifiedNameErrors } from "../../validation/names.ts";
import { cronScheduleError } from "./cron.ts";
import { validatePodTemplateSpec } from "./pod-spec.ts";
import { selection, validateLabelSelector } from "./selectors.ts";
import {
  arr,
  FIELD_IMMUTABLE,
  immutable,
  type Json,
  nonNegative,
  num,
  obj,
  objOrEmpty,
  requiredIfPresent,
  semanticEqual,
  str,
  tooMany,
} from "./util.ts";
import { SELECTOR_MISMATCH } from "./workloads.ts";

const MAX_INDEXED_PARALLELISM = 100000;
const MAX_FAILURE_RULES = 20;
const MAX_EXIT_CODES = 255;
const MAX_CONDITION_PATTERNS = 20;
const CONDITION_STATUSES = ["False", "True", "Unknown"];

/** The labels a Job's pods carry so that its generated selector finds them. */
export function jobLabels(naming: Naming) {
  return {
    legacyControllerUid: "controller-uid",
    legacyJobName: "job-name",
    controllerUid: naming.label("controller-uid", "batch"),
    jobName: naming.label("job-name", "batch"),
  };
}

/**
 * What upstream does while validating a new Job that does not manage its own selector: label the
 * pod template with the Job's name and uid (unless already labelled) and select on the uid.
 * Needs metadata.name and metadata.uid filled in; mutates the object.
 */
export function generateJobSelector(job: Json, naming: Naming): void {
  const spec = obj(job.spec);
  if (!spec || spec.manualSelector === true) return;
  const meta = objOrEmpty(job.metadata);
  const names = jobLabels(naming);
  const labels = ensure(ensure(ensure(spec, "template"), "metadata"), "labels");
  for (const key of [names.legacyJobName, names.jobName])
    if (!Object.hasOwn(labels, key)) labels[key] = str(meta.name);
  for (const key of [names.legacyControllerUid, names.controllerUid])
    if (!Object.hasOwn(labels, key)) labels[key] = str(meta.uid);
  const matchLabels = ensure(ensure(spec, "selector"), "matchLabels");
  if (!Object.hasOwn(matchLabels, names.controllerUid)) matchLabels[names.controllerUid] = str(meta.uid);
}

/** `parent[key]` as an object, created when missing. */
function ensure(parent: Json, key: string): Json {
  const existing = obj(parent[key]);
  if (existing) return existing;
  const created: Json = {};
  parent[key] = created;
  return created;
}

function hasLabel(errs: FieldError[], labelsValue: unknown, key: string, want: string, path: string): void {
  const labels = obj(labelsValue);
  const p = `${path}.labels[${key}]`;
  if (!labels || !Object.hasOwn(labels, key)) errs.push(field.required(p, `must be '${want}'`));
  else if (labels[key] !== want) errs.push(field.invalid(p, labels, `must be '${want}'`));
}

function validateGeneratedSelector(errs: FieldError[], job: Json, naming: Naming): void {
  const spec = objOrEmpty(job.spec);
  if (spec.manualSelector === true || spec.selector == null) return;
  const meta = objOrEmpty(job.metadata);
  const uid = str(meta.uid);
  const name = str(meta.name);
  if (uid === "") errs.push(field.required("metadata.uid"));
  const names = jobLabels(naming);
  const labels = objOrEmpty(objOrEmpty(spec.template).metadata).labels;
  const metaPath = "spec.template.metadata";
  hasLabel(errs, labels, names.legacyControllerUid, uid, metaPath);
  hasLabel(errs, labels, names.legacyJobName, name, metaPath);
  hasLabel(errs, labels, names.controllerUid, uid, metaPath);
  hasLabel(errs, labels, names.jobName, name, metaPath);
  const expected = {
    [names.controllerUid]: uid,
    [names.jobName]: name,
    [names.legacyControllerUid]: uid,
    [names.legacyJobName]: name,
  };
  const sel = selection(spec.selector);
  if (sel.valid && !sel.matches(expected))
    errs.push(field.invalid("spec.selector", spec.selector, "`selector` not auto-generated"));
}

function validatePodFailurePolicy(errs: FieldError[], spec: Json, policy: Json, path: string): void {
  const rules = arr(policy.rules);
  const rulesPath = `${path}.rules`;
  if (rules.length > MAX_FAILURE_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_FAILURE_RULES));
  const containerNames = new Set<string>();
  const podSpec = objOrEmpty(objOrEmpty(spec.template).spec);
  for (const c of [...arr(podSpec.containers), ...arr(podSpec.initContainers)])
    containerNames.add(str(objOrEmpty(c).name));
  for (let i = 0; i < rules.length; i++) {
    const rule = objOrEmpty(rules[i]);
    const p = `${rulesPath}[${i}]`;
    // The action (required, one of three) is the schema's to check.
    const onExitCodes = obj(rule.onExitCodes);
    const conditions = arr(rule.onPodConditions);
    if (onExitCodes) validateOnExitCodes(errs, onExitCodes, `${p}.onExitCodes`, containerNames);
    if (conditions.length > 0) {
      const cp = `${p}.onPodConditions`;
      if (conditions.length > MAX_CONDITION_PATTERNS)
        errs.push(tooMany(cp, conditions.length, MAX_CONDITION_PATTERNS));
      for (let j = 0; j < conditions.length; j++) {
        const pattern = objOrEmpty(conditions[j]);
        const type = str(pattern.type);
        if (pattern.type !== undefined)
          for (const msg of qualifiedNameErrors(type))
            errs.push(field.invalid(`${cp}[${j}].type`, type, msg));
        const status = str(pattern.status);
        if (status === "")
          errs.push(
            field.required(
              `${cp}[${j}].status`,
              `valid values: [${CONDITION_STATUSES.map((s) => JSON.stringify(s)).join(" ")}]`,
            ),
          );
        else if (!CONDITION_STATUSES.includes(status))
          errs.push(field.notSupported(`${cp}[${j}].status`, status, CONDITION_STATUSES));
      }
    }
    if (onExitCodes && conditions.length > 0)
      errs.push(field.invalid(p, "", "specifying both OnExitCodes and OnPodConditions is not supported"));
    if (!onExitCodes && conditions.length === 0)
      errs.push(field.invalid(p, "", "specifying one of OnExitCodes and OnPodConditions is required"));
  }
}

function validateOnExitCodes(
  errs: FieldError[],
  req: Json,
  path: string,
  containerNames: ReadonlySet<string>,
): void {
  // The operator (required, In or NotIn) is the schema's to check.
  const operator = str(req.operator);
  if (req.containerName != null && !containerNames.has(str(req.containerName)))
    errs.push(
      field.invalid(
        `${path}.containerName`,
        str(req.containerName),
        "must be one of the container or initContainer names in the pod template",
      ),
    );
  const values = arr(req.values);
  const vp = `${path}.values`;
  if (values.length === 0) {
    if (req.values !== undefined) errs.push(field.invalid(vp, values, "at least one value is required"));
  } else if (values.length > MAX_EXIT_CODES) errs.push(tooMany(vp, values.length, MAX_EXIT_CODES));
  const seen = new Set<number>();
  let ordered = true;
  for (let j = 0; j < values.length; j++) {
    const v = num(values[j]) ?? 0;
    if (operator === "In" && v === 0)
      errs.push(field.invalid(`${vp}[${j}]`, v, "must not be 0 for the In operator"));
    if (seen.has(v)) errs.push(field.duplicate(`${vp}[${j}]`, v));
    else seen.add(v);
    if (j > 0 && (num(values[j - 1]) ?? 0) > v) ordered = false;
  }
  if (!ordered) errs.push(field.invalid(vp, values, "must be ordered"));
}

/** The checks of a Job spec shared by Jobs and CronJob job templates. */
function validateJobSpecCommon(errs: FieldError[], spec: Json, path: string, naming: Naming): void {
  for (const key of [
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
  ])
    nonNegative(errs, spec[key], `${path}.${key}`);
  if (str(spec.completionMode) === "Indexed") {
    if (spec.completions == null)
      errs.push(field.required(`${path}.completions`, "when completion mode is Indexed"));
    const parallelism = num(spec.parallelism);
    if (parallelism !== undefined && parallelism > MAX_INDEXED_PARALLELISM)
      errs.push(
        field.invalid(
          `${path}.parallelism`,
          parallelism,
          `must be less than or equal to ${MAX_INDEXED_PARALLELISM} when completion mode is Indexed`,
        ),
      );
  }
  const policy = obj(spec.podFailurePolicy);
  if (policy) validatePodFailurePolicy(errs, spec, policy, `${path}.podFailurePolicy`);
  validatePodTemplateSpec(errs, spec.template, `${path}.template`, { naming });
  // Values outside the pod enum (an empty one included) are the schema's to report.
  const rawPolicy = objOrEmpty(objOrEmpty(spec.template).spec).restartPolicy;
  const restartPolicy = str(rawPolicy);
  const rpPath = `${path}.template.spec.restartPolicy`;
  if (restartPolicy === "Always" || rawPolicy === undefined)
    errs.push(field.required(rpPath, 'valid values: "OnFailure", "Never"'));
  else if (policy && restartPolicy === "OnFailure")
    errs.push(
      field.invalid(rpPath, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'),
    );
}

function validateJobSpec(errs: FieldError[], spec: Json, path: string, naming: Naming): void {
  validateJobSpecCommon(errs, spec, path, naming);
  if (spec.selector == null) errs.push(field.required(`${path}.selector`));
  else validateLabelSelector(errs, spec.selector, `${path}.selector`);
  const sel = selection(spec.selector);
  if (sel.valid) {
    const labels = objOrEmpty(objOrEmpty(spec.template).metadata).labels;
    if (!sel.matches(labels))
      errs.push(field.invalid(`${path}.template.metadata.labels`, labels ?? null, SELECTOR_MISMATCH));
  }
}

function validateJobObject(errs: FieldError[], job: Json, naming: Naming): void {
  validateGeneratedSelector(errs, job, naming);
  const spec = objOrEmpty(job.spec);
  validateJobSpec(errs, spec, "spec", naming);
  const completions = num(spec.completions);
  if (str(spec.completionMode) === "Indexed" && completions !== undefined && completions > 0) {
    const name = str(objOrEmpty(job.metadata).name);
    const hostname = `${name}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0)
      errs.push(
        field.invalid(
          "metadata.name",
          name,
          `will not able to create pod with invalid DNS label: ${hostname}`,
        ),
      );
  }
}

/** Job create; generates the selector first unless the Job manages its own. */
export function validateJob(job: Json, naming: Naming): FieldError[] {
  generateJobSelector(job, naming);
  const errs: FieldError[] = [];
  validateJobObject(errs, job, naming);
  return errs;
}

/** The template as it would be had only the scheduling directives of a waiting Job changed. */
function mungeSchedulingDirectives(template: Json, old: Json): Json {
  const spec = objOrEmpty(template.spec);
  const oldSpec = objOrEmpty(old.spec);
  const munged: Json = {
    ...old,
    metadata: {
      ...objOrEmpty(old.metadata),
      labels: objOrEmpty(template.metadata).labels,
      annotations: objOrEmpty(template.metadata).annotations,
    },
    spec: { ...oldSpec, nodeSelector: spec.nodeSelector, tolerations: spec.tolerations },
  };
  const mspec = munged.spec as Json;
  const affinity = obj(spec.affinity);
  const oldAffinity = obj(oldSpec.affinity);
  if (!affinity && oldAffinity) {
    const { nodeAffinity: _, ...rest } = oldAffinity;
    if (Object.values(rest).every((v) => v === undefined || v === null)) delete mspec.affinity;
    else mspec.affinity = rest;
  } else if (affinity && !oldAffinity) {
    mspec.affinity = { nodeAffinity: affinity.nodeAffinity };
  } else if (affinity && oldAffinity) {
    mspec.affinity = { ...oldAffinity, nodeAffinity: affinity.nodeAffinity };
  }
  return munged;
}

export function validateJobUpdate(job: Json, old: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  validateJobObject(errs, job, naming);
  const spec = objOrEmpty(job.spec);
  const oldSpec = objOrEmpty(old.spec);
  // Completions of an Indexed Job may change along with parallelism; otherwise they are fixed.
  if (str(spec.completionMode) === "Indexed") {
    if (!semanticEqual(spec.completions, oldSpec.completions) && spec.completions != null) {
      if (spec.completions !== spec.parallelism)
        errs.push(
          field.invalid(
            "spec.completions",
            spec.completions,
            "can only be modified in tandem with spec.parallelism",
          ),
        );
    }
  } else {
    immutable(errs, spec.completions, oldSpec.completions, "spec.completions");
  }
  immutable(errs, spec.selector, oldSpec.selector, "spec.selector");
  const template = objOrEmpty(spec.template);
  let oldTemplate = objOrEmpty(oldSpec.template);
  const waiting = oldSpec.suspend === true && objOrEmpty(old.status).startTime == null;
  if (waiting) oldTemplate = mungeSchedulingDirectives(template, oldTemplate);
  if (!semanticEqual(template, oldTemplate))
    errs.push(field.invalid("spec.template", template, FIELD_IMMUTABLE));
  immutable(errs, spec.completionMode, oldSpec.completionMode, "spec.completionMode");
  immutable(errs, spec.podFailurePolicy, oldSpec.podFailurePolicy, "spec.podFailurePolicy");
  return errs;
}

// ---- CronJob ----------------------------------------------------------------------------------

const zoneCache = new Map<string, string | undefined>();

/** Go's time.LoadLocation error for a zone name, or undefined when it names a known zone. */
export function timeZoneError(name: string): string | undefined {
  if (name === "" || name === "UTC" || name === "Local") return undefined;
  if (zoneCache.has(name)) return zoneCache.get(name);
  let problem: string | undefined = `unknown time zone ${name}`;
  if (/^[A-Za-z]/.test(name) && !name.includes("..")) {
    try {
      const resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
      // Zone files are looked up by exact name: a case-mangled spelling is not found.
      if (resolved === name || /^[A-Z]/.test(name)) problem = undefined;
    } catch {
      // Not a zone ICU knows.
    }
  }
  if (zoneCache.size < 1000) zoneCache.set(name, problem);
  return problem;
}

function validateCronJobSpec(
  errs: FieldError[],
  spec: Json,
  oldSpec: Json | undefined,
  naming: Naming,
): void {
  const schedule = str(spec.schedule);
  if (schedule === "") requiredIfPresent(errs, spec.schedule, "spec.schedule");
  else {
    const problem = cronScheduleError(schedule, timeZoneError);
    if (problem !== undefined) errs.push(field.invalid("spec.schedule", schedule, problem));
    if (schedule.includes("TZ") && spec.timeZone != null)
      errs.push(
        field.invalid(
          "spec.schedule",
          schedule,
          "cannot use both timeZone field and TZ or CRON_TZ in schedule",
        ),
      );
  }
  nonNegative(errs, spec.startingDeadlineSeconds, "spec.startingDeadlineSeconds");
  if (!oldSpec || oldSpec.timeZone !== spec.timeZone) validateTimeZone(errs, spec.timeZone, "spec.timeZone");
  const jobTemplate = objOrEmpty(spec.jobTemplate);
  const jobSpec = objOrEmpty(jobTemplate.spec);
  validateJobSpecCommon(errs, jobSpec, "spec.jobTemplate.spec", naming);
  if (jobSpec.selector != null)
    errs.push(
      field.invalid("spec.jobTemplate.spec.selector", jobSpec.selector, "`selector` will be auto-generated"),
    );
  if (jobSpec.manualSelector === true)
    errs.push(field.notSupported("spec.jobTemplate.spec.manualSelector", true, ["nil", "false"]));
  nonNegative(errs, spec.successfulJobsHistoryLimit, "spec.successfulJobsHistoryLimit");
  nonNegative(errs, spec.failedJobsHistoryLimit, "spec.failedJobsHistoryLimit");
}

function validateTimeZone(errs: FieldError[], zone: unknown, path: string): void {
  if (zone === undefined || zone === null) return;
  const name = str(zone);
  if (name === "") {
    errs.push(field.invalid(path, name, "timeZone must be nil or non-empty string"));
    return;
  }
  if (name.toLowerCase() === "local")
    errs.push(
      field.invalid(
        path,
        name,
        "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
      ),
    );
  const problem = timeZoneError(name);
  if (problem !== undefined) errs.push(field.invalid(path, name, problem));
}

/** The most characters a CronJob's name may have: its Jobs append an 11-character suffix. */
const CRONJOB_NAME_MAX = 52;

export function validateCronJob(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  validateCronJobSpec(errs, objOrEmpty(object.spec), undefined, naming);
  const name = str(objOrEmpty(object.metadata).name);
  if (name.length > CRONJOB_NAME_MAX)
    errs.push(field.invalid("metadata.name", name, `must be no more than ${CRONJOB_NAME_MAX} characters`));
  return errs;
}

export function validateCronJobUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  validateCronJobSpec(errs, objOrEmpty(object.spec), objOrEmpty(old.spec), naming);
  return errs;
}
