// batch/v1 defaults as upstream 1.27 applies them. Job defaults belong to Job objects only: a
// CronJob's job template gets none of them (only its pod template's core/v1 defaults).
import {
  defaultPointer,
  defaultString,
  forEachObject,
  isNil,
  isObject,
  mapSize,
  objectAt,
  structAt,
} from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

const job: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec === undefined) return;
  // A job that gives neither runs one pod to one completion.
  if (isNil(spec.completions) && isNil(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  defaultPointer(spec, "parallelism", 1);
  defaultPointer(spec, "backoffLimit", 6);
  // The job takes its pod template's labels when it has none of its own.
  const labels = objectAt(objectAt(objectAt(spec.template)?.metadata)?.labels);
  if (labels !== undefined && mapSize(labels) > 0) {
    const metadata = structAt(object, "metadata");
    const own = metadata?.labels;
    if (metadata !== undefined && (isNil(own) || (isObject(own) && mapSize(own) === 0))) {
      metadata.labels = { ...labels };
    }
  }
  defaultPointer(spec, "completionMode", "NonIndexed");
  defaultPointer(spec, "suspend", false);
  // Pod condition patterns of a failure policy match the condition being True unless told otherwise.
  forEachObject(objectAt(spec.podFailurePolicy)?.rules, (rule) => {
    forEachObject(rule.onPodConditions, (pattern) => defaultString(pattern, "status", "True"));
  });
};

const cronJob: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec === undefined) return;
  defaultString(spec, "concurrencyPolicy", "Allow");
  defaultPointer(spec, "suspend", false);
  defaultPointer(spec, "successfulJobsHistoryLimit", 3);
  defaultPointer(spec, "failedJobsHistoryLimit", 1);
};

/** The batch/v1 defaulters by type id. */
export function batchV1Defaulters(): Record<string, TypeDefaulter> {
  return {
    "batch/v1.Job": job,
    "batch/v1.CronJob": cronJob,
  };
}
