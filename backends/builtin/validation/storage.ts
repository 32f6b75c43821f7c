// Storage kinds: PersistentVolumeClaim (and the claim templates of ephemeral volumes),
// PersistentVolume and StorageClass.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { compareQuantities } from "../../schema/structural/quantity.ts";
import { validateAnnotations } from "../../validation/object-meta.ts";
import { validateLabelMap } from "./fast.ts";
import { validatePathNoBacksteps } from "./paths.ts";
import {
  quantityOf,
  quantityText,
  sign,
  validatePositiveQuantity,
  validateResourceQuantityValue,
} from "./resources.ts";
import { validateLabelSelector, validateNodeSelectorRequirement } from "./selectors.ts";
import {
  arr,
  describeDiff,
  dnsLabel,
  dnsSubdomain,
  immutable,
  type Json,
  obj,
  objOrEmpty,
  qualifiedName,
  requiredIfPresent,
  semanticEqual,
  size,
  str,
} from "./util.ts";
import { validateVolumeSourceFields } from "./volumes.ts";

const ACCESS_MODES = new Set(["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"]);

function validateAccessModes(errs: FieldError[], modes: readonly unknown[], path: string): void {
  let once = false;
  let other = false;
  for (const m of modes) {
    const mode = str(m);
    if (mode === "ReadWriteOncePod") once = true;
    else if (ACCESS_MODES.has(mode)) other = true;
  }
  if (once && other) errs.push(field.forbidden(path, "may not use ReadWriteOncePod with other access modes"));
}

function validateDataSource(errs: FieldError[], ref: Json, path: string, withNamespace: boolean): void {
  const kind = str(ref.kind);
  if (str(ref.name) === "") requiredIfPresent(errs, ref.name, `${path}.name`);
  if (kind === "") requiredIfPresent(errs, ref.kind, `${path}.kind`);
  const group = str(ref.apiGroup);
  if (group === "" && kind !== "PersistentVolumeClaim" && ref.kind !== undefined)
    errs.push(
      field.invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"),
    );
  if (group !== "") dnsSubdomain(errs, group, `${path}.apiGroup`);
  if (withNamespace && str(ref.namespace) !== "") dnsLabel(errs, str(ref.namespace), `${path}.namespace`);
}

/** A PersistentVolumeClaimSpec (claims, claim templates of ephemeral volumes). */
export function validatePVCSpec(errs: FieldError[], specValue: unknown, path: string, naming: Naming): void {
  const spec = objOrEmpty(specValue);
  const modes = arr(spec.accessModes);
  if (modes.length === 0)
    errs.push(field.required(`${path}.accessModes`, "at least 1 access mode is required"));
  if (spec.selector !== undefined && spec.selector !== null)
    validateLabelSelector(errs, spec.selector, `${path}.selector`);
  validateAccessModes(errs, modes, `${path}.accessModes`);
  const requests = obj(objOrEmpty(spec.resources).requests);
  const storagePath = `${path}.resources[storage]`;
  if (!requests || !Object.hasOwn(requests, "storage")) {
    errs.push(field.required(storagePath));
  } else {
    const q = quantityOf(requests.storage);
    if (q) {
      if (sign(q) <= 0) validatePositiveQuantity(errs, q, storagePath);
      else validateResourceQuantityValue(errs, "storage", q, storagePath, naming);
    }
  }
  const className = str(spec.storageClassName);
  if (className !== "") dnsSubdomain(errs, className, `${path}.storageClassName`);
  const ds = obj(spec.dataSource);
  const dsr = obj(spec.dataSourceRef);
  if (ds) validateDataSource(errs, ds, `${path}.dataSource`, false);
  if (dsr) validateDataSource(errs, dsr, `${path}.dataSourceRef`, true);
  if (ds && dsr) {
    const same =
      str(ds.apiGroup) === str(dsr.apiGroup) &&
      (ds.apiGroup === undefined) === (dsr.apiGroup === undefined) &&
      str(ds.kind) === str(dsr.kind) &&
      str(ds.name) === str(dsr.name);
    if (!same) errs.push(field.invalid(path, `${path}.dataSource`, "must match dataSourceRef"));
  }
}

const TEMPLATE_META_ALLOWED = new Set(["labels", "annotations"]);

/** A claim template inside a pod's ephemeral volume: labels and annotations only, and a claim spec. */
export function validatePVCTemplate(errs: FieldError[], template: Json, path: string, naming: Naming): void {
  const meta = objOrEmpty(template.metadata);
  const metaPath = `${path}.metadata`;
  errs.push(...validateAnnotations(meta.annotations, `${metaPath}.annotations`));
  validateLabelMap(errs, meta.labels, `${metaPath}.labels`);
  for (const k in meta) {
    if (!TEMPLATE_META_ALLOWED.has(k) && meta[k] !== undefined && meta[k] !== null && meta[k] !== "")
      errs.push(field.forbidden(`${metaPath}.${k}`, "cannot be set"));
  }
  validatePVCSpec(errs, template.spec, `${path}.spec`, naming);
}

/** PersistentVolumeClaim create. */
export function validatePVC(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  validatePVCSpec(errs, object.spec, "spec", naming);
  return errs;
}

/**
 * PersistentVolumeClaim update: the spec is frozen, except that the volume may be bound once, a
 * class may be set where there was none, and a bound claim may grow its storage request.
 */
export function validatePVCUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs = validatePVC(object, naming);
  const spec = objOrEmpty(object.spec);
  const oldSpec = objOrEmpty(old.spec);
  const nowView: Json = { ...spec };
  const oldView: Json = { ...oldSpec };
  if (str(oldSpec.volumeName) === "") oldView.volumeName = spec.volumeName;
  const betaClass = naming.label("storage-class", "volume.beta");
  const oldAnnotations = objOrEmpty(objOrEmpty(old.metadata).annotations);
  const newAnnotations = objOrEmpty(objOrEmpty(object.metadata).annotations);
  const oldHasBeta = Object.hasOwn(oldAnnotations, betaClass);
  const newClass = spec.storageClassName;
  const oldClassUnset = oldSpec.storageClassName === undefined || oldSpec.storageClassName === null;
  const newClassSet = newClass !== undefined && newClass !== null;
  if (
    oldHasBeta &&
    oldClassUnset &&
    newClassSet &&
    newClass === oldAnnotations[betaClass] &&
    (!Object.hasOwn(newAnnotations, betaClass) || newAnnotations[betaClass] === oldAnnotations[betaClass])
  ) {
    // Moving the class from the beta annotation into the field.
    delete nowView.storageClassName;
  } else {
    if (str(newAnnotations[betaClass]) !== str(oldAnnotations[betaClass])) {
      errs.push(
        field.invalid(
          `metadata.annotations.${betaClass}`,
          str(newAnnotations[betaClass]),
          "field is immutable",
        ),
      );
    }
    // A class may be set once where none was, if it agrees with a beta annotation.
    if (newClassSet && oldClassUnset && (!oldHasBeta || newClass === oldAnnotations[betaClass])) {
      nowView.storageClassName = oldSpec.storageClassName;
    }
  }
  const bound = str(objOrEmpty(object.status).phase) === "Bound";
  const newRequests = obj(objOrEmpty(spec.resources).requests);
  if (bound && newRequests) {
    const oldStorage = objOrEmpty(objOrEmpty(oldSpec.resources).requests).storage;
    nowView.resources = {
      ...objOrEmpty(spec.resources),
      requests: { ...newRequests, storage: oldStorage },
    };
  }
  if (!semanticEqual(nowView, oldView)) {
    errs.push(
      field.forbidden(
        "spec",
        `spec is immutable after creation except resources.requests for bound claims\n${describeDiff(oldView, nowView, "spec")}`,
      ),
    );
  }
  const oldSize = quantityOf(objOrEmpty(objOrEmpty(oldSpec.resources).requests).storage);
  const newSize = quantityOf(newRequests?.storage);
  if (oldSize && newSize && compareQuantities(newSize, oldSize) < 0) {
    errs.push(
      field.forbidden("spec.resources.requests.storage", "field can not be less than previous value"),
    );
  }
  immutable(errs, spec.volumeMode, oldSpec.volumeMode, "volumeMode");
  return errs;
}

/** The keys of a PersistentVolume's inline volume source, in upstream's checking order. */
const PV_SOURCES = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "glusterfs",
  "flocker",
  "nfs",
  "rbd",
  "quobyte",
  "cephfs",
  "iscsi",
  "cinder",
  "fc",
  "flexVolume",
  "azureFile",
  "vsphereVolume",
  "photonPersistentDisk",
  "portworxVolume",
  "azureDisk",
  "scaleIO",
  "local",
  "storageos",
  "csi",
] as const;

/** Where upstream reports "more than one source" when it spells the key differently. */
const PV_FORBIDDEN_NAME: Readonly<Record<string, string>> = { cephfs: "cephFS" };

function validateVolumeNodeAffinity(errs: FieldError[], affinity: Json, path: string): void {
  const required = obj(affinity.required);
  if (!required) {
    errs.push(field.required(`${path}.required`, "must specify required node constraints"));
    return;
  }
  validateNodeSelectorForVolume(errs, required, `${path}.required`);
}

function validateNodeSelectorForVolume(errs: FieldError[], selector: Json, path: string): void {
  const terms = arr(selector.nodeSelectorTerms);
  if (terms.length === 0) {
    requiredIfPresent(
      errs,
      selector.nodeSelectorTerms,
      `${path}.nodeSelectorTerms`,
      "must have at least one node selector term",
    );
    return;
  }
  for (let i = 0; i < terms.length; i++) {
    const term = objOrEmpty(terms[i]);
    const exprs = arr(term.matchExpressions);
    for (let j = 0; j < exprs.length; j++) {
      const rq = objOrEmpty(exprs[j]);
      const p = `${path}.nodeSelectorTerms[${i}].matchExpressions[${j}]`;
      validateNodeSelectorRequirement(errs, rq, p, false);
    }
  }
}

/** PersistentVolume create. */
export function validatePV(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  const modes = arr(spec.accessModes);
  if (modes.length === 0) errs.push(field.required("spec.accessModes"));
  validateAccessModes(errs, modes, "spec.accessModes");
  const capacity = obj(spec.capacity);
  if (size(capacity) === 0) errs.push(field.required("spec.capacity"));
  if (!capacity || !Object.hasOwn(capacity, "storage") || size(capacity) > 1) {
    errs.push(field.notSupported("spec.capacity", capacity ?? {}, ["storage"]));
  }
  if (capacity) {
    for (const name in capacity) {
      const q = quantityOf(capacity[name]);
      if (!q) continue;
      const p = `spec.capacity[${name}]`;
      if (sign(q) < 0) errs.push(field.invalid(p, quantityText(q), "must be a valid resource quantity"));
      validatePositiveQuantity(errs, q, p);
    }
  }
  let nodeAffinitySpecified = false;
  const nodeAffinity = obj(spec.nodeAffinity);
  if (nodeAffinity) {
    nodeAffinitySpecified = true;
    validateVolumeNodeAffinity(errs, nodeAffinity, "spec.nodeAffinity");
  }
  let count = 0;
  for (const key of PV_SOURCES) {
    const source = spec[key];
    if (source === undefined || source === null) continue;
    const p = `spec.${key}`;
    if (count > 0 && key !== "flexVolume") {
      errs.push(
        field.forbidden(`spec.${PV_FORBIDDEN_NAME[key] ?? key}`, "may not specify more than 1 volume type"),
      );
      continue;
    }
    count++;
    const s = objOrEmpty(source);
    if (key === "local") {
      if (str(s.path) === "") requiredIfPresent(errs, s.path, `${p}.path`);
      else validatePathNoBacksteps(errs, str(s.path), `${p}.path`);
      if (!nodeAffinitySpecified)
        errs.push(field.required("spec.nodeAffinity", "Local volume requires node affinity"));
    } else {
      validateVolumeSourceFields(errs, key, s, p, naming, true, str(objOrEmpty(object.metadata).name));
    }
  }
  if (count === 0) errs.push(field.required("spec", "must specify a volume type"));
  const hostPath = obj(spec.hostPath);
  if (
    hostPath &&
    cleanPath(str(hostPath.path)) === "/" &&
    str(spec.persistentVolumeReclaimPolicy) === "Recycle"
  ) {
    errs.push(
      field.forbidden(
        "spec.persistentVolumeReclaimPolicy",
        "may not be 'recycle' for a hostPath mount of '/'",
      ),
    );
  }
  const className = str(spec.storageClassName);
  if (className !== "") dnsSubdomain(errs, className, "spec.storageClassName");
  return errs;
}

/** Go's path.Clean for the one question asked of it here: is the path the root? */
function cleanPath(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(part);
  }
  const joined = out.join("/");
  return rooted ? `/${joined}` : joined || ".";
}

/** PersistentVolume update: the volume source and mode are frozen; node affinity too once set. */
export function validatePVUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs = validatePV(object, naming);
  const spec = objOrEmpty(object.spec);
  const oldSpec = objOrEmpty(old.spec);
  const now: Json = {};
  const before: Json = {};
  for (const key of PV_SOURCES) {
    now[key] = spec[key];
    before[key] = oldSpec[key];
  }
  // An expansion secret may be added to a CSI volume that had none.
  const csiNow = obj(spec.csi);
  const csiOld = obj(oldSpec.csi);
  if (
    csiNow &&
    csiOld &&
    csiOld.controllerExpandSecretRef == null &&
    csiNow.controllerExpandSecretRef != null
  ) {
    const { controllerExpandSecretRef: _, ...rest } = csiNow;
    now.csi = rest;
  }
  if (!semanticEqual(now, before)) {
    errs.push(
      field.forbidden(
        "spec.persistentvolumesource",
        `spec.persistentvolumesource is immutable after creation\n${describeDiff(before, now, "spec")}`,
      ),
    );
  }
  immutable(errs, spec.volumeMode, oldSpec.volumeMode, "volumeMode");
  if (oldSpec.nodeAffinity !== undefined && oldSpec.nodeAffinity !== null) {
    if (!nodeAffinityEqualModuloGA(spec.nodeAffinity, oldSpec.nodeAffinity, naming)) {
      errs.push(
        field.invalid(
          "nodeAffinity",
          spec.nodeAffinity ?? null,
          "field is immutable, except for updating from beta label to GA",
        ),
      );
    }
  }
  return errs;
}

/** Equality of volume node affinities where a requirement's beta label key may become its GA key. */
function nodeAffinityEqualModuloGA(now: unknown, old: unknown, naming: Naming): boolean {
  const d = naming.labelDomain;
  const betaToGA: Record<string, string> = {
    [`failure-domain.beta.${d}/zone`]: `topology.${d}/zone`,
    [`failure-domain.beta.${d}/region`]: `topology.${d}/region`,
    [`beta.${d}/os`]: `${d}/os`,
    [`beta.${d}/arch`]: `${d}/arch`,
    [`beta.${d}/instance-type`]: `node.${d}/instance-type`,
  };
  const walk = (a: unknown, b: unknown): boolean => {
    const oa = obj(a);
    const ob = obj(b);
    if (oa && ob && typeof oa.key === "string" && typeof ob.key === "string" && "operator" in oa) {
      const key = oa.key !== ob.key && betaToGA[ob.key] === oa.key ? oa.key : ob.key;
      return semanticEqual(oa, { ...ob, key });
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) return false;
      return a.every((x, i) => walk(x, b[i]));
    }
    if (oa && ob) {
      const keys = new Set([...Object.keys(oa), ...Object.keys(ob)]);
      for (const k of keys) if (!walk(oa[k], ob[k])) return false;
      return true;
    }
    return semanticEqual(a, b);
  };
  return walk(now, old);
}

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const RECLAIM_POLICIES = ["Delete", "Retain"];

/** StorageClass create. */
export function validateStorageClass(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = str(object.provisioner);
  if (provisioner === "") requiredIfPresent(errs, object.provisioner, "provisioner");
  else qualifiedName(errs, provisioner.toLowerCase(), "provisioner");
  const params = obj(object.parameters);
  if (params) {
    const count = size(params);
    if (count > MAX_PARAMETERS) {
      errs.push({
        field: "parameters",
        type: "FieldValueTooLong",
        detail: `must have at most ${MAX_PARAMETERS} bytes`,
      });
    } else {
      let total = 0;
      for (const k in params) {
        if (k.length < 1) errs.push(field.invalid("parameters", k, "field can not be empty."));
        total += Buffer.byteLength(k) + Buffer.byteLength(str(params[k]));
      }
      if (total > MAX_PARAMETERS_SIZE) errs.push(field.tooLong("parameters", MAX_PARAMETERS_SIZE));
    }
  }
  // The schema's enum admits Recycle, which a class may not use; other values are the schema's.
  const reclaim = str(object.reclaimPolicy);
  if (reclaim === "Recycle") errs.push(field.notSupported("reclaimPolicy", reclaim, RECLAIM_POLICIES));
  const topologies = arr(object.allowedTopologies);
  if (topologies.length > 0) validateAllowedTopologies(errs, topologies, "allowedTopologies");
  return errs;
}

function validateAllowedTopologies(errs: FieldError[], terms: readonly unknown[], path: string): void {
  // Upstream compares each term with every one before it, starting from as many empty terms as
  // there are terms: an empty term therefore always reads as a duplicate.
  const seen: string[] = new Array<string>(terms.length).fill("");
  for (let i = 0; i < terms.length; i++) {
    const term = objOrEmpty(terms[i]);
    const exprs = arr(term.matchLabelExpressions);
    const byKey = new Map<string, string>();
    for (let j = 0; j < exprs.length; j++) {
      const rq = objOrEmpty(exprs[j]);
      const p = `${path}[${i}].matchLabelExpressions[${j}]`;
      const values = arr(rq.values).map(str);
      if (values.length === 0) requiredIfPresent(errs, rq.values, `${p}.values`);
      const valueSet = new Set<string>();
      values.forEach((v, k) => {
        if (valueSet.has(v)) errs.push(field.duplicate(`${p}.values[${k}]`, v));
        valueSet.add(v);
      });
      const key = str(rq.key);
      if (rq.key !== undefined) qualifiedName(errs, key, `${p}.key`);
      if (byKey.has(key)) errs.push(field.duplicate(`${p}.key`, key));
      byKey.set(key, [...valueSet].sort().join(","));
    }
    const signature = [...byKey]
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join(";");
    for (const previous of seen) {
      if (previous === signature) errs.push(field.duplicate(`${path}[${i}].matchLabelExpressions`, ""));
    }
    seen.push(signature);
  }
}

/** StorageClass update: what decides provisioning is frozen. */
export function validateStorageClassUpdate(object: Json, old: Json): FieldError[] {
  const errs = validateStorageClass(object);
  if (!semanticEqual(object.parameters, old.parameters))
    errs.push(field.forbidden("parameters", "updates to parameters are forbidden."));
  if (str(object.provisioner) !== str(old.provisioner))
    errs.push(field.forbidden("provisioner", "updates to provisioner are forbidden."));
  if (str(object.reclaimPolicy || "Delete") !== str(old.reclaimPolicy || "Delete"))
    errs.push(field.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  immutable(errs, object.volumeBindingMode, old.volumeBindingMode, "volumeBindingMode");
  return errs;
}
