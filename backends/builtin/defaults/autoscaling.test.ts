import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type DefaultingCase, defaulted } from "./testing.ts";

const TARGET = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
const CPU_80 = {
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
};
const SCALE_UP = {
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [
    { type: "Pods", value: 4, periodSeconds: 15 },
    { type: "Percent", value: 100, periodSeconds: 15 },
  ],
};
const SCALE_DOWN = { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };

const cases: DefaultingCase[] = [
  {
    name: "autoscaling/v1 HorizontalPodAutoscaler: minReplicas only",
    type: "autoscaling/v1.HorizontalPodAutoscaler",
    input: { metadata: { name: "web" }, spec: { scaleTargetRef: TARGET, maxReplicas: 5 } },
    expected: { metadata: { name: "web" }, spec: { scaleTargetRef: TARGET, maxReplicas: 5, minReplicas: 1 } },
  },
  {
    name: "autoscaling/v2 HorizontalPodAutoscaler: minReplicas and the CPU metric; no behavior added",
    type: "autoscaling/v2.HorizontalPodAutoscaler",
    input: { metadata: { name: "web" }, spec: { scaleTargetRef: TARGET, maxReplicas: 5, metrics: [] } },
    expected: {
      metadata: { name: "web" },
      spec: { scaleTargetRef: TARGET, maxReplicas: 5, minReplicas: 1, metrics: [CPU_80] },
    },
  },
  {
    name: "autoscaling/v2 HorizontalPodAutoscaler: an empty behavior gets both rule sets",
    type: "autoscaling/v2.HorizontalPodAutoscaler",
    input: {
      metadata: { name: "web" },
      spec: {
        scaleTargetRef: TARGET,
        minReplicas: 2,
        maxReplicas: 5,
        metrics: [
          {
            type: "Pods",
            pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } },
          },
        ],
        behavior: {},
      },
    },
    expected: {
      metadata: { name: "web" },
      spec: {
        scaleTargetRef: TARGET,
        minReplicas: 2,
        maxReplicas: 5,
        metrics: [
          {
            type: "Pods",
            pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } },
          },
        ],
        behavior: { scaleUp: SCALE_UP, scaleDown: SCALE_DOWN },
      },
    },
  },
  {
    name: "autoscaling/v2 HorizontalPodAutoscaler: given rule settings win over the defaults",
    type: "autoscaling/v2.HorizontalPodAutoscaler",
    input: {
      metadata: { name: "web" },
      spec: {
        scaleTargetRef: TARGET,
        maxReplicas: 5,
        behavior: {
          scaleDown: { stabilizationWindowSeconds: 60 },
          scaleUp: { selectPolicy: "Min", policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] },
        },
      },
    },
    expected: {
      metadata: { name: "web" },
      spec: {
        scaleTargetRef: TARGET,
        maxReplicas: 5,
        minReplicas: 1,
        metrics: [CPU_80],
        behavior: {
          scaleDown: { ...SCALE_DOWN, stabilizationWindowSeconds: 60 },
          scaleUp: {
            stabilizationWindowSeconds: 0,
            selectPolicy: "Min",
            policies: [{ type: "Pods", value: 1, periodSeconds: 60 }],
          },
        },
      },
    },
  },
];

describe("autoscaling defaults", () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(defaulted(c.type, c.input, c.preset), c.expected));
  }

  it("builds fresh defaults for each object", () => {
    const type = "autoscaling/v2.HorizontalPodAutoscaler";
    const a = defaulted(type, { spec: { behavior: {} } }) as {
      spec: { behavior: { scaleUp: { policies: unknown[] } } };
    };
    a.spec.behavior.scaleUp.policies.push("changed");
    const b = defaulted(type, { spec: { behavior: {} } }) as { spec: { behavior: { scaleUp: unknown } } };
    assert.deepEqual(b.spec.behavior.scaleUp, SCALE_UP);
  });
});
