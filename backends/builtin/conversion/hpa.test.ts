import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { DEFAULT_CPU_UTILIZATION, type HpaVersion, hpaConversion } from "./index.ts";

type Json = Record<string, unknown>;

const ns = naming("cluster");
const convert = hpaConversion(ns);
const key = (name: string) => ns.label(name, "autoscaling.alpha");
const METRICS = key("metrics");
const CURRENT = key("current-metrics");
const BEHAVIOR = key("behavior");
const CONDITIONS = key("conditions");

const V1 = "autoscaling/v1";
const V2 = "autoscaling/v2";
const KIND = "HorizontalPodAutoscaler";
const ref = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
const service = { apiVersion: "v1", kind: "Service", name: "front" };
const queueSelector = { matchExpressions: [{ key: "queue", operator: "In", values: ["jobs"] }] };
const cpuTarget = (n: number) => ({
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization: n } },
});
const cpuCurrent = (n: number) => ({
  type: "Resource",
  resource: { name: "cpu", current: { averageUtilization: n } },
});

function hpa(apiVersion: string, spec: Json, status?: Json, annotations?: Json): Json {
  const metadata: Json = { name: "web", namespace: "default" };
  if (annotations) metadata.annotations = annotations;
  const out: Json = { apiVersion, kind: KIND, metadata, spec };
  if (status) out.status = status;
  return out;
}

// A v2 object using every metric type, behavior, conditions and current metrics, with the CPU
// utilization metric last (where a trip through v1 puts it back).
const richV2 = hpa(
  V2,
  {
    scaleTargetRef: ref,
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      {
        type: "Pods",
        pods: {
          metric: { name: "packets-per-second", selector: { matchLabels: { tier: "web", app: "shop" } } },
          target: { type: "AverageValue", averageValue: "1k" },
        },
      },
      {
        type: "Object",
        object: {
          describedObject: service,
          target: { type: "Value", value: "10k" },
          metric: { name: "requests-per-second" },
        },
      },
      {
        type: "ContainerResource",
        containerResource: {
          name: "memory",
          target: { type: "AverageValue", averageValue: "500Mi" },
          container: "app",
        },
      },
      {
        type: "External",
        external: {
          metric: { name: "queue_ready", selector: queueSelector },
          target: { type: "Value", value: "30" },
        },
      },
      {
        type: "External",
        external: { metric: { name: "lag" }, target: { type: "AverageValue", averageValue: "250m" } },
      },
      {
        type: "Resource",
        resource: { name: "memory", target: { type: "Utilization", averageUtilization: 70 } },
      },
      cpuTarget(60),
    ],
    behavior: {
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: "Max",
        policies: [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 300,
        selectPolicy: "Min",
        policies: [{ type: "Percent", value: 10, periodSeconds: 60 }],
      },
    },
  },
  {
    observedGeneration: 3,
    lastScaleTime: "2024-05-01T10:00:00Z",
    currentReplicas: 3,
    desiredReplicas: 4,
    currentMetrics: [
      {
        type: "Pods",
        pods: {
          metric: { name: "packets-per-second", selector: { matchLabels: { tier: "web", app: "shop" } } },
          current: { averageValue: "900" },
        },
      },
      {
        type: "Object",
        object: {
          metric: { name: "requests-per-second" },
          current: { value: "12k" },
          describedObject: service,
        },
      },
      {
        type: "ContainerResource",
        containerResource: {
          name: "memory",
          current: { averageValue: "400Mi", averageUtilization: 40 },
          container: "app",
        },
      },
      {
        type: "External",
        external: { metric: { name: "queue_ready", selector: queueSelector }, current: { value: "25" } },
      },
      {
        type: "Resource",
        resource: { name: "memory", current: { averageValue: "300Mi", averageUtilization: 65 } },
      },
      {
        type: "Resource",
        resource: { name: "cpu", current: { averageValue: "250m", averageUtilization: 55 } },
      },
    ],
    conditions: [
      {
        type: "AbleToScale",
        status: "True",
        lastTransitionTime: "2024-05-01T09:00:00Z",
        reason: "ReadyForNewScale",
        message: "recommended size matches current size",
      },
      {
        type: "ScalingActive",
        status: "True",
        lastTransitionTime: "2024-05-01T09:00:00Z",
        reason: "ValidMetricFound",
        message: "the HPA was able to successfully calculate a replica count",
      },
      {
        type: "ScalingLimited",
        status: "False",
        lastTransitionTime: "2024-05-01T09:30:00Z",
        reason: "DesiredWithinRange",
      },
    ],
  },
  { team: "shop" },
);

// The same object as upstream serves it at v1: Go's encoding of v1's metric shapes (struct field
// order, omitempty, map keys sorted), the internal behavior type's Go field names.
const richV1 = hpa(
  V1,
  { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 60 },
  {
    observedGeneration: 3,
    lastScaleTime: "2024-05-01T10:00:00Z",
    currentReplicas: 3,
    desiredReplicas: 4,
    currentCPUUtilizationPercentage: 55,
  },
  {
    team: "shop",
    [METRICS]:
      '[{"type":"Pods","pods":{"metricName":"packets-per-second","targetAverageValue":"1k","selector":{"matchLabels":{"app":"shop","tier":"web"}}}},' +
      '{"type":"Object","object":{"target":{"kind":"Service","name":"front","apiVersion":"v1"},"metricName":"requests-per-second","targetValue":"10k"}},' +
      '{"type":"ContainerResource","containerResource":{"name":"memory","targetAverageValue":"500Mi","container":"app"}},' +
      '{"type":"External","external":{"metricName":"queue_ready","metricSelector":{"matchExpressions":[{"key":"queue","operator":"In","values":["jobs"]}]},"targetValue":"30"}},' +
      '{"type":"External","external":{"metricName":"lag","targetAverageValue":"250m"}},' +
      '{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}}]',
    [CURRENT]:
      '[{"type":"Pods","pods":{"metricName":"packets-per-second","currentAverageValue":"900","selector":{"matchLabels":{"app":"shop","tier":"web"}}}},' +
      '{"type":"Object","object":{"target":{"kind":"Service","name":"front","apiVersion":"v1"},"metricName":"requests-per-second","currentValue":"12k"}},' +
      '{"type":"ContainerResource","containerResource":{"name":"memory","currentAverageUtilization":40,"currentAverageValue":"400Mi","container":"app"}},' +
      '{"type":"External","external":{"metricName":"queue_ready","metricSelector":{"matchExpressions":[{"key":"queue","operator":"In","values":["jobs"]}]},"currentValue":"25"}},' +
      '{"type":"Resource","resource":{"name":"memory","currentAverageUtilization":65,"currentAverageValue":"300Mi"}},' +
      '{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":55,"currentAverageValue":"250m"}}]',
    [BEHAVIOR]:
      '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},' +
      '"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}}',
    [CONDITIONS]:
      '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T09:00:00Z","reason":"ReadyForNewScale","message":"recommended size matches current size"},' +
      '{"type":"ScalingActive","status":"True","lastTransitionTime":"2024-05-01T09:00:00Z","reason":"ValidMetricFound","message":"the HPA was able to successfully calculate a replica count"},' +
      '{"type":"ScalingLimited","status":"False","lastTransitionTime":"2024-05-01T09:30:00Z","reason":"DesiredWithinRange"}]',
  },
);

describe("HorizontalPodAutoscaler conversion", () => {
  it("v2 → v1 packs what v1 cannot hold into the annotations", () => {
    assert.deepEqual(convert(richV2, "v1"), richV1);
  });

  it("v1 → v2 unpacks the annotations and removes them", () => {
    assert.deepEqual(convert(richV1, "v2"), richV2);
  });

  it("round trips v2 → v1 → v2 and v1 → v2 → v1 are lossless", () => {
    assert.deepEqual(convert(convert(richV2, "v1"), "v2"), richV2);
    assert.deepEqual(convert(convert(richV1, "v2"), "v1"), richV1);
  });

  it("does not modify its input", () => {
    const v2 = structuredClone(richV2);
    const v1 = structuredClone(richV1);
    convert(v2, "v1");
    convert(v1, "v2");
    assert.deepEqual(v2, richV2);
    assert.deepEqual(v1, richV1);
  });

  const cases: [string, Json, HpaVersion, Json][] = [
    [
      "v1 without a CPU target gets the implicit 80% CPU utilization target",
      hpa(V1, { scaleTargetRef: ref, maxReplicas: 5 }),
      "v2",
      hpa(V2, { scaleTargetRef: ref, maxReplicas: 5, metrics: [cpuTarget(DEFAULT_CPU_UTILIZATION)] }),
    ],
    [
      "v1 without a spec still gets the implicit target",
      { apiVersion: V1, kind: KIND, metadata: { name: "web" } },
      "v2",
      { apiVersion: V2, kind: KIND, metadata: { name: "web" }, spec: { metrics: [cpuTarget(80)] } },
    ],
    [
      "v1 CPU target and CPU status become Resource metrics",
      hpa(
        V1,
        { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
        { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 50 },
      ),
      "v2",
      hpa(
        V2,
        { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, metrics: [cpuTarget(70)] },
        { currentReplicas: 2, desiredReplicas: 2, currentMetrics: [cpuCurrent(50)] },
      ),
    ],
    [
      "a CPU status metric is annotated too (its raw value is kept), with v1's zero quantity",
      hpa(
        V2,
        { scaleTargetRef: ref, maxReplicas: 5, metrics: [cpuTarget(70)] },
        { currentReplicas: 2, desiredReplicas: 2, currentMetrics: [cpuCurrent(50)] },
      ),
      "v1",
      hpa(
        V1,
        { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
        { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 50 },
        {
          [CURRENT]:
            '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":50,"currentAverageValue":"0"}}]',
        },
      ),
    ],
    [
      "only the first CPU utilization target is kept; the others are dropped",
      hpa(V2, { scaleTargetRef: ref, maxReplicas: 5, metrics: [cpuTarget(50), cpuTarget(70)] }),
      "v1",
      hpa(V1, { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 50 }),
    ],
    [
      "a CPU metric with an average-value target is not a utilization target",
      hpa(V2, {
        scaleTargetRef: ref,
        maxReplicas: 5,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "AverageValue", averageValue: "500m" } },
          },
        ],
      }),
      "v1",
      hpa(V1, { scaleTargetRef: ref, maxReplicas: 5 }, undefined, {
        [METRICS]: '[{"type":"Resource","resource":{"name":"cpu","targetAverageValue":"500m"}}]',
      }),
    ],
    [
      "the CPU utilization metric comes back after the annotated ones",
      hpa(V1, { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, undefined, {
        [METRICS]: '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]',
      }),
      "v2",
      hpa(V2, {
        scaleTargetRef: ref,
        maxReplicas: 5,
        metrics: [
          {
            type: "Resource",
            resource: { name: "memory", target: { type: "AverageValue", averageValue: "1Gi" } },
          },
          cpuTarget(50),
        ],
      }),
    ],
    [
      "the last CPU utilization status wins",
      hpa(
        V2,
        { scaleTargetRef: ref, maxReplicas: 5, metrics: [cpuTarget(50)] },
        { desiredReplicas: 1, currentMetrics: [cpuCurrent(40), cpuCurrent(60)] },
      ),
      "v1",
      hpa(
        V1,
        { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 50 },
        { desiredReplicas: 1, currentCPUUtilizationPercentage: 60 },
        {
          [CURRENT]:
            '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"0"}},' +
            '{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":60,"currentAverageValue":"0"}}]',
        },
      ),
    ],
    [
      "an Object metric's average-value target is written with v1's zero targetValue",
      hpa(V2, {
        scaleTargetRef: ref,
        maxReplicas: 5,
        metrics: [
          {
            type: "Object",
            object: {
              describedObject: service,
              target: { type: "AverageValue", averageValue: "2" },
              metric: { name: "rps" },
            },
          },
          cpuTarget(50),
        ],
      }),
      "v1",
      hpa(V1, { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, undefined, {
        [METRICS]:
          '[{"type":"Object","object":{"target":{"kind":"Service","name":"front","apiVersion":"v1"},"metricName":"rps","targetValue":"0","averageValue":"2"}}]',
      }),
    ],
    [
      "...and comes back with that zero value set",
      hpa(V1, { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, undefined, {
        [METRICS]:
          '[{"type":"Object","object":{"target":{"kind":"Service","name":"front","apiVersion":"v1"},"metricName":"rps","targetValue":"0","averageValue":"2"}}]',
      }),
      "v2",
      hpa(V2, {
        scaleTargetRef: ref,
        maxReplicas: 5,
        metrics: [
          {
            type: "Object",
            object: {
              describedObject: service,
              target: { type: "AverageValue", value: "0", averageValue: "2" },
              metric: { name: "rps" },
            },
          },
          cpuTarget(50),
        ],
      }),
    ],
    [
      "missing v1 values read as Go's zero values",
      hpa(V1, { maxReplicas: 5 }, undefined, {
        [METRICS]:
          '[{"type":"Pods","pods":{}},{"type":"External","external":{"metricName":"lag"}},{"type":"Resource"}]',
        [CURRENT]: '[{"type":"Object","object":{"metricName":"rps"}}]',
      }),
      "v2",
      hpa(
        V2,
        {
          maxReplicas: 5,
          metrics: [
            {
              type: "Pods",
              pods: { metric: { name: "" }, target: { type: "AverageValue", averageValue: "0" } },
            },
            { type: "External", external: { metric: { name: "lag" }, target: { type: "AverageValue" } } },
            { type: "Resource" },
          ],
        },
        {
          currentMetrics: [
            {
              type: "Object",
              object: {
                metric: { name: "rps" },
                current: { value: "0" },
                describedObject: { kind: "", name: "" },
              },
            },
          ],
        },
      ),
    ],
    [
      "malformed annotations are ignored (each on its own) and removed",
      hpa(
        V1,
        { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
        { currentReplicas: 1, currentCPUUtilizationPercentage: 30 },
        {
          team: "shop",
          [METRICS]: "not json",
          [BEHAVIOR]: '{"ScaleUp":{"Policies":[{"Type":"Pods","Value":"four","PeriodSeconds":15}]}}',
          [CURRENT]: '[{"type":"Pods","pods":{"metricName":"x","currentAverageValue":"lots"}}]',
          [CONDITIONS]: '[{"type":"Ready","status":"True","lastTransitionTime":"yesterday"}]',
        },
      ),
      "v2",
      hpa(
        V2,
        { scaleTargetRef: ref, maxReplicas: 5, metrics: [cpuTarget(70)] },
        { currentReplicas: 1, currentMetrics: [cpuCurrent(30)] },
        { team: "shop" },
      ),
    ],
    [
      "an annotation of the wrong JSON type is ignored; a good neighbour still applies",
      hpa(V1, { maxReplicas: 5 }, undefined, {
        [METRICS]: '{"type":"Pods"}',
        [CONDITIONS]: '[{"type":"Ready","status":"True","lastTransitionTime":"2024-05-01T11:30:00+02:00"}]',
        [BEHAVIOR]: "",
      }),
      "v2",
      hpa(
        V2,
        { maxReplicas: 5, metrics: [cpuTarget(80)] },
        { conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2024-05-01T09:30:00Z" }] },
      ),
    ],
    [
      "annotation keys match Go fields case-insensitively; quantities come back canonical",
      hpa(V1, { maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, undefined, {
        [METRICS]: '[{"TYPE":"Pods","Pods":{"MetricName":"x","TargetAverageValue":"1000m","unknown":1}}]',
        [BEHAVIOR]:
          '{"scaleUp":{"selectPolicy":"Disabled"},"scaledown":{"policies":[{"type":"Pods","value":1,"periodSeconds":60}]}}',
      }),
      "v2",
      hpa(V2, {
        maxReplicas: 5,
        metrics: [
          {
            type: "Pods",
            pods: { metric: { name: "x" }, target: { type: "AverageValue", averageValue: "1" } },
          },
          cpuTarget(50),
        ],
        behavior: {
          scaleUp: { selectPolicy: "Disabled" },
          scaleDown: { policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] },
        },
      }),
    ],
    [
      "a behavior annotation without rules gives no behavior",
      hpa(V1, { maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, undefined, {
        [BEHAVIOR]: '{"ScaleUp":null,"ScaleDown":null}',
      }),
      "v2",
      hpa(V2, { maxReplicas: 5, metrics: [cpuTarget(50)] }),
    ],
    [
      "null annotations decode as empty lists: the CPU status is replaced by nothing",
      hpa(
        V1,
        { maxReplicas: 5 },
        { currentCPUUtilizationPercentage: 30 },
        { [METRICS]: "null", [CURRENT]: "null" },
      ),
      "v2",
      hpa(V2, { maxReplicas: 5, metrics: [cpuTarget(80)] }, {}),
    ],
    [
      "round-trip annotations never stay on a v2 object",
      hpa(V2, { maxReplicas: 5, metrics: [cpuTarget(50)] }, undefined, {
        [METRICS]: "[]",
        [CONDITIONS]: "[]",
        [BEHAVIOR]: "{}",
        [CURRENT]: "[]",
      }),
      "v2",
      {
        ...hpa(V2, { maxReplicas: 5, metrics: [cpuTarget(50)] }),
        metadata: { name: "web", namespace: "default" },
      },
    ],
    [
      "stale round-trip annotations are replaced, not merged, on the way to v1",
      hpa(V2, { maxReplicas: 5, metrics: [cpuTarget(50)] }, undefined, {
        other: "x",
        [METRICS]: '[{"type":"Pods"}]',
        [CONDITIONS]: "[]",
      }),
      "v1",
      hpa(V1, { maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, undefined, { other: "x" }),
    ],
    [
      "Go's encoding: HTML-safe escapes, UTC times in whole seconds, a zero time as null, canonical quantities",
      hpa(
        V2,
        {
          maxReplicas: 5,
          metrics: [
            {
              type: "Pods",
              pods: { metric: { name: "a<b>&c" }, target: { type: "AverageValue", averageValue: "1000m" } },
            },
          ],
        },
        {
          conditions: [
            {
              type: "AbleToScale",
              status: "True",
              lastTransitionTime: "2024-05-01T11:00:00.25+02:00",
              message: 'say "hi"\n',
            },
            { type: "ScalingActive", status: "Unknown" },
          ],
        },
      ),
      "v1",
      hpa(
        V1,
        { maxReplicas: 5 },
        {},
        {
          [METRICS]:
            '[{"type":"Pods","pods":{"metricName":"a\\u003cb\\u003e\\u0026c","targetAverageValue":"1"}}]',
          [CONDITIONS]:
            '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T09:00:00Z","message":"say \\"hi\\"\\n"},' +
            '{"type":"ScalingActive","status":"Unknown","lastTransitionTime":null}]',
        },
      ),
    ],
    [
      "behavior rules left out are null in the annotation",
      hpa(V2, {
        maxReplicas: 5,
        metrics: [cpuTarget(50)],
        behavior: { scaleDown: { selectPolicy: "Disabled" } },
      }),
      "v1",
      hpa(V1, { maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, undefined, {
        [BEHAVIOR]:
          '{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Disabled","Policies":null}}',
      }),
    ],
    [
      "fields the target version does not have are dropped",
      hpa(
        V1,
        { maxReplicas: 5, targetCPUUtilizationPercentage: 50, metrics: "v1 has none" },
        { conditions: [1] },
      ),
      "v2",
      hpa(V2, { maxReplicas: 5, metrics: [cpuTarget(50)] }, {}),
    ],
  ];

  for (const [name, input, toVersion, expected] of cases) {
    it(name, () => assert.deepEqual(convert(input, toVersion), expected));
  }

  it("a v1 object with a CPU status gains the current-metrics annotation on a round trip", () => {
    const v1 = hpa(
      V1,
      { maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
      { currentCPUUtilizationPercentage: 50 },
    );
    assert.deepEqual(
      convert(convert(v1, "v2"), "v1"),
      hpa(
        V1,
        { maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
        { currentCPUUtilizationPercentage: 50 },
        {
          [CURRENT]:
            '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":50,"currentAverageValue":"0"}}]',
        },
      ),
    );
  });

  it("spells the annotation keys with the naming preset's domain", () => {
    for (const preset of ["cluster", "kubernetes"] as const) {
      const n = naming(preset);
      const v1 = hpaConversion(n)(richV2, "v1");
      const annotations = (v1.metadata as Json).annotations as Json;
      const expected = ["metrics", "current-metrics", "behavior", "conditions"].map((k) =>
        n.label(k, "autoscaling.alpha"),
      );
      assert.deepEqual(Object.keys(annotations).sort(), ["team", ...expected].sort());
      assert.deepEqual(hpaConversion(n)(v1, "v2"), richV2);
    }
  });

  it("never throws on odd input", () => {
    const odd: unknown[] = [
      {},
      { apiVersion: V1, spec: "x", status: 5, metadata: null },
      { apiVersion: V1, metadata: { annotations: "x" } },
      {
        apiVersion: V1,
        metadata: { annotations: { [METRICS]: 5, [BEHAVIOR]: "[1]", [CURRENT]: "[[]]", [CONDITIONS]: "{" } },
      },
      {
        apiVersion: V1,
        metadata: { annotations: { [METRICS]: '[{"type":"Object","object":{"targetValue":true}}]' } },
      },
      { apiVersion: V2, spec: { metrics: [1, null, "a", { type: "Resource", resource: 7 }], behavior: [] } },
      { apiVersion: V2, spec: { metrics: {} }, status: { currentMetrics: [null], conditions: ["x"] } },
      { apiVersion: "autoscaling/v2beta2", spec: { behavior: { scaleUp: { policies: [{ value: "x" }] } } } },
      null,
      [],
    ];
    for (const input of odd) {
      for (const to of ["v1", "v2"] as const) {
        const out = convert(input as Json, to);
        assert.equal(out.apiVersion, `autoscaling/${to}`);
      }
    }
  });
});
