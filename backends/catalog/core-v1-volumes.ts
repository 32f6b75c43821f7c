// core/v1, storage part: pod volumes and their many sources, projections, persistent volumes and
// the claims that bind to them. Other core/v1 types live in the sibling core-v1-*.ts files.
import { f, inline, mergeBy, pkg, required, t } from "./model.ts";

// Wording shared by the many volume plugins.
const FS_EXT4 =
  "File system to format and mount the volume with, such as ext4, xfs or ntfs; the host must support it. When empty, ext4 is assumed.";
const FS_ANY = "File system to mount the volume with, such as ext4, xfs or ntfs; the host must support it.";
const READ_ONLY =
  "Mount the volume read-only, overriding the readOnly setting of the container's volume mounts. Defaults to false.";
const MODE_BITS =
  "Permission bits for the created files, as a decimal number between 0 and 511 (octal 0000 to 0777; YAML also accepts octal). Directories are not affected, and options such as fsGroup may add further bits.";
const CEPH_MONITORS = "Addresses of the Ceph monitors to contact. At least one is needed.";

const accessModes = ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"].join(", ");
const volumeModeEnum = { enum: ["Block", "Filesystem"] } as const;

export const CORE_V1_VOLUMES = pkg("core/v1", "k8s.io.api.core.v1", {
  AWSElasticBlockStoreVolumeSource: t(
    "An existing Amazon EBS disk attached to the node and mounted into the pod. It must be in the node's availability zone and can be mounted read-write by one node only.",
    {
      volumeID: f(1, "string", "The ID of the EBS volume to mount.", { ...required, omitEmpty: false }),
      fsType: f(2, "string", FS_EXT4),
      partition: f(
        3,
        "int32",
        "Number of the partition to mount, e.g. 1 for /dev/sda1; 0 or empty mounts the whole device.",
      ),
      readOnly: f(4, "bool", READ_ONLY),
    },
  ),
  AzureDiskVolumeSource: t("An Azure data disk attached to the node and bind-mounted into the pod.", {
    diskName: f(1, "string", "Name of the data disk in blob storage.", { ...required, omitEmpty: false }),
    diskURI: f(2, "string", "URI of the data disk in blob storage.", { ...required, omitEmpty: false }),
    cachingMode: f(
      3,
      "string",
      "Host caching to use for the disk: None, ReadOnly or ReadWrite (the default).",
      { enum: ["None", "ReadOnly", "ReadWrite"], pointer: true },
    ),
    fsType: f(4, "string", FS_EXT4, { pointer: true }),
    readOnly: f(5, "bool", READ_ONLY, { pointer: true }),
    kind: f(
      6,
      "string",
      "How the disk is provisioned: Shared (several blob disks share a storage account, the default), Dedicated (one blob disk per storage account) or Managed (an Azure managed disk).",
      { enum: ["Dedicated", "Managed", "Shared"], pointer: true },
    ),
  }),
  AzureFilePersistentVolumeSource: t(
    "An Azure Files share mounted on the node and bind-mounted into the pod, for a persistent volume.",
    {
      secretName: f(1, "string", "Name of the secret holding the Azure storage account name and key.", {
        ...required,
        omitEmpty: false,
      }),
      shareName: f(2, "string", "Name of the Azure file share.", { ...required, omitEmpty: false }),
      readOnly: f(3, "bool", READ_ONLY),
      secretNamespace: f(
        4,
        "string",
        "Namespace of the secret holding the account credentials; when empty, the namespace of the pod is used.",
        { pointer: true, omitEmpty: false },
      ),
    },
  ),
  AzureFileVolumeSource: t("An Azure Files share mounted on the node and bind-mounted into the pod.", {
    secretName: f(
      1,
      "string",
      "Name of the secret, in the pod's namespace, holding the Azure storage account name and key.",
      { ...required, omitEmpty: false },
    ),
    shareName: f(2, "string", "Name of the Azure file share.", { ...required, omitEmpty: false }),
    readOnly: f(3, "bool", READ_ONLY),
  }),
  CSIPersistentVolumeSource: t(
    "A persistent volume served by an external Container Storage Interface (CSI) driver.",
    {
      driver: f(1, "string", "Name of the CSI driver that serves the volume.", {
        ...required,
        omitEmpty: false,
      }),
      volumeHandle: f(
        2,
        "string",
        "The identifier the driver returned when it created the volume; passed back to the driver in every later call.",
        { ...required, omitEmpty: false },
      ),
      readOnly: f(3, "bool", "Whether the driver should publish the volume read-only. Defaults to false."),
      fsType: f(4, "string", FS_ANY),
      volumeAttributes: f(
        5,
        "{}string",
        "Driver-specific attributes of the volume, handed to the driver when publishing it.",
      ),
      controllerPublishSecretRef: f(
        6,
        "SecretReference",
        "Secret with sensitive data the driver needs to attach and detach the volume (controller publish and unpublish). Optional; every key of the secret is passed.",
        { pointer: true },
      ),
      nodeStageSecretRef: f(
        7,
        "SecretReference",
        "Secret with sensitive data the driver needs to stage and unstage the volume on a node. Optional; every key of the secret is passed.",
        { pointer: true },
      ),
      nodePublishSecretRef: f(
        8,
        "SecretReference",
        "Secret with sensitive data the driver needs to publish and unpublish the volume on a node. Optional; every key of the secret is passed.",
        { pointer: true },
      ),
      controllerExpandSecretRef: f(
        9,
        "SecretReference",
        "Secret with sensitive data the driver needs to grow the volume on the controller side. Optional; every key of the secret is passed.",
        { pointer: true },
      ),
      nodeExpandSecretRef: f(
        10,
        "SecretReference",
        "Secret with sensitive data the driver needs to grow the volume on the node. Optional; every key of the secret is passed.",
        { pointer: true },
      ),
    },
  ),
  CSIVolumeSource: t("An inline volume provided by an external CSI driver for the lifetime of the pod.", {
    driver: f(1, "string", "Name of the CSI driver, as registered in the cluster.", {
      ...required,
      omitEmpty: false,
    }),
    readOnly: f(2, "bool", "Whether the volume is provided read-only. Defaults to false.", { pointer: true }),
    fsType: f(
      3,
      "string",
      "File system to mount, such as ext4, xfs or ntfs. When empty, the driver picks its default.",
      { pointer: true },
    ),
    volumeAttributes: f(
      4,
      "{}string",
      "Driver-specific settings passed to the driver; see the driver's documentation.",
    ),
    nodePublishSecretRef: f(
      5,
      "LocalObjectReference",
      "Secret, in the pod's namespace, with sensitive data the driver needs to publish and unpublish the volume. Optional; every key of the secret is passed.",
      { pointer: true },
    ),
  }),
  CephFSPersistentVolumeSource: t(
    "A CephFS file system mounted for a persistent volume. No ownership management or SELinux relabeling is done.",
    {
      monitors: f(1, "[]string", CEPH_MONITORS, { ...required, omitEmpty: false }),
      path: f(2, "string", "Directory of the Ceph tree to mount as the root of the volume. Defaults to /."),
      user: f(3, "string", "The RADOS user to authenticate as. Defaults to admin."),
      secretFile: f(4, "string", "Path of the keyring file for the user. Defaults to /etc/ceph/user.secret."),
      secretRef: f(5, "SecretReference", "Secret holding the user's key; overrides secretFile when set.", {
        pointer: true,
      }),
      readOnly: f(6, "bool", READ_ONLY),
    },
  ),
  CephFSVolumeSource: t(
    "A CephFS file system mounted for the lifetime of the pod. No ownership management or SELinux relabeling is done.",
    {
      monitors: f(1, "[]string", CEPH_MONITORS, { ...required, omitEmpty: false }),
      path: f(2, "string", "Directory of the Ceph tree to mount as the root of the volume. Defaults to /."),
      user: f(3, "string", "The RADOS user to authenticate as. Defaults to admin."),
      secretFile: f(4, "string", "Path of the keyring file for the user. Defaults to /etc/ceph/user.secret."),
      secretRef: f(
        5,
        "LocalObjectReference",
        "Secret, in the pod's namespace, holding the user's key; overrides secretFile when set.",
        { pointer: true },
      ),
      readOnly: f(6, "bool", READ_ONLY),
    },
  ),
  CinderPersistentVolumeSource: t(
    "An existing OpenStack Cinder volume, in the node's region, used as a persistent volume.",
    {
      volumeID: f(1, "string", "ID of the Cinder volume.", { ...required, omitEmpty: false }),
      fsType: f(2, "string", FS_EXT4),
      readOnly: f(3, "bool", READ_ONLY),
      secretRef: f(4, "SecretReference", "Optional secret with the parameters for connecting to OpenStack.", {
        pointer: true,
      }),
    },
  ),
  CinderVolumeSource: t("An existing OpenStack Cinder volume, in the node's region, mounted into the pod.", {
    volumeID: f(1, "string", "ID of the Cinder volume.", { ...required, omitEmpty: false }),
    fsType: f(2, "string", FS_EXT4),
    readOnly: f(3, "bool", READ_ONLY),
    secretRef: f(
      4,
      "LocalObjectReference",
      "Optional secret, in the pod's namespace, with the parameters for connecting to OpenStack.",
      { pointer: true },
    ),
  }),
  ConfigMapProjection: t(
    "A config map whose entries become files of a projected volume, one file per key unless items picks keys and paths.",
    {
      localObjectReference: f(1, "LocalObjectReference", "The config map to project, by name.", inline),
      items: f(
        2,
        "[]KeyToPath",
        "Which keys to project and the relative path of each; when empty, every key becomes a file named after it. A listed key that is missing is an error unless optional is true.",
      ),
      optional: f(4, "bool", "Allow the config map, or the listed keys, to be absent.", { pointer: true }),
    },
  ),
  ConfigMapVolumeSource: t(
    "A volume filled from a config map: each key becomes a file holding its value, unless items picks keys and paths.",
    {
      localObjectReference: f(1, "LocalObjectReference", "The config map to mount, by name.", inline),
      items: f(
        2,
        "[]KeyToPath",
        "Which keys to project and the relative path of each; when empty, every key becomes a file named after it. A listed key that is missing is an error unless optional is true.",
      ),
      defaultMode: f(3, "int32", `Default permissions of the files. ${MODE_BITS} Defaults to 0644.`, {
        pointer: true,
      }),
      optional: f(4, "bool", "Allow the config map, or the listed keys, to be absent.", { pointer: true }),
    },
  ),
  DownwardAPIProjection: t("Pod and container information projected as files into a projected volume.", {
    items: f(1, "[]DownwardAPIVolumeFile", "The files to create, each with the information it holds."),
  }),
  DownwardAPIVolumeFile: t(
    "One file of a downward API volume and the pod or container information written to it.",
    {
      path: f(
        1,
        "string",
        "Relative path of the file to create, UTF-8; it must not be absolute, contain a '..' element or start with '..'.",
        { ...required, omitEmpty: false },
      ),
      fieldRef: f(
        2,
        "ObjectFieldSelector",
        "A field of the pod to write: its name, namespace, labels or annotations.",
        { pointer: true },
      ),
      resourceFieldRef: f(
        3,
        "ResourceFieldSelector",
        "A resource limit or request of a container to write, such as limits.cpu or requests.memory.",
        { pointer: true },
      ),
      mode: f(
        4,
        "int32",
        `Permissions of this file; when unset, the volume's defaultMode applies. ${MODE_BITS}`,
        { pointer: true },
      ),
    },
  ),
  DownwardAPIVolumeSource: t("A volume of files holding information about the pod and its containers.", {
    items: f(1, "[]DownwardAPIVolumeFile", "The files to create, each with the information it holds."),
    defaultMode: f(2, "int32", `Default permissions of the files. ${MODE_BITS} Defaults to 0644.`, {
      pointer: true,
    }),
  }),
  EmptyDirVolumeSource: t("A directory that starts empty and lives as long as the pod.", {
    medium: f(
      1,
      "string",
      'Storage that backs the directory: empty (the default) for the node\'s usual storage, or "Memory" for a RAM-backed file system.',
    ),
    sizeLimit: f(
      2,
      "quantity",
      "Most local storage the directory may use, also for memory-backed directories (where the pod's memory limits may cap it further). Unlimited when unset.",
      { pointer: true },
    ),
  }),
  EphemeralVolumeSource: t(
    "A volume provisioned by an ordinary storage driver through a claim that is created with the pod and deleted with it.",
    {
      volumeClaimTemplate: f(
        1,
        "PersistentVolumeClaimTemplate",
        "Template of the claim to create, named <pod name>-<volume name> and owned by the pod. An existing claim of that name not owned by the pod is never used. Must be set.",
        { pointer: true },
      ),
    },
  ),
  FCVolumeSource: t("A Fibre Channel disk attached to the node, mountable read-write by a single node.", {
    targetWWNs: f(1, "[]string", "World wide names of the Fibre Channel targets."),
    lun: f(2, "int32", "Logical unit number of the target.", { pointer: true }),
    fsType: f(3, "string", FS_EXT4),
    readOnly: f(4, "bool", READ_ONLY),
    wwids: f(
      5,
      "[]string",
      "World wide identifiers of the volume; set either these or targetWWNs with lun, never both.",
    ),
  }),
  FlexPersistentVolumeSource: t(
    "A persistent volume attached and mounted by an exec-based FlexVolume driver.",
    {
      driver: f(1, "string", "Name of the FlexVolume driver to use.", { ...required, omitEmpty: false }),
      fsType: f(
        2,
        "string",
        "File system to mount, such as ext4, xfs or ntfs. The default depends on the driver script.",
      ),
      secretRef: f(
        3,
        "SecretReference",
        "Optional secret with sensitive data for the driver scripts; every key of the secret is passed to them.",
        { pointer: true },
      ),
      readOnly: f(4, "bool", READ_ONLY),
      options: f(5, "{}string", "Extra options passed to the driver."),
    },
  ),
  FlexVolumeSource: t("A volume attached and mounted by an exec-based FlexVolume driver.", {
    driver: f(1, "string", "Name of the FlexVolume driver to use.", { ...required, omitEmpty: false }),
    fsType: f(
      2,
      "string",
      "File system to mount, such as ext4, xfs or ntfs. The default depends on the driver script.",
    ),
    secretRef: f(
      3,
      "LocalObjectReference",
      "Optional secret, in the pod's namespace, with sensitive data for the driver scripts; every key of the secret is passed to them.",
      { pointer: true },
    ),
    readOnly: f(4, "bool", READ_ONLY),
    options: f(5, "{}string", "Extra options passed to the driver."),
  }),
  FlockerVolumeSource: t(
    "A Flocker dataset mounted by the Flocker agent. Give exactly one of datasetName and datasetUUID.",
    {
      datasetName: f(
        1,
        "string",
        "Name of the dataset, as stored in its metadata. Deprecated in favour of datasetUUID.",
      ),
      datasetUUID: f(2, "string", "UUID that identifies the dataset."),
    },
  ),
  GCEPersistentDiskVolumeSource: t(
    "An existing Google Compute Engine persistent disk in the node's project and zone. It can be mounted read-write by one node or read-only by many.",
    {
      pdName: f(1, "string", "Name of the persistent disk in Compute Engine.", {
        ...required,
        omitEmpty: false,
      }),
      fsType: f(2, "string", FS_EXT4),
      partition: f(
        3,
        "int32",
        "Number of the partition to mount, e.g. 1 for /dev/sda1; 0 or empty mounts the whole device.",
      ),
      readOnly: f(4, "bool", READ_ONLY),
    },
  ),
  GitRepoVolumeSource: t(
    "A directory holding a clone of a git repository. Deprecated: clone the repository into an emptyDir from an init container instead.",
    {
      repository: f(1, "string", "URL of the repository to clone.", { ...required, omitEmpty: false }),
      revision: f(2, "string", "Commit hash to check out."),
      directory: f(
        3,
        "string",
        "Directory to clone into, relative to the volume; \".\" makes the volume itself the repository. Must not contain or start with '..'.",
      ),
    },
  ),
  GlusterfsPersistentVolumeSource: t(
    "A GlusterFS volume used as a persistent volume. No ownership management or SELinux relabeling is done.",
    {
      endpoints: f(1, "string", "Name of the Endpoints object listing the GlusterFS servers.", {
        ...required,
        omitEmpty: false,
      }),
      path: f(2, "string", "Name of the GlusterFS volume.", { ...required, omitEmpty: false }),
      readOnly: f(3, "bool", "Mount the GlusterFS volume read-only. Defaults to false."),
      endpointsNamespace: f(
        4,
        "string",
        "Namespace of the Endpoints object; when empty, the namespace of the bound claim is used.",
        { pointer: true },
      ),
    },
  ),
  GlusterfsVolumeSource: t(
    "A GlusterFS volume mounted for the lifetime of the pod. No ownership management or SELinux relabeling is done.",
    {
      endpoints: f(1, "string", "Name of the Endpoints object listing the GlusterFS servers.", {
        ...required,
        omitEmpty: false,
      }),
      path: f(2, "string", "Name of the GlusterFS volume.", { ...required, omitEmpty: false }),
      readOnly: f(3, "bool", "Mount the GlusterFS volume read-only. Defaults to false."),
    },
  ),
  HostPathVolumeSource: t(
    "A file or directory of the node's file system exposed to the pod. No ownership management or SELinux relabeling is done.",
    {
      path: f(1, "string", "Path on the node; symbolic links are resolved.", {
        ...required,
        omitEmpty: false,
      }),
      type: f(
        2,
        "string",
        "What must exist at the path, or be created there: DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice. Empty (the default) does no check.",
        {
          enum: [
            "",
            "BlockDevice",
            "CharDevice",
            "Directory",
            "DirectoryOrCreate",
            "File",
            "FileOrCreate",
            "Socket",
          ],
          pointer: true,
        },
      ),
    },
  ),
  ISCSIPersistentVolumeSource: t(
    "An iSCSI disk used as a persistent volume, mountable read-write by a single node.",
    {
      targetPortal: f(
        1,
        "string",
        "Address of the iSCSI target portal: an IP, or IP:port when the port is not the default (usually 860 or 3260).",
        { ...required, omitEmpty: false },
      ),
      iqn: f(2, "string", "iSCSI qualified name of the target.", { ...required, omitEmpty: false }),
      lun: f(3, "int32", "Logical unit number of the target.", { ...required, omitEmpty: false }),
      iscsiInterface: f(
        4,
        "string",
        "Name of the iSCSI interface (transport) to use. Defaults to default, i.e. TCP.",
      ),
      fsType: f(5, "string", FS_EXT4),
      readOnly: f(6, "bool", READ_ONLY),
      portals: f(
        7,
        "[]string",
        "Further target portals, each an IP or IP:port when the port is not the default.",
      ),
      chapAuthDiscovery: f(8, "bool", "Use CHAP authentication for iSCSI discovery."),
      chapAuthSession: f(11, "bool", "Use CHAP authentication for iSCSI sessions."),
      secretRef: f(10, "SecretReference", "Secret with the CHAP credentials of the target and initiator.", {
        pointer: true,
      }),
      initiatorName: f(
        12,
        "string",
        "Custom initiator name. Together with iscsiInterface, a new interface named <target portal>:<volume name> is created.",
        { pointer: true },
      ),
    },
  ),
  ISCSIVolumeSource: t("An iSCSI disk mounted into the pod, mountable read-write by a single node.", {
    targetPortal: f(
      1,
      "string",
      "Address of the iSCSI target portal: an IP, or IP:port when the port is not the default (usually 860 or 3260).",
      { ...required, omitEmpty: false },
    ),
    iqn: f(2, "string", "iSCSI qualified name of the target.", { ...required, omitEmpty: false }),
    lun: f(3, "int32", "Logical unit number of the target.", { ...required, omitEmpty: false }),
    iscsiInterface: f(
      4,
      "string",
      "Name of the iSCSI interface (transport) to use. Defaults to default, i.e. TCP.",
    ),
    fsType: f(5, "string", FS_EXT4),
    readOnly: f(6, "bool", READ_ONLY),
    portals: f(
      7,
      "[]string",
      "Further target portals, each an IP or IP:port when the port is not the default.",
    ),
    chapAuthDiscovery: f(8, "bool", "Use CHAP authentication for iSCSI discovery."),
    chapAuthSession: f(11, "bool", "Use CHAP authentication for iSCSI sessions."),
    secretRef: f(
      10,
      "LocalObjectReference",
      "Secret, in the pod's namespace, with the CHAP credentials of the target and initiator.",
      { pointer: true },
    ),
    initiatorName: f(
      12,
      "string",
      "Custom initiator name. Together with iscsiInterface, a new interface named <target portal>:<volume name> is created.",
      { pointer: true },
    ),
  }),
  KeyToPath: t("Places the value of one key at a chosen path inside a volume.", {
    key: f(1, "string", "The key whose value is written.", { ...required, omitEmpty: false }),
    path: f(
      2,
      "string",
      "Relative path of the file to write the value to; it must not be absolute, contain a '..' element or start with '..'.",
      { ...required, omitEmpty: false },
    ),
    mode: f(
      3,
      "int32",
      `Permissions of this file; when unset, the volume's defaultMode applies. ${MODE_BITS}`,
      { pointer: true },
    ),
  }),
  LocalVolumeSource: t("Storage attached directly to one node, such as a disk, partition or directory.", {
    path: f(1, "string", "Full path on the node of the directory or block device.", {
      ...required,
      omitEmpty: false,
    }),
    fsType: f(
      2,
      "string",
      "File system to format a block device with, such as ext4, xfs or ntfs; ignored for directories. Chosen automatically when empty.",
      { pointer: true },
    ),
  }),
  NFSVolumeSource: t(
    "An NFS export mounted for the lifetime of the pod. No ownership management or SELinux relabeling is done.",
    {
      server: f(1, "string", "Host name or IP address of the NFS server.", { ...required, omitEmpty: false }),
      path: f(2, "string", "Path exported by the server.", { ...required, omitEmpty: false }),
      readOnly: f(3, "bool", "Mount the export read-only. Defaults to false."),
    },
  ),
  PersistentVolume: t(
    "A piece of cluster-wide storage, provisioned by an administrator or dynamically through a storage class, that claims bind to.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels and so on."),
      spec: f(2, "PersistentVolumeSpec", "The storage this volume offers and how it may be used."),
      status: f(3, "PersistentVolumeStatus", "Observed state of the volume, written by the system."),
    },
  ),
  PersistentVolumeClaim: t(
    "A request for storage, which the system satisfies by binding a persistent volume to it.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, namespace, labels and so on."),
      spec: f(2, "PersistentVolumeClaimSpec", "What storage the claim asks for."),
      status: f(3, "PersistentVolumeClaimStatus", "Observed state of the claim, written by the system."),
    },
  ),
  PersistentVolumeClaimCondition: t("One aspect of a claim's state, such as an ongoing resize.", {
    type: f(1, "string", "Kind of condition, such as Resizing or FileSystemResizePending.", {
      omitEmpty: false,
    }),
    status: f(2, "string", "Whether the condition holds: True, False or Unknown.", { omitEmpty: false }),
    lastProbeTime: f(3, "time", "When the condition was last checked."),
    lastTransitionTime: f(4, "time", "When the status of the condition last changed."),
    reason: f(5, "string", "Short machine-readable reason for the last change, e.g. ResizeStarted."),
    message: f(6, "string", "Human-readable details about the last change."),
  }),
  PersistentVolumeClaimSpec: t(
    "The storage a claim asks for: size, access modes, class and an optional data source.",
    {
      accessModes: f(1, "[]string", `Ways the volume must be mountable: ${accessModes}.`),
      selector: f(
        4,
        "meta/v1.LabelSelector",
        "Only volumes whose labels match this selector are considered for binding.",
        { pointer: true },
      ),
      resources: f(
        2,
        "ResourceRequirements",
        "Minimum resources the volume must provide, chiefly requests.storage. With volume expansion recovery enabled, the request may be lowered again but not below the size in status.",
      ),
      volumeName: f(3, "string", "Name of the persistent volume this claim is bound to, or should bind to."),
      storageClassName: f(5, "string", "Name of the storage class the volume must come from.", {
        pointer: true,
      }),
      volumeMode: f(
        6,
        "string",
        "Whether a formatted file system (Filesystem, the default) or a raw block device (Block) is wanted.",
        { ...volumeModeEnum, pointer: true },
      ),
      dataSource: f(
        7,
        "TypedLocalObjectReference",
        "An existing volume snapshot or claim to populate the new volume from, if the provisioner supports it. Kept in step with dataSourceRef when that has no namespace.",
        { pointer: true },
      ),
      dataSourceRef: f(
        8,
        "TypedObjectReference",
        "The object to populate the new volume from: a claim, or any object of a non-core API group that an installed populator or provisioner handles. Unlike dataSource, disallowed values are errors rather than dropped, and the object may be in another namespace (alpha; then dataSource must be empty).",
        { pointer: true },
      ),
    },
  ),
  PersistentVolumeClaimStatus: t("Observed state of a claim.", {
    phase: f(1, "string", "Where the claim is in its lifecycle: Pending, Bound or Lost."),
    accessModes: f(2, "[]string", "Access modes the bound volume actually offers."),
    capacity: f(3, "{}quantity", "Resources the bound volume actually provides, such as storage."),
    conditions: f(
      4,
      "[]PersistentVolumeClaimCondition",
      "Current conditions of the claim; ResizeStarted is reported while the volume is being resized.",
      mergeBy("type"),
    ),
    allocatedResources: f(
      5,
      "{}quantity",
      "Capacity set aside for the claim, which can exceed the actual capacity while an expansion is under way; quota uses the larger of this and the request. Alpha, behind RecoverVolumeExpansionFailure.",
    ),
    resizeStatus: f(
      6,
      "string",
      "Progress of a resize, such as ControllerExpansionInProgress or NodeExpansionFailed; empty once expansion completes. Alpha, behind RecoverVolumeExpansionFailure.",
      { pointer: true },
    ),
  }),
  PersistentVolumeClaimTemplate: t("The claim an ephemeral volume creates for its pod.", {
    metadata: f(
      1,
      "meta/v1.ObjectMeta",
      "Labels and annotations to copy onto the created claim; any other metadata is rejected.",
    ),
    spec: f(
      2,
      "PersistentVolumeClaimSpec",
      "Spec of the created claim, copied over as is; it accepts everything a claim's spec does.",
      { ...required, omitEmpty: false },
    ),
  }),
  PersistentVolumeClaimVolumeSource: t(
    "Mounts the volume bound to a claim in the pod's namespace; the actual storage is whatever that volume provides.",
    {
      claimName: f(1, "string", "Name of the claim, in the pod's namespace.", {
        ...required,
        omitEmpty: false,
      }),
      readOnly: f(2, "bool", "Mount the volume read-only. Defaults to false."),
    },
  ),
  PersistentVolumeSource: t("Where a persistent volume's storage comes from. Exactly one member is set.", {
    gcePersistentDisk: f(
      1,
      "GCEPersistentDiskVolumeSource",
      "A Google Compute Engine persistent disk attached to the node.",
      { pointer: true },
    ),
    awsElasticBlockStore: f(
      2,
      "AWSElasticBlockStoreVolumeSource",
      "An Amazon EBS disk attached to the node.",
      { pointer: true },
    ),
    hostPath: f(
      3,
      "HostPathVolumeSource",
      "A directory on the node itself; meant only for single-node testing, as it does not work across nodes.",
      { pointer: true },
    ),
    glusterfs: f(4, "GlusterfsPersistentVolumeSource", "A GlusterFS volume mounted on the node.", {
      pointer: true,
    }),
    nfs: f(5, "NFSVolumeSource", "An NFS export mounted on the node.", { pointer: true }),
    rbd: f(6, "RBDPersistentVolumeSource", "A Ceph RADOS block device mounted on the node.", {
      pointer: true,
    }),
    iscsi: f(7, "ISCSIPersistentVolumeSource", "An iSCSI disk attached to the node.", { pointer: true }),
    cinder: f(8, "CinderPersistentVolumeSource", "An OpenStack Cinder volume attached to the node.", {
      pointer: true,
    }),
    cephfs: f(9, "CephFSPersistentVolumeSource", "A CephFS file system mounted on the node.", {
      pointer: true,
    }),
    fc: f(10, "FCVolumeSource", "A Fibre Channel disk attached to the node.", { pointer: true }),
    flocker: f(11, "FlockerVolumeSource", "A Flocker dataset; needs the Flocker control service.", {
      pointer: true,
    }),
    flexVolume: f(12, "FlexPersistentVolumeSource", "A volume handled by an exec-based FlexVolume driver.", {
      pointer: true,
    }),
    azureFile: f(13, "AzureFilePersistentVolumeSource", "An Azure Files share.", { pointer: true }),
    vsphereVolume: f(14, "VsphereVirtualDiskVolumeSource", "A vSphere virtual disk.", { pointer: true }),
    quobyte: f(15, "QuobyteVolumeSource", "A Quobyte volume.", { pointer: true }),
    azureDisk: f(16, "AzureDiskVolumeSource", "An Azure data disk.", { pointer: true }),
    photonPersistentDisk: f(17, "PhotonPersistentDiskVolumeSource", "A Photon Controller persistent disk.", {
      pointer: true,
    }),
    portworxVolume: f(18, "PortworxVolumeSource", "A Portworx volume.", { pointer: true }),
    scaleIO: f(19, "ScaleIOPersistentVolumeSource", "A ScaleIO volume.", { pointer: true }),
    local: f(20, "LocalVolumeSource", "Storage attached directly to a node; pair it with nodeAffinity.", {
      pointer: true,
    }),
    storageos: f(21, "StorageOSPersistentVolumeSource", "A StorageOS volume.", { pointer: true }),
    csi: f(22, "CSIPersistentVolumeSource", "A volume served by an external CSI driver.", { pointer: true }),
  }),
  PersistentVolumeSpec: t("What a persistent volume offers and how it may be used.", {
    capacity: f(1, "{}quantity", "Resources the volume provides, chiefly storage."),
    persistentVolumeSource: f(
      2,
      "PersistentVolumeSource",
      "The storage backing the volume; its single member appears directly in the spec.",
      inline,
    ),
    accessModes: f(3, "[]string", `Every way the volume can be mounted: ${accessModes}.`),
    claimRef: f(
      4,
      "ObjectReference",
      "The claim this volume is bound to; set once bound. The claim's volumeName is what finally decides the binding.",
      { structType: "granular", pointer: true },
    ),
    persistentVolumeReclaimPolicy: f(
      5,
      "string",
      "What happens to the volume once its claim is released: Retain (default for volumes created by hand), Delete (default for dynamically provisioned ones) or the deprecated Recycle.",
      { enum: ["Delete", "Recycle", "Retain"] },
    ),
    storageClassName: f(6, "string", "Storage class the volume belongs to; empty means no class."),
    mountOptions: f(
      7,
      "[]string",
      "Options to mount the volume with, such as ro or soft. They are not checked; a bad one makes the mount fail.",
    ),
    volumeMode: f(
      8,
      "string",
      "Whether the volume carries a file system (Filesystem, the default) or stays a raw block device (Block).",
      { ...volumeModeEnum, pointer: true },
    ),
    nodeAffinity: f(
      9,
      "VolumeNodeAffinity",
      "Nodes the volume can be reached from; pods using it are scheduled accordingly.",
      { pointer: true },
    ),
  }),
  PersistentVolumeStatus: t("Observed state of a persistent volume.", {
    phase: f(
      1,
      "string",
      "Where the volume is in its lifecycle: Pending, Available, Bound, Released or Failed.",
    ),
    message: f(2, "string", "Human-readable explanation of the current state."),
    reason: f(3, "string", "Short CamelCase reason for a failure, for tools and display."),
  }),
  PhotonPersistentDiskVolumeSource: t("A VMware Photon Controller persistent disk.", {
    pdID: f(1, "string", "ID of the Photon Controller persistent disk.", { ...required, omitEmpty: false }),
    fsType: f(2, "string", FS_EXT4),
  }),
  PortworxVolumeSource: t("A Portworx volume.", {
    volumeID: f(1, "string", "ID of the Portworx volume.", { ...required, omitEmpty: false }),
    fsType: f(
      2,
      "string",
      "File system to mount, such as ext4 or xfs; the host must support it. When empty, ext4 is assumed.",
    ),
    readOnly: f(3, "bool", READ_ONLY),
  }),
  ProjectedVolumeSource: t(
    "A volume that combines secrets, config maps, downward API data and service account tokens in one directory.",
    {
      sources: f(1, "[]VolumeProjection", "The sources whose files are merged into the volume.", {
        omitEmpty: false,
      }),
      defaultMode: f(2, "int32", `Default permissions of the files. ${MODE_BITS}`, { pointer: true }),
    },
  ),
  QuobyteVolumeSource: t(
    "A Quobyte volume mounted for the lifetime of the pod. No ownership management or SELinux relabeling is done.",
    {
      registry: f(
        1,
        "string",
        "Quobyte registry service(s) to use, as host:port, several separated by commas.",
        { ...required, omitEmpty: false },
      ),
      volume: f(2, "string", "Name of an existing Quobyte volume.", { ...required, omitEmpty: false }),
      readOnly: f(3, "bool", "Mount the Quobyte volume read-only. Defaults to false."),
      user: f(4, "string", "User to map volume access to. Defaults to the service account user."),
      group: f(5, "string", "Group to map volume access to. None by default."),
      tenant: f(
        6,
        "string",
        "Quobyte tenant owning the volume; set by the plugin for dynamically provisioned volumes.",
      ),
    },
  ),
  RBDPersistentVolumeSource: t("A Ceph RADOS block device used as a persistent volume.", {
    monitors: f(1, "[]string", CEPH_MONITORS, { ...required, omitEmpty: false }),
    image: f(2, "string", "Name of the RADOS image.", { ...required, omitEmpty: false }),
    fsType: f(3, "string", FS_EXT4),
    pool: f(4, "string", "RADOS pool of the image. Defaults to rbd."),
    user: f(5, "string", "RADOS user to authenticate as. Defaults to admin."),
    keyring: f(6, "string", "Path of the keyring for the user. Defaults to /etc/ceph/keyring."),
    secretRef: f(7, "SecretReference", "Secret holding the user's key; overrides keyring when set.", {
      pointer: true,
    }),
    readOnly: f(8, "bool", READ_ONLY),
  }),
  RBDVolumeSource: t("A Ceph RADOS block device mounted for the lifetime of the pod.", {
    monitors: f(1, "[]string", CEPH_MONITORS, { ...required, omitEmpty: false }),
    image: f(2, "string", "Name of the RADOS image.", { ...required, omitEmpty: false }),
    fsType: f(3, "string", FS_EXT4),
    pool: f(4, "string", "RADOS pool of the image. Defaults to rbd."),
    user: f(5, "string", "RADOS user to authenticate as. Defaults to admin."),
    keyring: f(6, "string", "Path of the keyring for the user. Defaults to /etc/ceph/keyring."),
    secretRef: f(
      7,
      "LocalObjectReference",
      "Secret, in the pod's namespace, holding the user's key; overrides keyring when set.",
      { pointer: true },
    ),
    readOnly: f(8, "bool", READ_ONLY),
  }),
  ScaleIOPersistentVolumeSource: t("A Dell EMC ScaleIO volume used as a persistent volume.", {
    gateway: f(1, "string", "Address of the ScaleIO API gateway.", { ...required, omitEmpty: false }),
    system: f(2, "string", "Name of the ScaleIO storage system.", { ...required, omitEmpty: false }),
    secretRef: f(
      3,
      "SecretReference",
      "Secret with the ScaleIO user's credentials; logging in fails without it.",
      { ...required, pointer: true, omitEmpty: false },
    ),
    sslEnabled: f(4, "bool", "Talk to the gateway over SSL. Defaults to false."),
    protectionDomain: f(5, "string", "ScaleIO protection domain of the storage."),
    storagePool: f(6, "string", "ScaleIO storage pool within the protection domain."),
    storageMode: f(7, "string", "ThickProvisioned or ThinProvisioned (the default)."),
    volumeName: f(8, "string", "Name of an existing ScaleIO volume to use."),
    fsType: f(
      9,
      "string",
      "File system to mount, such as ext4, xfs or ntfs; the host must support it. Defaults to xfs.",
    ),
    readOnly: f(10, "bool", READ_ONLY),
  }),
  ScaleIOVolumeSource: t("A Dell EMC ScaleIO volume mounted into the pod.", {
    gateway: f(1, "string", "Address of the ScaleIO API gateway.", { ...required, omitEmpty: false }),
    system: f(2, "string", "Name of the ScaleIO storage system.", { ...required, omitEmpty: false }),
    secretRef: f(
      3,
      "LocalObjectReference",
      "Secret, in the pod's namespace, with the ScaleIO user's credentials; logging in fails without it.",
      { ...required, pointer: true, omitEmpty: false },
    ),
    sslEnabled: f(4, "bool", "Talk to the gateway over SSL. Defaults to false."),
    protectionDomain: f(5, "string", "ScaleIO protection domain of the storage."),
    storagePool: f(6, "string", "ScaleIO storage pool within the protection domain."),
    storageMode: f(7, "string", "ThickProvisioned or ThinProvisioned (the default)."),
    volumeName: f(8, "string", "Name of an existing ScaleIO volume to use."),
    fsType: f(
      9,
      "string",
      "File system to mount, such as ext4, xfs or ntfs; the host must support it. Defaults to xfs.",
    ),
    readOnly: f(10, "bool", READ_ONLY),
  }),
  SecretProjection: t(
    "A secret whose entries become files of a projected volume, one file per key unless items picks keys and paths.",
    {
      localObjectReference: f(1, "LocalObjectReference", "The secret to project, by name.", inline),
      items: f(
        2,
        "[]KeyToPath",
        "Which keys to project and the relative path of each; when empty, every key becomes a file named after it. A listed key that is missing is an error unless optional is true.",
      ),
      optional: f(4, "bool", "Allow the secret, or the listed keys, to be absent.", { pointer: true }),
    },
  ),
  SecretReference: t(
    "Names a secret, possibly in another namespace.",
    {
      name: f(1, "string", "Name of the secret."),
      namespace: f(2, "string", "Namespace of the secret."),
    },
    { structType: "atomic" },
  ),
  SecretVolumeSource: t(
    "A volume filled from a secret: each key becomes a file holding its value, unless items picks keys and paths.",
    {
      secretName: f(1, "string", "The secret to mount, looked up in the namespace of the pod."),
      items: f(
        2,
        "[]KeyToPath",
        "Which keys to project and the relative path of each; when empty, every key becomes a file named after it. A listed key that is missing is an error unless optional is true.",
      ),
      defaultMode: f(3, "int32", `Default permissions of the files. ${MODE_BITS} Defaults to 0644.`, {
        pointer: true,
      }),
      optional: f(4, "bool", "Allow the secret, or the listed keys, to be absent.", { pointer: true }),
    },
  ),
  ServiceAccountTokenProjection: t(
    "A token of the pod's service account written into a projected volume, for authenticating to the API server or other services.",
    {
      audience: f(
        1,
        "string",
        "Audience the token is issued for; recipients must reject tokens not meant for them. Defaults to the API server's own identifier.",
      ),
      expirationSeconds: f(
        2,
        "int64",
        "Requested lifetime of the token in seconds; at least 600, default 3600. The kubelet renews the token once it is past 80% of its lifetime or older than 24 hours.",
        { pointer: true },
      ),
      path: f(3, "string", "Where to write the token: a file path relative to where the volume is mounted.", {
        ...required,
        omitEmpty: false,
      }),
    },
  ),
  StorageOSPersistentVolumeSource: t("A StorageOS volume used as a persistent volume.", {
    volumeName: f(
      1,
      "string",
      "Human-readable name of the StorageOS volume, unique within its StorageOS namespace.",
    ),
    volumeNamespace: f(
      2,
      "string",
      'StorageOS namespace of the volume; defaults to the pod\'s namespace. Use "default" when StorageOS namespaces are not used; missing namespaces are created.',
    ),
    fsType: f(3, "string", FS_EXT4),
    readOnly: f(4, "bool", READ_ONLY),
    secretRef: f(
      5,
      "ObjectReference",
      "Secret with the StorageOS API credentials; defaults are tried when unset.",
      { pointer: true },
    ),
  }),
  StorageOSVolumeSource: t("A StorageOS volume mounted into the pod.", {
    volumeName: f(
      1,
      "string",
      "Human-readable name of the StorageOS volume, unique within its StorageOS namespace.",
    ),
    volumeNamespace: f(
      2,
      "string",
      'StorageOS namespace of the volume; defaults to the pod\'s namespace. Use "default" when StorageOS namespaces are not used; missing namespaces are created.',
    ),
    fsType: f(3, "string", FS_EXT4),
    readOnly: f(4, "bool", READ_ONLY),
    secretRef: f(
      5,
      "LocalObjectReference",
      "Secret, in the pod's namespace, with the StorageOS API credentials; defaults are tried when unset.",
      { pointer: true },
    ),
  }),
  TypedLocalObjectReference: t(
    "Points to an object of a given kind in the same namespace.",
    {
      apiGroup: f(
        1,
        "string",
        "API group of the object; empty means the core group. Needed for every kind outside the core group.",
        { pointer: true, omitEmpty: false },
      ),
      kind: f(2, "string", "Kind of the object.", { ...required, omitEmpty: false }),
      name: f(3, "string", "Name of the object.", { ...required, omitEmpty: false }),
    },
    { structType: "atomic" },
  ),
  TypedObjectReference: t("Points to an object of a given kind, possibly in another namespace.", {
    apiGroup: f(
      1,
      "string",
      "API group of the object; empty means the core group. Needed for every kind outside the core group.",
      { pointer: true, omitEmpty: false },
    ),
    kind: f(2, "string", "Kind of the object.", { ...required, omitEmpty: false }),
    name: f(3, "string", "Name of the object.", { ...required, omitEmpty: false }),
    namespace: f(
      4,
      "string",
      "Namespace of the object. A different namespace must grant access with a ReferenceGrant there (alpha, behind CrossNamespaceVolumeDataSource).",
      { pointer: true },
    ),
  }),
  Volume: t("A named volume of a pod that its containers can mount.", {
    name: f(1, "string", "Name of the volume: a DNS label, unique within the pod.", {
      ...required,
      omitEmpty: false,
    }),
    volumeSource: f(
      2,
      "VolumeSource",
      "Where the volume's content comes from; its single member appears directly in the volume. Treated as an emptyDir when none is set (deprecated).",
      inline,
    ),
  }),
  VolumeNodeAffinity: t("Restricts the nodes from which a volume can be reached.", {
    required: f(1, "NodeSelector", "Node constraints that must be satisfied.", { pointer: true }),
  }),
  VolumeProjection: t("One source of a projected volume; set exactly one member.", {
    secret: f(1, "SecretProjection", "Entries of a secret.", { pointer: true }),
    downwardAPI: f(2, "DownwardAPIProjection", "Information about the pod and its containers.", {
      pointer: true,
    }),
    configMap: f(3, "ConfigMapProjection", "Entries of a config map.", { pointer: true }),
    serviceAccountToken: f(4, "ServiceAccountTokenProjection", "A token of the pod's service account.", {
      pointer: true,
    }),
  }),
  VolumeSource: t("Where a pod volume's content comes from. Set at most one member.", {
    hostPath: f(
      1,
      "HostPathVolumeSource",
      "A file or directory of the node, exposed directly; for privileged system agents, rarely needed otherwise.",
      { pointer: true },
    ),
    emptyDir: f(2, "EmptyDirVolumeSource", "A scratch directory that lives as long as the pod.", {
      pointer: true,
    }),
    gcePersistentDisk: f(
      3,
      "GCEPersistentDiskVolumeSource",
      "A Google Compute Engine persistent disk attached to the node.",
      { pointer: true },
    ),
    awsElasticBlockStore: f(
      4,
      "AWSElasticBlockStoreVolumeSource",
      "An Amazon EBS disk attached to the node.",
      { pointer: true },
    ),
    gitRepo: f(
      5,
      "GitRepoVolumeSource",
      "A clone of a git repository. Deprecated: clone from an init container into an emptyDir instead.",
      { pointer: true },
    ),
    secret: f(6, "SecretVolumeSource", "Files filled from a secret.", { pointer: true }),
    nfs: f(7, "NFSVolumeSource", "An NFS export mounted for the pod's lifetime.", { pointer: true }),
    iscsi: f(8, "ISCSIVolumeSource", "An iSCSI disk attached to the node.", { pointer: true }),
    glusterfs: f(9, "GlusterfsVolumeSource", "A GlusterFS volume mounted for the pod's lifetime.", {
      pointer: true,
    }),
    persistentVolumeClaim: f(
      10,
      "PersistentVolumeClaimVolumeSource",
      "The volume bound to a claim in the pod's namespace.",
      { pointer: true },
    ),
    rbd: f(11, "RBDVolumeSource", "A Ceph RADOS block device mounted for the pod's lifetime.", {
      pointer: true,
    }),
    flexVolume: f(12, "FlexVolumeSource", "A volume handled by an exec-based FlexVolume driver.", {
      pointer: true,
    }),
    cinder: f(13, "CinderVolumeSource", "An OpenStack Cinder volume attached to the node.", {
      pointer: true,
    }),
    cephfs: f(14, "CephFSVolumeSource", "A CephFS file system mounted for the pod's lifetime.", {
      pointer: true,
    }),
    flocker: f(15, "FlockerVolumeSource", "A Flocker dataset; needs the Flocker control service.", {
      pointer: true,
    }),
    downwardAPI: f(
      16,
      "DownwardAPIVolumeSource",
      "Files holding information about the pod and its containers.",
      { pointer: true },
    ),
    fc: f(17, "FCVolumeSource", "A Fibre Channel disk attached to the node.", { pointer: true }),
    azureFile: f(18, "AzureFileVolumeSource", "An Azure Files share.", { pointer: true }),
    configMap: f(19, "ConfigMapVolumeSource", "Files filled from a config map.", { pointer: true }),
    vsphereVolume: f(20, "VsphereVirtualDiskVolumeSource", "A vSphere virtual disk.", { pointer: true }),
    quobyte: f(21, "QuobyteVolumeSource", "A Quobyte volume mounted for the pod's lifetime.", {
      pointer: true,
    }),
    azureDisk: f(22, "AzureDiskVolumeSource", "An Azure data disk.", { pointer: true }),
    photonPersistentDisk: f(23, "PhotonPersistentDiskVolumeSource", "A Photon Controller persistent disk.", {
      pointer: true,
    }),
    projected: f(
      26,
      "ProjectedVolumeSource",
      "Secrets, config maps, downward API data and tokens combined in one directory.",
      { pointer: true },
    ),
    portworxVolume: f(24, "PortworxVolumeSource", "A Portworx volume.", { pointer: true }),
    scaleIO: f(25, "ScaleIOVolumeSource", "A ScaleIO volume.", { pointer: true }),
    storageos: f(27, "StorageOSVolumeSource", "A StorageOS volume.", { pointer: true }),
    csi: f(28, "CSIVolumeSource", "An inline volume provided by an external CSI driver.", { pointer: true }),
    ephemeral: f(
      29,
      "EphemeralVolumeSource",
      "A volume from a storage class, created with the pod and deleted with it through a generated claim. Suits data needed only while the pod runs that still wants claim features such as snapshots or capacity tracking.",
      { pointer: true },
    ),
  }),
  VsphereVirtualDiskVolumeSource: t("A vSphere virtual disk (VMDK).", {
    volumePath: f(1, "string", "Path that identifies the VMDK.", { ...required, omitEmpty: false }),
    fsType: f(2, "string", FS_EXT4),
    storagePolicyName: f(3, "string", "Name of the storage policy (SPBM profile) to apply."),
    storagePolicyID: f(4, "string", "ID of the storage policy (SPBM profile) named by storagePolicyName."),
  }),
});
