// Pod (core/v1), minimal: the server owns status on create and on updates of the main resource,
// the `status` subresource leaves spec alone, and the binding fields do not move once set. The
// full Pod schema, defaulting and validation come with the type-system work.

import { asArray, asObject, asString, cloneJson, type JsonObject, metadataOf } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import type { Strategy } from "../registry/strategy.ts";
import { validateMetadataFinalizerNames } from "../validation/object-meta.ts";
import { ageColumn, timestampAge } from "./human-duration.ts";
import { ALL_VERBS, type BuiltinKind, CORE_V1, column } from "./kind.ts";
import { podGracePeriod } from "./pod-graceful-delete.ts";
import { podQosClass } from "./pod-qos.ts";
import { validatePodEphemeralContainersUpdate } from "./validation/pod.ts";

export const POD_PENDING = "Pending";
const TERMINAL_PHASES = new Set(["Succeeded", "Failed"]);
// The reason the node lifecycle controller gives pods of a node that stopped reporting.
const NODE_LOST = "NodeLost";

const POD_TYPES = {
  spec: "object",
  "spec.nodeName": "string",
  "spec.serviceAccountName": "string",
  "spec.serviceAccount": "string",
  "spec.restartPolicy": "string",
  "spec.schedulerName": "string",
  "spec.hostNetwork": "bool",
  "spec.containers": "[]object",
  "spec.initContainers": "[]object",
  "spec.ephemeralContainers": "[]object",
  "spec.volumes": "[]object",
  "spec.imagePullSecrets": "[]object",
  "spec.readinessGates": "[]object",
  status: "object",
  "status.phase": "string",
  "status.reason": "string",
  "status.podIP": "string",
  "status.podIPs": "[]object",
  "status.nominatedNodeName": "string",
  "status.conditions": "[]object",
  "status.containerStatuses": "[]object",
  "status.initContainerStatuses": "[]object",
} as const;

function specOf(pod: JsonObject): JsonObject {
  return asObject(pod.spec) ?? {};
}

function statusOf(pod: JsonObject): JsonObject {
  return asObject(pod.status) ?? {};
}

/** The first pod IP: `status.podIPs[0].ip`, or the older single `status.podIP`. */
function podIP(pod: JsonObject): string {
  const status = statusOf(pod);
  return asString(asObject(asArray(status.podIPs)[0])?.ip) || asString(status.podIP);
}

/** The field-selector values of a pod (every key present, also for an empty object). */
export function podSelectableFields(pod: JsonObject): Record<string, string> {
  const spec = specOf(pod);
  const status = statusOf(pod);
  return {
    "spec.nodeName": asString(spec.nodeName),
    "spec.restartPolicy": asString(spec.restartPolicy),
    "spec.schedulerName": asString(spec.schedulerName),
    "spec.serviceAccountName": asString(spec.serviceAccountName),
    "spec.hostNetwork": spec.hostNetwork === true ? "true" : "false",
    "status.phase": asString(status.phase),
    "status.podIP": podIP(pod),
    "status.nominatedNodeName": asString(status.nominatedNodeName),
  };
}

// ---- the kubectl row ----------------------------------------------------------------------

interface PodRow {
  readonly ready: string;
  readonly status: string;
  readonly restarts: string;
}

function conditionIs(status: JsonObject, type: string, reason?: string): boolean {
  return asArray(status.conditions).some((c) => {
    const o = asObject(c);
    if (asString(o?.type) !== type) return false;
    return reason === undefined ? asString(o?.status) === "True" : asString(o?.reason) === reason;
  });
}

function restartCount(containerStatus: JsonObject): number {
  const n = containerStatus.restartCount;
  return typeof n === "number" && Number.isFinite(n) ? n : 0;
}

/** When the container last finished before its current run, in ms (0 when unknown). */
function lastTerminated(containerStatus: JsonObject): number {
  const finished = asString(asObject(asObject(containerStatus.lastState)?.terminated)?.finishedAt);
  const t = Date.parse(finished);
  return Number.isNaN(t) ? 0 : t;
}

/** The text kubectl shows for a terminated container without a reason. */
function exitText(terminated: JsonObject, prefix: string): string {
  const signal = terminated.signal;
  if (typeof signal === "number" && signal !== 0) return `${prefix}Signal:${signal}`;
  const code = typeof terminated.exitCode === "number" ? terminated.exitCode : 0;
  return `${prefix}ExitCode:${code}`;
}

// Cells are computed column by column; the row summary is worked out once per object.
const rows = new WeakMap<JsonObject, PodRow>();

/** Ready, Status and Restarts as upstream's printer derives them from the pod's status. */
export function podRow(pod: JsonObject): PodRow {
  const cached = rows.get(pod);
  if (cached) return cached;
  const spec = specOf(pod);
  const status = statusOf(pod);
  const phase = asString(status.phase);
  let reason = asString(status.reason) || phase;
  if (conditionIs(status, "PodScheduled", "SchedulingGated")) reason = "SchedulingGated";

  // Init containers that keep running beside the main ones ("sidecars") count as containers.
  const initSpecs = asArray(spec.initContainers).map((c) => asObject(c) ?? {});
  const sidecars = new Set(
    initSpecs.filter((c) => asString(c.restartPolicy) === "Always").map((c) => asString(c.name)),
  );
  const total = asArray(spec.containers).length + sidecars.size;
  let ready = 0;
  let restarts = 0;
  let lastRestart = 0;
  let sidecarRestarts = 0;
  let lastSidecarRestart = 0;

  let initializing = false;
  const initStatuses = asArray(status.initContainerStatuses).map((c) => asObject(c) ?? {});
  for (const [i, cs] of initStatuses.entries()) {
    const isSidecar = sidecars.has(asString(cs.name));
    restarts += restartCount(cs);
    lastRestart = Math.max(lastRestart, lastTerminated(cs));
    if (isSidecar) {
      sidecarRestarts += restartCount(cs);
      lastSidecarRestart = Math.max(lastSidecarRestart, lastTerminated(cs));
    }
    const state = asObject(cs.state) ?? {};
    const terminated = asObject(state.terminated);
    const waiting = asObject(state.waiting);
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (isSidecar && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (terminated) {
      const why = asString(terminated.reason);
      reason = why === "" ? exitText(terminated, "Init:") : `Init:${why}`;
    } else if (waiting && asString(waiting.reason) !== "" && asString(waiting.reason) !== "PodInitializing") {
      reason = `Init:${asString(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initSpecs.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionIs(status, "Initialized")) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let running = false;
    const statuses = asArray(status.containerStatuses).map((c) => asObject(c) ?? {});
    // Backwards, so that the first container's state wins the Status cell.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      restarts += restartCount(cs);
      lastRestart = Math.max(lastRestart, lastTerminated(cs));
      const state = asObject(cs.state) ?? {};
      const terminated = asObject(state.terminated);
      const waitingReason = asString(asObject(state.waiting)?.reason);
      if (waitingReason !== "") reason = waitingReason;
      else if (terminated && asString(terminated.reason) !== "") reason = asString(terminated.reason);
      else if (terminated) reason = exitText(terminated, "");
      else if (cs.ready === true && asObject(state.running)) {
        running = true;
        ready++;
      }
    }
    if (reason === "Completed" && running) reason = conditionIs(status, "Ready") ? "Running" : "NotReady";
  }

  const deleting = asString(metadataOf(pod).deletionTimestamp) !== "";
  if (deleting && asString(status.reason) === NODE_LOST) reason = "Unknown";
  else if (deleting && !TERMINAL_PHASES.has(phase)) reason = "Terminating";

  const row: PodRow = {
    ready: `${ready}/${total}`,
    status: reason,
    restarts:
      restarts !== 0 && lastRestart !== 0
        ? `${restarts} (${timestampAge(new Date(lastRestart).toISOString())} ago)`
        : String(restarts),
  };
  rows.set(pod, row);
  return row;
}

function readinessGates(pod: JsonObject): string {
  const gates = asArray(specOf(pod).readinessGates);
  if (gates.length === 0) return "<none>";
  const conditions = asArray(statusOf(pod).conditions).map((c) => asObject(c) ?? {});
  let met = 0;
  for (const gate of gates) {
    const type = asString(asObject(gate)?.conditionType);
    const condition = conditions.find((c) => asString(c.type) === type);
    if (condition && asString(condition.status) === "True") met++;
  }
  return `${met}/${gates.length}`;
}

// ---- the kind -----------------------------------------------------------------------------

function copyFrom(object: JsonObject, old: JsonObject, key: string): void {
  if (old[key] === undefined) delete object[key];
  else object[key] = cloneJson(old[key]);
}

export function podKind(naming: Naming): BuiltinKind {
  const strategy: Strategy = {
    prepareForCreate(object) {
      // A new pod has not run yet, whatever the request claims; its QoS class follows its spec.
      object.status = { phase: POD_PENDING, qosClass: podQosClass(object) };
    },
    prepareForUpdate(object, old) {
      copyFrom(object, old, "status");
    },
    validate: (object) => validateMetadataFinalizerNames(object.metadata, naming),
    validateUpdate: (object) => validateMetadataFinalizerNames(object.metadata, naming),
    checkGracefulDelete: podGracePeriod,
    fieldTypes: POD_TYPES,
    nameRule: "dns-subdomain",
    // No knownFields: every field is accepted until strict field validation of Pods arrives with
    // the type-system work (the PodSpec tree is large and belongs to the schema, not here).
  };

  const status: Strategy = {
    prepareForUpdate(object, old) {
      copyFrom(object, old, "spec");
      // Node agents write status; they never get to rewrite ownership through it.
      const meta = asObject(object.metadata);
      const oldOwners = metadataOf(old).ownerReferences;
      if (meta) {
        if (oldOwners === undefined) delete meta.ownerReferences;
        else meta.ownerReferences = cloneJson(oldOwners);
      }
    },
    validateUpdate: (object) => validateMetadataFinalizerNames(object.metadata, naming),
    fieldTypes: POD_TYPES,
    nameRule: "dns-subdomain",
  };

  // Ephemeral containers are added to a running pod through their own subresource, which
  // changes nothing else: spec, status and the metadata a status write cannot change either stay
  // as they were, as upstream's strategy resets them.
  const ephemeralContainers: Strategy = {
    prepareForUpdate(object, old) {
      const added = asObject(object.spec)?.ephemeralContainers;
      copyFrom(object, old, "spec");
      copyFrom(object, old, "status");
      const spec = asObject(object.spec);
      if (spec) {
        if (added === undefined || added === null) delete spec.ephemeralContainers;
        else spec.ephemeralContainers = added;
      }
      const meta = asObject(object.metadata);
      const oldMeta = metadataOf(old);
      if (meta)
        for (const key of ["labels", "annotations", "finalizers", "ownerReferences"]) {
          if (oldMeta[key] === undefined) delete meta[key];
          else meta[key] = cloneJson(oldMeta[key]);
        }
    },
    validateUpdate: (object, old) => [
      ...validateMetadataFinalizerNames(object.metadata, naming),
      ...validatePodEphemeralContainersUpdate(object, old, naming),
    ],
    fieldTypes: POD_TYPES,
    nameRule: "dns-subdomain",
  };

  return {
    schema: {
      group: "",
      versions: CORE_V1,
      plural: "pods",
      singular: "pod",
      kind: "Pod",
      listKind: "PodList",
      shortNames: ["po"],
      categories: ["all"],
      namespaced: true,
      verbs: ALL_VERBS,
      // log, exec, attach, portforward and proxy are served by the gateway's connection handlers.
      subresources: [
        "status",
        "binding",
        "eviction",
        "ephemeralcontainers",
        "attach",
        "exec",
        "log",
        "portforward",
        "proxy",
      ],
      allowCreateOnUpdate: false,
      selectableFields: podSelectableFields,
      tableColumns: [
        column("Ready", "Containers ready to serve out of all the pod's containers.", (o) => podRow(o).ready),
        column("Status", "The pod's phase, or what holds its containers back.", (o) => podRow(o).status),
        column(
          "Restarts",
          "How often the pod's containers restarted, and how long ago the last one did.",
          (o) => podRow(o).restarts,
        ),
        ageColumn(),
        column("IP", "The pod's first IP address.", (o) => podIP(o) || "<none>", 1),
        column("Node", "The node the pod is bound to.", (o) => asString(specOf(o).nodeName) || "<none>", 1),
        column(
          "Nominated Node",
          "The node the scheduler plans to bind the pod to once room is made.",
          (o) => asString(statusOf(o).nominatedNodeName) || "<none>",
          1,
        ),
        column("Readiness Gates", "Readiness gates met out of those declared.", readinessGates, 1),
      ],
    },
    strategy,
    // `binding` is written by its action (gateway/pod-actions.ts), which sets the node once.
    subresourceStrategies: {
      status,
      binding: { nameRule: "dns-subdomain" },
      ephemeralcontainers: ephemeralContainers,
    },
  };
}
