// Table columns of the core group's catalog kinds (Service, Endpoints, ResourceQuota, volumes and
// claims, ReplicationController, PodTemplate). LimitRange has none of its own: upstream serves it
// with the default Name and Created At columns.
import type { Naming } from "../../naming/naming.ts";
import type { TableColumn } from "../../schema/resource-schema.ts";
import {
  accessModes,
  age,
  arr,
  asArray,
  asObject,
  asString,
  col,
  containerCells,
  deleting,
  formatLabels,
  type GroupColumns,
  int,
  type JsonObject,
  joinHostPort,
  loadBalancerIngress,
  meta,
  obj,
  quantity,
  sortedStrings,
  spec,
  status,
  str,
  templateColumns,
} from "./helpers.ts";

// ---- Service ------------------------------------------------------------------------------

function externalIP(service: JsonObject): string {
  const s = spec(service);
  const externalIPs = asArray(s.externalIPs).map(asString);
  switch (asString(s.type)) {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = loadBalancerIngress(obj(service, "status", "loadBalancer"));
      if (externalIPs.length > 0) return [...(lb === "" ? [] : lb.split(",")), ...externalIPs].join(",");
      return lb === "" ? "<pending>" : lb;
    }
    case "ExternalName":
      return asString(s.externalName);
    default:
      return "<unknown>";
  }
}

function servicePorts(service: JsonObject): string {
  const ports = arr(service, "spec", "ports").map((p) => {
    const port = asObject(p) ?? {};
    const nodePort = int(port.nodePort);
    const protocol = asString(port.protocol);
    return nodePort > 0 ? `${int(port.port)}:${nodePort}/${protocol}` : `${int(port.port)}/${protocol}`;
  });
  return ports.length === 0 ? "<none>" : ports.join(",");
}

function clusterIP(service: JsonObject): string {
  const s = spec(service);
  const ips = asArray(s.clusterIPs).map(asString);
  // Stored services carry clusterIPs; the single field stands in for objects written without it.
  if (ips.length > 0) return ips[0] ?? "";
  return asString(s.clusterIP) || "<none>";
}

const serviceColumns: TableColumn[] = [
  col(
    "string",
    "Type",
    "How the service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.",
    (o) => str(o, "spec", "type"),
  ),
  col("string", "Cluster-IP", "The service's first virtual IP inside the cluster.", clusterIP),
  col("string", "External-IP", "Addresses the service is reachable at from outside the cluster.", externalIP),
  col("string", "Port(s)", "The service's ports as port[:nodePort]/protocol.", servicePorts),
  age(),
  col(
    "string",
    "Selector",
    "The pod labels that pick the service's endpoints.",
    (o) => formatLabels(spec(o).selector),
    { priority: 1 },
  ),
];

// ---- Endpoints ----------------------------------------------------------------------------

const ENDPOINTS_SHOWN = 3;

function formatEndpoints(endpoints: JsonObject): string {
  const subsets = arr(endpoints, "subsets");
  if (subsets.length === 0) return "<none>";
  const list: string[] = [];
  let count = 0;
  let more = false;
  for (const s of subsets) {
    const subset = asObject(s) ?? {};
    const addresses = asArray(subset.addresses).map((a) => asString(asObject(a)?.ip));
    const ports = asArray(subset.ports).map((p) => int(asObject(p)?.port));
    // A headless service may have no ports: its addresses are listed bare.
    const perPort: (number | undefined)[] = ports.length === 0 ? [undefined] : ports;
    for (const port of perPort) {
      count += addresses.length;
      for (const ip of addresses) {
        if (list.length === ENDPOINTS_SHOWN) {
          more = true;
          break;
        }
        list.push(port === undefined ? ip : joinHostPort(ip, port));
      }
    }
  }
  const text = list.join(",");
  return more ? `${text} + ${count - ENDPOINTS_SHOWN} more...` : text;
}

// ---- ResourceQuota ------------------------------------------------------------------------

function quotaUsage(quota: JsonObject): { requests: string; limits: string } {
  const hard = asObject(status(quota).hard) ?? {};
  const used = asObject(status(quota).used) ?? {};
  const requests: string[] = [];
  const limits: string[] = [];
  for (const resource of sortedStrings(Object.keys(hard))) {
    const pieces = resource.split(".");
    const into = pieces.length > 1 && pieces[0] === "limits" ? limits : requests;
    into.push(`${resource}: ${quantity(used[resource])}/${quantity(hard[resource])}`);
  }
  return { requests: requests.join(", "), limits: limits.join(", ") };
}

// ---- PersistentVolume and PersistentVolumeClaim -------------------------------------------

function phase(o: JsonObject): string {
  return deleting(o) ? "Terminating" : str(o, "status", "phase");
}

export function persistentVolumeColumns(naming: Naming): TableColumn[] {
  const classAnnotation = naming.label("storage-class", "volume.beta");
  const storageClass = (o: JsonObject): string => {
    const annotations = asObject(meta(o).annotations) ?? {};
    if (Object.hasOwn(annotations, classAnnotation)) return asString(annotations[classAnnotation]);
    return str(o, "spec", "storageClassName");
  };
  return [
    col("string", "Capacity", "The volume's storage size.", (o) =>
      quantity(obj(o, "spec", "capacity").storage),
    ),
    col("string", "Access Modes", "How the volume can be mounted (RWO, ROX, RWX, RWOP).", (o) =>
      accessModes(spec(o).accessModes),
    ),
    col("string", "Reclaim Policy", "What happens to the volume once its claim is released.", (o) =>
      str(o, "spec", "persistentVolumeReclaimPolicy"),
    ),
    col("string", "Status", "The volume's phase, or Terminating while it is being deleted.", phase),
    col("string", "Claim", "The claim bound to the volume, as namespace/name.", (o) => {
      const ref = asObject(spec(o).claimRef);
      return ref ? `${asString(ref.namespace)}/${asString(ref.name)}` : "";
    }),
    col("string", "StorageClass", "The storage class the volume belongs to.", storageClass),
    col("string", "Reason", "Why the volume is in its current phase, when known.", (o) =>
      str(o, "status", "reason"),
    ),
    age(),
    col(
      "string",
      "VolumeMode",
      "Whether the volume is used as a filesystem or as a raw block device.",
      (o) => str(o, "spec", "volumeMode") || "<unset>",
      { priority: 1 },
    ),
  ];
}

export function persistentVolumeClaimColumns(naming: Naming): TableColumn[] {
  const classAnnotation = naming.label("storage-class", "volume.beta");
  const storageClass = (o: JsonObject): string => {
    const annotations = asObject(meta(o).annotations) ?? {};
    if (Object.hasOwn(annotations, classAnnotation)) return asString(annotations[classAnnotation]);
    return str(o, "spec", "storageClassName");
  };
  // Capacity and access modes are those of the bound volume, so only shown once bound.
  const bound = (o: JsonObject): boolean => str(o, "spec", "volumeName") !== "";
  return [
    col("string", "Status", "The claim's phase, or Terminating while it is being deleted.", phase),
    col("string", "Volume", "The volume bound to the claim.", (o) => str(o, "spec", "volumeName")),
    col("string", "Capacity", "The storage size of the bound volume.", (o) =>
      bound(o) ? quantity(obj(o, "status", "capacity").storage) : "",
    ),
    col("string", "Access Modes", "How the bound volume can be mounted (RWO, ROX, RWX, RWOP).", (o) =>
      bound(o) ? accessModes(status(o).accessModes) : "",
    ),
    col("string", "StorageClass", "The storage class the claim asks for.", storageClass),
    age(),
    col(
      "string",
      "VolumeMode",
      "Whether the claim wants a filesystem or a raw block device.",
      (o) => str(o, "spec", "volumeMode") || "<unset>",
      { priority: 1 },
    ),
  ];
}

// ---- ReplicationController and PodTemplate ------------------------------------------------

const templateSpec = (o: JsonObject): JsonObject => obj(o, "spec", "template", "spec");

const replicationControllerColumns: TableColumn[] = [
  col("integer", "Desired", "How many pods the controller should run.", (o) => int(spec(o).replicas)),
  col("integer", "Current", "How many pods the controller runs now.", (o) => int(status(o).replicas)),
  col("integer", "Ready", "How many of its pods are ready.", (o) => int(status(o).readyReplicas)),
  age(),
  ...templateColumns(templateSpec),
  col("string", "Selector", "The pod labels the controller manages.", (o) => formatLabels(spec(o).selector), {
    priority: 1,
  }),
];

const podTemplateSpec = (o: JsonObject): JsonObject => obj(o, "template", "spec");

const podTemplateColumns: TableColumn[] = [
  col(
    "string",
    "Containers",
    "The names of the template's containers.",
    (o) => containerCells(podTemplateSpec(o)).names,
  ),
  col(
    "string",
    "Images",
    "The images the template's containers run.",
    (o) => containerCells(podTemplateSpec(o)).images,
  ),
  col("string", "Pod Labels", "The labels pods made from the template get.", (o) =>
    formatLabels(obj(o, "template", "metadata").labels),
  ),
];

export function coreColumns(naming: Naming): GroupColumns {
  return new Map<string, readonly TableColumn[]>([
    ["services", serviceColumns],
    [
      "endpoints",
      [col("string", "Endpoints", "The first few ready addresses, as ip:port.", formatEndpoints), age()],
    ],
    // Upstream gives LimitRange no printer: the default Name and Created At columns apply.
    ["limitranges", []],
    [
      "resourcequotas",
      [
        age(),
        col(
          "string",
          "Request",
          "Used against hard amounts of the quota's resources other than limits.*, as name: used/hard.",
          (o) => quotaUsage(o).requests,
        ),
        col(
          "string",
          "Limit",
          "Used against hard amounts of the quota's limits.* resources, as name: used/hard.",
          (o) => quotaUsage(o).limits,
        ),
      ],
    ],
    ["persistentvolumes", persistentVolumeColumns(naming)],
    ["persistentvolumeclaims", persistentVolumeClaimColumns(naming)],
    ["replicationcontrollers", replicationControllerColumns],
    ["podtemplates", podTemplateColumns],
  ]);
}
