// autoscaling/v1 and autoscaling/v2 defaults for HorizontalPodAutoscaler, as upstream 1.27 applies
// them. (autoscaling/v1's CPU target of 80% is applied by upstream's version conversion, not by
// defaulting: an object read through v1 shows it only after conversion.)
import { defaultPointer, isNil, isObject, type JsonMap, listLength, structAt } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

/** The CPU utilization target of an autoscaler that names no metric, in percent. */
const DEFAULT_CPU_UTILIZATION = 80;
const SCALING_PERIOD_SECONDS = 15;

const autoscalerV1: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec !== undefined) defaultPointer(spec, "minReplicas", 1);
};

/** Scale-up rules left out: no stabilization, at most 4 pods or doubling per 15 s, whichever is more. */
function scaleUpRules(): JsonMap {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: "Max",
    policies: [
      { type: "Pods", value: 4, periodSeconds: SCALING_PERIOD_SECONDS },
      { type: "Percent", value: 100, periodSeconds: SCALING_PERIOD_SECONDS },
    ],
  };
}

/**
 * Scale-down rules left out: up to all pods per 15 s. The stabilization window stays unset (the
 * controller's own setting applies).
 */
function scaleDownRules(): JsonMap {
  return {
    selectPolicy: "Max",
    policies: [{ type: "Percent", value: 100, periodSeconds: SCALING_PERIOD_SECONDS }],
  };
}

/** The given rules over the defaults: each of the three settings the user gave wins. */
function completeRules(given: unknown, defaults: JsonMap): unknown {
  if (isNil(given)) return defaults;
  if (!isObject(given)) return given;
  for (const key of ["stabilizationWindowSeconds", "selectPolicy", "policies"]) {
    if (!isNil(given[key])) defaults[key] = given[key];
  }
  return defaults;
}

const autoscalerV2: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec === undefined) return;
  defaultPointer(spec, "minReplicas", 1);
  const metrics = spec.metrics;
  if (listLength(metrics) === 0 && (isNil(metrics) || Array.isArray(metrics))) {
    spec.metrics = [
      {
        type: "Resource",
        resource: {
          name: "cpu",
          target: { type: "Utilization", averageUtilization: DEFAULT_CPU_UTILIZATION },
        },
      },
    ];
  }
  const behavior = spec.behavior;
  if (isObject(behavior)) {
    behavior.scaleUp = completeRules(behavior.scaleUp, scaleUpRules());
    behavior.scaleDown = completeRules(behavior.scaleDown, scaleDownRules());
  }
};

/** The autoscaling/v1 and autoscaling/v2 defaulters by type id. */
export function autoscalingDefaulters(): Record<string, TypeDefaulter> {
  return {
    "autoscaling/v1.HorizontalPodAutoscaler": autoscalerV1,
    "autoscaling/v2.HorizontalPodAutoscaler": autoscalerV2,
  };
}
