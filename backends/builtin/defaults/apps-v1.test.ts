import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type DefaultingCase, defaulted } from "./testing.ts";

const TERMINATION = { terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" };
const POD_SPEC_DEFAULTS = {
  restartPolicy: "Always",
  terminationGracePeriodSeconds: 30,
  dnsPolicy: "ClusterFirst",
  securityContext: {},
  schedulerName: "default-scheduler",
};

/** A pod template as users write it, and as upstream stores it. */
function template(labels: Record<string, string>) {
  return {
    input: {
      metadata: { labels },
      spec: { containers: [{ name: "app", image: "example/app:1.4", ports: [{ containerPort: 8080 }] }] },
    },
    expected: {
      metadata: { labels },
      spec: {
        containers: [
          {
            name: "app",
            image: "example/app:1.4",
            ports: [{ containerPort: 8080, protocol: "TCP" }],
            imagePullPolicy: "IfNotPresent",
            ...TERMINATION,
          },
        ],
        ...POD_SPEC_DEFAULTS,
      },
    },
  };
}

const web = template({ app: "web" });

const cases: DefaultingCase[] = [
  {
    name: "Deployment: replicas, rolling update, history and progress deadline",
    type: "apps/v1.Deployment",
    input: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: { selector: { matchLabels: { app: "web" } }, template: web.input },
    },
    expected: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: web.expected,
        strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
    },
  },
  {
    name: "Deployment: a Recreate strategy gets no rolling update; a partial one is completed",
    type: "apps/v1.Deployment",
    input: {
      metadata: { name: "a" },
      spec: { replicas: 0, strategy: { type: "Recreate" }, revisionHistoryLimit: 0, template: web.input },
    },
    expected: {
      metadata: { name: "a" },
      spec: {
        replicas: 0,
        strategy: { type: "Recreate" },
        revisionHistoryLimit: 0,
        progressDeadlineSeconds: 600,
        template: web.expected,
      },
    },
  },
  {
    name: "Deployment: a rolling update with only maxSurge",
    type: "apps/v1.Deployment",
    input: {
      metadata: { name: "b" },
      spec: { strategy: { rollingUpdate: { maxSurge: 1 } }, template: web.input },
    },
    expected: {
      metadata: { name: "b" },
      spec: {
        template: web.expected,
        replicas: 1,
        strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: "25%" } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
    },
  },
  {
    name: "DaemonSet: rolling update of one pod at a time, no surge",
    type: "apps/v1.DaemonSet",
    input: {
      metadata: { name: "agent" },
      spec: { selector: { matchLabels: { app: "web" } }, template: web.input },
    },
    expected: {
      metadata: { name: "agent" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: web.expected,
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
        revisionHistoryLimit: 10,
      },
    },
  },
  {
    name: "StatefulSet: management policy, partition, claim retention, replicas, claim templates",
    type: "apps/v1.StatefulSet",
    input: {
      metadata: { name: "db" },
      spec: {
        serviceName: "db",
        selector: { matchLabels: { app: "web" } },
        template: web.input,
        volumeClaimTemplates: [
          {
            metadata: { name: "data" },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        ],
      },
    },
    expected: {
      metadata: { name: "db" },
      spec: {
        serviceName: "db",
        selector: { matchLabels: { app: "web" } },
        template: web.expected,
        volumeClaimTemplates: [
          {
            metadata: { name: "data" },
            spec: {
              accessModes: ["ReadWriteOnce"],
              resources: { requests: { storage: "1Gi" } },
              volumeMode: "Filesystem",
            },
            status: { phase: "Pending" },
          },
        ],
        podManagementPolicy: "OrderedReady",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
        replicas: 1,
        revisionHistoryLimit: 10,
      },
    },
  },
  {
    name: "StatefulSet: an explicit RollingUpdate type without settings stays without them",
    type: "apps/v1.StatefulSet",
    input: {
      metadata: { name: "db2" },
      spec: {
        podManagementPolicy: "Parallel",
        updateStrategy: { type: "RollingUpdate" },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete" },
        template: web.input,
      },
    },
    expected: {
      metadata: { name: "db2" },
      spec: {
        podManagementPolicy: "Parallel",
        updateStrategy: { type: "RollingUpdate" },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
        template: web.expected,
        replicas: 1,
        revisionHistoryLimit: 10,
      },
    },
  },
  {
    name: "ReplicaSet: replicas",
    type: "apps/v1.ReplicaSet",
    input: {
      metadata: { name: "rs" },
      spec: { selector: { matchLabels: { app: "web" } }, template: web.input },
    },
    expected: {
      metadata: { name: "rs" },
      spec: { replicas: 1, selector: { matchLabels: { app: "web" } }, template: web.expected },
    },
  },
];

describe("apps/v1 defaults", () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(defaulted(c.type, c.input, c.preset), c.expected));
  }
});
