import { describe, it } from "node:test";
import { ago, assertTolerant, type Case, CREATED, DAY, runCases } from "./test-support.ts";

const HOUR = DAY / 24;
const meta = (name: string) => ({ name, namespace: "default", creationTimestamp: CREATED });
const podTemplate = { spec: { containers: [{ name: "pi", image: "perl:5.34" }], restartPolicy: "Never" } };

const cases: Case[] = [
  {
    name: "completed job",
    group: "batch",
    plural: "jobs",
    object: {
      metadata: meta("pi"),
      spec: {
        completions: 3,
        parallelism: 2,
        selector: { matchLabels: { "controller-uid": "8f3c" } },
        template: podTemplate,
      },
      status: {
        succeeded: 3,
        startTime: ago(26 * HOUR),
        completionTime: ago(26 * HOUR - 95_000),
        conditions: [{ type: "Complete", status: "True" }],
      },
    },
    row: [
      ["Completions", "string", 0, "3/3"],
      ["Duration", "string", 0, "95s"],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "pi"],
      ["Images", "string", 1, "perl:5.34"],
      ["Selector", "string", 1, "controller-uid=8f3c"],
    ],
  },
  {
    name: "running work queue job",
    group: "batch",
    plural: "jobs",
    object: {
      metadata: meta("queue"),
      spec: { parallelism: 4, template: podTemplate },
      status: { succeeded: 1, active: 3, startTime: ago(3 * HOUR) },
    },
    row: [
      ["Completions", "string", 0, "1/1 of 4"],
      ["Duration", "string", 0, "3h"],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "pi"],
      ["Images", "string", 1, "perl:5.34"],
      ["Selector", "string", 1, "<none>"],
    ],
  },
  {
    name: "job not started",
    group: "batch",
    plural: "jobs",
    object: { metadata: meta("later"), spec: { parallelism: 1, template: podTemplate } },
    row: [
      ["Completions", "string", 0, "0/1"],
      ["Duration", "string", 0, ""],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "pi"],
      ["Images", "string", 1, "perl:5.34"],
      ["Selector", "string", 1, "<none>"],
    ],
  },
  {
    name: "cron job with a running job",
    group: "batch",
    plural: "cronjobs",
    object: {
      metadata: meta("hello"),
      spec: {
        schedule: "*/5 * * * *",
        timeZone: "Etc/UTC",
        suspend: false,
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: "hello", image: "busybox:1.36" }] } } },
        },
      },
      status: { active: [{ kind: "Job", name: "hello-28000000" }], lastScheduleTime: ago(10 * DAY) },
    },
    row: [
      ["Schedule", "string", 0, "*/5 * * * *"],
      ["Suspend", "boolean", 0, "False"],
      ["Active", "integer", 0, 1],
      ["Last Schedule", "string", 0, "10d"],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "hello"],
      ["Images", "string", 1, "busybox:1.36"],
      ["Selector", "string", 1, "<none>"],
    ],
  },
  {
    name: "cron job never run, suspend unset",
    group: "batch",
    plural: "cronjobs",
    object: {
      metadata: meta("nightly"),
      spec: {
        schedule: "0 3 * * *",
        jobTemplate: {
          spec: {
            selector: { matchLabels: { job: "nightly" } },
            template: {
              spec: {
                containers: [
                  { name: "a", image: "a:1" },
                  { name: "b", image: "b:1" },
                ],
              },
            },
          },
        },
      },
    },
    row: [
      ["Schedule", "string", 0, "0 3 * * *"],
      ["Suspend", "boolean", 0, "<unset>"],
      ["Active", "integer", 0, 0],
      ["Last Schedule", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "a,b"],
      ["Images", "string", 1, "a:1,b:1"],
      ["Selector", "string", 1, "job=nightly"],
    ],
  },
  {
    name: "suspended cron job",
    group: "batch",
    plural: "cronjobs",
    object: { metadata: meta("paused"), spec: { schedule: "@hourly", suspend: true } },
    row: [
      ["Schedule", "string", 0, "@hourly"],
      ["Suspend", "boolean", 0, "True"],
      ["Active", "integer", 0, 0],
      ["Last Schedule", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, ""],
      ["Images", "string", 1, ""],
      ["Selector", "string", 1, "<none>"],
    ],
  },
];

describe("batch columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () => {
    assertTolerant("batch", "jobs");
    assertTolerant("batch", "cronjobs");
  });
});
