// storage/v1: storage classes, CSI drivers and nodes, volume attachments and reported storage
// capacity.
import { atomic, f, mergeBy, pkg, required, set, t } from "./model.ts";

export const STORAGE_V1 = pkg("storage/v1", "k8s.io.api.storage.v1", {
  CSIDriver: t(
    "Describes a Container Storage Interface volume driver installed in the cluster: whether volumes need attaching, whether pod details are passed at mount time and so on. Cluster-scoped.",
    {
      metadata: f(
        1,
        "meta/v1.ObjectMeta",
        "The object's metadata. The name must equal the driver's own name as it reports it: at most 63 characters, alphanumeric at both ends, with dashes, dots and alphanumerics in between.",
      ),
      spec: f(2, "CSIDriverSpec", "How the cluster should treat the driver's volumes.", {
        ...required,
        omitEmpty: false,
      }),
    },
  ),
  CSIDriverSpec: t("Settings that tell the cluster how to work with a CSI driver.", {
    attachRequired: f(
      1,
      "bool",
      "Whether volumes of this driver must be attached to a node (through a VolumeAttachment) before they are mounted. When false the attach step is skipped. Cannot be changed.",
      { pointer: true },
    ),
    podInfoOnMount: f(
      2,
      "bool",
      "Whether the node agent passes details of the pod (name, namespace, UID, whether the volume is ephemeral) to the driver when mounting. Defaults to false; cannot be changed.",
      { pointer: true },
    ),
    volumeLifecycleModes: f(
      3,
      "[]string",
      "Kinds of volume the driver supports: Persistent (through persistent volumes and claims, the default when empty) and Ephemeral (declared inline in a pod and living as long as it). Cannot be changed.",
      set,
    ),
    storageCapacity: f(
      4,
      "bool",
      "Whether the scheduler should take the capacity the driver publishes in CSIStorageCapacity objects into account. May be changed.",
      { pointer: true },
    ),
    fsGroupPolicy: f(
      5,
      "string",
      "Whether the volume's ownership and permissions may be changed to the pod's fsGroup before mounting: ReadWriteOnceWithFSType (the default; only for volumes with a filesystem type and ReadWriteOnce access), File (always) or None (never). Cannot be changed.",
      { pointer: true },
    ),
    tokenRequests: f(
      6,
      "[]TokenRequest",
      "Service account tokens of the pod the node agent should hand to the driver when mounting, one per audience; at most one may have an empty audience.",
      atomic,
    ),
    requiresRepublish: f(
      7,
      "bool",
      "Whether the driver wants its publish call repeated periodically so it can refresh the mounted volume's contents, for example expiring tokens. Defaults to false.",
      { pointer: true },
    ),
    seLinuxMount: f(
      8,
      "bool",
      'Whether the driver can mount each volume with its own SELinux context ("-o context"), so the pod\'s label is applied at mount time instead of by relabelling files. Defaults to false.',
      { pointer: true },
    ),
  }),
  CSINode: t(
    "The CSI drivers installed on one node; it has the node's name and is maintained by the node agent as drivers register.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata; the name is the node's name."),
      spec: f(2, "CSINodeSpec", "The drivers on the node.", { ...required, omitEmpty: false }),
    },
  ),
  CSINodeDriver: t("One CSI driver installed on a node.", {
    name: f(1, "string", "The driver's name, exactly as the driver reports it.", {
      ...required,
      omitEmpty: false,
    }),
    nodeID: f(
      2,
      "string",
      'The node\'s identifier as the storage system knows it, which may differ from the node name (for example "nodeA" for node "node1").',
      { ...required, omitEmpty: false },
    ),
    topologyKeys: f(
      3,
      "[]string",
      "Topology label keys the driver understands; the node carries them as labels and provisioning uses them. Empty when the driver has no topology support.",
      { omitEmpty: false },
    ),
    allocatable: f(4, "VolumeNodeResources", "How many of the driver's volumes the node can take.", {
      pointer: true,
    }),
  }),
  CSINodeSpec: t("The CSI drivers on a node.", {
    drivers: f(1, "[]CSINodeDriver", "Every CSI driver present on the node; empty once all are removed.", {
      ...mergeBy("name"),
      ...required,
      omitEmpty: false,
    }),
  }),
  CSIStorageCapacity: t(
    "Capacity a CSI driver reports for one storage class in one topology segment, which the scheduler uses to pick nodes for new volumes. No object, or one without capacity or with zero, means none is available.",
    {
      metadata: f(
        1,
        "meta/v1.ObjectMeta",
        "The object's metadata; the name carries no meaning beyond being a DNS subdomain, and objects are namespaced.",
      ),
      nodeTopology: f(
        2,
        "meta/v1.LabelSelector",
        "Nodes that can reach this storage: unset means none, an empty selector means all. Cannot be changed.",
        { pointer: true },
      ),
      storageClassName: f(
        3,
        "string",
        "The storage class the capacity applies to, a DNS subdomain; when the class is gone the object is stale. Cannot be changed.",
        { ...required, omitEmpty: false },
      ),
      capacity: f(
        4,
        "quantity",
        "Total space, in bytes, the driver says is available for new volumes; unset when unknown.",
        { pointer: true },
      ),
      maximumVolumeSize: f(
        5,
        "quantity",
        "Size of the largest single volume the driver says it can create here; preferred over capacity by the scheduler.",
        { pointer: true },
      ),
    },
  ),
  StorageClass: t(
    "A named kind of storage from which persistent volumes are provisioned on demand. Cluster-scoped.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
      provisioner: f(2, "string", "Name of the provisioner that creates volumes of this class.", {
        ...required,
        omitEmpty: false,
      }),
      parameters: f(3, "{}string", "Provisioner-specific settings used when creating volumes of this class."),
      reclaimPolicy: f(
        4,
        "string",
        "What happens to provisioned volumes when released: Delete (the default) or Retain.",
        { enum: ["Delete", "Recycle", "Retain"], pointer: true },
      ),
      mountOptions: f(
        5,
        "[]string",
        'Mount options given to provisioned volumes, such as ["ro", "soft"]; not checked, so a bad option makes the mount fail.',
      ),
      allowVolumeExpansion: f(6, "bool", "Whether claims of this class may be resized upward.", {
        pointer: true,
      }),
      volumeBindingMode: f(
        7,
        "string",
        "When claims are provisioned and bound: Immediate (the default) or WaitForFirstConsumer (once a pod using the claim is scheduled).",
        { enum: ["Immediate", "WaitForFirstConsumer"], pointer: true },
      ),
      allowedTopologies: f(
        8,
        "[]core/v1.TopologySelectorTerm",
        "Topologies where volumes may be provisioned, in terms each volume plugin defines; empty means anywhere.",
        atomic,
      ),
    },
  ),
  TokenRequest: t("A service account token a CSI driver wants for the pods whose volumes it mounts.", {
    audience: f(1, "string", "Intended audience of the token; empty means the API server's own audiences.", {
      ...required,
      omitEmpty: false,
    }),
    expirationSeconds: f(
      2,
      "int64",
      "How long the token stays valid, in seconds; defaults as for an ordinary token request.",
      { pointer: true },
    ),
  }),
  VolumeAttachment: t("A request to attach a volume to a node, or to detach it. Cluster-scoped.", {
    metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
    spec: f(
      2,
      "VolumeAttachmentSpec",
      "Which volume to attach to which node, and by which driver; set by the system.",
      { ...required, omitEmpty: false },
    ),
    status: f(
      3,
      "VolumeAttachmentStatus",
      "Outcome of the attach or detach, reported by whoever carries it out.",
    ),
  }),
  VolumeAttachmentSource: t(
    "The volume to attach: either a persistent volume by name or a spec translated from a pod's inline volume. Exactly one must be set.",
    {
      persistentVolumeName: f(1, "string", "Name of the persistent volume to attach.", { pointer: true }),
      inlineVolumeSpec: f(
        2,
        "core/v1.PersistentVolumeSpec",
        "A persistent volume spec built from a pod's inline volume during CSI migration.",
        { pointer: true },
      ),
    },
  ),
  VolumeAttachmentSpec: t("What a volume attachment asks for.", {
    attacher: f(1, "string", "Name of the volume driver responsible for the attachment.", {
      ...required,
      omitEmpty: false,
    }),
    source: f(2, "VolumeAttachmentSource", "The volume to attach.", { ...required, omitEmpty: false }),
    nodeName: f(3, "string", "The node to attach the volume to.", { ...required, omitEmpty: false }),
  }),
  VolumeAttachmentStatus: t(
    "The outcome of a volume attachment, written by the component that performs it.",
    {
      attached: f(1, "bool", "Whether the volume is attached to the node.", { omitEmpty: false }),
      attachmentMetadata: f(
        2,
        "{}string",
        "Information the attach step returned that later wait and mount steps need.",
      ),
      attachError: f(3, "VolumeError", "The most recent attach failure, if any.", { pointer: true }),
      detachError: f(4, "VolumeError", "The most recent detach failure, if any.", { pointer: true }),
    },
  ),
  VolumeError: t("A failure during a volume operation.", {
    time: f(1, "time", "When the failure happened."),
    message: f(2, "string", "What went wrong; may be logged, so it must hold no secrets."),
  }),
  VolumeNodeResources: t("Volume limits of a node for one CSI driver.", {
    count: f(
      1,
      "int32",
      "Most distinct volumes of the driver the node can use at once, counting a volume shared by several pods once; unset means no limit.",
      { pointer: true },
    ),
  }),
});
