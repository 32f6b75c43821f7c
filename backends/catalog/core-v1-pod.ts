// core/v1, workload part: Pod and PodTemplate, the containers they run, probes, environment,
// security settings, scheduling constraints and the status the node reports back. Other core/v1
// types live in the sibling core-v1-*.ts files.
import {
  atomic,
  type FieldOptions,
  type FieldSpec,
  f,
  inline,
  mapList,
  mergeBy,
  pkg,
  required,
  t,
} from "./model.ts";

// Allowed values of upstream's enumerated string types, as its OpenAPI lists them (sorted).
const RESTART_POLICIES = ["Always", "Never", "OnFailure"];
const DNS_POLICIES = ["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"];
const PREEMPTION_POLICIES = ["Never", "PreemptLowerPriority"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const TERMINATION_MESSAGE_POLICIES = ["FallbackToLogsOnError", "File"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const URI_SCHEMES = ["HTTP", "HTTPS"];
const MOUNT_PROPAGATIONS = ["Bidirectional", "HostToContainer", "None"];
const NODE_SELECTOR_OPERATORS = ["DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"];
const UNSATISFIABLE_ACTIONS = ["DoNotSchedule", "ScheduleAnyway"];
const NODE_INCLUSION_POLICIES = ["Honor", "Ignore"];
const FS_GROUP_CHANGE_POLICIES = ["Always", "OnRootMismatch"];
const STRUCT_ATOMIC = { structType: "atomic" } as const;
const SECCOMP_PROFILE_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"];

/** `+patchStrategy=merge,retainKeys` with `+patchMergeKey=key`. */
const mergeRetainBy = (key: string): FieldOptions => ({
  patchStrategy: "merge,retainKeys",
  patchMergeKey: key,
});

// Wording shared by several fields.
const OBJECT_META = "The object's metadata: name, namespace, labels, annotations and so on.";
const POD_SPEC = "The desired state of the pod: its containers, volumes and scheduling preferences.";
const VAR_EXPANSION =
  "References of the form $(NAME) are replaced with the container's environment variable NAME; unknown references stay as written, and $$ yields a literal $.";
const WINDOWS_FORBIDDEN = "Must not be set when the pod's OS is windows.";
const LINUX_FORBIDDEN = "Must not be set when the pod's OS is linux.";
const CONTAINER_WINS = "A value in the container's securityContext overrides the pod-level one.";
const PORT_REF =
  "The container port to connect to, as a number (1 to 65535) or as the name of a port declared by the container.";
const AFFINITY_WEIGHTED =
  "Soft rules: the scheduler favours nodes whose matching terms add up to the largest total weight, but may still pick a node that breaks them.";
const SCHED_WEIGHT = "How much a match counts towards a node's score, from 1 to 100.";

/** The fields Container and EphemeralContainerCommon share; `ephemeral` adjusts the wording. */
function containerFields(ephemeral: boolean): Record<string, FieldSpec> {
  const notForEphemeral = (what: string) => `${what} Ephemeral containers may not set it.`;
  return {
    name: f(
      1,
      "string",
      ephemeral
        ? "Name of the ephemeral container, a DNS label unique among all of the pod's containers, init containers and ephemeral containers."
        : "Name of the container, a DNS label unique among the pod's containers. Cannot be changed.",
      { ...required, omitEmpty: false },
    ),
    image: f(
      2,
      "string",
      ephemeral
        ? "The container image to run."
        : "The container image to run. May be left empty in templates so that higher-level tooling can fill it in.",
    ),
    command: f(
      3,
      "[]string",
      `The program to run and its leading arguments, executed directly without a shell; when empty, the image's ENTRYPOINT is used. ${VAR_EXPANSION} Cannot be changed.`,
    ),
    args: f(
      4,
      "[]string",
      `Arguments passed to the command; when empty, the image's CMD is used. ${VAR_EXPANSION} Cannot be changed.`,
    ),
    workingDir: f(
      5,
      "string",
      "Directory the process starts in; when empty, the runtime's default (possibly set by the image) applies. Cannot be changed.",
    ),
    ports: f(
      6,
      "[]ContainerPort",
      ephemeral
        ? notForEphemeral("Network ports of the container.")
        : "Network ports the container listens on, keyed by port and protocol. Listing a port is informational: any port bound on all addresses is reachable anyway. Cannot be changed.",
      { ...mergeBy("containerPort"), ...mapList("containerPort", "protocol") },
    ),
    envFrom: f(
      19,
      "[]EnvFromSource",
      "Whole ConfigMaps or Secrets whose keys become environment variables. For a key found in several sources the last one wins, and an explicit env entry beats them all. Cannot be changed.",
    ),
    env: f(
      7,
      "[]EnvVar",
      "Individual environment variables for the container, by name. Cannot be changed.",
      mergeBy("name"),
    ),
    resources: f(
      8,
      "ResourceRequirements",
      ephemeral
        ? notForEphemeral("Compute resources; an ephemeral container uses what the pod already has spare.")
        : "Compute resources (CPU, memory and so on) the container requests and may use at most.",
    ),
    resizePolicy: f(
      23,
      "[]ContainerResizePolicy",
      "How the container reacts when its resources are changed in place, per resource.",
      atomic,
    ),
    volumeMounts: f(
      9,
      "[]VolumeMount",
      ephemeral
        ? "Pod volumes to mount into the container's file system; sub-path mounts are not allowed here. Cannot be changed."
        : "Pod volumes to mount into the container's file system. Cannot be changed.",
      mergeBy("mountPath"),
    ),
    volumeDevices: f(
      21,
      "[]VolumeDevice",
      "Raw block devices from the pod's claims to expose inside the container.",
      mergeBy("devicePath"),
    ),
    livenessProbe: f(
      10,
      "Probe",
      ephemeral
        ? notForEphemeral("Liveness check.")
        : "Periodic check that the container is still healthy; the container is restarted when it fails. Cannot be changed.",
      { pointer: true },
    ),
    readinessProbe: f(
      11,
      "Probe",
      ephemeral
        ? notForEphemeral("Readiness check.")
        : "Periodic check that the container can serve; while it fails, the pod is taken out of service endpoints. Cannot be changed.",
      { pointer: true },
    ),
    startupProbe: f(
      22,
      "Probe",
      ephemeral
        ? notForEphemeral("Startup check.")
        : "Check that the container has finished starting; other probes wait until it succeeds, and failing it restarts the container like a liveness failure. Useful for slow starters. Cannot be changed.",
      { pointer: true },
    ),
    lifecycle: f(
      12,
      "Lifecycle",
      ephemeral
        ? notForEphemeral("Lifecycle hooks.")
        : "Hooks run right after the container starts and right before it is stopped. Cannot be changed.",
      { pointer: true },
    ),
    terminationMessagePath: f(
      13,
      "string",
      "File inside the container where it may write a short final message reported in its status; it is cut to 4096 bytes, and to 12 KiB across all containers. Defaults to /dev/termination-log. Cannot be changed.",
    ),
    terminationMessagePolicy: f(
      20,
      "string",
      'Where the termination message comes from: "File" always reads the message file, "FallbackToLogsOnError" uses the tail of the log (at most 2048 bytes or 80 lines) when the file is empty and the container failed. Defaults to "File". Cannot be changed.',
      { enum: TERMINATION_MESSAGE_POLICIES },
    ),
    imagePullPolicy: f(
      14,
      "string",
      'When the node pulls the image: "Always", "Never" or "IfNotPresent". Defaults to "Always" for images tagged :latest and "IfNotPresent" for others. Cannot be changed.',
      { enum: PULL_POLICIES },
    ),
    securityContext: f(
      15,
      "SecurityContext",
      ephemeral
        ? "Security settings for the ephemeral container; they override the pod-level ones."
        : "Security settings for this container; they override the pod-level ones.",
      { pointer: true },
    ),
    stdin: f(
      16,
      "bool",
      "Keep a standard input stream open for the container; otherwise reading stdin returns end-of-file at once. Defaults to false.",
    ),
    stdinOnce: f(
      17,
      "bool",
      "Close stdin after the first attached client disconnects (it stays closed until the container restarts); when false, stdin stays open across attach sessions and never signals end-of-file. Defaults to false.",
    ),
    tty: f(18, "bool", "Give the container a terminal; needs stdin to be true as well. Defaults to false."),
  };
}

export const CORE_V1_POD = pkg("core/v1", "k8s.io.api.core.v1", {
  // Pods and templates.
  Pod: t(
    "A group of containers that run together on one node; clients create it and the scheduler places it.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
      spec: f(2, "PodSpec", POD_SPEC),
      status: f(
        3,
        "PodStatus",
        "What the system last observed about the pod; written by the system, may lag behind, read-only for clients.",
      ),
    },
  ),
  PodSpec: t("What a pod should run and how: containers, volumes, scheduling, networking and security.", {
    volumes: f(1, "[]Volume", "Volumes the pod's containers can mount.", mergeRetainBy("name")),
    initContainers: f(
      20,
      "[]Container",
      "Containers run one at a time, in order, before the main containers start; if one fails, the pod's restart policy applies. They may not have probes or lifecycle hooks, and for scheduling the pod's needs are the larger of their largest request and the sum over the main containers. Cannot be changed.",
      mergeBy("name"),
    ),
    containers: f(
      2,
      "[]Container",
      "The pod's main containers; at least one is needed, and containers cannot be added or removed later.",
      { ...required, ...mergeBy("name"), omitEmpty: false },
    ),
    ephemeralContainers: f(
      34,
      "[]EphemeralContainer",
      "Temporary containers added to a running pod, for instance to debug it. Only the ephemeralcontainers subresource can add them; they cannot be set at creation or by updating the pod.",
      mergeBy("name"),
    ),
    restartPolicy: f(
      3,
      "string",
      'When containers are restarted after they exit: "Always", "OnFailure" or "Never" (some workloads allow only some of these). Defaults to "Always".',
      { enum: RESTART_POLICIES },
    ),
    terminationGracePeriodSeconds: f(
      4,
      "int64",
      "Seconds between asking the pod's processes to stop and killing them; a delete request may shorten it. 0 kills at once. Pick something longer than your cleanup takes. Defaults to 30.",
      { pointer: true },
    ),
    activeDeadlineSeconds: f(
      5,
      "int64",
      "Seconds the pod may stay active on its node, counted from its start time, before the system fails it and kills its containers. Must be positive.",
      { pointer: true },
    ),
    dnsPolicy: f(
      6,
      "string",
      'How the pod\'s DNS is set up: "ClusterFirst" (the default), "ClusterFirstWithHostNet" (needed for cluster DNS with hostNetwork), "Default" (inherit the node\'s) or "None" (use only dnsConfig). Settings in dnsConfig are merged on top.',
      { enum: DNS_POLICIES },
    ),
    nodeSelector: f(7, "{}string", "Labels a node must carry, all of them, for the pod to be placed on it.", {
      mapType: "atomic",
    }),
    serviceAccountName: f(8, "string", "Name of the service account the pod runs as."),
    serviceAccount: f(9, "string", "Deprecated older spelling of serviceAccountName."),
    automountServiceAccountToken: f(
      21,
      "bool",
      "Whether the service account's API token is mounted into the containers automatically.",
      { pointer: true },
    ),
    nodeName: f(
      10,
      "string",
      "The node the pod runs on. Setting it at creation bypasses the scheduler, provided the node has room.",
    ),
    hostNetwork: f(
      11,
      "bool",
      "Run in the node's network namespace instead of a pod network; the ports used must then be declared. Defaults to false.",
    ),
    hostPID: f(12, "bool", "Share the node's process ID namespace. Defaults to false."),
    hostIPC: f(13, "bool", "Share the node's inter-process communication namespace. Defaults to false."),
    shareProcessNamespace: f(
      27,
      "bool",
      "Give all containers of the pod one process namespace, so they can see and signal each other's processes (and no container's first process gets PID 1). Not allowed with hostPID. Defaults to false.",
      { pointer: true },
    ),
    securityContext: f(
      14,
      "PodSecurityContext",
      "Security settings for the whole pod, which containers can override. Empty when not set.",
      { pointer: true },
    ),
    imagePullSecrets: f(
      15,
      "[]LocalObjectReference",
      "Secrets in the pod's namespace with registry credentials for pulling the containers' images.",
      mergeBy("name"),
    ),
    hostname: f(16, "string", "Host name of the pod; when empty, the system picks one."),
    subdomain: f(
      17,
      "string",
      "Subdomain of the pod; when set, the pod's fully qualified name becomes <hostname>.<subdomain>.<namespace>.svc.<cluster domain>, and without it the pod has no domain name.",
    ),
    affinity: f(
      18,
      "Affinity",
      "Rules that attract the pod to, or keep it away from, certain nodes and pods.",
      { pointer: true },
    ),
    schedulerName: f(
      19,
      "string",
      "The scheduler that places the pod; when empty, the default scheduler does.",
    ),
    tolerations: f(22, "[]Toleration", "Node taints the pod accepts."),
    hostAliases: f(
      23,
      "[]HostAlias",
      "Extra entries for the pod's hosts file. Only for pods that do not use the host network.",
      mergeBy("ip"),
    ),
    priorityClassName: f(
      24,
      "string",
      'Name of the PriorityClass giving the pod its priority. Two names are built in and rank highest, "system-node-critical" above "system-cluster-critical"; others must exist as PriorityClass objects. Without it the default priority, or zero, applies.',
    ),
    priority: f(
      25,
      "int32",
      "The pod's priority, higher meaning more important. Normally filled in from priorityClassName by admission, which then forbids users from setting it.",
      { pointer: true },
    ),
    dnsConfig: f(26, "PodDNSConfig", "Additional DNS settings, merged into what dnsPolicy produces.", {
      pointer: true,
    }),
    readinessGates: f(
      28,
      "[]PodReadinessGate",
      'Extra pod conditions that must be "True", on top of all containers being ready, for the pod to count as ready.',
    ),
    runtimeClassName: f(
      29,
      "string",
      "Name of the RuntimeClass (node group) that selects the container runtime configuration; the pod will not run if no such class exists. When empty, the implicit legacy class with the default handler is used.",
      { pointer: true },
    ),
    enableServiceLinks: f(
      30,
      "bool",
      "Whether variables describing services are added to the containers' environment, in the style of Docker links. Defaults to true.",
      { pointer: true },
    ),
    preemptionPolicy: f(
      31,
      "string",
      'Whether the pod may evict lower-priority pods to make room: "PreemptLowerPriority" (the default) or "Never".',
      { enum: PREEMPTION_POLICIES, pointer: true },
    ),
    overhead: f(
      32,
      "{}quantity",
      "Resources consumed by the pod's sandbox on top of its containers, filled in at admission from the RuntimeClass; creating a pod with it already set is rejected by that admission step. Counts as zero when unset.",
    ),
    topologySpreadConstraints: f(
      33,
      "[]TopologySpreadConstraint",
      "How the pod and its peers should be spread over topology domains such as zones or nodes; every constraint must hold.",
      { ...mergeBy("topologyKey"), ...mapList("topologyKey", "whenUnsatisfiable") },
    ),
    setHostnameAsFQDN: f(
      35,
      "bool",
      "Use the pod's fully qualified domain name as its host name instead of the short name: on Linux in the kernel's nodename, on Windows in the host name registry value. No effect without a domain name. Defaults to false.",
      { pointer: true },
    ),
    os: f(
      36,
      "PodOS",
      "The operating system the containers need. Setting it restricts fields: linux forbids Windows options, and windows forbids Linux-only settings such as hostPID, hostIPC, hostUsers, shareProcessNamespace, SELinux, seccomp, fsGroup, sysctls, user and group IDs, capabilities, privileged mode and procMount.",
      { pointer: true },
    ),
    hostUsers: f(
      37,
      "bool",
      "Whether the pod uses the node's user namespace (the default, true). False gives the pod its own user namespace, so root inside is not root on the node; honoured only with the UserNamespacesSupport feature.",
      { pointer: true },
    ),
    schedulingGates: f(
      38,
      "[]PodSchedulingGate",
      "While any gate remains, the pod is not considered for scheduling. Gates can only be added when the pod is created and only removed afterwards.",
      { ...mergeBy("name"), ...mapList("name") },
    ),
    resourceClaims: f(
      39,
      "[]PodResourceClaim",
      "Dynamic resource claims that must be allocated and reserved before the pod starts; containers use them by name. Cannot be changed (alpha, DynamicResourceAllocation feature).",
      { ...mergeRetainBy("name"), ...mapList("name") },
    ),
  }),
  PodStatus: t(
    "What is known about a pod's state. It can trail reality, for instance when the pod's node cannot reach the control plane.",
    {
      phase: f(
        1,
        "string",
        'Coarse summary of where the pod is in its life: "Pending" (accepted, not all containers created yet, including scheduling and image pulls), "Running" (bound and at least one container running or starting), "Succeeded" (all containers ended successfully and will not restart), "Failed" (all ended, at least one in failure) or "Unknown" (the node could not be reached).',
      ),
      conditions: f(2, "[]PodCondition", "The pod's current conditions, such as readiness.", mergeBy("type")),
      message: f(3, "string", "Human-readable detail on the pod's state."),
      reason: f(4, "string", 'Short CamelCase word explaining the pod\'s state, e.g. "Evicted".'),
      nominatedNodeName: f(
        11,
        "string",
        "Node the pod is expected to go to after preempting others there, while the victims shut down. The scheduler may still choose another node, so it can differ from spec.nodeName.",
      ),
      hostIP: f(5, "string", "IP address of the pod's node; empty until the pod is scheduled."),
      podIP: f(
        6,
        "string",
        "The pod's IP address, reachable at least inside the cluster; empty until assigned.",
      ),
      podIPs: f(
        12,
        "[]PodIP",
        "All IP addresses of the pod, at most one per IP family; the first equals podIP. Empty until assigned.",
        mergeBy("ip"),
      ),
      startTime: f(7, "time", "When the node's agent accepted the pod, before any image was pulled.", {
        pointer: true,
      }),
      initContainerStatuses: f(10, "[]ContainerStatus", "One status per init container, in manifest order."),
      containerStatuses: f(8, "[]ContainerStatus", "One status per main container in the manifest."),
      qosClass: f(
        9,
        "string",
        'Quality-of-service class derived from the containers\' requests and limits: "Guaranteed", "Burstable" or "BestEffort".',
      ),
      ephemeralContainerStatuses: f(
        13,
        "[]ContainerStatus",
        "Statuses of the ephemeral containers that have run in the pod.",
      ),
      resize: f(
        14,
        "string",
        'Progress of an in-place resource resize of the containers; empty when none is pending, "Proposed" right after a change.',
      ),
    },
  ),
  PodTemplate: t("A stored pod template from which copies of a pod can be made.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    template: f(2, "PodTemplateSpec", "The pod that copies are made from."),
  }),
  PodTemplateSpec: t("The metadata and spec given to pods created from a template.", {
    metadata: f(1, "meta/v1.ObjectMeta", "Metadata for the created pods, such as their labels."),
    spec: f(2, "PodSpec", POD_SPEC),
  }),
  Binding: t(
    "Attaches one object to another, such as a pod to the node chosen by a scheduler. Deprecated: use a pod's binding subresource.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
      target: f(2, "ObjectReference", "The object to attach this one to, e.g. a node.", {
        ...required,
        omitEmpty: false,
      }),
    },
  ),

  // Containers.
  Container: t("One application container of a pod.", containerFields(false)),
  EphemeralContainer: t(
    "A temporary container added to a running pod for tasks such as debugging. It has no guaranteed resources or scheduling, is never restarted, and cannot be removed; it is added through the pod's ephemeralcontainers subresource. The pod may be evicted if it uses too much.",
    {
      ephemeralContainerCommon: f(
        1,
        "EphemeralContainerCommon",
        "The fields shared with Container, inlined into this object.",
        inline,
      ),
      targetContainerName: f(
        2,
        "string",
        "Name of a pod container whose namespaces (process, IPC and so on) this one joins; when empty, the pod's own namespaces are used. The runtime must support this, or the result is undefined.",
      ),
    },
  ),
  EphemeralContainerCommon: t(
    "The Container fields an ephemeral container carries, inlined into EphemeralContainer so the two convert easily.",
    containerFields(true),
  ),
  ContainerPort: t("A network port of a container.", {
    name: f(
      1,
      "string",
      "Name of the port, a service-name string unique within the pod, so services can refer to it.",
    ),
    hostPort: f(
      2,
      "int32",
      "Port on the node to expose, 1 to 65535; with hostNetwork it must equal containerPort. Rarely needed.",
    ),
    containerPort: f(3, "int32", "Port on the pod's IP address, 1 to 65535.", {
      ...required,
      omitEmpty: false,
    }),
    protocol: f(4, "string", 'Protocol of the port: "TCP", "UDP" or "SCTP". Defaults to "TCP".', {
      enum: PROTOCOLS,
      default: "TCP",
    }),
    hostIP: f(5, "string", "Node IP address to bind the host port to."),
  }),
  ContainerResizePolicy: t("How a container handles an in-place change of one resource.", {
    resourceName: f(1, "string", 'The resource this applies to: "cpu" or "memory".', {
      ...required,
      omitEmpty: false,
    }),
    restartPolicy: f(
      2,
      "string",
      'Whether the container must be restarted for the change: "NotRequired" (the default) or "RestartContainer".',
      { ...required, omitEmpty: false },
    ),
  }),
  VolumeMount: t("Mounts one pod volume inside a container.", {
    name: f(1, "string", "Name of the pod volume to mount.", { ...required, omitEmpty: false }),
    readOnly: f(2, "bool", "Mount read-only; otherwise read-write. Defaults to false."),
    mountPath: f(3, "string", "Where the volume appears in the container; may not contain ':'.", {
      ...required,
      omitEmpty: false,
    }),
    subPath: f(4, "string", "Path inside the volume to mount instead of its root. Defaults to the root."),
    mountPropagation: f(
      5,
      "string",
      'How mounts propagate between the node and the container: "None" (the default), "HostToContainer" or "Bidirectional".',
      { enum: MOUNT_PROPAGATIONS, pointer: true },
    ),
    subPathExpr: f(
      6,
      "string",
      "Like subPath, but $(NAME) references to the container's environment are expanded. Cannot be combined with subPath. Defaults to the volume's root.",
    ),
  }),
  VolumeDevice: t("Exposes a raw block device inside a container.", {
    name: f(1, "string", "Name of the pod's persistentVolumeClaim volume to use.", {
      ...required,
      omitEmpty: false,
    }),
    devicePath: f(2, "string", "Path in the container where the device appears.", {
      ...required,
      omitEmpty: false,
    }),
  }),

  // Container status.
  ContainerStatus: t("What is known about one container of a pod.", {
    name: f(1, "string", "Name of the container, as in the pod spec.", { omitEmpty: false }),
    state: f(2, "ContainerState", "The container's current state."),
    lastState: f(
      3,
      "ContainerState",
      "How the container's previous run ended, to help debug crashes and restarts; empty while it runs and has never restarted.",
    ),
    ready: f(
      4,
      "bool",
      "Whether the container currently passes its readiness probe and so should get traffic; without a readiness probe it becomes true once the container has started.",
      { omitEmpty: false },
    ),
    restartCount: f(
      5,
      "int32",
      "How often the container has been restarted. Never negative, but may fall back to 0 if the node loses its records.",
      { omitEmpty: false },
    ),
    image: f(
      6,
      "string",
      "The image the container runs, which the runtime may have resolved differently from the spec.",
      { omitEmpty: false },
    ),
    imageID: f(7, "string", "ID of the image the container runs, as the runtime resolved it.", {
      omitEmpty: false,
    }),
    containerID: f(
      8,
      "string",
      'Runtime ID of the container, written as "<runtime>://<id>" (for example "containerd://...").',
    ),
    started: f(
      9,
      "bool",
      "Whether the container has run its postStart hook and passed its startup probe. False after a restart until that happens again; unset means false.",
      { pointer: true },
    ),
    allocatedResources: f(
      10,
      "{}quantity",
      "Resources the node has set aside for the container: its requests at admission or after an accepted resize.",
    ),
    resources: f(
      11,
      "ResourceRequirements",
      "Requests and limits actually applied to the running container, after start or a completed resize.",
      { pointer: true },
    ),
  }),
  ContainerState: t("The state of a container: at most one member is set, and none means waiting.", {
    waiting: f(1, "ContainerStateWaiting", "Set while the container has not started running.", {
      pointer: true,
    }),
    running: f(2, "ContainerStateRunning", "Set while the container runs.", { pointer: true }),
    terminated: f(3, "ContainerStateTerminated", "Set once the container has ended.", { pointer: true }),
  }),
  ContainerStateRunning: t("Details of a running container.", {
    startedAt: f(1, "time", "When the container last started or restarted."),
  }),
  ContainerStateTerminated: t("Details of a container that has ended.", {
    exitCode: f(1, "int32", "Exit code of the container's last run.", { omitEmpty: false }),
    signal: f(2, "int32", "Signal that ended the container's last run, if any."),
    reason: f(3, "string", "Short reason for the container's end."),
    message: f(4, "string", "Human-readable detail on the container's end."),
    startedAt: f(5, "time", "When the run that ended began."),
    finishedAt: f(6, "time", "When the container ended."),
    containerID: f(7, "string", 'Runtime ID of the container, written as "<runtime>://<id>".'),
  }),
  ContainerStateWaiting: t("Details of a container that is not running yet.", {
    reason: f(1, "string", "Short reason the container is waiting."),
    message: f(2, "string", "Human-readable detail on why the container is waiting."),
  }),

  // Environment.
  EnvVar: t("One environment variable of a container.", {
    name: f(1, "string", "Name of the variable; must be a C identifier.", { ...required, omitEmpty: false }),
    value: f(
      2,
      "string",
      "Value of the variable. $(NAME) references to variables defined earlier in the list or to service variables are expanded; unknown references stay as written and $$ yields a literal $. Defaults to the empty string.",
    ),
    valueFrom: f(
      3,
      "EnvVarSource",
      "Where to read the value from instead; not allowed with a non-empty value.",
      { pointer: true },
    ),
  }),
  EnvVarSource: t("Where an environment variable's value comes from; set one member.", {
    fieldRef: f(
      1,
      "ObjectFieldSelector",
      "A field of the pod. Supported paths: the pod's name and namespace (metadata.name, metadata.namespace), one label or annotation (metadata.labels['<key>'], metadata.annotations['<key>']), the node and service account (spec.nodeName, spec.serviceAccountName) and its addresses (status.hostIP, status.podIP, status.podIPs).",
      { pointer: true },
    ),
    resourceFieldRef: f(
      2,
      "ResourceFieldSelector",
      "A resource limit or request of the container: limits or requests of cpu, memory or ephemeral-storage.",
      { pointer: true },
    ),
    configMapKeyRef: f(3, "ConfigMapKeySelector", "One key of a ConfigMap.", { pointer: true }),
    secretKeyRef: f(4, "SecretKeySelector", "One entry of a Secret from the namespace the pod lives in.", {
      pointer: true,
    }),
  }),
  EnvFromSource: t("A ConfigMap or Secret whose keys all become environment variables.", {
    prefix: f(
      1,
      "string",
      "Text put in front of every key to form the variable name; must be a C identifier.",
    ),
    configMapRef: f(2, "ConfigMapEnvSource", "The ConfigMap to read.", { pointer: true }),
    secretRef: f(3, "SecretEnvSource", "The Secret to read.", { pointer: true }),
  }),
  ConfigMapEnvSource: t("A ConfigMap whose data entries all become environment variables of a container.", {
    localObjectReference: f(1, "LocalObjectReference", "Names the ConfigMap; inlined.", inline),
    optional: f(2, "bool", "Whether the container may start when the ConfigMap does not exist.", {
      pointer: true,
    }),
  }),
  ConfigMapKeySelector: t(
    "Picks one key of a ConfigMap.",
    {
      localObjectReference: f(1, "LocalObjectReference", "Names the ConfigMap; inlined.", inline),
      key: f(2, "string", "The key whose value is used.", { ...required, omitEmpty: false }),
      optional: f(3, "bool", "Whether the container may start when the ConfigMap or the key is missing.", {
        pointer: true,
      }),
    },
    STRUCT_ATOMIC,
  ),
  SecretEnvSource: t("A Secret whose data entries all become environment variables of a container.", {
    localObjectReference: f(1, "LocalObjectReference", "Names the Secret; inlined.", inline),
    optional: f(2, "bool", "Whether the container may start when the Secret does not exist.", {
      pointer: true,
    }),
  }),
  SecretKeySelector: t(
    "Picks one key of a Secret.",
    {
      localObjectReference: f(
        1,
        "LocalObjectReference",
        "Names the Secret in the pod's namespace; inlined.",
        inline,
      ),
      key: f(2, "string", "The key whose value is used; must be a valid secret key.", {
        ...required,
        omitEmpty: false,
      }),
      optional: f(3, "bool", "Whether the container may start when the Secret or the key is missing.", {
        pointer: true,
      }),
    },
    STRUCT_ATOMIC,
  ),
  ObjectFieldSelector: t(
    "Picks one field of an object by path, in a given API version.",
    {
      apiVersion: f(1, "string", 'API version the path is written against. Defaults to "v1".'),
      fieldPath: f(2, "string", "Path of the field to read.", { ...required, omitEmpty: false }),
    },
    STRUCT_ATOMIC,
  ),
  ResourceFieldSelector: t(
    "Picks a container's resource request or limit, in a chosen unit.",
    {
      containerName: f(
        1,
        "string",
        "The container whose resources are read; needed in volumes, optional for environment variables.",
      ),
      resource: f(2, "string", "The resource to read, e.g. limits.cpu or requests.memory.", {
        ...required,
        omitEmpty: false,
      }),
      divisor: f(3, "quantity", 'Unit the value is expressed in, e.g. "1m" for millicores. Defaults to "1".'),
    },
    STRUCT_ATOMIC,
  ),

  // Resources.
  ResourceRequirements: t("Compute resources a container asks for and may use.", {
    limits: f(1, "{}quantity", "The most of each resource the container may use."),
    requests: f(
      2,
      "{}quantity",
      "The amount of each resource the container is guaranteed and scheduled by. When omitted, it defaults to the limits if given, else to a value chosen by the implementation. Cannot exceed the limits.",
    ),
    claims: f(
      3,
      "[]ResourceClaim",
      "Names of entries in the pod's spec.resourceClaims this container uses. Containers only; cannot be changed (alpha, DynamicResourceAllocation feature).",
      mapList("name"),
    ),
  }),
  ResourceClaim: t("Names one of the pod's resource claims for use by a container.", {
    name: f(
      1,
      "string",
      "Name of an entry in the pod's spec.resourceClaims; its resource becomes available to the container.",
      { ...required, omitEmpty: false },
    ),
  }),
  PodResourceClaim: t(
    "Gives a pod-local name to one ResourceClaim, found through its source; containers refer to the claim by that name.",
    {
      name: f(1, "string", "Name of the claim within the pod; a DNS label.", {
        ...required,
        omitEmpty: false,
      }),
      source: f(2, "ClaimSource", "Which ResourceClaim this is."),
    },
  ),
  ClaimSource: t(
    "Points to a ResourceClaim, directly or through a template. Set exactly one member; an empty object is treated as unknown.",
    {
      resourceClaimName: f(1, "string", "Name of an existing ResourceClaim in the pod's namespace.", {
        pointer: true,
      }),
      resourceClaimTemplateName: f(
        2,
        "string",
        "Name of a ResourceClaimTemplate in the pod's namespace. A claim named <pod name>-<claim name> is created from it for this pod and deleted with it; an existing claim of that name not owned by the pod blocks the pod instead. Cannot be changed.",
        { pointer: true },
      ),
    },
  ),

  // Probes and lifecycle hooks.
  Probe: t("A health check run against a container to tell whether it is alive or ready for traffic.", {
    handler: f(1, "ProbeHandler", "The check to perform; inlined.", inline),
    initialDelaySeconds: f(2, "int32", "Seconds to wait after the container starts before the first probe."),
    timeoutSeconds: f(
      3,
      "int32",
      "Seconds after which a probe attempt counts as failed. Defaults to 1, at least 1.",
    ),
    periodSeconds: f(4, "int32", "Seconds between probe attempts. Defaults to 10, at least 1."),
    successThreshold: f(
      5,
      "int32",
      "Successes in a row needed after a failure to count as passing. Defaults to 1 and must be 1 for liveness and startup probes.",
    ),
    failureThreshold: f(
      6,
      "int32",
      "Failures in a row needed after a success to count as failing. Defaults to 3, at least 1.",
    ),
    terminationGracePeriodSeconds: f(
      7,
      "int64",
      "Grace period, in seconds, for stopping the pod when this probe fails, overriding the pod's terminationGracePeriodSeconds; 0 kills at once. When unset the pod's value applies.",
      { pointer: true },
    ),
  }),
  ProbeHandler: t("The action a probe performs; set exactly one member.", {
    exec: f(1, "ExecAction", "Run a command in the container.", { pointer: true }),
    httpGet: f(2, "HTTPGetAction", "Send an HTTP GET request.", { pointer: true }),
    tcpSocket: f(3, "TCPSocketAction", "Open a TCP connection.", { pointer: true }),
    grpc: f(4, "GRPCAction", "Call the gRPC health checking service.", { pointer: true }),
  }),
  Lifecycle: t(
    "Hooks run at container lifecycle events; the container's management waits for a hook to finish unless the container dies first.",
    {
      postStart: f(
        1,
        "LifecycleHandler",
        "Runs right after the container is created; if it fails, the container is killed and handled by its restart policy.",
        { pointer: true },
      ),
      preStop: f(
        2,
        "LifecycleHandler",
        "Runs just before the container is stopped by an API request or a management event (failed probe, preemption, resource pressure), but not when it crashes or exits. The pod's grace period is already counting down, and the container is stopped when it ends whatever the hook does.",
        { pointer: true },
      ),
    },
  ),
  LifecycleHandler: t("The action a lifecycle hook performs; set exactly one of exec or httpGet.", {
    exec: f(1, "ExecAction", "Run a command in the container.", { pointer: true }),
    httpGet: f(2, "HTTPGetAction", "Send an HTTP GET request.", { pointer: true }),
    tcpSocket: f(
      3,
      "TCPSocketAction",
      "Deprecated and unsupported for hooks; accepted without checks only for compatibility, and such hooks fail when run.",
      { pointer: true },
    ),
  }),
  ExecAction: t("Runs a command inside the container.", {
    command: f(
      1,
      "[]string",
      "The command and its arguments, started from / without a shell (call a shell explicitly for pipes and the like). Exit status 0 means healthy, anything else unhealthy.",
    ),
  }),
  HTTPGetAction: t("Sends an HTTP GET request.", {
    path: f(1, "string", "Path to request on the server."),
    port: f(2, "intOrString", PORT_REF, { ...required, omitEmpty: false }),
    host: f(
      3,
      "string",
      'Host to connect to; defaults to the pod\'s IP. Setting a "Host" header in httpHeaders is usually what you want instead.',
    ),
    scheme: f(4, "string", 'Scheme to use: "HTTP" or "HTTPS". Defaults to "HTTP".', { enum: URI_SCHEMES }),
    httpHeaders: f(5, "[]HTTPHeader", "Extra request headers; a header may be repeated."),
  }),
  HTTPHeader: t("One custom header sent with an HTTP probe.", {
    name: f(1, "string", "Header name; compared without regard to case.", { ...required, omitEmpty: false }),
    value: f(2, "string", "Header value.", { ...required, omitEmpty: false }),
  }),
  TCPSocketAction: t("Opens a TCP connection.", {
    port: f(1, "intOrString", PORT_REF, { ...required, omitEmpty: false }),
    host: f(2, "string", "Host to connect to; defaults to the pod's IP."),
  }),
  GRPCAction: t("Calls the standard gRPC health checking service.", {
    port: f(1, "int32", "Port of the gRPC server, 1 to 65535.", { ...required, omitEmpty: false }),
    service: f(
      2,
      "string",
      "Service name sent in the health check request; when empty, gRPC's default behaviour applies.",
      { pointer: true, omitEmpty: false },
    ),
  }),

  // Security.
  SecurityContext: t(
    "Security settings for one container. Where a setting also exists at pod level, the container's value wins.",
    {
      capabilities: f(
        1,
        "Capabilities",
        `POSIX capabilities to add or remove; by default the runtime's standard set. ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      privileged: f(
        2,
        "bool",
        `Run privileged, which amounts to root on the node. Defaults to false. ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      seLinuxOptions: f(
        3,
        "SELinuxOptions",
        `SELinux context for the container; when unset, the runtime assigns a random one per container. ${CONTAINER_WINS} ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      windowsOptions: f(
        10,
        "WindowsSecurityContextOptions",
        `Windows-specific settings; when unset, the pod's are used. ${CONTAINER_WINS} ${LINUX_FORBIDDEN}`,
        { pointer: true },
      ),
      runAsUser: f(
        4,
        "int64",
        `User ID the container's process runs as; defaults to the image's user. ${CONTAINER_WINS} ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      runAsGroup: f(
        8,
        "int64",
        `Group ID the container's process runs as; defaults to the runtime's choice. ${CONTAINER_WINS} ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      runAsNonRoot: f(
        5,
        "bool",
        `When true, the node refuses to start the container if the image would run it as user 0 (root). ${CONTAINER_WINS}`,
        { pointer: true },
      ),
      readOnlyRootFilesystem: f(
        6,
        "bool",
        `Mount the container's root file system read-only. Defaults to false. ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      allowPrivilegeEscalation: f(
        7,
        "bool",
        `Whether processes may gain more privileges than their parent (it controls the no_new_privs flag). Always true when the container is privileged or has CAP_SYS_ADMIN. ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      procMount: f(
        9,
        "string",
        `Kind of /proc mount: "Default" (the runtime's usual read-only and masked paths) or "Unmasked". Needs the ProcMountType feature. ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      seccompProfile: f(
        11,
        "SeccompProfile",
        `Seccomp profile for the container, overriding the pod's. ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
    },
  ),
  PodSecurityContext: t(
    "Security settings for a whole pod; a container's own securityContext overrides the settings both have.",
    {
      seLinuxOptions: f(
        1,
        "SELinuxOptions",
        `SELinux context for all containers; when unset, the runtime assigns a random one per container. ${CONTAINER_WINS} ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      windowsOptions: f(
        8,
        "WindowsSecurityContextOptions",
        `Windows-specific settings for all containers. ${CONTAINER_WINS} ${LINUX_FORBIDDEN}`,
        { pointer: true },
      ),
      runAsUser: f(
        2,
        "int64",
        `User ID the containers' processes run as; defaults to the image's user. ${CONTAINER_WINS} ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      runAsGroup: f(
        6,
        "int64",
        `Group ID the containers' processes run as; defaults to the runtime's choice. ${CONTAINER_WINS} ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      runAsNonRoot: f(
        3,
        "bool",
        `When true, the node refuses to start any container whose image would run as user 0 (root). ${CONTAINER_WINS}`,
        { pointer: true },
      ),
      supplementalGroups: f(
        4,
        "[]int64",
        `Extra group IDs given to each container's first process, besides its primary group, fsGroup and the groups the image defines for its user. ${WINDOWS_FORBIDDEN}`,
      ),
      fsGroup: f(
        5,
        "int64",
        `A group added to all containers that also owns volumes supporting it: the node makes it the volumes' group, sets the setgid bit and adds group read-write permissions. When unset, volume ownership is left alone. ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
      sysctls: f(
        7,
        "[]Sysctl",
        `Namespaced kernel parameters to set for the pod; a runtime that does not support one may fail to start the pod. ${WINDOWS_FORBIDDEN}`,
      ),
      fsGroupChangePolicy: f(
        9,
        "string",
        `When the node changes a volume's ownership and permissions to fsGroup: "Always" (the default) or "OnRootMismatch" (only when the volume's root does not match). Only affects volume types that support fsGroup, not secrets, config maps or emptyDir. ${WINDOWS_FORBIDDEN}`,
        { enum: FS_GROUP_CHANGE_POLICIES, pointer: true },
      ),
      seccompProfile: f(
        10,
        "SeccompProfile",
        `Seccomp profile for the pod's containers. ${WINDOWS_FORBIDDEN}`,
        { pointer: true },
      ),
    },
  ),
  Capabilities: t("POSIX capabilities to add to or remove from a container.", {
    add: f(1, "[]string", "Capabilities to grant."),
    drop: f(2, "[]string", "Capabilities to take away."),
  }),
  SELinuxOptions: t("SELinux labels for a container.", {
    user: f(1, "string", "The SELinux user label."),
    role: f(2, "string", "The SELinux role label."),
    type: f(3, "string", "The SELinux type label."),
    level: f(4, "string", "The SELinux level label."),
  }),
  SeccompProfile: t("Which seccomp profile a pod or container uses; only one source may be given.", {
    type: f(
      1,
      "string",
      'Kind of profile: "RuntimeDefault" (the runtime\'s own), "Unconfined" (none) or "Localhost" (a file on the node, named by localhostProfile).',
      { ...required, enum: SECCOMP_PROFILE_TYPES, omitEmpty: false },
    ),
    localhostProfile: f(
      2,
      "string",
      'Path of a profile file already on the node, relative to the node agent\'s seccomp profile directory and not leaving it. Only with type "Localhost".',
      { pointer: true },
    ),
  }),
  WindowsSecurityContextOptions: t("Windows-specific security settings and credentials.", {
    gmsaCredentialSpecName: f(1, "string", "Name of the GMSA credential spec to use.", { pointer: true }),
    gmsaCredentialSpec: f(
      2,
      "string",
      "Contents of the GMSA credential spec named in gmsaCredentialSpecName, normally filled in by the GMSA admission webhook.",
      { pointer: true },
    ),
    runAsUserName: f(
      3,
      "string",
      "Windows user name the container's process runs as; defaults to the image's user. A container-level value overrides the pod-level one.",
      { pointer: true },
    ),
    hostProcess: f(
      4,
      "bool",
      "Run as a Windows host process container. All containers of a pod must agree on it, and true requires hostNetwork. Needs the WindowsHostProcessContainers feature.",
      { pointer: true },
    ),
  }),
  Sysctl: t("A kernel parameter to set.", {
    name: f(1, "string", "Name of the parameter.", { ...required, omitEmpty: false }),
    value: f(2, "string", "Value to set.", { ...required, omitEmpty: false }),
  }),

  // Scheduling.
  Affinity: t("The pod's affinity and anti-affinity scheduling rules.", {
    nodeAffinity: f(1, "NodeAffinity", "Rules on which nodes the pod goes to.", { pointer: true }),
    podAffinity: f(
      2,
      "PodAffinity",
      "Rules that place the pod near other pods, e.g. in the same node or zone.",
      { pointer: true },
    ),
    podAntiAffinity: f(
      3,
      "PodAntiAffinity",
      "Rules that keep the pod away from other pods, e.g. out of their node or zone.",
      { pointer: true },
    ),
  }),
  NodeAffinity: t("Scheduling rules about node labels and fields.", {
    requiredDuringSchedulingIgnoredDuringExecution: f(
      1,
      "NodeSelector",
      "Hard rule: the pod is only scheduled to a node that matches. If the node stops matching later, the pod may or may not be evicted.",
      { pointer: true },
    ),
    preferredDuringSchedulingIgnoredDuringExecution: f(2, "[]PreferredSchedulingTerm", AFFINITY_WEIGHTED),
  }),
  PodAffinity: t("Scheduling rules that attract the pod to nodes where certain other pods run.", {
    requiredDuringSchedulingIgnoredDuringExecution: f(
      1,
      "[]PodAffinityTerm",
      "Hard rules: the pod is only scheduled where every term holds. If a term stops holding later, the pod may or may not be evicted.",
    ),
    preferredDuringSchedulingIgnoredDuringExecution: f(2, "[]WeightedPodAffinityTerm", AFFINITY_WEIGHTED),
  }),
  PodAntiAffinity: t("Scheduling rules that keep the pod away from nodes where certain other pods run.", {
    requiredDuringSchedulingIgnoredDuringExecution: f(
      1,
      "[]PodAffinityTerm",
      "Hard rules: the pod is only scheduled where no term's pods are found. If that changes later, the pod may or may not be evicted.",
    ),
    preferredDuringSchedulingIgnoredDuringExecution: f(2, "[]WeightedPodAffinityTerm", AFFINITY_WEIGHTED),
  }),
  PodAffinityTerm: t(
    "A set of pods, chosen by labels and namespaces, that the pod should share (or avoid sharing) a topology domain with: nodes whose topologyKey label has the same value count as one domain.",
    {
      labelSelector: f(1, "meta/v1.LabelSelector", "Labels of the pods in the set.", { pointer: true }),
      namespaces: f(
        2,
        "[]string",
        "Namespaces searched for the pods, in addition to those namespaceSelector picks. With neither, the pod's own namespace is searched.",
      ),
      topologyKey: f(
        3,
        "string",
        "Node label that defines the domain: nodes with equal values of it are together. Must not be empty.",
        { ...required, omitEmpty: false },
      ),
      namespaceSelector: f(
        4,
        "meta/v1.LabelSelector",
        "Labels of further namespaces to search, in addition to the namespaces list. An empty selector matches every namespace; with neither, the pod's own namespace is searched.",
        { pointer: true },
      ),
    },
  ),
  WeightedPodAffinityTerm: t(
    "A pod affinity term with a weight; nodes add up the weights of terms they satisfy.",
    {
      weight: f(1, "int32", SCHED_WEIGHT, { ...required, omitEmpty: false }),
      podAffinityTerm: f(2, "PodAffinityTerm", "The term the weight applies to.", {
        ...required,
        omitEmpty: false,
      }),
    },
  ),
  NodeSelector: t(
    "Selects nodes that match at least one of several terms.",
    {
      nodeSelectorTerms: f(1, "[]NodeSelectorTerm", "The terms, any of which may match.", {
        ...required,
        omitEmpty: false,
      }),
    },
    STRUCT_ATOMIC,
  ),
  NodeSelectorTerm: t(
    "Requirements on a node that must all hold; a null or empty term matches no node.",
    {
      matchExpressions: f(1, "[]NodeSelectorRequirement", "Requirements on the node's labels."),
      matchFields: f(2, "[]NodeSelectorRequirement", "Requirements on the node's fields."),
    },
    STRUCT_ATOMIC,
  ),
  NodeSelectorRequirement: t("A test of one node label or field against a set of values.", {
    key: f(1, "string", "The label or field to test.", { ...required, omitEmpty: false }),
    operator: f(
      2,
      "string",
      'How the key relates to the values: "In", "NotIn", "Exists", "DoesNotExist", "Gt" or "Lt".',
      { ...required, enum: NODE_SELECTOR_OPERATORS, omitEmpty: false },
    ),
    values: f(
      3,
      "[]string",
      "Values to compare with: at least one for In and NotIn, none for Exists and DoesNotExist, exactly one integer for Gt and Lt. Replaced as a whole by strategic merge patches.",
    ),
  }),
  PreferredSchedulingTerm: t(
    "A weighted node selector term. An empty one matches every node with weight 0; a null one matches none. Either way it has no effect.",
    {
      weight: f(1, "int32", SCHED_WEIGHT, { ...required, omitEmpty: false }),
      preference: f(2, "NodeSelectorTerm", "The term the weight applies to.", {
        ...required,
        omitEmpty: false,
      }),
    },
  ),
  Toleration: t(
    "Lets the pod be scheduled onto, or stay on, nodes with a matching taint (key, value and effect, compared with the operator).",
    {
      key: f(
        1,
        "string",
        'Taint key to match; empty matches every key, and then the operator must be "Exists".',
      ),
      operator: f(
        2,
        "string",
        'How the key relates to the value: "Equal" (the default) or "Exists", which matches any value.',
      ),
      value: f(3, "string", 'Taint value to match; leave empty with "Exists".'),
      effect: f(
        4,
        "string",
        'Taint effect to match: "NoSchedule", "PreferNoSchedule" or "NoExecute"; empty matches all effects.',
      ),
      tolerationSeconds: f(
        5,
        "int64",
        'For effect "NoExecute" only: how many seconds the pod may stay on the node after the taint appears. Unset tolerates it forever; zero or less evicts at once.',
        { pointer: true },
      ),
    },
  ),
  TopologySpreadConstraint: t("How matching pods should be spread across a topology.", {
    maxSkew: f(
      1,
      "int32",
      'How unevenly matching pods may be spread: with "DoNotSchedule", the largest allowed difference between the count in a domain and the smallest count over eligible domains (taken as 0 when there are fewer than minDomains); with "ScheduleAnyway", domains that keep within it are preferred. Must be at least 1; defaults to 1.',
      { ...required, omitEmpty: false },
    ),
    topologyKey: f(
      2,
      "string",
      "Node label whose values define the domains: nodes with the same value form one domain (for example one zone), and eligible domains are those whose nodes pass nodeAffinityPolicy and nodeTaintsPolicy.",
      { ...required, omitEmpty: false },
    ),
    whenUnsatisfiable: f(
      3,
      "string",
      'What to do when no node keeps the skew within maxSkew: "DoNotSchedule" (the default) leaves the pod pending, "ScheduleAnyway" places it anyway, favouring nodes that lower the skew.',
      { ...required, enum: UNSATISFIABLE_ACTIONS, omitEmpty: false },
    ),
    labelSelector: f(4, "meta/v1.LabelSelector", "Selects the pods counted in each domain.", {
      pointer: true,
    }),
    minDomains: f(
      5,
      "int32",
      'Least number of eligible domains; with fewer, the minimum count is taken as 0, so no domain gets more than maxSkew pods. Must be above 0 and requires "DoNotSchedule"; unset acts as 1.',
      { pointer: true },
    ),
    nodeAffinityPolicy: f(
      6,
      "string",
      'Whether the pod\'s nodeAffinity and nodeSelector limit the nodes counted: "Honor" (the default; only matching nodes) or "Ignore" (all nodes).',
      { enum: NODE_INCLUSION_POLICIES, pointer: true },
    ),
    nodeTaintsPolicy: f(
      7,
      "string",
      'Whether node taints limit the nodes counted: "Honor" (only untainted nodes and those whose taints the pod tolerates) or "Ignore" (all nodes, the default).',
      { enum: NODE_INCLUSION_POLICIES, pointer: true },
    ),
    matchLabelKeys: f(
      8,
      "[]string",
      "Label keys whose values on the incoming pod are added to labelSelector to pick the pods counted. Keys missing on the pod are skipped; a key may not also appear in labelSelector, and labelSelector must be set.",
      atomic,
    ),
  }),
  PodSchedulingGate: t("A gate that holds the pod back from scheduling while present.", {
    name: f(1, "string", "Name of the gate, unique among the pod's gates.", {
      ...required,
      omitEmpty: false,
    }),
  }),

  // Pod networking and identity.
  HostAlias: t("One extra entry for the pod's hosts file.", {
    ip: f(1, "string", "IP address of the entry."),
    hostnames: f(2, "[]string", "Host names that resolve to the IP address."),
  }),
  PodDNSConfig: t("DNS settings for a pod, added to those dnsPolicy produces.", {
    nameservers: f(
      1,
      "[]string",
      "IP addresses of DNS servers, appended to those from dnsPolicy without duplicates.",
    ),
    searches: f(
      2,
      "[]string",
      "Search domains for short names, appended to those from dnsPolicy without duplicates.",
    ),
    options: f(
      3,
      "[]PodDNSConfigOption",
      "Resolver options, merged with those from dnsPolicy; an option given here replaces the same one from the policy.",
    ),
  }),
  PodDNSConfigOption: t("One resolver option of a pod.", {
    name: f(1, "string", "Name of the option; required."),
    value: f(2, "string", "Value of the option, if it takes one.", { pointer: true }),
  }),
  PodOS: t("The operating system a pod runs on.", {
    name: f(
      1,
      "string",
      'Name of the operating system: "linux" or "windows" today. Clients should treat unknown values as if the field were unset.',
      { ...required, omitEmpty: false },
    ),
  }),
  PodIP: t("One IP address of a pod.", {
    ip: f(1, "string", "An IPv4 or IPv6 address of the pod."),
  }),
  PodReadinessGate: t("A pod condition the pod's readiness also depends on.", {
    conditionType: f(1, "string", "Type of the pod condition that must be true.", {
      ...required,
      omitEmpty: false,
    }),
  }),
  PodCondition: t("One aspect of a pod's state and whether it holds.", {
    type: f(1, "string", 'Kind of condition, such as "Ready" or "PodScheduled".', { omitEmpty: false }),
    status: f(2, "string", 'Whether the condition holds: "True", "False" or "Unknown".', {
      omitEmpty: false,
    }),
    lastProbeTime: f(3, "time", "When the condition was last checked."),
    lastTransitionTime: f(4, "time", "When the status last changed."),
    reason: f(5, "string", "One-word CamelCase reason for the last change."),
    message: f(6, "string", "Human-readable detail on the last change."),
  }),
  LocalObjectReference: t(
    "Names an object in the same namespace.",
    {
      name: f(1, "string", "Name of the object."),
    },
    STRUCT_ATOMIC,
  ),
});
