// Table columns of the storage group: StorageClass, CSIDriver, CSINode, VolumeAttachment and
// CSIStorageCapacity.
import type { Naming } from "../../naming/naming.ts";
import type { TableColumn } from "../../schema/resource-schema.ts";
import {
  age,
  arr,
  asArray,
  asObject,
  asString,
  bool,
  col,
  type GroupColumns,
  type JsonObject,
  meta,
  present,
  quantity,
  spec,
  str,
} from "./helpers.ts";

function storageClassColumns(naming: Naming): TableColumn[] {
  const defaultMarks = [
    naming.label("is-default-class", "storageclass"),
    naming.label("is-default-class", "storageclass.beta"),
  ];
  const isDefault = (o: JsonObject): boolean => {
    const annotations = asObject(meta(o).annotations) ?? {};
    return defaultMarks.some((key) => annotations[key] === "true");
  };
  return [
    // Upstream's StorageClass printer marks the default class in the Name cell.
    col(
      "string",
      "Name",
      "The storage class's name; the cluster's default class is marked (default).",
      (o) => `${str(o, "metadata", "name")}${isDefault(o) ? " (default)" : ""}`,
      { format: "name" },
    ),
    col(
      "string",
      "Provisioner",
      "The volume plugin or CSI driver that provisions volumes of the class.",
      (o) => str(o, "provisioner"),
    ),
    col(
      "string",
      "ReclaimPolicy",
      "What happens to provisioned volumes once released (Delete by default).",
      (o) => (present(o, "reclaimPolicy") ? str(o, "reclaimPolicy") : "Delete"),
    ),
    col(
      "string",
      "VolumeBindingMode",
      "When claims are bound and provisioned: Immediate (the default) or WaitForFirstConsumer.",
      (o) => (present(o, "volumeBindingMode") ? str(o, "volumeBindingMode") : "Immediate"),
    ),
    // Upstream declares a string column and fills it with a boolean.
    col("string", "AllowVolumeExpansion", "Whether volumes of the class can be resized.", (o) =>
      bool(o.allowVolumeExpansion),
    ),
    age(),
  ];
}

const csiDriverColumns: TableColumn[] = [
  col(
    "boolean",
    "AttachRequired",
    "Whether volumes need an attach step (true unless set false).",
    (o) => spec(o).attachRequired !== false,
  ),
  col("boolean", "PodInfoOnMount", "Whether the driver is told about the pod when mounting.", (o) =>
    bool(spec(o).podInfoOnMount),
  ),
  col(
    "boolean",
    "StorageCapacity",
    "Whether the scheduler takes the driver's reported capacity into account.",
    (o) => bool(spec(o).storageCapacity),
  ),
  col("string", "TokenRequests", "The audiences of the service account tokens passed to the driver.", (o) => {
    const requests = spec(o).tokenRequests;
    if (!Array.isArray(requests)) return "<unset>";
    return requests.map((r) => asString(asObject(r)?.audience)).join(",");
  }),
  col("boolean", "RequiresRepublish", "Whether the driver wants volumes remounted periodically.", (o) =>
    bool(spec(o).requiresRepublish),
  ),
  col(
    "string",
    "Modes",
    "The volume lifecycle modes the driver supports.",
    (o) => asArray(spec(o).volumeLifecycleModes).map(asString).join(",") || "<none>",
  ),
  age(),
];

const csiNodeColumns: TableColumn[] = [
  col(
    "integer",
    "Drivers",
    "How many CSI drivers are registered on the node.",
    (o) => arr(o, "spec", "drivers").length,
  ),
  age(),
];

const volumeAttachmentColumns: TableColumn[] = [
  col("string", "Attacher", "The driver that attaches the volume.", (o) => str(o, "spec", "attacher"), {
    format: "name",
  }),
  col("string", "PV", "The persistent volume being attached.", (o) =>
    str(o, "spec", "source", "persistentVolumeName"),
  ),
  col("string", "Node", "The node the volume is attached to.", (o) => str(o, "spec", "nodeName")),
  col("boolean", "Attached", "Whether the attach operation has completed.", (o) =>
    bool(asObject(o.status)?.attached),
  ),
  age(),
];

const csiStorageCapacityColumns: TableColumn[] = [
  col("string", "StorageClassName", "The storage class the capacity was reported for.", (o) =>
    str(o, "storageClassName"),
  ),
  col("string", "Capacity", "The storage available for new volumes.", (o) =>
    present(o, "capacity") ? quantity(o.capacity) : "<unset>",
  ),
];

export function storageColumns(naming: Naming): GroupColumns {
  return new Map<string, readonly TableColumn[]>([
    ["storageclasses", storageClassColumns(naming)],
    ["csidrivers", csiDriverColumns],
    ["csinodes", csiNodeColumns],
    ["volumeattachments", volumeAttachmentColumns],
    ["csistoragecapacities", csiStorageCapacityColumns],
  ]);
}
