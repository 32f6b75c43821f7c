// apps/v1 defaults as upstream 1.27 applies them: replicas, update strategies, history limits and
// the StatefulSet claim retention policy (its feature gate is on by default in 1.27). The pod
// templates inside get the core/v1 pod spec defaults through the walk.
import { defaultPointer, defaultString, isNil, isObject, type JsonMap, structAt } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

const REVISION_HISTORY_LIMIT = 10;
const ROLLING_UPDATE = "RollingUpdate";

/** The `rollingUpdate` object of a strategy: created when nil, undefined when wrongly typed. */
function rollingUpdateOf(strategy: JsonMap): JsonMap | undefined {
  if (isNil(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  const rollingUpdate = strategy.rollingUpdate;
  return isObject(rollingUpdate) ? rollingUpdate : undefined;
}

const deployment: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec === undefined) return;
  defaultPointer(spec, "replicas", 1);
  const strategy = structAt(spec, "strategy");
  if (strategy !== undefined) {
    defaultString(strategy, "type", ROLLING_UPDATE);
    if (strategy.type === ROLLING_UPDATE) {
      const rollingUpdate = rollingUpdateOf(strategy);
      if (rollingUpdate !== undefined) {
        defaultPointer(rollingUpdate, "maxUnavailable", "25%");
        defaultPointer(rollingUpdate, "maxSurge", "25%");
      }
    }
  }
  defaultPointer(spec, "revisionHistoryLimit", REVISION_HISTORY_LIMIT);
  defaultPointer(spec, "progressDeadlineSeconds", 600);
};

const daemonSet: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec === undefined) return;
  const strategy = structAt(spec, "updateStrategy");
  if (strategy !== undefined) {
    defaultString(strategy, "type", ROLLING_UPDATE);
    if (strategy.type === ROLLING_UPDATE) {
      const rollingUpdate = rollingUpdateOf(strategy);
      if (rollingUpdate !== undefined) {
        defaultPointer(rollingUpdate, "maxUnavailable", 1);
        defaultPointer(rollingUpdate, "maxSurge", 0);
      }
    }
  }
  defaultPointer(spec, "revisionHistoryLimit", REVISION_HISTORY_LIMIT);
};

const statefulSet: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec === undefined) return;
  defaultString(spec, "podManagementPolicy", "OrderedReady");
  const strategy = structAt(spec, "updateStrategy");
  if (strategy !== undefined) {
    // Only a strategy whose type was left out gets an (empty) rolling update to fill in.
    if (defaultString(strategy, "type", ROLLING_UPDATE) && isNil(strategy.rollingUpdate)) {
      strategy.rollingUpdate = {};
    }
    const rollingUpdate = strategy.rollingUpdate;
    // maxUnavailable has no default while its feature gate (alpha in 1.27) is off.
    if (strategy.type === ROLLING_UPDATE && isObject(rollingUpdate))
      defaultPointer(rollingUpdate, "partition", 0);
  }
  const retention = structAt(spec, "persistentVolumeClaimRetentionPolicy");
  if (retention !== undefined) {
    defaultString(retention, "whenDeleted", "Retain");
    defaultString(retention, "whenScaled", "Retain");
  }
  defaultPointer(spec, "replicas", 1);
  defaultPointer(spec, "revisionHistoryLimit", REVISION_HISTORY_LIMIT);
};

const replicaSet: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec !== undefined) defaultPointer(spec, "replicas", 1);
};

/** The apps/v1 defaulters by type id. */
export function appsV1Defaulters(): Record<string, TypeDefaulter> {
  return {
    "apps/v1.Deployment": deployment,
    "apps/v1.DaemonSet": daemonSet,
    "apps/v1.StatefulSet": statefulSet,
    "apps/v1.ReplicaSet": replicaSet,
  };
}
