// Volume sources, as a pod lists them and as a PersistentVolume embeds one: exactly one source
// per volume, and each source's own required fields and formats.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { isDNS1123Subdomain } from "../../validation/names.ts";
import { validateObjectFieldSelector, validateResourceFieldSelector } from "./downward-api.ts";
import {
  validateLocalDescendingPath,
  validateLocalNonReservedPath,
  validatePathNoBacksteps,
} from "./paths.ts";
import { milliOf, quantityOf, sign } from "./resources.ts";
import { validatePVCTemplate } from "./storage.ts";
import {
  arr,
  dnsLabel,
  dnsSubdomain,
  inclusiveRange,
  type Json,
  num,
  obj,
  objOrEmpty,
  requiredIfPresent,
  str,
} from "./util.ts";

export const FILE_MODE_ERROR = "must be a number between 0 and 0777 (octal), both inclusive";

/** The keys of a pod volume's source, in upstream's checking order. */
const POD_SOURCES = [
  "emptyDir",
  "hostPath",
  "gitRepo",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "flocker",
  "persistentVolumeClaim",
  "rbd",
  "cinder",
  "cephfs",
  "quobyte",
  "downwardAPI",
  "fc",
  "flexVolume",
  "configMap",
  "azureFile",
  "vsphereVolume",
  "photonPersistentDisk",
  "portworxVolume",
  "azureDisk",
  "storageos",
  "projected",
  "scaleIO",
  "csi",
  "ephemeral",
] as const;

/** Where upstream reports "more than one source" for keys it spells differently there. */
const FORBIDDEN_NAME: Readonly<Record<string, string>> = { cephfs: "cephFS", downwardAPI: "downwarAPI" };
/** Where upstream reports a source's own errors when it spells the key differently. */
const FIELD_NAME: Readonly<Record<string, string>> = { gcePersistentDisk: "persistentDisk" };

const VOLUME_DOWNWARD_API_FIELDS = new Set([
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
]);

const IQN = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$/;
const EUI = /^eui.[A-Za-z0-9]{16}$/;
const NAA = /^naa.[A-Za-z0-9]{32}$/;

/**
 * A source field the catalog marks required: the schema reports it absent, so only a present but
 * empty value is flagged here.
 */
function required(errs: FieldError[], s: Json, key: string, path: string): void {
  if (str(s[key]) === "" && arr(s[key]).length === 0) requiredIfPresent(errs, s[key], `${path}.${key}`);
}

/** A source field upstream insists on although its type leaves it optional. */
function needed(errs: FieldError[], s: Json, key: string, path: string): void {
  if (str(s[key]) === "") errs.push(field.required(`${path}.${key}`));
}

function fileMode(errs: FieldError[], v: unknown, path: string): void {
  const mode = num(v);
  if (mode !== undefined && (mode > 0o777 || mode < 0)) errs.push(field.invalid(path, mode, FILE_MODE_ERROR));
}

function validateKeyToPath(errs: FieldError[], kp: Json, path: string): void {
  if (str(kp.key) === "") requiredIfPresent(errs, kp.key, `${path}.key`);
  if (str(kp.path) === "") requiredIfPresent(errs, kp.path, `${path}.path`);
  validateLocalNonReservedPath(errs, str(kp.path), `${path}.path`);
  fileMode(errs, kp.mode, `${path}.mode`);
}

function validateItems(errs: FieldError[], items: unknown, path: string): void {
  const list = arr(items);
  for (let i = 0; i < list.length; i++) validateKeyToPath(errs, objOrEmpty(list[i]), `${path}[${i}]`);
}

function partition(errs: FieldError[], v: unknown, path: string): void {
  const p = num(v);
  if (p !== undefined && (p < 0 || p > 255)) errs.push(field.invalid(path, p, inclusiveRange(1, 255)));
}

function validateDownwardAPIFile(errs: FieldError[], file: Json, path: string): void {
  const filePath = str(file.path);
  if (filePath === "") requiredIfPresent(errs, file.path, `${path}.path`);
  validateLocalNonReservedPath(errs, filePath, `${path}.path`);
  const fieldRef = obj(file.fieldRef);
  const resourceRef = obj(file.resourceFieldRef);
  if (fieldRef) {
    validateObjectFieldSelector(errs, fieldRef, VOLUME_DOWNWARD_API_FIELDS, `${path}.fieldRef`);
    if (resourceRef)
      errs.push(
        field.invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"),
      );
  } else if (resourceRef) {
    validateResourceFieldSelector(errs, resourceRef, `${path}.resourceFieldRef`, true);
  } else {
    errs.push(field.required(path, "one of fieldRef and resourceFieldRef is required"));
  }
  fileMode(errs, file.mode, `${path}.mode`);
}

function validateProjected(errs: FieldError[], s: Json, path: string): void {
  fileMode(errs, s.defaultMode, `${path}.defaultMode`);
  const paths = new Set<string>();
  const sources = arr(s.sources);
  for (let i = 0; i < sources.length; i++) {
    const src = objOrEmpty(sources[i]);
    const srcPath = `${path}.sources[${i}]`;
    let count = 0;
    for (const kind of ["secret", "configMap"] as const) {
      const ref = obj(src[kind]);
      if (!ref) continue;
      count++;
      const p = `${srcPath}.${kind}`;
      if (str(ref.name) === "") errs.push(field.required(`${p}.name`));
      const items = arr(ref.items);
      for (let j = 0; j < items.length; j++) {
        const kp = objOrEmpty(items[j]);
        validateKeyToPath(errs, kp, `${p}.items[${j}]`);
        const kpPath = str(kp.path);
        if (kpPath !== "") {
          if (paths.has(kpPath)) errs.push(field.invalid(path, str(ref.name), "conflicting duplicate paths"));
          paths.add(kpPath);
        }
      }
    }
    const downward = obj(src.downwardAPI);
    if (downward) {
      count++;
      const p = `${srcPath}.downwardAPI`;
      for (const item of arr(downward.items)) {
        const file = objOrEmpty(item);
        validateDownwardAPIFile(errs, file, p);
        const filePath = str(file.path);
        if (filePath !== "") {
          if (paths.has(filePath)) errs.push(field.invalid(path, filePath, "conflicting duplicate paths"));
          paths.add(filePath);
        }
      }
    }
    const token = obj(src.serviceAccountToken);
    if (token) {
      count++;
      const p = `${srcPath}.serviceAccountToken`;
      const expiration = num(token.expirationSeconds);
      if (expiration !== undefined && expiration < 600)
        errs.push(
          field.invalid(
            `${p}.expirationSeconds`,
            expiration,
            "may not specify a duration less than 10 minutes",
          ),
        );
      if (expiration !== undefined && expiration > 2 ** 32)
        errs.push(
          field.invalid(
            `${p}.expirationSeconds`,
            expiration,
            "may not specify a duration larger than 2^32 seconds",
          ),
        );
      if (str(token.path) === "") requiredIfPresent(errs, token.path, `${path}.path`);
      else validateLocalNonReservedPath(errs, str(token.path), `${path}.path`);
    }
    if (count > 1) errs.push(field.forbidden(srcPath, "may not specify more than 1 volume type"));
  }
}

function validateISCSI(errs: FieldError[], s: Json, path: string, forPV: boolean, name: string): void {
  const portal = str(s.targetPortal);
  if (portal === "") requiredIfPresent(errs, s.targetPortal, `${path}.targetPortal`);
  if (forPV && s.initiatorName != null && `${name}:${portal}`.length > 64) {
    errs.push(
      field.invalid(
        `${path}.targetportal`,
        portal,
        "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
      ),
    );
  }
  const iqn = str(s.iqn);
  if (iqn === "") requiredIfPresent(errs, s.iqn, `${path}.iqn`);
  else iqnFormat(errs, iqn, `${path}.iqn`, forPV ? "must be valid format" : undefined);
  const lun = num(s.lun);
  if (lun !== undefined && (lun < 0 || lun > 255))
    errs.push(field.invalid(`${path}.lun`, lun, inclusiveRange(0, 255)));
  if ((s.chapAuthDiscovery === true || s.chapAuthSession === true) && !obj(s.secretRef))
    errs.push(field.required(`${path}.secretRef`));
  if (forPV) {
    const ref = obj(s.secretRef);
    if (ref && str(ref.name) === "") errs.push(field.required(`${path}.secretRef.name`));
  }
  if (s.initiatorName != null) {
    iqnFormat(
      errs,
      str(s.initiatorName),
      `${path}.initiatorname`,
      forPV ? "must be valid format" : undefined,
    );
  }
}

function iqnFormat(errs: FieldError[], value: string, path: string, prefixMessage: string | undefined): void {
  if (!value.startsWith("iqn") && !value.startsWith("eui") && !value.startsWith("naa")) {
    errs.push(
      field.invalid(path, value, prefixMessage ?? "must be valid format starting with iqn, eui, or naa"),
    );
    return;
  }
  const ok = value.startsWith("iqn")
    ? IQN.test(value)
    : value.startsWith("eui")
      ? EUI.test(value)
      : NAA.test(value);
  if (!ok) errs.push(field.invalid(path, value, "must be valid format"));
}

/** A CSI driver's name: a DNS subdomain of at most 63 characters, case-insensitively. */
export function validateCSIDriverName(errs: FieldError[], driver: string, path: string): void {
  if (driver === "") errs.push(field.required(path));
  if (driver.length > 63) errs.push(field.tooLong(path, 63));
  for (const msg of isDNS1123Subdomain(driver.toLowerCase())) errs.push(field.invalid(path, driver, msg));
}

function validatePVSecretReference(errs: FieldError[], ref: Json, path: string): void {
  if (str(ref.name) === "") errs.push(field.required(`${path}.name`));
  else dnsSubdomain(errs, str(ref.name), `${path}.name`);
  if (str(ref.namespace) === "") errs.push(field.required(`${path}.namespace`));
  else dnsLabel(errs, str(ref.namespace), `${path}.namespace`);
}

function hostPort(pair: string): boolean {
  // Go's net.SplitHostPort: host:port, or [v6]:port; the port may be empty.
  if (pair.startsWith("[")) {
    const end = pair.indexOf("]");
    return end > 0 && pair[end + 1] === ":" && !pair.slice(end + 2).includes(":");
  }
  const colon = pair.lastIndexOf(":");
  return colon >= 0 && pair.indexOf(":") === colon;
}

/**
 * One source's own checks. `forPV` selects the PersistentVolume flavour of a source where it
 * differs; `name` is the volume's (or PV's) name for the checks that involve it.
 */
export function validateVolumeSourceFields(
  errs: FieldError[],
  key: string,
  s: Json,
  sourcePath: string,
  naming: Naming,
  forPV: boolean,
  name: string,
): void {
  const renamed = FIELD_NAME[key];
  const path = renamed ? `${sourcePath.slice(0, sourcePath.lastIndexOf("."))}.${renamed}` : sourcePath;
  switch (key) {
    case "emptyDir": {
      const limit =
        s.sizeLimit === undefined || milliOf(s.sizeLimit) !== undefined ? undefined : quantityOf(s.sizeLimit);
      if (limit && sign(limit) < 0)
        errs.push(field.forbidden(`${path}.sizeLimit`, "SizeLimit field must be a valid resource quantity"));
      return;
    }
    case "hostPath":
      if (str(s.path) === "") requiredIfPresent(errs, s.path, `${path}.path`);
      else validatePathNoBacksteps(errs, str(s.path), `${path}.path`);
      return;
    case "gitRepo":
      required(errs, s, "repository", path);
      validateLocalDescendingPath(errs, str(s.directory), `${path}.directory`);
      return;
    case "gcePersistentDisk":
      required(errs, s, "pdName", path);
      partition(errs, s.partition, `${path}.partition`);
      return;
    case "awsElasticBlockStore":
      required(errs, s, "volumeID", path);
      partition(errs, s.partition, `${path}.partition`);
      return;
    case "secret":
      needed(errs, s, "secretName", path);
      fileMode(errs, s.defaultMode, `${path}.defaultMode`);
      validateItems(errs, s.items, `${path}.items`);
      return;
    case "configMap":
      needed(errs, s, "name", path);
      fileMode(errs, s.defaultMode, `${path}.defaultMode`);
      validateItems(errs, s.items, `${path}.items`);
      return;
    case "nfs":
      required(errs, s, "server", path);
      required(errs, s, "path", path);
      if (s.path !== undefined && !str(s.path).startsWith("/"))
        errs.push(field.invalid(`${path}.path`, str(s.path), "must be an absolute path"));
      return;
    case "iscsi":
      validateISCSI(errs, s, path, forPV, name);
      return;
    case "glusterfs": {
      required(errs, s, "endpoints", path);
      required(errs, s, "path", path);
      if (forPV && s.endpointsNamespace != null) {
        const ns = str(s.endpointsNamespace);
        if (ns === "")
          errs.push(
            field.invalid(
              `${path}.endpointsNamespace`,
              ns,
              "if the endpointnamespace is set, it must be a valid namespace name",
            ),
          );
        else dnsLabel(errs, ns, `${path}.endpointsNamespace`);
      }
      return;
    }
    case "flocker": {
      const dsName = str(s.datasetName);
      const dsUUID = str(s.datasetUUID);
      if (dsName === "" && dsUUID === "")
        errs.push(field.required(path, "one of datasetName and datasetUUID is required"));
      if (dsName !== "" && dsUUID !== "")
        errs.push(
          field.invalid(path, "resource", "datasetName and datasetUUID can not be specified simultaneously"),
        );
      if (dsName.includes("/"))
        errs.push(field.invalid(`${path}.datasetName`, dsName, "must not contain '/'"));
      return;
    }
    case "persistentVolumeClaim":
      required(errs, s, "claimName", path);
      return;
    case "rbd":
      required(errs, s, "monitors", path);
      required(errs, s, "image", path);
      return;
    case "cinder": {
      required(errs, s, "volumeID", path);
      const ref = obj(s.secretRef);
      if (ref) {
        if (str(ref.name) === "") errs.push(field.required(`${path}.secretRef.name`));
        if (forPV && str(ref.namespace) === "") errs.push(field.required(`${path}.secretRef.namespace`));
      }
      return;
    }
    case "cephfs":
      required(errs, s, "monitors", path);
      return;
    case "quobyte": {
      const registry = str(s.registry);
      const pairsMessage = "must be a host:port pair or multiple pairs separated by commas";
      if (registry === "") requiredIfPresent(errs, s.registry, `${path}.registry`, pairsMessage);
      else if (str(s.tenant).length >= 65)
        errs.push(
          field.required(`${path}.tenant`, "must be a UUID and may not exceed a length of 64 characters"),
        );
      else
        for (const pair of registry.split(","))
          if (!hostPort(pair)) errs.push(field.invalid(`${path}.registry`, registry, pairsMessage));
      required(errs, s, "volume", path);
      return;
    }
    case "downwardAPI":
      fileMode(errs, s.defaultMode, `${path}.defaultMode`);
      for (const item of arr(s.items)) validateDownwardAPIFile(errs, objOrEmpty(item), path);
      return;
    case "fc": {
      const wwns = arr(s.targetWWNs);
      const wwids = arr(s.wwids);
      if (wwns.length < 1 && wwids.length < 1)
        errs.push(
          field.required(`${path}.targetWWNs`, "must specify either targetWWNs or wwids, but not both"),
        );
      if (wwns.length !== 0 && wwids.length !== 0)
        errs.push(
          field.invalid(
            `${path}.targetWWNs`,
            wwns,
            "targetWWNs and wwids can not be specified simultaneously",
          ),
        );
      if (wwns.length !== 0) {
        const lun = num(s.lun);
        if (lun === undefined)
          errs.push(field.required(`${path}.lun`, "lun is required if targetWWNs is specified"));
        else if (lun < 0 || lun > 255) errs.push(field.invalid(`${path}.lun`, lun, inclusiveRange(0, 255)));
      }
      return;
    }
    case "flexVolume": {
      required(errs, s, "driver", path);
      const options = obj(s.options);
      if (options) {
        for (const k in options) {
          const slash = k.indexOf("/");
          const ns = `.${(slash >= 0 ? k.slice(0, slash) : k).toLowerCase()}`;
          if (ns.endsWith(`.${naming.labelDomain}`) || ns.endsWith(`.${naming.groupSuffix}`)) {
            errs.push(
              field.invalid(
                `${path}.options[${k}]`,
                k,
                `${naming.labelDomain} and ${naming.groupSuffix} namespaces are reserved`,
              ),
            );
          }
        }
      }
      return;
    }
    case "azureFile":
      required(errs, s, "secretName", path);
      required(errs, s, "shareName", path);
      if (forPV && s.secretNamespace != null && str(s.secretNamespace) === "")
        errs.push(field.required(`${path}.secretNamespace`));
      return;
    case "vsphereVolume":
      required(errs, s, "volumePath", path);
      return;
    case "photonPersistentDisk":
      required(errs, s, "pdID", path);
      return;
    case "portworxVolume":
      required(errs, s, "volumeID", path);
      return;
    case "azureDisk": {
      required(errs, s, "diskName", path);
      required(errs, s, "diskURI", path);
      const uri = str(s.diskURI);
      const kind = s.kind;
      if (typeof kind === "string" && kind === "Managed" && !uri.startsWith("/subscriptions/"))
        errs.push(
          field.notSupported(`${path}.diskURI`, uri, [
            "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}",
          ]),
        );
      if (typeof kind === "string" && kind !== "Managed" && !uri.startsWith("https://"))
        errs.push(
          field.notSupported(`${path}.diskURI`, uri, [
            "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd",
          ]),
        );
      return;
    }
    case "storageos": {
      if (str(s.volumeName) === "") errs.push(field.required(`${path}.volumeName`));
      else dnsLabel(errs, str(s.volumeName), `${path}.volumeName`);
      if (str(s.volumeNamespace) !== "") dnsLabel(errs, str(s.volumeNamespace), `${path}.volumeNamespace`);
      const ref = obj(s.secretRef);
      if (ref) {
        if (str(ref.name) === "") errs.push(field.required(`${path}.secretRef.name`));
        if (forPV && str(ref.namespace) === "") errs.push(field.required(`${path}.secretRef.namespace`));
      }
      return;
    }
    case "projected":
      validateProjected(errs, s, path);
      return;
    case "scaleIO":
      required(errs, s, "gateway", path);
      required(errs, s, "system", path);
      needed(errs, s, "volumeName", path);
      return;
    case "csi": {
      if (s.driver !== undefined) validateCSIDriverName(errs, str(s.driver), `${path}.driver`);
      if (forPV) {
        if (str(s.volumeHandle) === "") requiredIfPresent(errs, s.volumeHandle, `${path}.volumeHandle`);
        for (const ref of [
          "controllerPublishSecretRef",
          "controllerExpandSecretRef",
          "nodePublishSecretRef",
          "nodeExpandSecretRef",
        ]) {
          const r = obj(s[ref]);
          if (r) validatePVSecretReference(errs, r, `${path}.${ref}`);
        }
      } else {
        const ref = obj(s.nodePublishSecretRef);
        if (ref) {
          if (str(ref.name) === "") errs.push(field.required(`${path}.nodePublishSecretRef.name`));
          // Upstream reports a bad secret name at `csi.name`.
          else dnsSubdomain(errs, str(ref.name), `${path}.name`);
        }
      }
      return;
    }
    case "ephemeral": {
      const template = obj(s.volumeClaimTemplate);
      if (!template) errs.push(field.required(`${path}.volumeClaimTemplate`));
      else validatePVCTemplate(errs, template, `${path}.volumeClaimTemplate`, naming);
      return;
    }
  }
}

export interface VolumeContext {
  readonly naming: Naming;
  /** The pod's name when validating a pod (not a template): ephemeral claims are named after it. */
  readonly podName?: string;
}

/**
 * A pod's volumes: unique DNS-label names and exactly one valid source each. Answers the volumes
 * that passed, by name, for the mounts to refer to.
 */
export function validateVolumes(
  errs: FieldError[],
  volumes: readonly unknown[],
  path: string,
  ctx: VolumeContext,
): Map<string, Json> {
  const valid = new Map<string, Json>();
  const createdClaims = new Set<string>();
  if (ctx.podName) {
    for (const v of volumes) {
      const vol = objOrEmpty(v);
      if (vol.ephemeral != null) createdClaims.add(`${ctx.podName}-${str(vol.name)}`);
    }
  }
  for (let i = 0; i < volumes.length; i++) {
    const vol = objOrEmpty(volumes[i]);
    const idxPath = `${path}[${i}]`;
    const name = str(vol.name);
    const before = errs.length;
    validateVolumeSource(errs, vol, idxPath, name, ctx);
    if (name === "") requiredIfPresent(errs, vol.name, `${idxPath}.name`);
    else dnsLabel(errs, name, `${idxPath}.name`);
    if (valid.has(name)) errs.push(field.duplicate(`${idxPath}.name`, name));
    if (errs.length === before && name !== "") valid.set(name, vol);
    const claim = obj(vol.persistentVolumeClaim);
    if (claim && createdClaims.has(str(claim.claimName))) {
      errs.push(
        field.invalid(
          `${idxPath}.persistentVolumeClaim.claimName`,
          str(claim.claimName),
          "must not reference a PVC that gets created for an ephemeral volume",
        ),
      );
    }
  }
  return valid;
}

const POD_SOURCE_SET: ReadonlySet<string> = new Set(POD_SOURCES);

function validateVolumeSource(
  errs: FieldError[],
  vol: Json,
  path: string,
  name: string,
  ctx: VolumeContext,
): void {
  // Usually exactly one source is set: find it without walking the whole list.
  let found: string | undefined;
  let sources = 0;
  for (const key in vol) {
    if (POD_SOURCE_SET.has(key) && vol[key] !== undefined && vol[key] !== null) {
      found = key;
      sources++;
    }
  }
  const keys: readonly string[] = sources === 1 && found !== undefined ? [found] : POD_SOURCES;
  let count = 0;
  for (const key of keys) {
    const source = vol[key];
    if (source === undefined || source === null) continue;
    if (count > 0) {
      errs.push(
        field.forbidden(`${path}.${FORBIDDEN_NAME[key] ?? key}`, "may not specify more than 1 volume type"),
      );
      continue;
    }
    count++;
    const s = objOrEmpty(source);
    validateVolumeSourceFields(errs, key, s, `${path}.${key}`, ctx.naming, false, name);
    if (key === "iscsi" && s.initiatorName != null && `${name}:${str(s.targetPortal)}`.length > 64) {
      errs.push(
        field.invalid(
          `${path}.name`,
          name,
          "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
        ),
      );
    }
    if (key === "ephemeral" && ctx.podName && name !== "") {
      const claimName = `${ctx.podName}-${name}`;
      for (const msg of isDNS1123Subdomain(claimName))
        errs.push(field.invalid(`${path}.name`, name, `PVC name "${claimName}": ${msg}`));
    }
  }
  if (count === 0) errs.push(field.required(path, "must specify a volume type"));
}
