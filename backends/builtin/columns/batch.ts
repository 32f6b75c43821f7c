// Table columns of the batch group: Job and CronJob.
import type { TableColumn } from "../../schema/resource-schema.ts";
import {
  age,
  arr,
  boolPtr,
  col,
  formatLabelSelector,
  type GroupColumns,
  humanDuration,
  int,
  type JsonObject,
  obj,
  present,
  since,
  spec,
  status,
  templateColumns,
  time,
} from "./helpers.ts";

/** Succeeded pods against the completions wanted (`2/3`, or `0/1 of 4` for a parallel job). */
function completions(job: JsonObject): string {
  const s = spec(job);
  const succeeded = int(status(job).succeeded);
  if (present(s, "completions")) return `${succeeded}/${int(s.completions)}`;
  const parallelism = int(s.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** Run time: until completion, or so far; empty before the job starts. */
function jobDuration(job: JsonObject, now: number = Date.now()): string {
  const start = time(status(job).startTime);
  if (start === undefined) return "";
  const end = time(status(job).completionTime);
  return humanDuration((end ?? now) - start);
}

const jobColumns: TableColumn[] = [
  col("string", "Completions", "Pods that succeeded out of the completions the job needs.", completions),
  col("string", "Duration", "How long the job ran, or has been running.", (o) => jobDuration(o)),
  age(),
  ...templateColumns((o) => obj(o, "spec", "template", "spec")),
  col(
    "string",
    "Selector",
    "The label selector of the job's pods.",
    (o) => formatLabelSelector(spec(o).selector),
    { priority: 1 },
  ),
];

const cronJobColumns: TableColumn[] = [
  col("string", "Schedule", "When jobs are started, in cron syntax.", (o) => {
    const schedule = spec(o).schedule;
    return typeof schedule === "string" ? schedule : "";
  }),
  // Upstream declares a boolean column and fills it with True, False or <unset>.
  col("boolean", "Suspend", "Whether new runs are held back.", (o) => boolPtr(spec(o).suspend)),
  col("integer", "Active", "How many of its jobs are running.", (o) => arr(o, "status", "active").length),
  col("string", "Last Schedule", "How long ago a job was last started.", (o) =>
    present(status(o), "lastScheduleTime") ? since(status(o).lastScheduleTime) : "<none>",
  ),
  age(),
  ...templateColumns((o) => obj(o, "spec", "jobTemplate", "spec", "template", "spec")),
  col(
    "string",
    "Selector",
    "The label selector of the pods of the jobs it starts.",
    (o) => formatLabelSelector(obj(o, "spec", "jobTemplate", "spec").selector),
    { priority: 1 },
  ),
];

export function batchColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([
    ["jobs", jobColumns],
    ["cronjobs", cronJobColumns],
  ]);
}
