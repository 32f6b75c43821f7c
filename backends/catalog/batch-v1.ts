// batch/v1: Job (pods that run to completion, retried on failure) and CronJob (Jobs started on a
// schedule), with the pod failure policy that decides how failures count.
import { atomic, f, mergeBy, pkg, required, set, t } from "./model.ts";

// Allowed values of upstream's enumerated string types, as its OpenAPI lists them (sorted).
const CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"];
const COMPLETION_MODES = ["Indexed", "NonIndexed"];
const FAILURE_ACTIONS = ["Count", "FailJob", "Ignore"];
const EXIT_CODE_OPERATORS = ["In", "NotIn"];

const OBJECT_META = "The object's metadata: name, namespace, labels, annotations and so on.";

export const BATCH_V1 = pkg("batch/v1", "k8s.io.api.batch.v1", {
  CronJob: t("Creates Jobs on a repeating schedule.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    spec: f(2, "CronJobSpec", "The schedule and the Job to create each time it fires."),
    status: f(3, "CronJobStatus", "What the controller last reported."),
  }),
  CronJobSpec: t("When a CronJob runs and what it runs.", {
    schedule: f(1, "string", 'The schedule in cron syntax, such as "*/5 * * * *".', {
      ...required,
      omitEmpty: false,
    }),
    timeZone: f(
      8,
      "string",
      'A tz database time zone name, such as "Europe/Paris", for reading the schedule. Defaults to the controller manager\'s local time zone; an unknown name stops new runs.',
      { pointer: true },
    ),
    startingDeadlineSeconds: f(
      2,
      "int64",
      "How many seconds late a run may still start; a run that misses this deadline is skipped and counted as failed.",
      { pointer: true },
    ),
    concurrencyPolicy: f(
      3,
      "string",
      'What to do when a run is due while the previous Job is still going: "Allow" (the default) runs both, "Forbid" skips the new run, "Replace" stops the old Job and starts the new one.',
      { enum: CONCURRENCY_POLICIES },
    ),
    suspend: f(
      4,
      "bool",
      "While true, no new runs start; Jobs already running are left alone. Defaults to false.",
      { pointer: true },
    ),
    jobTemplate: f(5, "JobTemplateSpec", "The Job created on each run.", { ...required, omitEmpty: false }),
    successfulJobsHistoryLimit: f(
      6,
      "int32",
      "How many finished successful Jobs to keep; must not be negative. Defaults to 3.",
      { pointer: true },
    ),
    failedJobsHistoryLimit: f(
      7,
      "int32",
      "How many failed Jobs to keep; must not be negative. Defaults to 1.",
      { pointer: true },
    ),
  }),
  CronJobStatus: t("What the CronJob controller last observed.", {
    active: f(1, "[]core/v1.ObjectReference", "The Jobs of this CronJob that are running now.", atomic),
    lastScheduleTime: f(4, "time", "When a Job was last started on schedule.", { pointer: true }),
    lastSuccessfulTime: f(5, "time", "When a Job of this CronJob last finished successfully.", {
      pointer: true,
    }),
  }),
  Job: t("Runs pods until a given number of them finish successfully, retrying failures.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    spec: f(2, "JobSpec", "The pods to run and when the Job counts as done or failed."),
    status: f(3, "JobStatus", "What the controller last reported."),
  }),
  JobCondition: t("One observation about a Job's state at a point in time.", {
    type: f(1, "string", 'Kind of condition, such as "Complete", "Failed" or "Suspended".', {
      omitEmpty: false,
    }),
    status: f(2, "string", 'Whether the condition holds: "True", "False" or "Unknown".', {
      omitEmpty: false,
    }),
    lastProbeTime: f(3, "time", "When the condition was last checked."),
    lastTransitionTime: f(4, "time", "When the condition last changed status."),
    reason: f(5, "string", "A short, machine-readable cause of the last status change."),
    message: f(6, "string", "A human-readable explanation of the last status change."),
  }),
  JobSpec: t("The desired behaviour of a Job.", {
    parallelism: f(
      1,
      "int32",
      "The most pods the Job runs at the same time; fewer run when less work than that remains.",
      { pointer: true },
    ),
    completions: f(
      2,
      "int32",
      "How many pods must succeed for the Job to finish. When unset, the first success finishes the Job and parallelism may be anything; 1 also limits parallelism to 1.",
      { pointer: true },
    ),
    activeDeadlineSeconds: f(
      3,
      "int64",
      "How many seconds after its start time the Job may stay active before it is stopped; must be positive. The clock stops while the Job is suspended and restarts on resume.",
      { pointer: true },
    ),
    podFailurePolicy: f(
      11,
      "PodFailurePolicy",
      "Rules that decide, per failed pod, whether it counts towards backoffLimit, is ignored or fails the whole Job. Without it every failure counts. Not allowed with restartPolicy OnFailure.",
      { pointer: true },
    ),
    backoffLimit: f(7, "int32", "How many retries before the Job is marked failed. Defaults to 6.", {
      pointer: true,
    }),
    selector: f(
      4,
      "meta/v1.LabelSelector",
      "Which pods belong to the Job. Usually left for the system to fill in.",
      { pointer: true },
    ),
    manualSelector: f(
      5,
      "bool",
      "When true, the user picks the selector and pod labels and must keep them unique; when false or unset, the system generates unique ones. Leave unset unless needed.",
      { pointer: true },
    ),
    template: f(
      6,
      "core/v1.PodTemplateSpec",
      'The pods to run. Their restartPolicy must be "Never" or "OnFailure".',
      { ...required, omitEmpty: false },
    ),
    ttlSecondsAfterFinished: f(
      8,
      "int32",
      "Seconds after the Job completes or fails before it may be deleted automatically; 0 means right away. When unset the Job is never deleted automatically.",
      { pointer: true },
    ),
    completionMode: f(
      9,
      "string",
      '"NonIndexed" (the default): the Job is done once completions pods have succeeded. "Indexed": each pod gets an index from 0 to completions - 1 and the Job is done once every index has a success; completions must then be set.',
      { enum: COMPLETION_MODES, pointer: true },
    ),
    suspend: f(
      10,
      "bool",
      "While true, the controller creates no pods and deletes the running ones; resuming resets the start time. Defaults to false.",
      { pointer: true },
    ),
  }),
  JobStatus: t("What the Job controller last observed.", {
    conditions: f(
      1,
      "[]JobCondition",
      'The latest observations of the Job\'s state; a finished Job has a "Complete" or "Failed" condition set to true, a suspended one a "Suspended" condition.',
      { ...mergeBy("type"), ...atomic },
    ),
    startTime: f(
      2,
      "time",
      "When the controller began working on the Job; unset while it is suspended and reset on every resume.",
      { pointer: true },
    ),
    completionTime: f(3, "time", "When the Job finished successfully; unset otherwise.", { pointer: true }),
    active: f(4, "int32", "Pods pending or running."),
    succeeded: f(5, "int32", "Pods that ended in phase Succeeded."),
    failed: f(6, "int32", "Pods that ended in phase Failed."),
    completedIndexes: f(
      7,
      "string",
      'For Indexed Jobs, the indexes that have succeeded, in increasing order with runs of three or more written as ranges, such as "1,3-5,7".',
    ),
    uncountedTerminatedPods: f(
      8,
      "UncountedTerminatedPods",
      "Pods that have finished but are not yet reflected in the succeeded and failed counters. Unset for Jobs not tracked this way.",
      { pointer: true },
    ),
    ready: f(9, "int32", "Pods of the Job that are ready.", { pointer: true }),
  }),
  JobTemplateSpec: t("The metadata and spec given to Jobs created from a template.", {
    metadata: f(1, "meta/v1.ObjectMeta", "Metadata given to each Job created from the template."),
    spec: f(2, "JobSpec", "The spec given to each Job created from the template."),
  }),
  PodFailurePolicy: t("How pod failures affect a Job's retry budget.", {
    rules: f(
      1,
      "[]PodFailurePolicyRule",
      "Rules tried in order against each failed pod; the first that matches decides, and when none does the failure counts towards backoffLimit. At most 20.",
      { ...atomic, ...required, omitEmpty: false },
    ),
  }),
  PodFailurePolicyOnExitCodesRequirement: t(
    "Matches a failed pod by the exit codes of its containers; containers that exited with 0 are not considered.",
    {
      containerName: f(
        1,
        "string",
        "Only look at the container (or init container) with this name; when unset, all containers are checked.",
        { pointer: true, omitEmpty: false },
      ),
      operator: f(
        2,
        "string",
        '"In" matches when some checked exit code is among values; "NotIn" when some checked exit code is not.',
        { ...required, enum: EXIT_CODE_OPERATORS, omitEmpty: false },
      ),
      values: f(
        3,
        "[]int32",
        "The exit codes to compare with, sorted and without duplicates; 1 to 255 entries, and 0 is not allowed with In.",
        { ...set, ...required, omitEmpty: false },
      ),
    },
  ),
  PodFailurePolicyOnPodConditionsPattern: t("Matches a failed pod by one of its conditions.", {
    type: f(1, "string", "The pod condition type that must be present.", { ...required, omitEmpty: false }),
    status: f(
      2,
      "string",
      'The status the condition must have: "True", "False" or "Unknown". Defaults to "True".',
      { omitEmpty: false },
    ),
  }),
  PodFailurePolicyRule: t(
    "What to do with a failed pod that meets a requirement; set either onExitCodes or onPodConditions, not both.",
    {
      action: f(
        1,
        "string",
        '"FailJob" fails the Job and stops its running pods; "Ignore" creates a replacement without counting the failure; "Count" counts it towards backoffLimit as usual.',
        { ...required, enum: FAILURE_ACTIONS, omitEmpty: false },
      ),
      onExitCodes: f(2, "PodFailurePolicyOnExitCodesRequirement", "Match on container exit codes.", {
        pointer: true,
        omitEmpty: false,
      }),
      onPodConditions: f(
        3,
        "[]PodFailurePolicyOnPodConditionsPattern",
        "Match on pod conditions: the rule applies when any pattern matches. At most 20.",
        { ...atomic, omitEmpty: false },
      ),
    },
  ),
  UncountedTerminatedPods: t("UIDs of a Job's finished pods that the status counters do not include yet.", {
    succeeded: f(1, "[]string", "UIDs of pods that succeeded.", set),
    failed: f(2, "[]string", "UIDs of pods that failed.", set),
  }),
});
