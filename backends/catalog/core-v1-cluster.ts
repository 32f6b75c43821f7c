// core/v1, cluster part: namespaces, services and endpoints, nodes and taints, configuration and
// credentials (ConfigMap, Secret, ServiceAccount), events, limits and quotas, replication
// controllers, component statuses and object references. Other core/v1 types live in the
// sibling core-v1-*.ts files.
import { atomic, f, mapList, mergeBy, pkg, required, t } from "./model.ts";

// Allowed values of upstream's enumerated string types, as its OpenAPI lists them (sorted).
const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const SESSION_AFFINITIES = ["ClientIP", "None"];
const TRAFFIC_POLICIES = ["Cluster", "Local"];
const IP_FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"];
const IP_FAMILIES = ["IPv4", "IPv6"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const TAINT_EFFECTS = ["NoExecute", "NoSchedule", "PreferNoSchedule"];
const NODE_PHASES = ["Pending", "Running", "Terminated"];
const NAMESPACE_PHASES = ["Active", "Terminating"];
const QUOTA_SCOPES = [
  "BestEffort",
  "CrossNamespacePodAffinity",
  "NotBestEffort",
  "NotTerminating",
  "PriorityClass",
  "Terminating",
];
const SCOPE_OPERATORS = ["DoesNotExist", "Exists", "In", "NotIn"];
const STRUCT_ATOMIC = { structType: "atomic" } as const;

// Wording shared by several fields.
const OBJECT_META = "The object's metadata: name, namespace, labels, annotations and so on.";
const CONDITION_STATUS = 'Whether the condition holds: "True", "False" or "Unknown".';
const CONDITION_SINCE = "When the status last changed.";
const CONDITION_REASON = "One-word CamelCase reason for the last change.";
const CONDITION_MESSAGE = "Human-readable detail on the last change.";
const QUANTITIES = "Amounts keyed by resource name, such as cpu or memory.";
const PORT_PROTOCOL = 'Transport protocol: "TCP", "UDP" or "SCTP". Defaults to "TCP".';
const APP_PROTOCOL =
  "Application protocol carried on the port, as a label-style name: plain names are IANA service names, other protocols use a domain-prefixed name.";
const CONFIG_SOURCE = "Reference to a ConfigMap holding kubelet configuration.";

export const CORE_V1_CLUSTER = pkg("core/v1", "k8s.io.api.core.v1", {
  // Namespaces.
  Namespace: t("A named scope that groups objects; names must be unique only within a namespace.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    spec: f(2, "NamespaceSpec", "What the namespace should be, currently just its finalizers."),
    status: f(3, "NamespaceStatus", "The namespace's observed lifecycle state."),
  }),
  NamespaceSpec: t("The settable attributes of a namespace.", {
    finalizers: f(
      1,
      "[]string",
      "Opaque tokens that all have to be removed before the namespace is deleted for good.",
    ),
  }),
  NamespaceStatus: t("The observed state of a namespace.", {
    phase: f(
      1,
      "string",
      'Lifecycle phase: "Active" while in use, "Terminating" once deletion has started.',
      { enum: NAMESPACE_PHASES },
    ),
    conditions: f(
      2,
      "[]NamespaceCondition",
      "Latest observations about the namespace, one per condition type.",
      mergeBy("type"),
    ),
  }),
  NamespaceCondition: t("One aspect of a namespace's state and whether it holds.", {
    type: f(1, "string", "Kind of condition reported by the namespace controller.", { omitEmpty: false }),
    status: f(2, "string", CONDITION_STATUS, { omitEmpty: false }),
    lastTransitionTime: f(4, "time", CONDITION_SINCE),
    reason: f(5, "string", CONDITION_REASON),
    message: f(6, "string", CONDITION_MESSAGE),
  }),

  // Services.
  Service: t(
    "A stable name and address for a set of pods (or an external endpoint), with the ports clients use to reach them.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
      spec: f(2, "ServiceSpec", "How the service is exposed and which pods back it."),
      status: f(3, "ServiceStatus", "What the system observed about the service; read-only."),
    },
  ),
  ServiceSpec: t("The user-set attributes of a service.", {
    ports: f(1, "[]ServicePort", "Ports the service exposes, keyed by port number and protocol.", {
      ...mergeBy("port"),
      ...mapList("port", "protocol"),
    }),
    selector: f(
      2,
      "{}string",
      "Labels a pod needs to back the service. When empty, something outside the system manages the endpoints. Not used by ExternalName services.",
      { mapType: "atomic" },
    ),
    clusterIP: f(
      3,
      "string",
      'Virtual IP of the service, normally picked at random; may be requested if free and in range. "None" makes a headless service without a virtual IP. Cannot be changed except when switching to or from ExternalName, and must be empty for ExternalName.',
    ),
    clusterIPs: f(
      18,
      "[]string",
      'All virtual IPs of the service, at most one per IP family; the first must equal clusterIP, and it is filled from clusterIP when left out. Same rules as clusterIP: "None", empty, or a free in-range address.',
      atomic,
    ),
    type: f(
      4,
      "string",
      'How the service is reached: "ClusterIP" (an internal virtual IP, the default), "NodePort" (also a port on every node), "LoadBalancer" (also an external load balancer where supported) or "ExternalName" (a DNS alias to externalName).',
      { enum: SERVICE_TYPES },
    ),
    externalIPs: f(
      5,
      "[]string",
      "Extra addresses, not managed by the system, on which nodes also accept the service's traffic; routing that traffic to a node is up to the user.",
    ),
    sessionAffinity: f(
      7,
      "string",
      'Whether requests from one client stick to the same backend: "ClientIP" or "None". Defaults to "None".',
      { enum: SESSION_AFFINITIES },
    ),
    loadBalancerIP: f(
      8,
      "string",
      "Address to ask the cloud provider for when creating the load balancer, if it supports that. Deprecated: loosely defined and single-stack only; prefer provider annotations.",
    ),
    loadBalancerSourceRanges: f(
      9,
      "[]string",
      "Client address ranges (CIDRs) allowed through the cloud load balancer, where the provider supports it.",
    ),
    externalName: f(
      10,
      "string",
      'Host name returned by DNS as an alias (a CNAME) for the service; a lowercase RFC 1123 name, and only for type "ExternalName". Nothing is proxied.',
    ),
    externalTrafficPolicy: f(
      11,
      "string",
      'How nodes route traffic arriving on node ports, external IPs and load balancer IPs: "Cluster" (the default) spreads it over all endpoints; "Local" keeps it on the receiving node\'s own endpoints and preserves the client address.',
      { enum: TRAFFIC_POLICIES },
    ),
    healthCheckNodePort: f(
      12,
      "int32",
      'Node port serving a health check that tells load balancers which nodes have local endpoints; used only with type "LoadBalancer" and externalTrafficPolicy "Local". Allocated when not given; cannot be changed once set.',
    ),
    publishNotReadyAddresses: f(
      13,
      "bool",
      "Treat every endpoint as ready when publishing the service's endpoints, e.g. so that a headless service announces DNS records for pods that are still starting.",
    ),
    sessionAffinityConfig: f(14, "SessionAffinityConfig", "Settings for session affinity.", {
      pointer: true,
    }),
    ipFamilies: f(
      19,
      "[]string",
      'IP families of the service, "IPv4" and/or "IPv6", in the same order as clusterIPs; at most two. Usually filled in from the cluster setup and ipFamilyPolicy. A secondary family may be added or removed, the primary one cannot change.',
      { ...atomic, enum: IP_FAMILIES },
    ),
    ipFamilyPolicy: f(
      17,
      "string",
      'How many IP families the service wants: "SingleStack" (the default), "PreferDualStack" (two where the cluster offers them) or "RequireDualStack" (two, or fail).',
      { enum: IP_FAMILY_POLICIES, pointer: true },
    ),
    allocateLoadBalancerNodePorts: f(
      20,
      "bool",
      'Whether node ports are allocated automatically for a "LoadBalancer" service; defaults to true. Ports requested explicitly are honoured either way.',
      { pointer: true },
    ),
    loadBalancerClass: f(
      21,
      "string",
      'Which load balancer implementation handles a "LoadBalancer" service, as a label-style name; when unset the default implementation does. Cannot be changed once set.',
      { pointer: true },
    ),
    internalTrafficPolicy: f(
      22,
      "string",
      'How nodes route traffic sent to the cluster IP: "Cluster" (the default) uses all endpoints; "Local" only endpoints on the client\'s node, dropping traffic when there are none.',
      { enum: TRAFFIC_POLICIES, pointer: true },
    ),
  }),
  ServiceStatus: t("The observed state of a service.", {
    loadBalancer: f(1, "LoadBalancerStatus", "The external load balancer's state, when there is one."),
    conditions: f(
      2,
      "[]meta/v1.Condition",
      "Latest observations about the service, one per condition type.",
      { ...mergeBy("type"), ...mapList("type") },
    ),
  }),
  ServicePort: t("One port a service exposes and where its traffic goes.", {
    name: f(
      1,
      "string",
      "Name of the port, a DNS label unique within the service and matched against endpoint port names. May be left out when the service has one port.",
    ),
    protocol: f(2, "string", PORT_PROTOCOL, { enum: PROTOCOLS, default: "TCP" }),
    appProtocol: f(6, "string", APP_PROTOCOL, { pointer: true }),
    port: f(3, "int32", "Port number the service listens on.", { ...required, omitEmpty: false }),
    targetPort: f(
      4,
      "intOrString",
      "Port on the backing pods, as a number (1 to 65535) or the name of a container port; defaults to the value of port. Ignored for headless services.",
    ),
    nodePort: f(
      5,
      "int32",
      'Port opened on every node for "NodePort" and "LoadBalancer" services; allocated when not given, and must be free and in range when given.',
    ),
  }),
  SessionAffinityConfig: t("Settings for keeping a client's requests on one backend.", {
    clientIP: f(1, "ClientIPConfig", "Settings for affinity by client IP address.", { pointer: true }),
  }),
  ClientIPConfig: t("Settings for session affinity by client IP address.", {
    timeoutSeconds: f(
      1,
      "int32",
      "How long, in seconds, a client stays bound to its backend; more than 0 and at most 86400. Defaults to 10800 (three hours).",
      { pointer: true },
    ),
  }),
  LoadBalancerStatus: t("The state of an external load balancer.", {
    ingress: f(
      1,
      "[]LoadBalancerIngress",
      "Addresses through which the load balancer takes traffic for the service.",
    ),
  }),
  LoadBalancerIngress: t("One address on which a load balancer takes the service's traffic.", {
    ip: f(1, "string", "IP address, for load balancers reached by address."),
    hostname: f(2, "string", "DNS name, for load balancers reached by name."),
    ports: f(
      4,
      "[]PortStatus",
      "Per-port state; when present, every port of the service has an entry.",
      atomic,
    ),
  }),
  PortStatus: t("The state of one service port on a load balancer.", {
    port: f(1, "int32", "The service port this entry describes.", { omitEmpty: false }),
    protocol: f(2, "string", 'Protocol of that service port: "TCP", "UDP" or "SCTP".', {
      enum: PROTOCOLS,
      omitEmpty: false,
    }),
    error: f(
      3,
      "string",
      "What went wrong with the port, as a CamelCase word; provider-specific errors carry a domain prefix.",
      { pointer: true },
    ),
  }),

  // Endpoints.
  Endpoints: t(
    "The network endpoints behind a service, grouped into subsets of addresses that share the same ports.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
      subsets: f(
        2,
        "[]EndpointSubset",
        "Groups of addresses with their ports; the service's endpoints are their union. An address whose ports differ in readiness shows up in several subsets, but never as both ready and not ready in one subset.",
      ),
    },
  ),
  EndpointSubset: t("Addresses that all serve the same ports; every address pairs with every port.", {
    addresses: f(1, "[]EndpointAddress", "Addresses ready to take traffic."),
    notReadyAddresses: f(
      2,
      "[]EndpointAddress",
      "Addresses that serve the ports but are not ready yet, for example still starting or failing a probe.",
    ),
    ports: f(3, "[]EndpointPort", "Ports served on the subset's addresses."),
  }),
  EndpointAddress: t(
    "One endpoint address.",
    {
      ip: f(
        1,
        "string",
        "IP address of the endpoint; loopback, link-local and link-local multicast addresses are not allowed.",
        { ...required, omitEmpty: false },
      ),
      hostname: f(3, "string", "Host name of the endpoint."),
      nodeName: f(4, "string", "Node the endpoint runs on, to tell node-local endpoints apart.", {
        pointer: true,
      }),
      targetRef: f(2, "ObjectReference", "The object behind the endpoint, typically a pod.", {
        pointer: true,
      }),
    },
    STRUCT_ATOMIC,
  ),
  EndpointPort: t(
    "One port served by endpoints.",
    {
      name: f(
        1,
        "string",
        "Name of the port, a DNS label equal to the matching service port's name; may be left out when there is one port.",
      ),
      port: f(2, "int32", "Port number.", { ...required, omitEmpty: false }),
      protocol: f(3, "string", PORT_PROTOCOL, { enum: PROTOCOLS }),
      appProtocol: f(
        4,
        "string",
        `${APP_PROTOCOL} Implementations may use it to handle the traffic better.`,
        { pointer: true },
      ),
    },
    STRUCT_ATOMIC,
  ),

  // Nodes.
  Node: t("A machine that runs pods, with its capacity and health as reported by its kubelet.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    spec: f(2, "NodeSpec", "Settings of the node, such as taints and whether it takes new pods."),
    status: f(3, "NodeStatus", "What the node last reported about itself; read-only."),
  }),
  NodeSpec: t("The settable attributes of a node.", {
    podCIDR: f(1, "string", "Address range given to the node for its pods."),
    podCIDRs: f(
      7,
      "[]string",
      "Address ranges given to the node for its pods, at most one per IP family; the first must equal podCIDR.",
      { patchStrategy: "merge" },
    ),
    providerID: f(
      3,
      "string",
      "The node's ID at its cloud provider, as <provider>://<provider-specific id>.",
    ),
    unschedulable: f(
      4,
      "bool",
      "When true, no new pods are scheduled onto the node; pods already there stay. Defaults to false.",
    ),
    taints: f(5, "[]Taint", "Taints on the node; pods that do not tolerate them are kept off or evicted."),
    configSource: f(
      6,
      "NodeConfigSource",
      "Deprecated and no longer used: formerly where the kubelet loaded dynamic configuration from.",
      { pointer: true },
    ),
    externalID: f(2, "string", "Deprecated and not always set; kept for old clients."),
  }),
  NodeStatus: t("What a node reports about itself.", {
    capacity: f(1, "{}quantity", `Total resources of the node. ${QUANTITIES}`),
    allocatable: f(
      2,
      "{}quantity",
      `Resources of the node available to pods; defaults to capacity. ${QUANTITIES}`,
    ),
    phase: f(
      3,
      "string",
      'Deprecated lifecycle phase ("Pending", "Running" or "Terminated"); never set nowadays.',
      { enum: NODE_PHASES },
    ),
    conditions: f(
      4,
      "[]NodeCondition",
      'Current health observations such as "Ready" or "MemoryPressure", one per type.',
      mergeBy("type"),
    ),
    addresses: f(
      5,
      "[]NodeAddress",
      "Addresses at which the node is reachable, possibly from the cloud provider. The merge key is not unique enough, so replace the list as a whole when patching; addresses may change over the node's life.",
      mergeBy("type"),
    ),
    daemonEndpoints: f(6, "NodeDaemonEndpoints", "Ports on which the node's own daemons listen."),
    nodeInfo: f(7, "NodeSystemInfo", "Identifiers and software versions of the node."),
    images: f(8, "[]ContainerImage", "Container images present on the node."),
    volumesInUse: f(9, "[]string", "Attachable volumes the node currently has mounted."),
    volumesAttached: f(10, "[]AttachedVolume", "Volumes currently attached to the node."),
    config: f(
      11,
      "NodeConfigStatus",
      "State of the dynamically assigned kubelet configuration (a removed feature).",
      { pointer: true },
    ),
  }),
  NodeAddress: t("One address of a node.", {
    type: f(1, "string", 'Kind of address: "Hostname", "ExternalIP", "InternalIP" and the like.', {
      omitEmpty: false,
    }),
    address: f(2, "string", "The address itself.", { omitEmpty: false }),
  }),
  NodeCondition: t("One aspect of a node's health and whether it holds.", {
    type: f(1, "string", 'Kind of condition, such as "Ready" or "DiskPressure".', { omitEmpty: false }),
    status: f(2, "string", CONDITION_STATUS, { omitEmpty: false }),
    lastHeartbeatTime: f(3, "time", "When the node last reported this condition."),
    lastTransitionTime: f(4, "time", CONDITION_SINCE),
    reason: f(5, "string", CONDITION_REASON),
    message: f(6, "string", CONDITION_MESSAGE),
  }),
  NodeConfigSource: t(
    "Where a node's kubelet configuration comes from; exactly one source is set. Deprecated.",
    {
      configMap: f(2, "ConfigMapNodeConfigSource", CONFIG_SOURCE, { pointer: true }),
    },
  ),
  ConfigMapNodeConfigSource: t(
    "A ConfigMap used as the source of a node's kubelet configuration. Deprecated.",
    {
      namespace: f(1, "string", "Namespace of the ConfigMap; always needed.", {
        ...required,
        omitEmpty: false,
      }),
      name: f(2, "string", "Name of the ConfigMap; always needed.", { ...required, omitEmpty: false }),
      uid: f(3, "string", "UID of the ConfigMap; not allowed in the node's spec, needed in its status."),
      resourceVersion: f(
        4,
        "string",
        "Resource version of the ConfigMap; not allowed in the node's spec, needed in its status.",
      ),
      kubeletConfigKey: f(
        5,
        "string",
        "Key of the ConfigMap that holds the kubelet configuration; always needed.",
        { ...required, omitEmpty: false },
      ),
    },
  ),
  NodeConfigStatus: t("How far a node got in applying its assigned kubelet configuration.", {
    assigned: f(
      1,
      "NodeConfigSource",
      "The configuration the node has saved locally and will try to use, reported once it is saved; on restart the kubelet tries to make it the active one.",
      { pointer: true },
    ),
    active: f(
      2,
      "NodeConfigSource",
      "The configuration the node is running with: the assigned one, or the last known good one when the assigned one failed.",
      { pointer: true },
    ),
    lastKnownGood: f(
      3,
      "NodeConfigSource",
      "The configuration to fall back to when the assigned one fails; an assigned configuration becomes this after running without trouble for a while.",
      { pointer: true },
    ),
    error: f(
      4,
      "string",
      "Readable description of a problem applying the assigned configuration; empty when there is none. Only its emptiness is stable, not its wording.",
    ),
  }),
  NodeDaemonEndpoints: t("Ports on which a node's daemons listen.", {
    kubeletEndpoint: f(1, "DaemonEndpoint", "Where the kubelet listens."),
  }),
  DaemonEndpoint: t("One daemon endpoint on a node.", {
    Port: f(1, "int32", "Port number.", { omitEmpty: false }),
  }),
  NodeSystemInfo: t("Identifiers and software versions a node reports.", {
    machineID: f(1, "string", "Machine ID of the node; the preferred way to tell machines apart.", {
      omitEmpty: false,
    }),
    systemUUID: f(2, "string", "System UUID of the node, as reported by its firmware.", { omitEmpty: false }),
    bootID: f(3, "string", "ID of the node's current boot.", { omitEmpty: false }),
    kernelVersion: f(4, "string", "Kernel release, as `uname -r` prints it.", { omitEmpty: false }),
    osImage: f(5, "string", "Operating system name and version, from /etc/os-release.", { omitEmpty: false }),
    containerRuntimeVersion: f(
      6,
      "string",
      "Container runtime and its version, such as containerd://1.7.0.",
      { omitEmpty: false },
    ),
    kubeletVersion: f(7, "string", "Version of the kubelet.", { omitEmpty: false }),
    kubeProxyVersion: f(8, "string", "Version of the service proxy.", { omitEmpty: false }),
    operatingSystem: f(9, "string", "Operating system, such as linux or windows.", { omitEmpty: false }),
    architecture: f(10, "string", "CPU architecture, such as amd64 or arm64.", { omitEmpty: false }),
  }),
  ContainerImage: t("A container image stored on a node.", {
    names: f(1, "[]string", "References under which the image is known, such as registry/name:tag.", {
      omitEmpty: false,
    }),
    sizeBytes: f(2, "int64", "Size of the image, in bytes."),
  }),
  AttachedVolume: t("A volume attached to a node.", {
    name: f(1, "string", "Unique name of the volume.", { omitEmpty: false }),
    devicePath: f(2, "string", "Device path at which the volume appears on the node.", { omitEmpty: false }),
  }),
  Taint: t("A mark on a node that repels pods which do not tolerate it.", {
    key: f(1, "string", "Key of the taint.", { ...required, omitEmpty: false }),
    value: f(2, "string", "Value of the taint."),
    effect: f(
      3,
      "string",
      'What happens to pods that do not tolerate the taint: "NoSchedule", "PreferNoSchedule" or "NoExecute".',
      { ...required, enum: TAINT_EFFECTS, omitEmpty: false },
    ),
    timeAdded: f(4, "time", 'When the taint was added; recorded for "NoExecute" taints only.', {
      pointer: true,
    }),
  }),

  // Configuration and credentials.
  ConfigMap: t("Non-secret configuration data, as named strings or binary values, for pods to use.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    immutable: f(
      4,
      "bool",
      "When true, the data can no longer be changed, only the metadata. When unset or false, it may change at any time.",
      { pointer: true },
    ),
    data: f(
      2,
      "{}string",
      "Text values by key; keys use letters, digits, '-', '_' and '.'. Values that are not valid UTF-8 go in binaryData, and a key may not appear in both maps.",
    ),
    binaryData: f(
      3,
      "{}bytes",
      "Binary values by key, base64-encoded in JSON; same key rules as data, and a key may not appear in both maps.",
    ),
  }),
  Secret: t(
    "Sensitive data, such as passwords, tokens or keys, kept apart from pods; the values together may not exceed 1 MiB.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
      immutable: f(
        5,
        "bool",
        "When true, the data can no longer be changed, only the metadata. When unset or false, it may change at any time.",
        { pointer: true },
      ),
      data: f(
        2,
        "{}bytes",
        "Secret values by key, base64-encoded in JSON; keys use letters, digits, '-', '_' and '.'.",
      ),
      stringData: f(
        4,
        "{}string",
        "Write-only convenience for plain-text values: on write they are merged into data, replacing values under the same keys. Never returned on read.",
      ),
      type: f(3, "string", "Kind of secret, which tells programs what keys to expect; free-form."),
    },
  ),
  ServiceAccount: t("An identity for processes running in pods, with the secrets they may use.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    secrets: f(
      2,
      "[]ObjectReference",
      "Secrets in the same namespace that pods running as this account may use; enforced only when the account is annotated to demand it. Do not use it to find token secrets for use outside pods; request tokens instead.",
      mergeBy("name"),
    ),
    imagePullSecrets: f(
      3,
      "[]LocalObjectReference",
      "Secrets in the same namespace the kubelet uses to pull images for pods running as this account; unlike secrets, these are not mounted into pods.",
    ),
    automountServiceAccountToken: f(
      4,
      "bool",
      "Whether pods running as this account get an API token mounted automatically; a pod may override it.",
      { pointer: true },
    ),
  }),

  // Events.
  Event: t(
    "A report that something happened to an object. Events expire after a while and are best-effort information; do not build logic on their reasons or timing.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META, { ...required, omitEmpty: false }),
      involvedObject: f(2, "ObjectReference", "The object the event is about.", {
        ...required,
        omitEmpty: false,
      }),
      reason: f(3, "string", "Short, machine-readable cause of the object's latest change."),
      message: f(4, "string", "Readable account of what happened."),
      source: f(5, "EventSource", "The component that reported the event."),
      firstTimestamp: f(6, "time", "When the event was first recorded."),
      lastTimestamp: f(7, "time", "When the event was most recently recorded."),
      count: f(8, "int32", "How many times the event has happened."),
      type: f(9, "string", 'Kind of event, "Normal" or "Warning"; more may be added.'),
      eventTime: f(10, "microTime", "When the event was first seen."),
      series: f(
        11,
        "EventSeries",
        "Counts and timing when the event keeps recurring; absent for a one-off event.",
        { pointer: true },
      ),
      action: f(12, "string", "The action that was taken, or failed, on the involved object."),
      related: f(13, "ObjectReference", "A second object involved in more complex actions.", {
        pointer: true,
      }),
      reportingComponent: f(
        14,
        "string",
        'Name of the controller that emitted the event, such as "example.com/my-controller".',
        { omitEmpty: false },
      ),
      reportingInstance: f(15, "string", "Which instance of that controller emitted the event.", {
        omitEmpty: false,
      }),
    },
  ),
  EventSeries: t("Data about an event that keeps happening.", {
    count: f(1, "int32", "How many times the event has happened so far in the series."),
    lastObservedTime: f(2, "microTime", "When the event was last seen."),
  }),
  EventSource: t("The component that reported an event.", {
    component: f(1, "string", "Name of the reporting component."),
    host: f(2, "string", "Node on which the event was generated."),
  }),

  // Limits and quotas.
  LimitRange: t("Per-object resource bounds and defaults applied within a namespace, by kind of object.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    spec: f(2, "LimitRangeSpec", "The bounds and defaults to enforce."),
  }),
  LimitRangeSpec: t("The bounds and defaults of a limit range.", {
    limits: f(1, "[]LimitRangeItem", "One entry per kind of object limited.", {
      ...required,
      omitEmpty: false,
    }),
  }),
  LimitRangeItem: t("Resource bounds and defaults for one kind of object.", {
    type: f(
      1,
      "string",
      'Kind of object the entry applies to, such as "Pod", "Container" or "PersistentVolumeClaim".',
      { ...required, omitEmpty: false },
    ),
    max: f(2, "{}quantity", `Largest amount an object may use. ${QUANTITIES}`),
    min: f(3, "{}quantity", `Smallest amount an object may use. ${QUANTITIES}`),
    default: f(4, "{}quantity", `Limits filled in when an object sets none. ${QUANTITIES}`),
    defaultRequest: f(5, "{}quantity", `Requests filled in when an object sets none. ${QUANTITIES}`),
    maxLimitRequestRatio: f(
      6,
      "{}quantity",
      "Largest allowed ratio of limit to request per resource (both must be set and non-zero), bounding how far usage may burst.",
    ),
  }),
  ResourceQuota: t("Caps on the total resources and object counts used in a namespace.", {
    metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
    spec: f(2, "ResourceQuotaSpec", "The caps to enforce."),
    status: f(3, "ResourceQuotaStatus", "The caps in force and how much of them is used."),
  }),
  ResourceQuotaSpec: t("The caps a quota enforces and which objects it counts.", {
    hard: f(1, "{}quantity", "Upper bound for each named resource, such as cpu, pods or requests.storage."),
    scopes: f(2, "[]string", "Filters every counted object has to match; with none, all objects count.", {
      enum: QUOTA_SCOPES,
    }),
    scopeSelector: f(
      3,
      "ScopeSelector",
      "Further scope filters written as expressions; an object counts only when it matches both these and scopes.",
      { pointer: true },
    ),
  }),
  ResourceQuotaStatus: t("The caps in force and the current usage.", {
    hard: f(1, "{}quantity", "Upper bound in force for each named resource."),
    used: f(2, "{}quantity", "Amount of each named resource currently used in the namespace."),
  }),
  ScopeSelector: t(
    "Quota scope expressions that must all match.",
    {
      matchExpressions: f(
        1,
        "[]ScopedResourceSelectorRequirement",
        "The expressions, all of which must hold.",
      ),
    },
    STRUCT_ATOMIC,
  ),
  ScopedResourceSelectorRequirement: t("One expression about a quota scope.", {
    scopeName: f(1, "string", "The scope tested.", { ...required, enum: QUOTA_SCOPES, omitEmpty: false }),
    operator: f(
      2,
      "string",
      'How the scope relates to the values: "In", "NotIn", "Exists" or "DoesNotExist".',
      { ...required, enum: SCOPE_OPERATORS, omitEmpty: false },
    ),
    values: f(
      3,
      "[]string",
      'Values to compare with: required for "In" and "NotIn", empty for "Exists" and "DoesNotExist". Replaced as a whole by strategic merge patches.',
    ),
  }),

  // Replication controllers.
  ReplicationController: t(
    "Keeps a given number of copies of a pod running (the predecessor of ReplicaSet).",
    {
      metadata: f(
        1,
        "meta/v1.ObjectMeta",
        `${OBJECT_META} When labels are empty they default to those of the managed pods.`,
      ),
      spec: f(2, "ReplicationControllerSpec", "How many pods to run and what they look like."),
      status: f(
        3,
        "ReplicationControllerStatus",
        "The controller's most recently observed state; may lag behind and is read-only.",
      ),
    },
  ),
  ReplicationControllerSpec: t("The desired state of a replication controller.", {
    replicas: f(1, "int32", "Number of pods wanted; defaults to 1.", { pointer: true }),
    minReadySeconds: f(
      4,
      "int32",
      "Seconds a new pod must stay ready, with no container crashing, before it counts as available. Defaults to 0.",
    ),
    selector: f(
      2,
      "{}string",
      "Labels a pod needs to count towards replicas; defaults to the labels of the pod template.",
      { mapType: "atomic" },
    ),
    template: f(
      3,
      "PodTemplateSpec",
      'The pod created when there are too few; its restartPolicy must be "Always".',
      { pointer: true },
    ),
  }),
  ReplicationControllerStatus: t("The observed state of a replication controller.", {
    replicas: f(1, "int32", "Number of pods last seen.", { omitEmpty: false }),
    fullyLabeledReplicas: f(2, "int32", "Number of pods carrying all labels of the pod template."),
    readyReplicas: f(4, "int32", "Number of pods that are ready."),
    availableReplicas: f(5, "int32", "Number of pods that have been ready for at least minReadySeconds."),
    observedGeneration: f(3, "int64", "The metadata.generation this status reflects."),
    conditions: f(
      6,
      "[]ReplicationControllerCondition",
      "Latest observations about the controller, one per condition type.",
      mergeBy("type"),
    ),
  }),
  ReplicationControllerCondition: t("One aspect of a replication controller's state and whether it holds.", {
    type: f(1, "string", "Kind of condition.", { omitEmpty: false }),
    status: f(2, "string", CONDITION_STATUS, { omitEmpty: false }),
    lastTransitionTime: f(3, "time", CONDITION_SINCE),
    reason: f(4, "string", CONDITION_REASON),
    message: f(5, "string", CONDITION_MESSAGE),
  }),

  // References and selectors.
  ObjectReference: t(
    "Points at another object, or a part of it. Many of its fields are ignored in most uses; new APIs should define a narrower reference type instead.",
    {
      kind: f(1, "string", "Kind of the object."),
      namespace: f(2, "string", "Namespace of the object."),
      name: f(3, "string", "Name of the object."),
      uid: f(4, "string", "UID of the object."),
      apiVersion: f(5, "string", "API version of the object."),
      resourceVersion: f(
        6,
        "string",
        "A particular resource version of the object, if the reference needs one.",
      ),
      fieldPath: f(
        7,
        "string",
        'Path to a part of the object when the reference is to that part, e.g. "spec.containers{web}" for a container by name or "spec.containers[2]" by index. The format may still change.',
      ),
    },
    STRUCT_ATOMIC,
  ),
  TopologySelectorTerm: t(
    "Label expressions about topology that must all hold; an empty or null term matches nothing. Alpha.",
    {
      matchLabelExpressions: f(
        1,
        "[]TopologySelectorLabelRequirement",
        "The expressions, all of which must hold.",
      ),
    },
    STRUCT_ATOMIC,
  ),
  TopologySelectorLabelRequirement: t("Matches when a topology label has one of the given values. Alpha.", {
    key: f(1, "string", "The label tested.", { ...required, omitEmpty: false }),
    values: f(2, "[]string", "Accepted values; any one of them matches.", { ...required, omitEmpty: false }),
  }),

  // Component statuses.
  ComponentStatus: t(
    "Health of a control-plane component, as checked by the server. Deprecated since 1.19.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", OBJECT_META),
      conditions: f(2, "[]ComponentCondition", "Health observations of the component.", mergeBy("type")),
    },
  ),
  ComponentCondition: t("One health observation of a component.", {
    type: f(1, "string", 'Kind of condition; only "Healthy" is used.', { ...required, omitEmpty: false }),
    status: f(2, "string", CONDITION_STATUS, { ...required, omitEmpty: false }),
    message: f(3, "string", "Details of the check, such as a health check's output."),
    error: f(4, "string", "Error from the check, such as a health check's error code."),
  }),
});
