// autoscaling/v2: the HorizontalPodAutoscaler that scales on any mix of resource, pod, object and
// external metrics, with configurable scale-up and scale-down behaviour.
import { atomic, f, mapList, mergeBy, pkg, required, t } from "./model.ts";

// Wording shared by several fields.
const RESOURCE_NAME = 'The resource to measure, such as "cpu" or "memory".';
const CONTAINER_NAME = "The container, in each pod of the scale target, whose usage is measured.";
const METRIC_ID = "Which metric, by name and optional selector.";
const TARGET = "The value the autoscaler aims for.";
const CURRENT = "The latest measured value.";
const DESCRIBED_OBJECT = "The object the metric describes.";
const SOURCE_OBJECT = "A metric of one object, such as requests per second on an Ingress.";
const SOURCE_PODS = "A metric of each pod in the scale target, averaged over the pods.";
const SOURCE_RESOURCE =
  "A built-in resource metric, such as cpu or memory, of each pod in the scale target, based on requests and limits.";
const SOURCE_CONTAINER_RESOURCE =
  "A built-in resource metric of one container in each pod of the scale target. Needs the HPAContainerMetrics feature.";
const SOURCE_EXTERNAL =
  "A metric not tied to any object in the cluster, such as the length of a cloud queue.";
const AVERAGE_UTILIZATION =
  "Average usage across the pods as a percentage of what they request; only for resource and container resource metrics.";

export const AUTOSCALING_V2 = pkg("autoscaling/v2", "k8s.io.api.autoscaling.v2", {
  ContainerResourceMetricSource: t(
    "Scales on a built-in resource metric of one container in each pod of the target, averaged over the pods.",
    {
      name: f(1, "string", RESOURCE_NAME, { ...required, omitEmpty: false }),
      target: f(2, "MetricTarget", TARGET, { ...required, omitEmpty: false }),
      container: f(3, "string", CONTAINER_NAME, { ...required, omitEmpty: false }),
    },
  ),
  ContainerResourceMetricStatus: t(
    "The latest reading of a built-in resource metric of one container in each pod of the target.",
    {
      name: f(1, "string", RESOURCE_NAME, { omitEmpty: false }),
      current: f(2, "MetricValueStatus", CURRENT, { omitEmpty: false }),
      container: f(3, "string", CONTAINER_NAME, { omitEmpty: false }),
    },
  ),
  CrossVersionObjectReference: t(
    "Identifies an object by kind, name and API version, within the referrer's namespace.",
    {
      kind: f(1, "string", 'Kind of the object, such as "Deployment".', { ...required, omitEmpty: false }),
      name: f(2, "string", "Name of the object.", { ...required, omitEmpty: false }),
      apiVersion: f(3, "string", 'API version of the object, such as "apps/v1".'),
    },
  ),
  ExternalMetricSource: t("Scales on a metric that comes from outside the cluster.", {
    metric: f(1, "MetricIdentifier", METRIC_ID, { ...required, omitEmpty: false }),
    target: f(2, "MetricTarget", TARGET, { ...required, omitEmpty: false }),
  }),
  ExternalMetricStatus: t("The latest reading of a metric from outside the cluster.", {
    metric: f(1, "MetricIdentifier", METRIC_ID, { omitEmpty: false }),
    current: f(2, "MetricValueStatus", CURRENT, { omitEmpty: false }),
  }),
  HPAScalingPolicy: t("One limit on how fast the replica count may change within a time window.", {
    type: f(
      1,
      "string",
      '"Pods" limits the change to a number of pods; "Percent" to a percentage of the current count.',
      { ...required, omitEmpty: false },
    ),
    value: f(2, "int32", "How much change the policy permits; must be positive.", {
      ...required,
      omitEmpty: false,
    }),
    periodSeconds: f(3, "int32", "The window, in seconds, over which the limit applies; from 1 to 1800.", {
      ...required,
      omitEmpty: false,
    }),
  }),
  HPAScalingRules: t(
    "How fast the autoscaler may scale in one direction: rate limits per window, and a stabilization window that damps flapping by choosing the safest recent recommendation.",
    {
      stabilizationWindowSeconds: f(
        3,
        "int32",
        "How many seconds of past recommendations to consider, from 0 to 3600. Defaults to 0 for scaling up and 300 for scaling down.",
        { pointer: true },
      ),
      selectPolicy: f(
        1,
        "string",
        '"Max" (the default) follows the policy allowing the largest change, "Min" the smallest; "Disabled" turns scaling in this direction off.',
        { pointer: true },
      ),
      policies: f(
        2,
        "[]HPAScalingPolicy",
        "The rate limits to choose between; the rules are ignored as invalid when none is given.",
        atomic,
      ),
    },
  ),
  HorizontalPodAutoscaler: t(
    "Adjusts the replica count of any object with a scale subresource to keep the given metrics near their targets.",
    {
      metadata: f(
        1,
        "meta/v1.ObjectMeta",
        "The object's metadata: name, namespace, labels, annotations and so on.",
      ),
      spec: f(2, "HorizontalPodAutoscalerSpec", "What to scale, within which bounds, on which metrics."),
      status: f(3, "HorizontalPodAutoscalerStatus", "What the autoscaler last observed and decided."),
    },
  ),
  HorizontalPodAutoscalerBehavior: t("How fast the autoscaler may scale up and down.", {
    scaleUp: f(
      1,
      "HPAScalingRules",
      "Rules for scaling up. By default: the larger of 4 more pods or double the pods every 60 seconds, with no stabilization.",
      { pointer: true },
    ),
    scaleDown: f(
      2,
      "HPAScalingRules",
      "Rules for scaling down. By default: straight down to minReplicas if needed, using the highest recommendation of the last 300 seconds.",
      { pointer: true },
    ),
  }),
  HorizontalPodAutoscalerCondition: t("One observation about an autoscaler's state at a point in time.", {
    type: f(1, "string", 'Kind of condition, such as "AbleToScale", "ScalingActive" or "ScalingLimited".', {
      omitEmpty: false,
    }),
    status: f(2, "string", 'Whether the condition holds: "True", "False" or "Unknown".', {
      omitEmpty: false,
    }),
    lastTransitionTime: f(3, "time", "When the condition last changed status."),
    reason: f(4, "string", "A short, machine-readable cause of the last status change."),
    message: f(5, "string", "A human-readable explanation of the last status change."),
  }),
  HorizontalPodAutoscalerSpec: t("The desired behaviour of an autoscaler.", {
    scaleTargetRef: f(
      1,
      "CrossVersionObjectReference",
      "The object to scale; its pods are where metrics are collected, and its scale subresource is where the count is set.",
      { ...required, omitEmpty: false },
    ),
    minReplicas: f(
      2,
      "int32",
      "The fewest replicas to scale down to. Defaults to 1; 0 is only allowed with the HPAScaleToZero feature and an object or external metric.",
      { pointer: true },
    ),
    maxReplicas: f(3, "int32", "The most replicas to scale up to; not less than minReplicas.", {
      ...required,
      omitEmpty: false,
    }),
    metrics: f(
      4,
      "[]MetricSpec",
      "The metrics to scale on. Each proposes a replica count from the ratio of its current value to its target, and the largest proposal wins, so each metric must fall as pods are added. Defaults to 80% average CPU utilization.",
      atomic,
    ),
    behavior: f(
      5,
      "HorizontalPodAutoscalerBehavior",
      "Limits on how fast to scale up and down; unset directions use the defaults.",
      { pointer: true },
    ),
  }),
  HorizontalPodAutoscalerStatus: t("What an autoscaler last observed and decided.", {
    observedGeneration: f(1, "int64", "The most recent generation of the autoscaler that was acted on.", {
      pointer: true,
    }),
    lastScaleTime: f(
      2,
      "time",
      "When the autoscaler last changed the replica count; used to space out changes.",
      { pointer: true },
    ),
    currentReplicas: f(3, "int32", "How many replicas the target had when the autoscaler last looked."),
    desiredReplicas: f(4, "int32", "How many replicas the autoscaler last computed it wants.", {
      omitEmpty: false,
    }),
    currentMetrics: f(5, "[]MetricStatus", "The latest reading of each metric in use.", {
      ...atomic,
      omitEmpty: false,
    }),
    conditions: f(
      6,
      "[]HorizontalPodAutoscalerCondition",
      "Whether the conditions the autoscaler needs in order to scale are met.",
      { ...mergeBy("type"), ...mapList("type") },
    ),
  }),
  MetricIdentifier: t("Names a metric, optionally narrowed by a label selector.", {
    name: f(1, "string", "Name of the metric.", { ...required, omitEmpty: false }),
    selector: f(
      2,
      "meta/v1.LabelSelector",
      "Narrows the metric to particular series; passed to the metrics server along with the name. When unset, the name alone is used.",
      { pointer: true },
    ),
  }),
  MetricSpec: t("One metric to scale on: the type and the one matching source field.", {
    type: f(
      1,
      "string",
      'Which kind of metric this is: "ContainerResource", "External", "Object", "Pods" or "Resource"; the field of the same name must be the only other one set.',
      { ...required, omitEmpty: false },
    ),
    object: f(2, "ObjectMetricSource", SOURCE_OBJECT, { pointer: true }),
    pods: f(3, "PodsMetricSource", SOURCE_PODS, { pointer: true }),
    resource: f(4, "ResourceMetricSource", SOURCE_RESOURCE, { pointer: true }),
    containerResource: f(7, "ContainerResourceMetricSource", SOURCE_CONTAINER_RESOURCE, { pointer: true }),
    external: f(5, "ExternalMetricSource", SOURCE_EXTERNAL, { pointer: true }),
  }),
  MetricStatus: t("The latest reading of one metric: the type and the one matching status field.", {
    type: f(
      1,
      "string",
      'Which kind of metric this is: "ContainerResource", "External", "Object", "Pods" or "Resource"; the field of the same name holds the reading.',
      { omitEmpty: false },
    ),
    object: f(2, "ObjectMetricStatus", SOURCE_OBJECT, { pointer: true }),
    pods: f(3, "PodsMetricStatus", SOURCE_PODS, { pointer: true }),
    resource: f(4, "ResourceMetricStatus", SOURCE_RESOURCE, { pointer: true }),
    containerResource: f(7, "ContainerResourceMetricStatus", SOURCE_CONTAINER_RESOURCE, { pointer: true }),
    external: f(5, "ExternalMetricStatus", SOURCE_EXTERNAL, { pointer: true }),
  }),
  MetricTarget: t("The value a metric should have: a total, a per-pod average or a utilization.", {
    type: f(
      1,
      "string",
      'Which of the values below is the target: "Value", "AverageValue" or "Utilization".',
      { ...required, omitEmpty: false },
    ),
    value: f(2, "quantity", "The wanted value of the metric.", { pointer: true }),
    averageValue: f(3, "quantity", "The wanted average of the metric across the pods.", { pointer: true }),
    averageUtilization: f(4, "int32", AVERAGE_UTILIZATION, { pointer: true }),
  }),
  MetricValueStatus: t("A measured value of a metric.", {
    value: f(1, "quantity", "The measured value of the metric.", { pointer: true }),
    averageValue: f(2, "quantity", "The measured average of the metric across the pods.", { pointer: true }),
    averageUtilization: f(3, "int32", AVERAGE_UTILIZATION, { pointer: true }),
  }),
  ObjectMetricSource: t("Scales on a metric of a single object, such as requests per second on an Ingress.", {
    describedObject: f(1, "CrossVersionObjectReference", DESCRIBED_OBJECT, { ...required, omitEmpty: false }),
    target: f(2, "MetricTarget", TARGET, { ...required, omitEmpty: false }),
    metric: f(3, "MetricIdentifier", METRIC_ID, { ...required, omitEmpty: false }),
  }),
  ObjectMetricStatus: t("The latest reading of a metric of a single object.", {
    metric: f(1, "MetricIdentifier", METRIC_ID, { omitEmpty: false }),
    current: f(2, "MetricValueStatus", CURRENT, { omitEmpty: false }),
    describedObject: f(3, "CrossVersionObjectReference", DESCRIBED_OBJECT, { omitEmpty: false }),
  }),
  PodsMetricSource: t(
    "Scales on a metric reported by each pod of the target, averaged over the pods before comparing.",
    {
      metric: f(1, "MetricIdentifier", METRIC_ID, { ...required, omitEmpty: false }),
      target: f(2, "MetricTarget", TARGET, { ...required, omitEmpty: false }),
    },
  ),
  PodsMetricStatus: t("The latest reading of a metric reported by each pod of the target.", {
    metric: f(1, "MetricIdentifier", METRIC_ID, { omitEmpty: false }),
    current: f(2, "MetricValueStatus", CURRENT, { omitEmpty: false }),
  }),
  ResourceMetricSource: t(
    "Scales on a built-in resource metric of each pod of the target, averaged over the pods.",
    {
      name: f(1, "string", RESOURCE_NAME, { ...required, omitEmpty: false }),
      target: f(2, "MetricTarget", TARGET, { ...required, omitEmpty: false }),
    },
  ),
  ResourceMetricStatus: t("The latest reading of a built-in resource metric of each pod of the target.", {
    name: f(1, "string", RESOURCE_NAME, { omitEmpty: false }),
    current: f(2, "MetricValueStatus", CURRENT, { omitEmpty: false }),
  }),
});
