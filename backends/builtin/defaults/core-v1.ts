// core/v1 defaults as upstream 1.27 applies them: pods and their templates, containers, probes,
// volumes, persistent volumes and claims, services, endpoints, namespaces, nodes, secrets,
// replication controllers, limit ranges and resource quotas. Resource amounts below a thousandth
// are rounded up to one, wherever a resource list appears.
import type { Naming } from "../../naming/naming.ts";
import { formatQuantity, type Quantity, quantityFromJson } from "../../schema/structural/quantity.ts";
import { defaultPullPolicy } from "./image.ts";
import {
  defaultNumber,
  defaultPointer,
  defaultString,
  forEachObject,
  isEmptyString,
  isNil,
  isObject,
  isZero,
  type JsonMap,
  mapSize,
  objectAt,
  structAt,
} from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

const TCP = "TCP";
/** Permission bits of files in secret, config map, downward API and projected volumes: 0644. */
const VOLUME_FILE_MODE = 0o644;
const TERMINATION_GRACE_SECONDS = 30;
const CLIENT_IP_AFFINITY_SECONDS = 10800;
const TOKEN_EXPIRATION_SECONDS = 3600;

/** The volume sources of 1.27: a volume with none of them set becomes an emptyDir volume. */
const VOLUME_SOURCES: ReadonlySet<string> = new Set([
  "hostPath",
  "emptyDir",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "persistentVolumeClaim",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "downwardAPI",
  "fc",
  "azureFile",
  "configMap",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "projected",
  "portworxVolume",
  "scaleIO",
  "storageos",
  "csi",
  "ephemeral",
]);

// --- resource lists -----------------------------------------------------------------------

/** Integral amounts with at most a milli suffix never need rounding (the common case). */
const NO_ROUNDING = /^[0-9]+(?:m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;
const MILLI_SCALE = 3;

/** The amount rounded up (away from zero) to a whole thousandth, or undefined when it is one. */
function roundedToMilli(value: string | number): string | undefined {
  let q: Quantity;
  try {
    q = quantityFromJson(value);
  } catch {
    return undefined; // not a quantity: validation says so
  }
  if (q.scale <= MILLI_SCALE) return undefined;
  const divisor = 10n ** BigInt(q.scale - MILLI_SCALE);
  let unscaled = q.unscaled / divisor;
  if (unscaled * divisor !== q.unscaled) unscaled += q.unscaled < 0n ? -1n : 1n;
  return formatQuantity({ unscaled, scale: MILLI_SCALE, format: q.format });
}

/** Upstream rounds every amount of a resource list up to milli precision. */
export function roundResourceList(list: unknown): void {
  if (!isObject(list)) return;
  for (const name in list) {
    const value = list[name];
    if (typeof value === "string") {
      if (NO_ROUNDING.test(value)) continue;
    } else if (typeof value !== "number" || Number.isInteger(value)) {
      continue;
    }
    const rounded = roundedToMilli(value);
    if (rounded !== undefined) list[name] = rounded;
  }
}

function roundResourceFields(...keys: string[]): TypeDefaulter {
  return (object) => {
    for (const key of keys) roundResourceList(object[key]);
  };
}

// --- pods -----------------------------------------------------------------------------------

/** A container's requests default to its limits, resource by resource (pods only, not templates). */
function requestsFromLimits(container: JsonMap): void {
  const resources = objectAt(container.resources);
  const limits = objectAt(resources?.limits);
  if (resources === undefined || limits === undefined) return;
  let requests = resources.requests;
  if (!isNil(requests) && !isObject(requests)) return;
  for (const name in limits) {
    if (isObject(requests) && Object.hasOwn(requests, name)) continue;
    if (!isObject(requests)) {
      requests = {};
      resources.requests = requests;
    }
    (requests as JsonMap)[name] = limits[name];
  }
}

const pod: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec === undefined) return;
  forEachObject(spec.containers, requestsFromLimits);
  forEachObject(spec.initContainers, requestsFromLimits);
  defaultPointer(spec, "enableServiceLinks", true);
};

/** With host networking, a port's host port defaults to its container port. */
function hostPortsFromContainerPorts(container: JsonMap): void {
  forEachObject(container.ports, (port) => {
    const containerPort = port.containerPort;
    if (isZero(port.hostPort) && typeof containerPort === "number" && containerPort !== 0) {
      port.hostPort = containerPort;
    }
  });
}

const podSpec: TypeDefaulter = (spec) => {
  defaultString(spec, "dnsPolicy", "ClusterFirst");
  defaultString(spec, "restartPolicy", "Always");
  // 1.27 does this for every pod spec, templates included (later releases only for pods).
  if (spec.hostNetwork === true) {
    forEachObject(spec.containers, hostPortsFromContainerPorts);
    forEachObject(spec.initContainers, hostPortsFromContainerPorts);
  }
  if (isNil(spec.securityContext)) spec.securityContext = {};
  defaultPointer(spec, "terminationGracePeriodSeconds", TERMINATION_GRACE_SECONDS);
  defaultString(spec, "schedulerName", "default-scheduler");
  roundResourceList(spec.overhead);
};

const container: TypeDefaulter = (c) => {
  if (isEmptyString(c.imagePullPolicy)) {
    const image = c.image;
    if (isNil(image) || typeof image === "string") c.imagePullPolicy = defaultPullPolicy(image ?? "");
  }
  defaultString(c, "terminationMessagePath", "/dev/termination-log");
  defaultString(c, "terminationMessagePolicy", "File");
};

const probe: TypeDefaulter = (p) => {
  defaultNumber(p, "timeoutSeconds", 1);
  defaultNumber(p, "periodSeconds", 10);
  defaultNumber(p, "successThreshold", 1);
  defaultNumber(p, "failureThreshold", 3);
};

const httpGetAction: TypeDefaulter = (action) => {
  defaultString(action, "path", "/");
  defaultString(action, "scheme", "HTTP");
};

const protocolTCP: TypeDefaulter = (port) => defaultString(port, "protocol", TCP);

// --- volumes --------------------------------------------------------------------------------

const volume: TypeDefaulter = (v) => {
  // A volume has few keys: look at those rather than at every possible source.
  for (const key in v) if (VOLUME_SOURCES.has(key) && !isNil(v[key])) return;
  v.emptyDir = {};
};

const fileMode: TypeDefaulter = (source) => defaultPointer(source, "defaultMode", VOLUME_FILE_MODE);

const iscsi: TypeDefaulter = (source) => defaultString(source, "iscsiInterface", "default");

const rbd: TypeDefaulter = (source) => {
  defaultString(source, "pool", "rbd");
  defaultString(source, "user", "admin");
  defaultString(source, "keyring", "/etc/ceph/keyring");
};

const scaleIO: TypeDefaulter = (source) => {
  defaultString(source, "storageMode", "ThinProvisioned");
  defaultString(source, "fsType", "xfs");
};

const persistentVolume: TypeDefaulter = (pv) => {
  const status = structAt(pv, "status");
  if (status !== undefined) defaultString(status, "phase", "Pending");
  const spec = structAt(pv, "spec");
  if (spec === undefined) return;
  defaultString(spec, "persistentVolumeReclaimPolicy", "Retain");
  defaultPointer(spec, "volumeMode", "Filesystem");
};

const persistentVolumeClaim: TypeDefaulter = (pvc) => {
  const status = structAt(pvc, "status");
  if (status !== undefined) defaultString(status, "phase", "Pending");
};

// --- services and endpoints ------------------------------------------------------------------

/** No client IP timeout given (wrongly typed values count as given: validation reports them). */
function clientIPTimeoutUnset(config: unknown): boolean {
  if (isNil(config)) return true;
  if (!isObject(config)) return false;
  const clientIP = config.clientIP;
  if (isNil(clientIP)) return true;
  return isObject(clientIP) && isNil(clientIP.timeoutSeconds);
}

const service: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec === undefined) return;
  defaultString(spec, "sessionAffinity", "None");
  if (spec.sessionAffinity === "None") {
    delete spec.sessionAffinityConfig;
  } else if (spec.sessionAffinity === "ClientIP" && clientIPTimeoutUnset(spec.sessionAffinityConfig)) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: CLIENT_IP_AFFINITY_SECONDS } };
  }
  defaultString(spec, "type", "ClusterIP");
  forEachObject(spec.ports, (port) => {
    defaultString(port, "protocol", TCP);
    const target = port.targetPort;
    if (target === undefined || target === null || target === 0 || target === "") {
      const number = port.port;
      if (isNil(number)) port.targetPort = 0;
      else if (typeof number === "number") port.targetPort = number;
    }
  });
  const type = spec.type;
  if ((type === "NodePort" || type === "LoadBalancer") && isEmptyString(spec.externalTrafficPolicy)) {
    spec.externalTrafficPolicy = "Cluster";
  }
  if (
    isNil(spec.internalTrafficPolicy) &&
    (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP")
  ) {
    spec.internalTrafficPolicy = "Cluster";
  }
  if (type === "LoadBalancer") defaultPointer(spec, "allocateLoadBalancerNodePorts", true);
};

// --- cluster objects -------------------------------------------------------------------------

function namespace(naming: Naming): TypeDefaulter {
  const nameLabel = naming.label("metadata.name");
  return (ns) => {
    const metadata = objectAt(ns.metadata);
    const name = metadata?.name;
    if (metadata !== undefined && typeof name === "string" && name !== "") {
      const labels = structAt(metadata, "labels");
      if (labels !== undefined) labels[nameLabel] = name;
    }
    const status = structAt(ns, "status");
    if (status !== undefined) defaultString(status, "phase", "Active");
  };
}

const nodeStatus: TypeDefaulter = (status) => {
  const capacity = status.capacity;
  if (isNil(status.allocatable) && isObject(capacity) && mapSize(capacity) > 0) {
    status.allocatable = { ...capacity };
  }
  roundResourceList(status.capacity);
  roundResourceList(status.allocatable);
};

const secret: TypeDefaulter = (s) => defaultString(s, "type", "Opaque");

/** Whether a map field is empty in Go terms and may be replaced: nil or an empty object. */
function emptyMap(value: unknown): boolean {
  return isNil(value) || (isObject(value) && mapSize(value) === 0);
}

const replicationController: TypeDefaulter = (rc) => {
  const spec = structAt(rc, "spec");
  if (spec === undefined) return;
  const labels = objectAt(objectAt(objectAt(spec.template)?.metadata)?.labels);
  // An empty label map would be copied as an empty map, which does not show: nothing to do.
  if (labels !== undefined && mapSize(labels) > 0) {
    if (emptyMap(spec.selector)) spec.selector = { ...labels };
    const metadata = structAt(rc, "metadata");
    if (metadata !== undefined && emptyMap(metadata.labels)) metadata.labels = { ...labels };
  }
  defaultPointer(spec, "replicas", 1);
};

/** Container limit ranges: default limits from max, default requests from default limits, then min. */
const limitRangeItem: TypeDefaulter = (item) => {
  if (item.type === "Container") {
    fillMissing(item, "default", item.max);
    fillMissing(item, "defaultRequest", item.default);
    fillMissing(item, "defaultRequest", item.min);
  }
  for (const key of ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"])
    roundResourceList(item[key]);
};

/** Copies the entries of `from` that `object[key]` lacks, creating that map only when needed. */
function fillMissing(object: JsonMap, key: string, from: unknown): void {
  if (!isObject(from)) return;
  let target = object[key];
  if (!isNil(target) && !isObject(target)) return;
  for (const name in from) {
    if (isObject(target) && Object.hasOwn(target, name)) continue;
    if (!isObject(target)) {
      target = {};
      object[key] = target;
    }
    (target as JsonMap)[name] = from[name];
  }
}

/** The core/v1 defaulters by type id. */
export function coreV1Defaulters(naming: Naming): Record<string, TypeDefaulter> {
  return {
    "core/v1.Pod": pod,
    "core/v1.PodSpec": podSpec,
    "core/v1.Container": container,
    "core/v1.EphemeralContainer": container,
    "core/v1.ContainerPort": protocolTCP,
    "core/v1.ContainerStatus": roundResourceFields("allocatedResources"),
    "core/v1.ResourceRequirements": roundResourceFields("limits", "requests"),
    "core/v1.Probe": probe,
    "core/v1.HTTPGetAction": httpGetAction,
    "core/v1.GRPCAction": (action) => defaultPointer(action, "service", ""),
    "core/v1.ObjectFieldSelector": (selector) => defaultString(selector, "apiVersion", "v1"),
    "core/v1.Volume": volume,
    "core/v1.HostPathVolumeSource": (source) => defaultPointer(source, "type", ""),
    "core/v1.SecretVolumeSource": fileMode,
    "core/v1.ConfigMapVolumeSource": fileMode,
    "core/v1.DownwardAPIVolumeSource": fileMode,
    "core/v1.ProjectedVolumeSource": fileMode,
    "core/v1.ServiceAccountTokenProjection": (token) =>
      defaultPointer(token, "expirationSeconds", TOKEN_EXPIRATION_SECONDS),
    "core/v1.ISCSIVolumeSource": iscsi,
    "core/v1.ISCSIPersistentVolumeSource": iscsi,
    "core/v1.RBDVolumeSource": rbd,
    "core/v1.RBDPersistentVolumeSource": rbd,
    "core/v1.ScaleIOVolumeSource": scaleIO,
    "core/v1.ScaleIOPersistentVolumeSource": scaleIO,
    "core/v1.AzureDiskVolumeSource": (source) => {
      defaultPointer(source, "cachingMode", "ReadWrite");
      defaultPointer(source, "kind", "Shared");
      defaultPointer(source, "fsType", "ext4");
      defaultPointer(source, "readOnly", false);
    },
    "core/v1.PersistentVolume": persistentVolume,
    "core/v1.PersistentVolumeSpec": roundResourceFields("capacity"),
    "core/v1.PersistentVolumeClaim": persistentVolumeClaim,
    "core/v1.PersistentVolumeClaimSpec": (spec) => defaultPointer(spec, "volumeMode", "Filesystem"),
    "core/v1.PersistentVolumeClaimStatus": roundResourceFields("capacity", "allocatedResources"),
    "core/v1.Service": service,
    "core/v1.ServicePort": protocolTCP,
    "core/v1.EndpointPort": protocolTCP,
    "core/v1.Namespace": namespace(naming),
    "core/v1.NodeStatus": nodeStatus,
    "core/v1.Secret": secret,
    "core/v1.ReplicationController": replicationController,
    "core/v1.LimitRangeItem": limitRangeItem,
    "core/v1.ResourceQuotaSpec": roundResourceFields("hard"),
    "core/v1.ResourceQuotaStatus": roundResourceFields("hard", "used"),
  };
}
