import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type DefaultingCase, defaulted } from "./testing.ts";

const TERMINATION = { terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" };

function podTemplate(labels?: Record<string, string>) {
  const metadata = labels ? { labels } : {};
  return {
    input: {
      metadata,
      spec: {
        restartPolicy: "Never",
        containers: [{ name: "pi", image: "perl:5.34", command: ["perl", "-e", "1"] }],
      },
    },
    expected: {
      metadata,
      spec: {
        restartPolicy: "Never",
        containers: [
          {
            name: "pi",
            image: "perl:5.34",
            command: ["perl", "-e", "1"],
            imagePullPolicy: "IfNotPresent",
            ...TERMINATION,
          },
        ],
        terminationGracePeriodSeconds: 30,
        dnsPolicy: "ClusterFirst",
        securityContext: {},
        schedulerName: "default-scheduler",
      },
    },
  };
}

const labelled = podTemplate({ app: "pi" });
const plain = podTemplate();

const cases: DefaultingCase[] = [
  {
    name: "Job: one pod to one completion, backoff, mode, suspend, labels from the template",
    type: "batch/v1.Job",
    input: {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "pi" },
      spec: { template: labelled.input },
    },
    expected: {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "pi", labels: { app: "pi" } },
      spec: {
        completions: 1,
        parallelism: 1,
        backoffLimit: 6,
        completionMode: "NonIndexed",
        suspend: false,
        template: labelled.expected,
      },
    },
  },
  {
    name: "Job: completions without parallelism; own labels kept; failure policy conditions",
    type: "batch/v1.Job",
    input: {
      metadata: { name: "batch", labels: { team: "x" } },
      spec: {
        completions: 5,
        completionMode: "Indexed",
        podFailurePolicy: {
          rules: [
            { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget" }] },
            { action: "FailJob", onExitCodes: { operator: "In", values: [42] } },
            { action: "Count", onPodConditions: [{ type: "Custom", status: "False" }] },
          ],
        },
        template: labelled.input,
      },
    },
    expected: {
      metadata: { name: "batch", labels: { team: "x" } },
      spec: {
        completions: 5,
        parallelism: 1,
        backoffLimit: 6,
        completionMode: "Indexed",
        suspend: false,
        podFailurePolicy: {
          rules: [
            { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
            { action: "FailJob", onExitCodes: { operator: "In", values: [42] } },
            { action: "Count", onPodConditions: [{ type: "Custom", status: "False" }] },
          ],
        },
        template: labelled.expected,
      },
    },
  },
  {
    name: "CronJob: policy, suspend, history limits; its job template gets no Job defaults",
    type: "batch/v1.CronJob",
    input: {
      metadata: { name: "nightly" },
      spec: { schedule: "0 3 * * *", jobTemplate: { spec: { template: plain.input } } },
    },
    expected: {
      metadata: { name: "nightly" },
      spec: {
        schedule: "0 3 * * *",
        concurrencyPolicy: "Allow",
        suspend: false,
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
        jobTemplate: { spec: { template: plain.expected } },
      },
    },
  },
];

describe("batch/v1 defaults", () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(defaulted(c.type, c.input, c.preset), c.expected));
  }
});
