// HorizontalPodAutoscaler between autoscaling/v1 and autoscaling/v2, as upstream 1.27 converts it.
//
// v2 carries everything; v1 only has a CPU utilization target. Going to v1, the first Resource
// metric on `cpu` with a utilization target becomes `spec.targetCPUUtilizationPercentage`, and
// everything v1 cannot hold is packed, JSON-encoded, into four annotations on the v1 object:
//   .../metrics          every spec metric except CPU-utilization ones, in v1's metric shapes;
//   .../current-metrics  every status metric (all of them, CPU included), in v1's shapes;
//   .../behavior         spec.behavior, encoded from upstream's internal type, so its keys are Go
//                        field names (`ScaleUp`, `StabilizationWindowSeconds`, ...);
//   .../conditions       status.conditions.
// `status.currentCPUUtilizationPercentage` is the last CPU status metric's utilization.
// Coming back from v1, the annotations are unpacked and removed: the annotated metrics come first
// and the CPU metric made from `targetCPUUtilizationPercentage` last; the current-metrics
// annotation replaces the CPU status metric; an annotation that does not decode is ignored (and
// still removed); an HPA left without metrics gets the implicit 80% CPU utilization target.
// v2 itself never keeps these annotations: they are dropped whenever an object passes through.
import type { Naming } from "../../naming/naming.ts";
import {
  field,
  goMarshal,
  goUnmarshal,
  list,
  ptr,
  readLenient,
  type Shape,
  struct,
  toPlainJson,
} from "./go-json.ts";

export type HpaVersion = "v1" | "v2";
type Json = Record<string, unknown>;
type Ptr<T> = T | null;

/** The CPU utilization an HPA without any metric aims at (upstream's DefaultCPUUtilization). */
export const DEFAULT_CPU_UTILIZATION = 80;
const CPU = "cpu";
const RESOURCE = "Resource";

// ---------------------------------------------------------------------------------------------
// Types shared by both versions.

interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values: string[] | null;
}
interface LabelSelector {
  matchLabels: Record<string, string> | null;
  matchExpressions: LabelSelectorRequirement[] | null;
}
const selectorShape = struct(
  field("matchLabels", "stringMap", true),
  field(
    "matchExpressions",
    list(struct(field("key", "string"), field("operator", "string"), field("values", list("string"), true))),
    true,
  ),
);

interface ObjectRef {
  kind: string;
  name: string;
  apiVersion: string;
}
const refShape = struct(
  field("kind", "string"),
  field("name", "string"),
  field("apiVersion", "string", true),
);

interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}
const conditionShape = struct(
  field("type", "string"),
  field("status", "string"),
  field("lastTransitionTime", "time", true),
  field("reason", "string", true),
  field("message", "string", true),
);

// ---------------------------------------------------------------------------------------------
// autoscaling/v2 (the same shapes as upstream's internal version).

interface MetricTarget {
  type: string;
  value: Ptr<string>;
  averageValue: Ptr<string>;
  averageUtilization: Ptr<number>;
}
interface MetricIdentifier {
  name: string;
  selector: Ptr<LabelSelector>;
}
interface MetricSpec {
  type: string;
  object: Ptr<{ describedObject: ObjectRef; target: MetricTarget; metric: MetricIdentifier }>;
  pods: Ptr<{ metric: MetricIdentifier; target: MetricTarget }>;
  resource: Ptr<{ name: string; target: MetricTarget }>;
  containerResource: Ptr<{ name: string; target: MetricTarget; container: string }>;
  external: Ptr<{ metric: MetricIdentifier; target: MetricTarget }>;
}
interface MetricValueStatus {
  value: Ptr<string>;
  averageValue: Ptr<string>;
  averageUtilization: Ptr<number>;
}
interface MetricStatus {
  type: string;
  object: Ptr<{ metric: MetricIdentifier; current: MetricValueStatus; describedObject: ObjectRef }>;
  pods: Ptr<{ metric: MetricIdentifier; current: MetricValueStatus }>;
  resource: Ptr<{ name: string; current: MetricValueStatus }>;
  containerResource: Ptr<{ name: string; current: MetricValueStatus; container: string }>;
  external: Ptr<{ metric: MetricIdentifier; current: MetricValueStatus }>;
}
interface ScalingPolicy {
  type: string;
  value: number;
  periodSeconds: number;
}
interface ScalingRules {
  stabilizationWindowSeconds: Ptr<number>;
  selectPolicy: Ptr<string>;
  policies: ScalingPolicy[] | null;
}
interface Behavior {
  scaleUp: Ptr<ScalingRules>;
  scaleDown: Ptr<ScalingRules>;
}

const targetShape = struct(
  field("type", "string"),
  field("value", ptr("quantity"), true),
  field("averageValue", ptr("quantity"), true),
  field("averageUtilization", ptr("int32"), true),
);
const identifierShape = struct(field("name", "string"), field("selector", ptr(selectorShape), true));
const metricSpecShape = struct(
  field("type", "string"),
  field(
    "object",
    ptr(
      struct(
        field("describedObject", refShape),
        field("target", targetShape),
        field("metric", identifierShape),
      ),
    ),
    true,
  ),
  field("pods", ptr(struct(field("metric", identifierShape), field("target", targetShape))), true),
  field("resource", ptr(struct(field("name", "string"), field("target", targetShape))), true),
  field(
    "containerResource",
    ptr(struct(field("name", "string"), field("target", targetShape), field("container", "string"))),
    true,
  ),
  field("external", ptr(struct(field("metric", identifierShape), field("target", targetShape))), true),
);
const valueStatusShape = struct(
  field("value", ptr("quantity"), true),
  field("averageValue", ptr("quantity"), true),
  field("averageUtilization", ptr("int32"), true),
);
const metricStatusShape = struct(
  field("type", "string"),
  field(
    "object",
    ptr(
      struct(
        field("metric", identifierShape),
        field("current", valueStatusShape),
        field("describedObject", refShape),
      ),
    ),
    true,
  ),
  field("pods", ptr(struct(field("metric", identifierShape), field("current", valueStatusShape))), true),
  field("resource", ptr(struct(field("name", "string"), field("current", valueStatusShape))), true),
  field(
    "containerResource",
    ptr(struct(field("name", "string"), field("current", valueStatusShape), field("container", "string"))),
    true,
  ),
  field("external", ptr(struct(field("metric", identifierShape), field("current", valueStatusShape))), true),
);
const rulesShape = struct(
  field("stabilizationWindowSeconds", ptr("int32"), true),
  field("selectPolicy", ptr("string"), true),
  field(
    "policies",
    list(struct(field("type", "string"), field("value", "int32"), field("periodSeconds", "int32"))),
    true,
  ),
);
const behaviorShape = struct(
  field("scaleUp", ptr(rulesShape), true),
  field("scaleDown", ptr(rulesShape), true),
);

// ---------------------------------------------------------------------------------------------
// The behavior annotation holds upstream's internal behavior type, which has no JSON tags: its
// keys are the Go field names, and nothing is omitted (nil is `null`).

interface GoScalingPolicy {
  Type: string;
  Value: number;
  PeriodSeconds: number;
}
interface GoScalingRules {
  StabilizationWindowSeconds: Ptr<number>;
  SelectPolicy: Ptr<string>;
  Policies: GoScalingPolicy[] | null;
}
interface GoBehavior {
  ScaleUp: Ptr<GoScalingRules>;
  ScaleDown: Ptr<GoScalingRules>;
}
const goRulesShape = struct(
  field("StabilizationWindowSeconds", ptr("int32")),
  field("SelectPolicy", ptr("string")),
  field(
    "Policies",
    list(struct(field("Type", "string"), field("Value", "int32"), field("PeriodSeconds", "int32"))),
  ),
);
const goBehaviorShape = struct(field("ScaleUp", ptr(goRulesShape)), field("ScaleDown", ptr(goRulesShape)));

function rulesToGo(rules: Ptr<ScalingRules>): Ptr<GoScalingRules> {
  if (!rules) return null;
  return {
    StabilizationWindowSeconds: rules.stabilizationWindowSeconds,
    SelectPolicy: rules.selectPolicy,
    Policies:
      rules.policies?.map((p) => ({ Type: p.type, Value: p.value, PeriodSeconds: p.periodSeconds })) ?? null,
  };
}

function rulesFromGo(rules: Ptr<GoScalingRules>): Ptr<ScalingRules> {
  if (!rules) return null;
  return {
    stabilizationWindowSeconds: rules.StabilizationWindowSeconds,
    selectPolicy: rules.SelectPolicy,
    policies:
      rules.Policies?.map((p) => ({ type: p.Type, value: p.Value, periodSeconds: p.PeriodSeconds })) ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// autoscaling/v1's metric shapes, which exist only inside the annotations.

interface V1MetricSpec {
  type: string;
  object: Ptr<{
    target: ObjectRef;
    metricName: string;
    targetValue: string;
    selector: Ptr<LabelSelector>;
    averageValue: Ptr<string>;
  }>;
  pods: Ptr<{ metricName: string; targetAverageValue: string; selector: Ptr<LabelSelector> }>;
  resource: Ptr<{ name: string; targetAverageUtilization: Ptr<number>; targetAverageValue: Ptr<string> }>;
  containerResource: Ptr<{
    name: string;
    targetAverageUtilization: Ptr<number>;
    targetAverageValue: Ptr<string>;
    container: string;
  }>;
  external: Ptr<{
    metricName: string;
    metricSelector: Ptr<LabelSelector>;
    targetValue: Ptr<string>;
    targetAverageValue: Ptr<string>;
  }>;
}
interface V1MetricStatus {
  type: string;
  object: Ptr<{
    target: ObjectRef;
    metricName: string;
    currentValue: string;
    selector: Ptr<LabelSelector>;
    averageValue: Ptr<string>;
  }>;
  pods: Ptr<{ metricName: string; currentAverageValue: string; selector: Ptr<LabelSelector> }>;
  resource: Ptr<{ name: string; currentAverageUtilization: Ptr<number>; currentAverageValue: string }>;
  containerResource: Ptr<{
    name: string;
    currentAverageUtilization: Ptr<number>;
    currentAverageValue: string;
    container: string;
  }>;
  external: Ptr<{
    metricName: string;
    metricSelector: Ptr<LabelSelector>;
    currentValue: string;
    currentAverageValue: Ptr<string>;
  }>;
}

const v1MetricSpecShape = struct(
  field("type", "string"),
  field(
    "object",
    ptr(
      struct(
        field("target", refShape),
        field("metricName", "string"),
        field("targetValue", "quantity"),
        field("selector", ptr(selectorShape), true),
        field("averageValue", ptr("quantity"), true),
      ),
    ),
    true,
  ),
  field(
    "pods",
    ptr(
      struct(
        field("metricName", "string"),
        field("targetAverageValue", "quantity"),
        field("selector", ptr(selectorShape), true),
      ),
    ),
    true,
  ),
  field(
    "resource",
    ptr(
      struct(
        field("name", "string"),
        field("targetAverageUtilization", ptr("int32"), true),
        field("targetAverageValue", ptr("quantity"), true),
      ),
    ),
    true,
  ),
  field(
    "containerResource",
    ptr(
      struct(
        field("name", "string"),
        field("targetAverageUtilization", ptr("int32"), true),
        field("targetAverageValue", ptr("quantity"), true),
        field("container", "string"),
      ),
    ),
    true,
  ),
  field(
    "external",
    ptr(
      struct(
        field("metricName", "string"),
        field("metricSelector", ptr(selectorShape), true),
        field("targetValue", ptr("quantity"), true),
        field("targetAverageValue", ptr("quantity"), true),
      ),
    ),
    true,
  ),
);
const v1MetricStatusShape = struct(
  field("type", "string"),
  field(
    "object",
    ptr(
      struct(
        field("target", refShape),
        field("metricName", "string"),
        field("currentValue", "quantity"),
        field("selector", ptr(selectorShape), true),
        field("averageValue", ptr("quantity"), true),
      ),
    ),
    true,
  ),
  field(
    "pods",
    ptr(
      struct(
        field("metricName", "string"),
        field("currentAverageValue", "quantity"),
        field("selector", ptr(selectorShape), true),
      ),
    ),
    true,
  ),
  field(
    "resource",
    ptr(
      struct(
        field("name", "string"),
        field("currentAverageUtilization", ptr("int32"), true),
        field("currentAverageValue", "quantity"),
      ),
    ),
    true,
  ),
  field(
    "containerResource",
    ptr(
      struct(
        field("name", "string"),
        field("currentAverageUtilization", ptr("int32"), true),
        field("currentAverageValue", "quantity"),
        field("container", "string"),
      ),
    ),
    true,
  ),
  field(
    "external",
    ptr(
      struct(
        field("metricName", "string"),
        field("metricSelector", ptr(selectorShape), true),
        field("currentValue", "quantity"),
        field("currentAverageValue", ptr("quantity"), true),
      ),
    ),
    true,
  ),
);

// ---------------------------------------------------------------------------------------------
// Metric conversions. v1 has no target type: coming back it is implied by which values are set.
// A v1 quantity that is not a pointer reads "0" when v2 has none.

function metricToV1(m: MetricSpec): V1MetricSpec {
  const { object, pods, resource, containerResource, external } = m;
  return {
    type: m.type,
    object: object && {
      target: { ...object.describedObject },
      metricName: object.metric.name,
      targetValue: object.target.value ?? "0",
      selector: object.metric.selector,
      averageValue: object.target.averageValue,
    },
    pods: pods && {
      metricName: pods.metric.name,
      targetAverageValue: pods.target.averageValue ?? "0",
      selector: pods.metric.selector,
    },
    resource: resource && {
      name: resource.name,
      targetAverageUtilization: resource.target.averageUtilization,
      targetAverageValue: resource.target.averageValue,
    },
    containerResource: containerResource && {
      name: containerResource.name,
      targetAverageUtilization: containerResource.target.averageUtilization,
      targetAverageValue: containerResource.target.averageValue,
      container: containerResource.container,
    },
    external: external && {
      metricName: external.metric.name,
      metricSelector: external.metric.selector,
      targetValue: external.target.value,
      targetAverageValue: external.target.averageValue,
    },
  };
}

function metricFromV1(m: V1MetricSpec): MetricSpec {
  const { object, pods, resource, containerResource, external } = m;
  const resourceTarget = (utilization: Ptr<number>, averageValue: Ptr<string>): MetricTarget => ({
    type: utilization === null ? "AverageValue" : "Utilization",
    value: null,
    averageValue,
    averageUtilization: utilization,
  });
  return {
    type: m.type,
    object: object && {
      describedObject: { ...object.target },
      target: {
        type: object.averageValue === null ? "Value" : "AverageValue",
        value: object.targetValue,
        averageValue: object.averageValue,
        averageUtilization: null,
      },
      metric: { name: object.metricName, selector: object.selector },
    },
    pods: pods && {
      metric: { name: pods.metricName, selector: pods.selector },
      target: {
        type: "AverageValue",
        value: null,
        averageValue: pods.targetAverageValue,
        averageUtilization: null,
      },
    },
    resource: resource && {
      name: resource.name,
      target: resourceTarget(resource.targetAverageUtilization, resource.targetAverageValue),
    },
    containerResource: containerResource && {
      name: containerResource.name,
      target: resourceTarget(
        containerResource.targetAverageUtilization,
        containerResource.targetAverageValue,
      ),
      container: containerResource.container,
    },
    external: external && {
      metric: { name: external.metricName, selector: external.metricSelector },
      target: {
        type: external.targetValue === null ? "AverageValue" : "Value",
        value: external.targetValue,
        averageValue: external.targetAverageValue,
        averageUtilization: null,
      },
    },
  };
}

function statusToV1(m: MetricStatus): V1MetricStatus {
  const { object, pods, resource, containerResource, external } = m;
  return {
    type: m.type,
    object: object && {
      target: { ...object.describedObject },
      metricName: object.metric.name,
      currentValue: object.current.value ?? "0",
      selector: object.metric.selector,
      averageValue: object.current.averageValue,
    },
    pods: pods && {
      metricName: pods.metric.name,
      currentAverageValue: pods.current.averageValue ?? "0",
      selector: pods.metric.selector,
    },
    resource: resource && {
      name: resource.name,
      currentAverageUtilization: resource.current.averageUtilization,
      currentAverageValue: resource.current.averageValue ?? "0",
    },
    containerResource: containerResource && {
      name: containerResource.name,
      currentAverageUtilization: containerResource.current.averageUtilization,
      currentAverageValue: containerResource.current.averageValue ?? "0",
      container: containerResource.container,
    },
    external: external && {
      metricName: external.metric.name,
      metricSelector: external.metric.selector,
      currentValue: external.current.value ?? "0",
      currentAverageValue: external.current.averageValue,
    },
  };
}

function statusFromV1(m: V1MetricStatus): MetricStatus {
  const { object, pods, resource, containerResource, external } = m;
  return {
    type: m.type,
    object: object && {
      metric: { name: object.metricName, selector: object.selector },
      current: { value: object.currentValue, averageValue: object.averageValue, averageUtilization: null },
      describedObject: { ...object.target },
    },
    pods: pods && {
      metric: { name: pods.metricName, selector: pods.selector },
      current: { value: null, averageValue: pods.currentAverageValue, averageUtilization: null },
    },
    resource: resource && {
      name: resource.name,
      current: {
        value: null,
        averageValue: resource.currentAverageValue,
        averageUtilization: resource.currentAverageUtilization,
      },
    },
    containerResource: containerResource && {
      name: containerResource.name,
      current: {
        value: null,
        averageValue: containerResource.currentAverageValue,
        averageUtilization: containerResource.currentAverageUtilization,
      },
      container: containerResource.container,
    },
    external: external && {
      metric: { name: external.metricName, selector: external.metricSelector },
      current: {
        value: external.currentValue,
        averageValue: external.currentAverageValue,
        averageUtilization: null,
      },
    },
  };
}

function isCpuUtilization(m: MetricSpec): boolean {
  return m.type === RESOURCE && m.resource?.name === CPU && m.resource.target.averageUtilization !== null;
}

function cpuUtilizationMetric(utilization: number): Json {
  return {
    type: RESOURCE,
    resource: { name: CPU, target: { type: "Utilization", averageUtilization: utilization } },
  };
}

// ---------------------------------------------------------------------------------------------
// The object as a whole.

interface AnnotationKeys {
  readonly metrics: string;
  readonly currentMetrics: string;
  readonly behavior: string;
  readonly conditions: string;
}

function asObj(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The fields of `from` that are present, in the given order. */
function pick(from: Json | undefined, names: readonly string[]): Json {
  const out: Json = {};
  for (const name of names) if (from && from[name] !== undefined) out[name] = from[name];
  return out;
}

/**
 * `source` with some top-level fields replaced in place (undefined removes one); fields the source
 * lacks are added at the end. Shallow: the values are shared.
 */
function replaceFields(source: Json, replacements: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(source)) {
    if (!(key in replacements)) out[key] = value;
    else if (replacements[key] !== undefined) out[key] = replacements[key];
  }
  for (const [key, value] of Object.entries(replacements))
    if (!(key in out) && value !== undefined) out[key] = value;
  return out;
}

/**
 * The object's annotations without the four round-trip keys. Undefined when the result would be an
 * empty map that was not empty before (Go then omits the map).
 */
function withoutRoundTrip(
  metadata: Json | undefined,
  keys: AnnotationKeys,
): Record<string, unknown> | undefined {
  const annotations = asObj(metadata?.annotations);
  if (!annotations) return undefined;
  const roundTrip = new Set([keys.metrics, keys.currentMetrics, keys.behavior, keys.conditions]);
  const out: Record<string, unknown> = {};
  let dropped = false;
  for (const [k, v] of Object.entries(annotations)) {
    if (roundTrip.has(k)) dropped = true;
    else out[k] = v;
  }
  return dropped && Object.keys(out).length === 0 ? undefined : out;
}

/** The object with `metadata.annotations` set to the given map (removed when undefined). */
function withAnnotations(object: Json, annotations: Record<string, unknown> | undefined): Json {
  const metadata = asObj(object.metadata);
  if (!metadata && annotations === undefined) return object;
  const newMetadata = replaceFields(metadata ?? {}, { annotations });
  return replaceFields(object, { metadata: newMetadata });
}

/** An annotation decoded as Go would decode it; undefined when absent or malformed. */
function readAnnotation(
  annotations: Json | undefined,
  key: string,
  shape: Shape,
): { value: unknown } | undefined {
  const text = annotations?.[key];
  if (text === undefined) return undefined;
  return typeof text === "string" ? goUnmarshal(shape, text) : undefined;
}

/** v2 → hub: the v2 object without any round-trip annotations. */
function fromV2(source: Json, keys: AnnotationKeys): Json {
  return withAnnotations(source, withoutRoundTrip(asObj(source.metadata), keys));
}

/** v1 → hub (v2-shaped). */
function fromV1(source: Json, keys: AnnotationKeys): Json {
  const spec = asObj(source.spec);
  const status = asObj(source.status);
  const annotations = asObj(asObj(source.metadata)?.annotations);

  let metrics: Json[] = [];
  const cpuTarget = spec?.targetCPUUtilizationPercentage;
  if (typeof cpuTarget === "number") metrics = [cpuUtilizationMetric(cpuTarget)];
  const others = readAnnotation(annotations, keys.metrics, list(v1MetricSpecShape));
  if (others) {
    const decoded = ((others.value ?? []) as V1MetricSpec[]).map(
      (m) => toPlainJson(metricSpecShape, metricFromV1(m)) as Json,
    );
    metrics = [...decoded, ...metrics];
  }

  let behavior: Json | undefined;
  const goBehavior = readAnnotation(annotations, keys.behavior, goBehaviorShape)?.value as
    | GoBehavior
    | undefined;
  if (goBehavior && (goBehavior.ScaleUp !== null || goBehavior.ScaleDown !== null)) {
    const b: Behavior = {
      scaleUp: rulesFromGo(goBehavior.ScaleUp),
      scaleDown: rulesFromGo(goBehavior.ScaleDown),
    };
    behavior = toPlainJson(behaviorShape, b) as Json;
  }

  let currentMetrics: Json[] = [];
  const cpuCurrent = status?.currentCPUUtilizationPercentage;
  if (typeof cpuCurrent === "number") {
    currentMetrics = [
      { type: RESOURCE, resource: { name: CPU, current: { averageUtilization: cpuCurrent } } },
    ];
  }
  const statuses = readAnnotation(annotations, keys.currentMetrics, list(v1MetricStatusShape));
  if (statuses) {
    // The annotation knows more than the single CPU percentage: it replaces it.
    currentMetrics = ((statuses.value ?? []) as V1MetricStatus[]).map(
      (m) => toPlainJson(metricStatusShape, statusFromV1(m)) as Json,
    );
  }

  if (metrics.length === 0) metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];

  let conditions: Json[] = [];
  const decodedConditions = readAnnotation(annotations, keys.conditions, list(conditionShape));
  if (decodedConditions) {
    conditions = ((decodedConditions.value ?? []) as Condition[]).map(
      (c) => toPlainJson(conditionShape, c) as Json,
    );
  }

  const hubSpec: Json = { ...pick(spec, ["scaleTargetRef", "minReplicas", "maxReplicas"]), metrics };
  if (behavior) hubSpec.behavior = behavior;
  let hubStatus: Json | undefined;
  if (status || currentMetrics.length > 0 || conditions.length > 0) {
    hubStatus = pick(status, ["observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"]);
    if (currentMetrics.length > 0) hubStatus.currentMetrics = currentMetrics;
    if (conditions.length > 0) hubStatus.conditions = conditions;
  }
  const hub = replaceFields(source, { spec: hubSpec, status: hubStatus });
  return withAnnotations(hub, withoutRoundTrip(asObj(source.metadata), keys));
}

/** hub → v1. */
function toV1(hub: Json, keys: AnnotationKeys): Json {
  const spec = asObj(hub.spec);
  const status = asObj(hub.status);
  const annotations = withoutRoundTrip(asObj(hub.metadata), keys);
  const added: Record<string, string> = {};

  let v1Spec: Json | undefined;
  if (spec) {
    v1Spec = pick(spec, ["scaleTargetRef", "minReplicas", "maxReplicas"]);
    const metrics = asList(spec.metrics).map((m) => readLenient(metricSpecShape, m) as MetricSpec);
    const cpu = metrics.find(isCpuUtilization);
    if (cpu) v1Spec.targetCPUUtilizationPercentage = cpu.resource?.target.averageUtilization;
    const others = metrics.filter((m) => !isCpuUtilization(m)).map(metricToV1);
    if (others.length > 0) added[keys.metrics] = goMarshal(list(v1MetricSpecShape), others);
  }

  let v1Status: Json | undefined;
  const currentMetrics = asList(status?.currentMetrics).map(
    (m) => readLenient(metricStatusShape, m) as MetricStatus,
  );
  if (currentMetrics.length > 0) {
    added[keys.currentMetrics] = goMarshal(list(v1MetricStatusShape), currentMetrics.map(statusToV1));
  }
  if (spec && spec.behavior !== undefined && spec.behavior !== null) {
    const b = readLenient(behaviorShape, spec.behavior) as Behavior;
    const goBehavior: GoBehavior = { ScaleUp: rulesToGo(b.scaleUp), ScaleDown: rulesToGo(b.scaleDown) };
    added[keys.behavior] = goMarshal(goBehaviorShape, goBehavior);
  }
  const conditions = asList(status?.conditions).map((c) => readLenient(conditionShape, c));
  if (conditions.length > 0) added[keys.conditions] = goMarshal(list(conditionShape), conditions);
  if (status) {
    v1Status = pick(status, ["observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"]);
    // Every CPU utilization status counts; the last one wins.
    for (const m of currentMetrics) {
      if (m.type === RESOURCE && m.resource?.name === CPU && m.resource.current.averageUtilization !== null) {
        v1Status.currentCPUUtilizationPercentage = m.resource.current.averageUtilization;
      }
    }
  }

  const v1 = replaceFields(hub, { spec: v1Spec, status: v1Status });
  const hasAdded = Object.keys(added).length > 0;
  return withAnnotations(v1, hasAdded ? { ...annotations, ...added } : annotations);
}

function versionOf(object: Json): string {
  const apiVersion = object.apiVersion;
  return typeof apiVersion === "string" ? apiVersion.slice(apiVersion.indexOf("/") + 1) : "";
}

/**
 * Converts a HorizontalPodAutoscaler, given in the version its `apiVersion` names, to autoscaling
 * `toVersion`. Objects of any other version are read as v2. The input is never modified; odd
 * input never throws (malformed annotations are ignored, as upstream ignores them).
 */
export function hpaConversion(naming: Naming): (object: Json, toVersion: HpaVersion) => Json {
  const keys: AnnotationKeys = {
    metrics: naming.label("metrics", "autoscaling.alpha"),
    currentMetrics: naming.label("current-metrics", "autoscaling.alpha"),
    behavior: naming.label("behavior", "autoscaling.alpha"),
    conditions: naming.label("conditions", "autoscaling.alpha"),
  };
  return (object, toVersion) => {
    // One deep copy up front; every step after it builds new containers around shared values.
    const source = structuredClone(asObj(object) ?? {});
    const hub = versionOf(source) === "v1" ? fromV1(source, keys) : fromV2(source, keys);
    const out = toVersion === "v1" ? toV1(hub, keys) : hub;
    return replaceFields(out, { apiVersion: `autoscaling/${toVersion}` });
  };
}
