import { describe, it } from "node:test";
import { assertTolerant, type Case, CREATED, runCases } from "./test-support.ts";

const meta = (name: string) => ({ name, namespace: "default", creationTimestamp: CREATED });
const target = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };

const cases: Case[] = [
  {
    name: "cpu utilization, memory average and a pods metric",
    group: "autoscaling",
    plural: "horizontalpodautoscalers",
    object: {
      metadata: meta("web"),
      spec: {
        scaleTargetRef: target,
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
          },
          {
            type: "Resource",
            resource: { name: "memory", target: { type: "AverageValue", averageValue: "500Mi" } },
          },
          {
            type: "Pods",
            pods: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "1k" } },
          },
        ],
      },
      status: {
        currentReplicas: 4,
        desiredReplicas: 4,
        currentMetrics: [
          {
            type: "Resource",
            resource: { name: "cpu", current: { averageUtilization: 45, averageValue: "225m" } },
          },
          { type: "Resource", resource: { name: "memory", current: { averageValue: "300Mi" } } },
        ],
      },
    },
    row: [
      ["Reference", "string", 0, "Deployment/web"],
      ["Targets", "string", 0, "45%/80%, 300Mi/500Mi + 1 more..."],
      ["MinPods", "string", 0, "2"],
      ["MaxPods", "string", 0, 10],
      ["Replicas", "string", 0, 4],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "external and object metrics before the first reading",
    group: "autoscaling",
    plural: "horizontalpodautoscalers",
    object: {
      metadata: meta("worker"),
      spec: {
        scaleTargetRef: { kind: "StatefulSet", name: "worker" },
        maxReplicas: 5,
        metrics: [
          {
            type: "External",
            external: { metric: { name: "queue" }, target: { type: "AverageValue", averageValue: "30" } },
          },
          {
            type: "Object",
            object: {
              describedObject: { kind: "Ingress", name: "main" },
              metric: { name: "hits" },
              target: { type: "Value", value: "10k" },
            },
          },
        ],
      },
    },
    row: [
      ["Reference", "string", 0, "StatefulSet/worker"],
      ["Targets", "string", 0, "<unknown>/30 (avg), <unknown>/10k"],
      ["MinPods", "string", 0, "<unset>"],
      ["MaxPods", "string", 0, 5],
      ["Replicas", "string", 0, 0],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "container resource, a target without utilization, current values",
    group: "autoscaling",
    plural: "horizontalpodautoscalers",
    object: {
      metadata: meta("mixed"),
      spec: {
        scaleTargetRef: target,
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [
          {
            type: "ContainerResource",
            containerResource: {
              name: "cpu",
              container: "app",
              target: { type: "Utilization", averageUtilization: 60 },
            },
          },
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization" } } },
        ],
      },
      status: {
        currentReplicas: 1,
        currentMetrics: [
          { type: "ContainerResource", containerResource: { current: { averageUtilization: 30 } } },
        ],
      },
    },
    row: [
      ["Reference", "string", 0, "Deployment/web"],
      ["Targets", "string", 0, "30%/60%, <unknown>/<auto>"],
      ["MinPods", "string", 0, "1"],
      ["MaxPods", "string", 0, 3],
      ["Replicas", "string", 0, 1],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "external value and pods metrics with readings",
    group: "autoscaling",
    plural: "horizontalpodautoscalers",
    object: {
      metadata: meta("read"),
      spec: {
        scaleTargetRef: target,
        maxReplicas: 4,
        metrics: [
          {
            type: "External",
            external: { metric: { name: "lag" }, target: { type: "Value", value: "100" } },
          },
          {
            type: "Pods",
            pods: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "2" } },
          },
        ],
      },
      status: {
        currentReplicas: 2,
        currentMetrics: [
          { type: "External", external: { current: { value: "42" } } },
          { type: "Pods", pods: { current: { averageValue: "1500m" } } },
        ],
      },
    },
    row: [
      ["Reference", "string", 0, "Deployment/web"],
      ["Targets", "string", 0, "42/100, 1500m/2"],
      ["MinPods", "string", 0, "<unset>"],
      ["MaxPods", "string", 0, 4],
      ["Replicas", "string", 0, 2],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "no metrics",
    group: "autoscaling",
    plural: "horizontalpodautoscalers",
    object: {
      metadata: meta("bare"),
      spec: { scaleTargetRef: target, minReplicas: 1, maxReplicas: 2, metrics: [] },
    },
    row: [
      ["Reference", "string", 0, "Deployment/web"],
      ["Targets", "string", 0, "<none>"],
      ["MinPods", "string", 0, "1"],
      ["MaxPods", "string", 0, 2],
      ["Replicas", "string", 0, 0],
      ["Age", "string", 0, "26h"],
    ],
  },
];

describe("autoscaling columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () => {
    assertTolerant("autoscaling", "horizontalpodautoscalers");
  });
});
