// apps/v1: the workload controllers (Deployment, ReplicaSet, StatefulSet, DaemonSet), their update
// strategies and status, and ControllerRevision, the stored history those controllers roll back to.
import { f, mergeBy, pkg, required, t } from "./model.ts";

// Allowed values of upstream's enumerated string types, as its OpenAPI lists them (sorted).
const DEPLOYMENT_STRATEGY_TYPES = ["Recreate", "RollingUpdate"];
const DAEMON_SET_UPDATE_TYPES = ["OnDelete", "RollingUpdate"];
const STATEFUL_SET_UPDATE_TYPES = ["OnDelete", "RollingUpdate"];
const POD_MANAGEMENT_POLICIES = ["OrderedReady", "Parallel"];

// Wording shared by several fields.
const OBJECT_META = "The object's metadata: name, namespace, labels, annotations and so on.";
const CONDITION_STATUS = 'Whether the condition holds: "True", "False" or "Unknown".';
const CONDITION_TRANSITION = "When the condition last changed status.";
const CONDITION_REASON = "A short, machine-readable cause of the last status change.";
const CONDITION_MESSAGE = "A human-readable explanation of the last status change.";
const MIN_READY =
  "How many seconds a new pod must stay ready, with no container crashing, before it counts as available. Defaults to 0: available as soon as it is ready.";
const HISTORY_LIMIT =
  "How many old revisions to keep so that a rollback is possible. Unset means the default of 10; 0 keeps none.";
const COLLISION_COUNT =
  "How many times a generated name clashed with an existing one; the controller folds it into the name of the next revision it creates.";
const TEMPLATE_ALWAYS = 'The pod template\'s restartPolicy must be "Always".';
const SELECTOR_MATCHES_TEMPLATE = "Must select the pod template's labels.";

export const APPS_V1 = pkg("apps/v1", "k8s.io.api.apps.v1", {
  ControllerRevision: t(
    "A frozen snapshot of a controller's state, kept so that DaemonSets and StatefulSets can roll updates forward and back. Its data cannot change after creation; it may only be deleted.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
      data: f(2, "rawExtension", "The snapshot itself, as an embedded object."),
      revision: f(3, "int64", "The revision number this snapshot stands for.", {
        ...required,
        omitEmpty: false,
      }),
    },
  ),
  DaemonSet: t("Runs one copy of a pod on every node, or on every node a selector picks.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    spec: f(2, "DaemonSetSpec", "The pods to run on each node and how to update them."),
    status: f(3, "DaemonSetStatus", "What the controller last reported; may lag behind reality."),
  }),
  DaemonSetCondition: t("One observation about a DaemonSet's state at a point in time.", {
    type: f(1, "string", "Kind of condition.", { omitEmpty: false }),
    status: f(2, "string", CONDITION_STATUS, { omitEmpty: false }),
    lastTransitionTime: f(3, "time", CONDITION_TRANSITION),
    reason: f(4, "string", CONDITION_REASON),
    message: f(5, "string", CONDITION_MESSAGE),
  }),
  DaemonSetSpec: t("The desired state of a DaemonSet.", {
    selector: f(
      1,
      "meta/v1.LabelSelector",
      `Which pods belong to this DaemonSet. ${SELECTOR_MATCHES_TEMPLATE}`,
      { ...required, pointer: true, omitEmpty: false },
    ),
    template: f(
      2,
      "core/v1.PodTemplateSpec",
      `The pod placed on each eligible node: every node matched by the template's node selector, or every node when it has none. ${TEMPLATE_ALWAYS}`,
      { ...required, omitEmpty: false },
    ),
    updateStrategy: f(
      3,
      "DaemonSetUpdateStrategy",
      "How running pods are replaced when the template changes.",
    ),
    minReadySeconds: f(4, "int32", MIN_READY),
    revisionHistoryLimit: f(6, "int32", HISTORY_LIMIT, { pointer: true }),
  }),
  DaemonSetStatus: t("What the DaemonSet controller last observed.", {
    currentNumberScheduled: f(
      1,
      "int32",
      "Nodes that should run the daemon pod and run at least one of them.",
      { omitEmpty: false },
    ),
    numberMisscheduled: f(2, "int32", "Nodes that run the daemon pod although they should not.", {
      omitEmpty: false,
    }),
    desiredNumberScheduled: f(
      3,
      "int32",
      "Nodes that should run the daemon pod, counting those that already do.",
      { omitEmpty: false },
    ),
    numberReady: f(4, "int32", "Nodes that should run the daemon pod and have at least one of them ready.", {
      omitEmpty: false,
    }),
    observedGeneration: f(
      5,
      "int64",
      "The most recent generation of the DaemonSet the controller has acted on.",
    ),
    updatedNumberScheduled: f(6, "int32", "Nodes running a daemon pod made from the current template."),
    numberAvailable: f(
      7,
      "int32",
      "Nodes that should run the daemon pod and have at least one of them available (ready for minReadySeconds).",
    ),
    numberUnavailable: f(8, "int32", "Nodes that should run the daemon pod but have none of them available."),
    collisionCount: f(9, "int32", COLLISION_COUNT, { pointer: true }),
    conditions: f(
      10,
      "[]DaemonSetCondition",
      "The latest observations of the DaemonSet's state.",
      mergeBy("type"),
    ),
  }),
  DaemonSetUpdateStrategy: t("How a DaemonSet replaces its pods after a change.", {
    type: f(
      1,
      "string",
      '"RollingUpdate" (the default) replaces pods gradually; "OnDelete" replaces a pod only once it is deleted by hand.',
      { enum: DAEMON_SET_UPDATE_TYPES },
    ),
    rollingUpdate: f(
      2,
      "RollingUpdateDaemonSet",
      "Settings for a rolling update; only used when type is RollingUpdate.",
      { pointer: true },
    ),
  }),
  Deployment: t("Keeps a set of identical pods running and rolls out changes to them through ReplicaSets.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    spec: f(2, "DeploymentSpec", "The pods wanted and how to roll out changes to them."),
    status: f(3, "DeploymentStatus", "What the controller last reported."),
  }),
  DeploymentCondition: t("One observation about a Deployment's state at a point in time.", {
    type: f(1, "string", 'Kind of condition, such as "Available" or "Progressing".', { omitEmpty: false }),
    status: f(2, "string", CONDITION_STATUS, { omitEmpty: false }),
    lastUpdateTime: f(6, "time", "When the condition was last refreshed."),
    lastTransitionTime: f(7, "time", CONDITION_TRANSITION),
    reason: f(4, "string", CONDITION_REASON),
    message: f(5, "string", CONDITION_MESSAGE),
  }),
  DeploymentSpec: t("The desired state of a Deployment.", {
    replicas: f(1, "int32", "How many pods to run. Defaults to 1; 0 is honoured when set explicitly.", {
      pointer: true,
    }),
    selector: f(
      2,
      "meta/v1.LabelSelector",
      `Which pods, and so which existing ReplicaSets, this Deployment manages. ${SELECTOR_MATCHES_TEMPLATE}`,
      { ...required, pointer: true, omitEmpty: false },
    ),
    template: f(3, "core/v1.PodTemplateSpec", `The pods to create. ${TEMPLATE_ALWAYS}`, {
      ...required,
      omitEmpty: false,
    }),
    strategy: f(4, "DeploymentStrategy", "How old pods are replaced by new ones.", {
      patchStrategy: "retainKeys",
    }),
    minReadySeconds: f(5, "int32", MIN_READY),
    revisionHistoryLimit: f(
      6,
      "int32",
      "How many old ReplicaSets to keep for rollback. Unset means the default of 10; 0 keeps none.",
      { pointer: true },
    ),
    paused: f(7, "bool", "While true, changes to the template are not rolled out."),
    progressDeadlineSeconds: f(
      9,
      "int32",
      "Seconds a rollout may go without progress before it is reported as failed (reason ProgressDeadlineExceeded). Not counted while paused. Defaults to 600.",
      { pointer: true },
    ),
  }),
  DeploymentStatus: t("What the Deployment controller last observed.", {
    observedGeneration: f(
      1,
      "int64",
      "The most recent generation of the Deployment the controller has acted on.",
    ),
    replicas: f(2, "int32", "Pods selected by this Deployment that have not terminated."),
    updatedReplicas: f(3, "int32", "Of those pods, how many were made from the current template."),
    readyReplicas: f(7, "int32", "Pods selected by this Deployment that are ready."),
    availableReplicas: f(
      4,
      "int32",
      "Pods selected by this Deployment that have been ready for at least minReadySeconds.",
    ),
    unavailableReplicas: f(
      5,
      "int32",
      "How many more available pods are needed to reach the desired count, whether they are still starting or not yet created.",
    ),
    conditions: f(
      6,
      "[]DeploymentCondition",
      "The latest observations of the Deployment's state.",
      mergeBy("type"),
    ),
    collisionCount: f(8, "int32", COLLISION_COUNT, { pointer: true }),
  }),
  DeploymentStrategy: t("How a Deployment swaps old pods for new ones.", {
    type: f(
      1,
      "string",
      '"RollingUpdate" (the default) replaces pods gradually; "Recreate" removes all old pods before creating new ones.',
      { enum: DEPLOYMENT_STRATEGY_TYPES },
    ),
    rollingUpdate: f(
      2,
      "RollingUpdateDeployment",
      "Settings for a rolling update; only used when type is RollingUpdate.",
      { pointer: true },
    ),
  }),
  ReplicaSet: t("Keeps a given number of identical pods running.", {
    metadata: f(
      1,
      "meta/v1.ObjectMeta",
      `${OBJECT_META} When no labels are given, the pod template's labels are copied here.`,
    ),
    spec: f(2, "ReplicaSetSpec", "The pods wanted."),
    status: f(3, "ReplicaSetStatus", "What the controller last reported; may lag behind reality."),
  }),
  ReplicaSetCondition: t("One observation about a ReplicaSet's state at a point in time.", {
    type: f(1, "string", "Kind of condition.", { omitEmpty: false }),
    status: f(2, "string", CONDITION_STATUS, { omitEmpty: false }),
    lastTransitionTime: f(3, "time", CONDITION_TRANSITION),
    reason: f(4, "string", CONDITION_REASON),
    message: f(5, "string", CONDITION_MESSAGE),
  }),
  ReplicaSetSpec: t("The desired state of a ReplicaSet.", {
    replicas: f(1, "int32", "How many pods to run. Defaults to 1; 0 is honoured when set explicitly.", {
      pointer: true,
    }),
    minReadySeconds: f(4, "int32", MIN_READY),
    selector: f(
      2,
      "meta/v1.LabelSelector",
      `Which pods count towards the replica count. ${SELECTOR_MATCHES_TEMPLATE}`,
      { ...required, pointer: true, omitEmpty: false },
    ),
    template: f(3, "core/v1.PodTemplateSpec", "The pod created whenever there are too few."),
  }),
  ReplicaSetStatus: t("What the ReplicaSet controller last observed.", {
    replicas: f(1, "int32", "How many pods the controller last counted.", { omitEmpty: false }),
    fullyLabeledReplicas: f(2, "int32", "Pods that carry all of the pod template's labels."),
    readyReplicas: f(4, "int32", "Pods of this ReplicaSet that are ready."),
    availableReplicas: f(5, "int32", "Pods of this ReplicaSet ready for at least minReadySeconds."),
    observedGeneration: f(
      3,
      "int64",
      "The most recent generation of the ReplicaSet the controller has acted on.",
    ),
    conditions: f(
      6,
      "[]ReplicaSetCondition",
      "The latest observations of the ReplicaSet's state.",
      mergeBy("type"),
    ),
  }),
  RollingUpdateDaemonSet: t("Limits that pace a DaemonSet's rolling update.", {
    maxUnavailable: f(
      1,
      "intOrString",
      'How many daemon pods may be down for the update at once, as a number or a percentage of the nodes that should run one ("10%", rounded up). Defaults to 1; cannot be 0 when maxSurge is 0.',
      { pointer: true },
    ),
    maxSurge: f(
      2,
      "intOrString",
      'How many nodes may run a new daemon pod alongside the old one before the old one is removed, as a number or a percentage ("10%", rounded up, at least 1). Defaults to 0; cannot be 0 when maxUnavailable is 0.',
      { pointer: true },
    ),
  }),
  RollingUpdateDeployment: t("Limits that pace a Deployment's rolling update.", {
    maxUnavailable: f(
      1,
      "intOrString",
      'How many pods below the desired count the rollout may go, as a number or a percentage ("10%", rounded down). Defaults to 25%; cannot be 0 when maxSurge is 0.',
      { pointer: true },
    ),
    maxSurge: f(
      2,
      "intOrString",
      'How many pods above the desired count the rollout may create, as a number or a percentage ("10%", rounded up). Defaults to 25%; cannot be 0 when maxUnavailable is 0.',
      { pointer: true },
    ),
  }),
  RollingUpdateStatefulSetStrategy: t("Settings for a StatefulSet's rolling update.", {
    partition: f(
      1,
      "int32",
      "Only pods whose ordinal is at least this value are updated; lower ordinals keep the old revision, which allows canary rollouts. Defaults to 0.",
      { pointer: true },
    ),
    maxUnavailable: f(
      2,
      "intOrString",
      'How many pods may be down for the update at once, as a number or a percentage ("10%", rounded up); cannot be 0. Defaults to 1. Only honoured when the MaxUnavailableStatefulSet feature is on.',
      { pointer: true },
    ),
  }),
  StatefulSet: t(
    "Runs pods that each keep a stable identity: a fixed ordinal name, hostname and their own persistent volume claims.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
      spec: f(2, "StatefulSetSpec", "The pods wanted, their storage and how to update them."),
      status: f(3, "StatefulSetStatus", "What the controller last reported; may lag behind reality."),
    },
  ),
  StatefulSetCondition: t("One observation about a StatefulSet's state at a point in time.", {
    type: f(1, "string", "Kind of condition.", { omitEmpty: false }),
    status: f(2, "string", CONDITION_STATUS, { omitEmpty: false }),
    lastTransitionTime: f(3, "time", CONDITION_TRANSITION),
    reason: f(4, "string", CONDITION_REASON),
    message: f(5, "string", CONDITION_MESSAGE),
  }),
  StatefulSetOrdinals: t("How a StatefulSet numbers its pods.", {
    start: f(
      1,
      "int32",
      "The ordinal of the first pod; pods are numbered from start to start + replicas - 1. Defaults to 0.",
      { omitEmpty: false },
    ),
  }),
  StatefulSetPersistentVolumeClaimRetentionPolicy: t(
    "What happens to the claims created from volumeClaimTemplates when pods go away.",
    {
      whenDeleted: f(
        1,
        "string",
        '"Retain" (the default) keeps the claims when the StatefulSet is deleted; "Delete" removes them.',
      ),
      whenScaled: f(
        2,
        "string",
        '"Retain" (the default) keeps the claims of pods removed by a scale-down; "Delete" removes them.',
      ),
    },
  ),
  StatefulSetSpec: t("The desired state of a StatefulSet.", {
    replicas: f(1, "int32", "How many pods to run. Defaults to 1.", { pointer: true }),
    selector: f(
      2,
      "meta/v1.LabelSelector",
      `Which pods count towards the replica count. ${SELECTOR_MATCHES_TEMPLATE}`,
      { ...required, pointer: true, omitEmpty: false },
    ),
    template: f(
      3,
      "core/v1.PodTemplateSpec",
      `The pod created for each ordinal; pod N of StatefulSet "web" is named "web-N". ${TEMPLATE_ALWAYS}`,
      { ...required, omitEmpty: false },
    ),
    volumeClaimTemplates: f(
      4,
      "[]core/v1.PersistentVolumeClaim",
      "Claims created for each pod and kept with its identity. Each must be mounted by name in some container, and takes precedence over a template volume of the same name.",
    ),
    serviceName: f(
      5,
      "string",
      "The headless service that gives the pods their network identity; it must exist before the StatefulSet.",
      { ...required, omitEmpty: false },
    ),
    podManagementPolicy: f(
      6,
      "string",
      '"OrderedReady" (the default) creates pods one at a time in ordinal order, waiting for each to be ready, and removes them in reverse; "Parallel" creates and removes them all at once.',
      { enum: POD_MANAGEMENT_POLICIES },
    ),
    updateStrategy: f(7, "StatefulSetUpdateStrategy", "How pods are replaced when the template changes."),
    revisionHistoryLimit: f(8, "int32", HISTORY_LIMIT, { pointer: true }),
    minReadySeconds: f(9, "int32", MIN_READY),
    persistentVolumeClaimRetentionPolicy: f(
      10,
      "StatefulSetPersistentVolumeClaimRetentionPolicy",
      "Whether claims from volumeClaimTemplates are deleted along with the StatefulSet or its scaled-down pods. By default they are kept. Needs the StatefulSetAutoDeletePVC feature.",
      { pointer: true },
    ),
    ordinals: f(
      11,
      "StatefulSetOrdinals",
      "How pods are numbered; by default from 0. Needs the StatefulSetStartOrdinal feature.",
      { pointer: true },
    ),
  }),
  StatefulSetStatus: t("What the StatefulSet controller last observed.", {
    observedGeneration: f(
      1,
      "int64",
      "The most recent generation of the StatefulSet the controller has acted on.",
    ),
    replicas: f(2, "int32", "Pods the controller has created.", { omitEmpty: false }),
    readyReplicas: f(3, "int32", "Pods of this StatefulSet that are ready."),
    currentReplicas: f(4, "int32", "Pods made from the revision named in currentRevision."),
    updatedReplicas: f(5, "int32", "Pods made from the revision named in updateRevision."),
    currentRevision: f(6, "string", "The revision used for the pods with ordinals below currentReplicas."),
    updateRevision: f(
      7,
      "string",
      "The revision used for the last updatedReplicas pods (ordinals from replicas - updatedReplicas up).",
    ),
    collisionCount: f(9, "int32", COLLISION_COUNT, { pointer: true }),
    conditions: f(
      10,
      "[]StatefulSetCondition",
      "The latest observations of the StatefulSet's state.",
      mergeBy("type"),
    ),
    availableReplicas: f(11, "int32", "Pods of this StatefulSet ready for at least minReadySeconds.", {
      omitEmpty: false,
    }),
  }),
  StatefulSetUpdateStrategy: t("How a StatefulSet replaces its pods after a change.", {
    type: f(
      1,
      "string",
      '"RollingUpdate" (the default) replaces pods in reverse ordinal order; "OnDelete" replaces a pod only once it is deleted by hand.',
      { enum: STATEFUL_SET_UPDATE_TYPES },
    ),
    rollingUpdate: f(
      2,
      "RollingUpdateStatefulSetStrategy",
      "Settings for a rolling update; only used when type is RollingUpdate.",
      { pointer: true },
    ),
  }),
});
