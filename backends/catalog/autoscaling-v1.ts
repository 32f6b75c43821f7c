// autoscaling/v1: the CPU-only HorizontalPodAutoscaler, the Scale subresource object, and the
// metric source and status types upstream keeps in this version for its annotation encoding of
// newer autoscaler fields.
import { f, pkg, required, t } from "./model.ts";

// Allowed values of upstream's enumerated string types, as its OpenAPI lists them (sorted).
const METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"];

// Wording shared by several fields.
const RESOURCE_NAME = 'The resource to measure, such as "cpu" or "memory".';
const CONTAINER_NAME = "The container, in each pod of the scale target, whose usage is measured.";
const UTILIZATION_TARGET =
  "The wanted average usage across the pods, as a percentage of what the pods request.";
const UTILIZATION_CURRENT =
  "The measured average usage across the pods, as a percentage of what the pods request.";
const RAW_AVERAGE_TARGET =
  "The wanted average usage across the pods, as a raw quantity rather than a percentage.";
const RAW_AVERAGE_CURRENT = "The measured average usage across the pods, as a raw quantity.";
const METRIC_NAME = "Name of the metric.";
const METRIC_SELECTOR =
  "Narrows the metric to particular series; passed to the metrics server along with the name. When unset, the name alone is used.";
const SOURCE_TYPE = `Which kind of metric this is; the field of the same name (object, pods, resource, containerResource or external) must be the only other one set.`;
const SOURCE_OBJECT = "A metric of one object, such as requests per second on an Ingress.";
const SOURCE_PODS = "A metric of each pod in the scale target, averaged over the pods.";
const SOURCE_RESOURCE =
  "A built-in resource metric, such as cpu or memory, of each pod in the scale target, based on requests and limits.";
const SOURCE_CONTAINER_RESOURCE =
  "A built-in resource metric of one container in each pod of the scale target. Needs the HPAContainerMetrics feature.";
const SOURCE_EXTERNAL =
  "A metric not tied to any object in the cluster, such as the length of a cloud queue.";

export const AUTOSCALING_V1 = pkg("autoscaling/v1", "k8s.io.api.autoscaling.v1", {
  ContainerResourceMetricSource: t(
    "Scales on a built-in resource metric of one container in each pod of the target, compared against a target average; set only one target.",
    {
      name: f(1, "string", RESOURCE_NAME, { ...required, omitEmpty: false }),
      targetAverageUtilization: f(2, "int32", UTILIZATION_TARGET, { pointer: true }),
      targetAverageValue: f(3, "quantity", RAW_AVERAGE_TARGET, { pointer: true }),
      container: f(5, "string", CONTAINER_NAME, { ...required, omitEmpty: false }),
    },
  ),
  ContainerResourceMetricStatus: t(
    "The latest reading of a built-in resource metric of one container in each pod of the target.",
    {
      name: f(1, "string", RESOURCE_NAME, { omitEmpty: false }),
      currentAverageUtilization: f(
        2,
        "int32",
        `${UTILIZATION_CURRENT} Only reported when the metric's target is a utilization.`,
        { pointer: true },
      ),
      currentAverageValue: f(3, "quantity", `${RAW_AVERAGE_CURRENT} Always reported.`, { omitEmpty: false }),
      container: f(4, "string", CONTAINER_NAME, { omitEmpty: false }),
    },
  ),
  CrossVersionObjectReference: t(
    "Identifies an object by kind, name and API version, within the referrer's namespace.",
    {
      kind: f(1, "string", 'Kind of the object, such as "Deployment".', { ...required, omitEmpty: false }),
      name: f(2, "string", "Name of the object.", { ...required, omitEmpty: false }),
      apiVersion: f(3, "string", 'API version of the object, such as "apps/v1".'),
    },
    { structType: "atomic" },
  ),
  ExternalMetricSource: t("Scales on a metric that comes from outside the cluster.", {
    metricName: f(1, "string", METRIC_NAME, { ...required, omitEmpty: false }),
    metricSelector: f(2, "meta/v1.LabelSelector", METRIC_SELECTOR, { pointer: true }),
    targetValue: f(
      3,
      "quantity",
      "The wanted value of the metric; cannot be combined with targetAverageValue.",
      { pointer: true },
    ),
    targetAverageValue: f(
      4,
      "quantity",
      "The wanted value of the metric divided by the number of pods; cannot be combined with targetValue.",
      { pointer: true },
    ),
  }),
  ExternalMetricStatus: t("The latest reading of a metric from outside the cluster.", {
    metricName: f(1, "string", METRIC_NAME, { omitEmpty: false }),
    metricSelector: f(2, "meta/v1.LabelSelector", METRIC_SELECTOR, { pointer: true }),
    currentValue: f(3, "quantity", "The measured value of the metric.", { omitEmpty: false }),
    currentAverageValue: f(4, "quantity", "The measured value divided by the number of pods.", {
      pointer: true,
    }),
  }),
  HorizontalPodAutoscaler: t(
    "Adjusts the replica count of a scalable object to keep its average CPU usage near a target.",
    {
      metadata: f(
        1,
        "meta/v1.ObjectMeta",
        "The object's metadata: name, namespace, labels, annotations and so on.",
      ),
      spec: f(
        2,
        "HorizontalPodAutoscalerSpec",
        "What to scale, within which bounds, towards which CPU target.",
      ),
      status: f(3, "HorizontalPodAutoscalerStatus", "What the autoscaler last observed and decided."),
    },
  ),
  HorizontalPodAutoscalerCondition: t("One observation about an autoscaler's state at a point in time.", {
    type: f(1, "string", 'Kind of condition, such as "AbleToScale" or "ScalingActive".', {
      omitEmpty: false,
    }),
    status: f(2, "string", 'Whether the condition holds: "True", "False" or "Unknown".', {
      omitEmpty: false,
    }),
    lastTransitionTime: f(3, "time", "When the condition last changed status."),
    reason: f(4, "string", "A short, machine-readable cause of the last status change."),
    message: f(5, "string", "A human-readable explanation of the last status change."),
  }),
  HorizontalPodAutoscalerSpec: t("The desired behaviour of a CPU-based autoscaler.", {
    scaleTargetRef: f(
      1,
      "CrossVersionObjectReference",
      "The object to scale; the autoscaler reads its pods' usage and sets the count through its scale subresource.",
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
    targetCPUUtilizationPercentage: f(
      4,
      "int32",
      "The wanted average CPU usage across the pods, as a percentage of their CPU request. When unset, a default policy applies.",
      { pointer: true },
    ),
  }),
  HorizontalPodAutoscalerStatus: t("What a CPU-based autoscaler last observed and decided.", {
    observedGeneration: f(1, "int64", "The most recent generation of the autoscaler that was acted on.", {
      pointer: true,
    }),
    lastScaleTime: f(
      2,
      "time",
      "When the autoscaler last changed the replica count; used to space out changes.",
      { pointer: true },
    ),
    currentReplicas: f(3, "int32", "How many replicas the target has now.", { omitEmpty: false }),
    desiredReplicas: f(4, "int32", "How many replicas the autoscaler wants.", { omitEmpty: false }),
    currentCPUUtilizationPercentage: f(
      5,
      "int32",
      "The measured average CPU usage across the pods, as a percentage of their CPU request; 70 means 70% of the request.",
      { pointer: true },
    ),
  }),
  MetricSpec: t("One metric to scale on: the type and the one matching source field.", {
    type: f(1, "string", SOURCE_TYPE, { ...required, enum: METRIC_SOURCE_TYPES, omitEmpty: false }),
    object: f(2, "ObjectMetricSource", SOURCE_OBJECT, { pointer: true }),
    pods: f(3, "PodsMetricSource", SOURCE_PODS, { pointer: true }),
    resource: f(4, "ResourceMetricSource", SOURCE_RESOURCE, { pointer: true }),
    containerResource: f(7, "ContainerResourceMetricSource", SOURCE_CONTAINER_RESOURCE, { pointer: true }),
    external: f(5, "ExternalMetricSource", SOURCE_EXTERNAL, { pointer: true }),
  }),
  MetricStatus: t("The latest reading of one metric: the type and the one matching status field.", {
    type: f(1, "string", "Which kind of metric this is; the field of the same name holds the reading.", {
      enum: METRIC_SOURCE_TYPES,
      omitEmpty: false,
    }),
    object: f(2, "ObjectMetricStatus", SOURCE_OBJECT, { pointer: true }),
    pods: f(3, "PodsMetricStatus", SOURCE_PODS, { pointer: true }),
    resource: f(4, "ResourceMetricStatus", SOURCE_RESOURCE, { pointer: true }),
    containerResource: f(7, "ContainerResourceMetricStatus", SOURCE_CONTAINER_RESOURCE, { pointer: true }),
    external: f(5, "ExternalMetricStatus", SOURCE_EXTERNAL, { pointer: true }),
  }),
  ObjectMetricSource: t("Scales on a metric of a single object, such as requests per second on an Ingress.", {
    target: f(1, "CrossVersionObjectReference", "The object the metric describes.", {
      ...required,
      omitEmpty: false,
    }),
    metricName: f(2, "string", METRIC_NAME, { ...required, omitEmpty: false }),
    targetValue: f(3, "quantity", "The wanted value of the metric.", { ...required, omitEmpty: false }),
    selector: f(4, "meta/v1.LabelSelector", METRIC_SELECTOR, { pointer: true }),
    averageValue: f(5, "quantity", "The wanted value of the metric divided by the number of pods.", {
      pointer: true,
    }),
  }),
  ObjectMetricStatus: t("The latest reading of a metric of a single object.", {
    target: f(1, "CrossVersionObjectReference", "The object the metric describes.", { omitEmpty: false }),
    metricName: f(2, "string", METRIC_NAME, { omitEmpty: false }),
    currentValue: f(3, "quantity", "The measured value of the metric.", { omitEmpty: false }),
    selector: f(4, "meta/v1.LabelSelector", METRIC_SELECTOR, { pointer: true }),
    averageValue: f(5, "quantity", "The measured value divided by the number of pods.", { pointer: true }),
  }),
  PodsMetricSource: t(
    "Scales on a metric reported by each pod of the target, averaged over the pods before comparing.",
    {
      metricName: f(1, "string", METRIC_NAME, { ...required, omitEmpty: false }),
      targetAverageValue: f(2, "quantity", "The wanted average of the metric across the pods.", {
        ...required,
        omitEmpty: false,
      }),
      selector: f(3, "meta/v1.LabelSelector", METRIC_SELECTOR, { pointer: true }),
    },
  ),
  PodsMetricStatus: t("The latest reading of a metric reported by each pod of the target.", {
    metricName: f(1, "string", METRIC_NAME, { omitEmpty: false }),
    currentAverageValue: f(2, "quantity", "The measured average of the metric across the pods.", {
      omitEmpty: false,
    }),
    selector: f(3, "meta/v1.LabelSelector", METRIC_SELECTOR, { pointer: true }),
  }),
  ResourceMetricSource: t(
    "Scales on a built-in resource metric of each pod of the target, averaged over the pods; set only one target.",
    {
      name: f(1, "string", RESOURCE_NAME, { ...required, omitEmpty: false }),
      targetAverageUtilization: f(2, "int32", UTILIZATION_TARGET, { pointer: true }),
      targetAverageValue: f(3, "quantity", RAW_AVERAGE_TARGET, { pointer: true }),
    },
  ),
  ResourceMetricStatus: t("The latest reading of a built-in resource metric of each pod of the target.", {
    name: f(1, "string", RESOURCE_NAME, { omitEmpty: false }),
    currentAverageUtilization: f(
      2,
      "int32",
      `${UTILIZATION_CURRENT} Only reported when the metric's target is a utilization.`,
      { pointer: true },
    ),
    currentAverageValue: f(3, "quantity", `${RAW_AVERAGE_CURRENT} Always reported.`, { omitEmpty: false }),
  }),
  Scale: t("The replica count of a scalable object, read and written through its scale subresource.", {
    metadata: f(1, "meta/v1.ObjectMeta", "Metadata of the scaled object."),
    spec: f(2, "ScaleSpec", "The replica count asked for."),
    status: f(3, "ScaleStatus", "The replica count observed; read-only."),
  }),
  ScaleSpec: t("The wanted size of a scalable object.", {
    replicas: f(1, "int32", "How many replicas the object should have."),
  }),
  ScaleStatus: t("The observed size of a scalable object.", {
    replicas: f(1, "int32", "How many replicas the object has now.", { omitEmpty: false }),
    selector: f(
      2,
      "string",
      'The label selector of the pods counted, in the string form used in query parameters, such as "app=web,tier!=cache".',
    ),
  }),
});
