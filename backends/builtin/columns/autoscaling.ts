// Table columns of the autoscaling group: HorizontalPodAutoscaler (stored as autoscaling/v2).
import type { TableColumn } from "../../schema/resource-schema.ts";
import {
  age,
  arr,
  asObject,
  col,
  type GroupColumns,
  int,
  type JsonObject,
  obj,
  present,
  quantity,
  quantityPtr,
  spec,
  status,
  str,
} from "./helpers.ts";

const METRICS_SHOWN = 2;
const UNKNOWN = "<unknown>";

/** A source whose target is a value or an average value (External and Object metrics). */
function valueMetric(target: JsonObject, current: JsonObject | undefined): string {
  if (present(target, "averageValue")) {
    const now =
      current && present(obj(current, "current"), "averageValue")
        ? quantity(obj(current, "current").averageValue)
        : UNKNOWN;
    return `${now}/${quantity(target.averageValue)} (avg)`;
  }
  const now = current ? quantityPtr(obj(current, "current").value) : UNKNOWN;
  return `${now}/${quantityPtr(target.value)}`;
}

/** A resource source (Resource and ContainerResource metrics): an average value or utilization. */
function resourceMetric(target: JsonObject, current: JsonObject | undefined): string {
  if (present(target, "averageValue")) {
    const now = current ? quantityPtr(obj(current, "current").averageValue) : UNKNOWN;
    return `${now}/${quantity(target.averageValue)}`;
  }
  const utilization = current ? obj(current, "current").averageUtilization : undefined;
  const now = typeof utilization === "number" ? `${int(utilization)}%` : UNKNOWN;
  const want = present(target, "averageUtilization") ? `${int(target.averageUtilization)}%` : "<auto>";
  return `${now}/${want}`;
}

/** Each metric as current/target, the first two shown. */
export function formatMetrics(hpa: JsonObject): string {
  const specs = arr(hpa, "spec", "metrics").map((m) => asObject(m) ?? {});
  if (specs.length === 0) return "<none>";
  const statuses = arr(hpa, "status", "currentMetrics").map((m) => asObject(m) ?? {});
  // The status at the same position, when it has an entry of the given source.
  const currentOf = (i: number, source: string): JsonObject | undefined => asObject(statuses[i]?.[source]);
  const list = specs.map((m, i) => {
    switch (str(m, "type")) {
      case "External":
        return valueMetric(obj(m, "external", "target"), currentOf(i, "external"));
      case "Object":
        return valueMetric(obj(m, "object", "target"), currentOf(i, "object"));
      case "Pods": {
        const current = currentOf(i, "pods");
        const now = current ? quantityPtr(obj(current, "current").averageValue) : UNKNOWN;
        return `${now}/${quantityPtr(obj(m, "pods", "target").averageValue)}`;
      }
      case "Resource":
        return resourceMetric(obj(m, "resource", "target"), currentOf(i, "resource"));
      case "ContainerResource":
        return resourceMetric(obj(m, "containerResource", "target"), currentOf(i, "containerResource"));
      default:
        return "<unknown type>";
    }
  });
  const shown = list.slice(0, METRICS_SHOWN).join(", ");
  return list.length > METRICS_SHOWN ? `${shown} + ${list.length - METRICS_SHOWN} more...` : shown;
}

const hpaColumns: TableColumn[] = [
  col("string", "Reference", "The scaled object, as Kind/name.", (o) => {
    const ref = obj(o, "spec", "scaleTargetRef");
    return `${str(ref, "kind")}/${str(ref, "name")}`;
  }),
  col("string", "Targets", "Each metric's current value against its target.", formatMetrics),
  col("string", "MinPods", "The fewest replicas the autoscaler scales down to.", (o) =>
    present(spec(o), "minReplicas") ? String(int(spec(o).minReplicas)) : "<unset>",
  ),
  // Upstream declares these two as strings and fills them with numbers.
  col("string", "MaxPods", "The most replicas the autoscaler scales up to.", (o) => int(spec(o).maxReplicas)),
  col("string", "Replicas", "The replica count last observed.", (o) => int(status(o).currentReplicas)),
  age(),
];

export function autoscalingColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([["horizontalpodautoscalers", hpaColumns]]);
}
