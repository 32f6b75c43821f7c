// The pod spec as Pods, PodTemplates and every workload's template carry it: containers (names,
// images, ports, environment, mounts, probes, resources, security), volumes, scheduling
// constraints, DNS and the pod's security context. Paths are prefixed with where the spec sits.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { isValidLabelValue, regexError } from "../../validation/names.ts";
import { validateAnnotations } from "../../validation/object-meta.ts";
import { validateObjectFieldSelector, validateResourceFieldSelector } from "./downward-api.ts";
import { okLabelValue, validateLabelMap } from "./fast.ts";
import { parseIP } from "./net.ts";
import { validateLocalDescendingPath } from "./paths.ts";
import { validateResourceRequirements } from "./resources.ts";
import { validateLabelSelector, validateNodeSelectorRequirement } from "./selectors.ts";
import {
  arr,
  dnsLabel,
  dnsSubdomain,
  IS_NEGATIVE,
  inclusiveRange,
  type Json,
  FIELD_VALUE_NOT_FOUND as NOT_FOUND,
  NOT_POSITIVE,
  num,
  obj,
  objOrEmpty,
  qualifiedName,
  requiredIfPresent,
  str,
} from "./util.ts";
import { validateVolumes } from "./volumes.ts";

export interface PodSpecOptions {
  readonly naming: Naming;
  /** Set when the spec is a Pod's own (not a template's): its name, for ephemeral claim names. */
  readonly podName?: string;
  /** The spec is a Pod's own. */
  readonly isPod?: boolean;
}

const MAX_INT32 = 2147483647;
export const INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

export function validateIP(errs: FieldError[], value: string, path: string): boolean {
  if (parseIP(value)) return true;
  errs.push(field.invalid(path, value, INVALID_IP));
  return false;
}

// ---- names ------------------------------------------------------------------------------------

const PORT_NAME_CHARSET = /^[-a-z0-9]+$/;
const PORT_NAME_LETTER = /[a-z]/;

/** An IANA service name: at most 15 characters of [-a-z0-9] with a letter, no edge or double '-'. */
const GOOD_PORT_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isValidPortName(port: string): string[] {
  if (port.length <= 15 && GOOD_PORT_NAME.test(port) && PORT_NAME_LETTER.test(port)) return [];
  const errs: string[] = [];
  if (port.length > 15) errs.push("must be no more than 15 characters");
  if (!PORT_NAME_CHARSET.test(port))
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!PORT_NAME_LETTER.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-")))
    errs.push("must not begin or end with a hyphen");
  return errs;
}

export const PORT_RANGE = inclusiveRange(1, 65535);

export function isValidPortNum(port: number): boolean {
  return port >= 1 && port <= 65535;
}

/** An int-or-string port: a number in range, or an IANA service name. */
export function validatePortNumOrName(errs: FieldError[], port: unknown, path: string): void {
  if (typeof port === "number") {
    if (!isValidPortNum(port)) errs.push(field.invalid(path, port, PORT_RANGE));
  } else if (typeof port === "string") {
    for (const msg of isValidPortName(port)) errs.push(field.invalid(path, port, msg));
  }
}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const ENV_NAME_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*";
const ENV_NAME_MSG =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";

export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!ENV_NAME.test(value))
    errs.push(regexError(ENV_NAME_MSG, ENV_NAME_FMT, "my.env-name", "MY_ENV.NAME", "MyEnvName1"));
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

const HTTP_HEADER = /^[-A-Za-z0-9]+$/;

// ---- containers -------------------------------------------------------------------------------

function validateContainerPorts(errs: FieldError[], ports: readonly unknown[], path: string): void {
  const names = new Set<string>();
  for (let i = 0; i < ports.length; i++) {
    const port = objOrEmpty(ports[i]);
    const p = `${path}[${i}]`;
    const name = str(port.name);
    if (name !== "") {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) for (const msg of msgs) errs.push(field.invalid(`${p}.name`, name, msg));
      else if (names.has(name)) errs.push(field.duplicate(`${p}.name`, name));
      else names.add(name);
    }
    const containerPort = num(port.containerPort) ?? 0;
    if (containerPort === 0) requiredIfPresent(errs, port.containerPort, `${p}.containerPort`);
    else if (!isValidPortNum(containerPort))
      errs.push(field.invalid(`${p}.containerPort`, containerPort, PORT_RANGE));
    const hostPort = num(port.hostPort) ?? 0;
    if (hostPort !== 0 && !isValidPortNum(hostPort))
      errs.push(field.invalid(`${p}.hostPort`, hostPort, PORT_RANGE));
  }
}

const ENV_FIELDS = new Set([
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.podIP",
  "status.podIPs",
]);

function validateKeySelector(errs: FieldError[], ref: Json, path: string): void {
  const name = str(ref.name);
  dnsSubdomain(errs, name, `${path}.name`);
  const key = str(ref.key);
  if (key === "") requiredIfPresent(errs, ref.key, `${path}.key`);
  else for (const msg of configKeyErrors(key)) errs.push(field.invalid(`${path}.key`, key, msg));
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

function configKeyErrors(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push("must be no more than 253 characters");
  if (!CONFIG_KEY.test(key))
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        "[-._a-zA-Z0-9]+",
        "key.name",
        "KEY_NAME",
        "key-name",
      ),
    );
  if (key === ".") errs.push("must not be '.'");
  else if (key === "..") errs.push("must not be '..'");
  else if (key.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

function validateEnv(errs: FieldError[], env: readonly unknown[], path: string): void {
  for (let i = 0; i < env.length; i++) {
    const ev = objOrEmpty(env[i]);
    const p = `${path}[${i}]`;
    const name = str(ev.name);
    if (name === "") requiredIfPresent(errs, ev.name, `${p}.name`);
    else for (const msg of isEnvVarName(name)) errs.push(field.invalid(`${p}.name`, name, msg));
    const from = obj(ev.valueFrom);
    if (!from) continue;
    const fromPath = `${p}.valueFrom`;
    let sources = 0;
    const fieldRef = obj(from.fieldRef);
    if (fieldRef) {
      sources++;
      validateObjectFieldSelector(errs, fieldRef, ENV_FIELDS, `${fromPath}.fieldRef`);
    }
    const resourceRef = obj(from.resourceFieldRef);
    if (resourceRef) {
      sources++;
      validateResourceFieldSelector(errs, resourceRef, `${fromPath}.resourceFieldRef`, false);
    }
    const configMapRef = obj(from.configMapKeyRef);
    if (configMapRef) {
      sources++;
      validateKeySelector(errs, configMapRef, `${fromPath}.configMapKeyRef`);
    }
    const secretRef = obj(from.secretKeyRef);
    if (secretRef) {
      sources++;
      validateKeySelector(errs, secretRef, `${fromPath}.secretKeyRef`);
    }
    if (sources === 0)
      errs.push(
        field.invalid(
          fromPath,
          "",
          "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
        ),
      );
    else if (str(ev.value) !== "")
      errs.push(field.invalid(fromPath, "", "may not be specified when `value` is not empty"));
    else if (sources > 1)
      errs.push(field.invalid(fromPath, "", "may not have more than one field specified at a time"));
  }
}

function validateEnvFrom(errs: FieldError[], envFrom: readonly unknown[], path: string): void {
  for (let i = 0; i < envFrom.length; i++) {
    const ev = objOrEmpty(envFrom[i]);
    const p = `${path}[${i}]`;
    const prefix = str(ev.prefix);
    if (prefix !== "")
      for (const msg of isEnvVarName(prefix)) errs.push(field.invalid(`${p}.prefix`, prefix, msg));
    let sources = 0;
    for (const kind of ["configMapRef", "secretRef"] as const) {
      const ref = obj(ev[kind]);
      if (!ref) continue;
      sources++;
      const name = str(ref.name);
      // The name is checked as a generateName prefix would be: a trailing '-' is fine.
      if (name === "") errs.push(field.required(`${p}.${kind}.name`));
      else
        dnsSubdomain(
          errs,
          name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name,
          `${p}.${kind}.name`,
        );
    }
    if (sources === 0)
      errs.push(field.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"));
    else if (sources > 1)
      errs.push(field.invalid(path, "", "may not have more than one field specified at a time"));
  }
}

function validateVolumeMounts(
  errs: FieldError[],
  mounts: readonly unknown[],
  devices: readonly unknown[],
  volumes: ReadonlyMap<string, Json>,
  privileged: boolean,
  path: string,
): void {
  const mountPoints = new Set<string>();
  for (let i = 0; i < mounts.length; i++) {
    const m = objOrEmpty(mounts[i]);
    const p = `${path}[${i}]`;
    const name = str(m.name);
    const mountPath = str(m.mountPath);
    if (name === "") requiredIfPresent(errs, m.name, `${p}.name`);
    if (!volumes.has(name)) errs.push({ field: `${p}.name`, type: NOT_FOUND, value: name });
    if (mountPath === "") requiredIfPresent(errs, m.mountPath, `${p}.mountPath`);
    if (mountPoints.has(mountPath)) errs.push(field.invalid(`${p}.mountPath`, mountPath, "must be unique"));
    mountPoints.add(mountPath);
    for (const d of devices) {
      const dev = objOrEmpty(d);
      if (str(dev.name) === name)
        errs.push(field.invalid(`${p}.name`, name, "must not already exist in volumeDevices"));
    }
    for (const d of devices) {
      const dev = objOrEmpty(d);
      if (str(dev.devicePath) === mountPath)
        errs.push(
          field.invalid(`${p}.mountPath`, mountPath, "must not already exist as a path in volumeDevices"),
        );
    }
    const subPath = str(m.subPath);
    if (subPath !== "") validateLocalDescendingPath(errs, subPath, `${path}.subPath`);
    const subPathExpr = str(m.subPathExpr);
    if (subPathExpr !== "") {
      if (subPath !== "")
        errs.push(
          field.invalid(`${p}.subPathExpr`, subPathExpr, "subPathExpr and subPath are mutually exclusive"),
        );
      validateLocalDescendingPath(errs, subPathExpr, `${path}.subPathExpr`);
    }
    if (str(m.mountPropagation) === "Bidirectional" && !privileged) {
      errs.push(
        field.forbidden(
          `${path}.mountPropagation`,
          "Bidirectional mount propagation is available only to privileged containers",
        ),
      );
    }
  }
}

function validateVolumeDevices(
  errs: FieldError[],
  devices: readonly unknown[],
  mounts: readonly unknown[],
  volumes: ReadonlyMap<string, Json>,
  path: string,
): void {
  const paths = new Set<string>();
  const names = new Set<string>();
  for (let i = 0; i < devices.length; i++) {
    const d = objOrEmpty(devices[i]);
    const p = `${path}[${i}]`;
    const name = str(d.name);
    const devicePath = str(d.devicePath);
    const vol = volumes.get(name);
    const isPVC = vol !== undefined && (vol.persistentVolumeClaim != null || vol.ephemeral != null);
    if (name === "") requiredIfPresent(errs, d.name, `${p}.name`);
    if (names.has(name)) errs.push(field.invalid(`${p}.name`, name, "must be unique"));
    if (vol && !isPVC)
      errs.push(
        field.invalid(
          `${p}.name`,
          name,
          "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
        ),
      );
    if (!vol) errs.push({ field: `${p}.name`, type: NOT_FOUND, value: name });
    if (devicePath === "") requiredIfPresent(errs, d.devicePath, `${p}.devicePath`);
    if (paths.has(devicePath)) errs.push(field.invalid(`${p}.devicePath`, devicePath, "must be unique"));
    if (devicePath !== "" && devicePath.split("/").includes(".."))
      errs.push(field.invalid(`${p}.devicePath`, devicePath, "can not contain backsteps ('..')"));
    else paths.add(devicePath);
    for (const m of mounts) {
      if (str(objOrEmpty(m).name) === name)
        errs.push(field.invalid(`${p}.name`, name, "must not already exist in volumeMounts"));
    }
    for (const m of mounts) {
      if (str(objOrEmpty(m).mountPath) === devicePath)
        errs.push(
          field.invalid(`${p}.devicePath`, devicePath, "must not already exist as a path in volumeMounts"),
        );
    }
    if (name !== "") names.add(name);
  }
}

function validateHandler(errs: FieldError[], handler: Json, path: string, allowGRPC: boolean): void {
  let count = 0;
  const kinds = allowGRPC
    ? (["exec", "httpGet", "tcpSocket", "grpc"] as const)
    : (["exec", "httpGet", "tcpSocket"] as const);
  for (const kind of kinds) {
    const h = handler[kind];
    if (h === undefined || h === null) continue;
    const p = `${path}.${kind}`;
    if (count > 0) {
      errs.push(field.forbidden(p, "may not specify more than 1 handler type"));
      continue;
    }
    count++;
    const action = objOrEmpty(h);
    switch (kind) {
      case "exec":
        if (arr(action.command).length === 0) errs.push(field.required(`${p}.command`));
        break;
      case "httpGet": {
        if (str(action.path) === "" && action.path !== undefined) errs.push(field.required(`${p}.path`));
        validatePortNumOrName(errs, action.port, `${p}.port`);
        const headers = arr(action.httpHeaders);
        for (const header of headers) {
          const name = str(objOrEmpty(header).name);
          if (!HTTP_HEADER.test(name)) {
            errs.push(
              field.invalid(
                `${p}.httpHeaders`,
                name,
                regexError(
                  "a valid HTTP header must consist of alphanumeric characters or '-'",
                  "[-A-Za-z0-9]+",
                  "X-Header-Name",
                ),
              ),
            );
          }
        }
        break;
      }
      case "tcpSocket":
        validatePortNumOrName(errs, action.port, `${p}.port`);
        break;
      case "grpc": {
        const port = num(action.port) ?? 0;
        if (action.port !== undefined && !isValidPortNum(port))
          errs.push(field.invalid(`${p}.port`, port, PORT_RANGE));
        break;
      }
    }
  }
  if (count === 0) errs.push(field.required(path, "must specify a handler type"));
}

function validateProbe(errs: FieldError[], probeValue: unknown, path: string): Json | undefined {
  const probe = obj(probeValue);
  if (!probe) return undefined;
  validateHandler(errs, probe, path, true);
  for (const key of [
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
  ]) {
    const v = num(probe[key]);
    if (v !== undefined && v < 0) errs.push(field.invalid(`${path}.${key}`, v, IS_NEGATIVE));
  }
  const grace = num(probe.terminationGracePeriodSeconds);
  if (grace !== undefined && grace <= 0)
    errs.push(field.invalid(`${path}.terminationGracePeriodSeconds`, grace, "must be greater than 0"));
  return probe;
}

function validateLifecycle(errs: FieldError[], lifecycle: Json, path: string): void {
  for (const hook of ["postStart", "preStop"] as const) {
    const h = obj(lifecycle[hook]);
    if (h) validateHandler(errs, h, `${path}.${hook}`, false);
  }
}

function validateSeccompProfile(errs: FieldError[], profileValue: unknown, path: string): void {
  const profile = obj(profileValue);
  if (!profile) return;
  // The type itself (required, one of three) is the schema's to check.
  const type = str(profile.type);
  if (type === "Localhost") {
    if (profile.localhostProfile === undefined || profile.localhostProfile === null)
      errs.push(field.required(`${path}.localhostProfile`, "must be set when seccomp type is Localhost"));
    else validateLocalDescendingPath(errs, str(profile.localhostProfile), `${path}.localhostProfile`);
  } else if (profile.localhostProfile !== undefined && profile.localhostProfile !== null) {
    errs.push(
      field.invalid(`${path}.localhostProfile`, profile, "can only be set when seccomp type is Localhost"),
    );
  }
}

const PROC_MOUNTS = ["Default", "Unmasked"];

function validateSecurityContext(errs: FieldError[], scValue: unknown, path: string): void {
  const sc = obj(scValue);
  if (!sc) return;
  for (const key of ["runAsUser", "runAsGroup"] as const) {
    const id = num(sc[key]);
    if (id !== undefined && (id < 0 || id > MAX_INT32))
      errs.push(field.invalid(`${path}.${key}`, id, inclusiveRange(0, MAX_INT32)));
  }
  if (sc.procMount !== undefined && sc.procMount !== null && !PROC_MOUNTS.includes(str(sc.procMount)))
    errs.push(field.notSupported(`${path}.procMount`, sc.procMount, PROC_MOUNTS));
  validateSeccompProfile(errs, sc.seccompProfile, `${path}.seccompProfile`);
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true)
      errs.push(
        field.invalid(path, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"),
      );
    for (const cap of arr(objOrEmpty(sc.capabilities).add)) {
      if (cap === "CAP_SYS_ADMIN")
        errs.push(
          field.invalid(
            path,
            sc,
            "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
          ),
        );
    }
  }
}

function validateContainerCommon(
  errs: FieldError[],
  c: Json,
  volumes: ReadonlyMap<string, Json>,
  path: string,
  opts: PodSpecOptions,
): void {
  const name = str(c.name);
  if (name === "") requiredIfPresent(errs, c.name, `${path}.name`);
  else dnsLabel(errs, name, `${path}.name`);
  if (str(c.image) === "") errs.push(field.required(`${path}.image`));
  const mounts = arr(c.volumeMounts);
  const devices = arr(c.volumeDevices);
  validateContainerPorts(errs, arr(c.ports), `${path}.ports`);
  validateEnv(errs, arr(c.env), `${path}.env`);
  validateEnvFrom(errs, arr(c.envFrom), `${path}.envFrom`);
  const privileged = objOrEmpty(c.securityContext).privileged === true;
  if (mounts.length > 0)
    validateVolumeMounts(errs, mounts, devices, volumes, privileged, `${path}.volumeMounts`);
  if (devices.length > 0) validateVolumeDevices(errs, devices, mounts, volumes, `${path}.volumeDevices`);
  validateResourceRequirements(errs, c.resources, `${path}.resources`, opts.naming);
  validateSecurityContext(errs, c.securityContext, `${path}.securityContext`);
  if (opts.isPod) {
    const image = str(c.image);
    if (image.length !== image.trim().length)
      errs.push(field.invalid(`${path}.image`, image, "must not have leading or trailing whitespace"));
  }
}

/** HostPort clashes between the given containers' ports (protocol, host IP and port). */
function checkHostPortConflicts(
  errs: FieldError[],
  containers: readonly unknown[],
  path: string,
  offset = 0,
  seen = new Set<string>(),
): void {
  for (let ci = 0; ci < containers.length; ci++) {
    const ports = arr(objOrEmpty(containers[ci]).ports);
    for (let pi = 0; pi < ports.length; pi++) {
      const port = objOrEmpty(ports[pi]);
      const hostPort = num(port.hostPort) ?? 0;
      if (hostPort === 0) continue;
      const key = `${str(port.protocol)}/${str(port.hostIP)}/${hostPort}`;
      if (seen.has(key)) errs.push(field.duplicate(`${path}[${ci + offset}].ports[${pi}].hostPort`, key));
      else seen.add(key);
    }
  }
}

function validateContainers(
  errs: FieldError[],
  containers: readonly unknown[],
  volumes: ReadonlyMap<string, Json>,
  path: string,
  opts: PodSpecOptions,
  listed: boolean,
): void {
  if (containers.length === 0) {
    // An absent list in a present spec is the schema's `Required value` already.
    if (listed) errs.push(field.required(path));
    return;
  }
  const names = new Set<string>();
  for (let i = 0; i < containers.length; i++) {
    const c = objOrEmpty(containers[i]);
    const p = `${path}[${i}]`;
    validateContainerCommon(errs, c, volumes, p, opts);
    const name = str(c.name);
    if (names.has(name)) errs.push(field.duplicate(`${p}.name`, name));
    else names.add(name);
    const lifecycle = obj(c.lifecycle);
    if (lifecycle) validateLifecycle(errs, lifecycle, `${p}.lifecycle`);
    const liveness = validateProbe(errs, c.livenessProbe, `${p}.livenessProbe`);
    if (liveness && liveness.successThreshold !== undefined && liveness.successThreshold !== 1)
      errs.push(field.invalid(`${p}.livenessProbe.successThreshold`, liveness.successThreshold, "must be 1"));
    const readiness = validateProbe(errs, c.readinessProbe, `${p}.readinessProbe`);
    if (readiness && readiness.terminationGracePeriodSeconds != null)
      errs.push(
        field.invalid(
          `${p}.readinessProbe.terminationGracePeriodSeconds`,
          readiness.terminationGracePeriodSeconds,
          "must not be set for readinessProbes",
        ),
      );
    const startup = validateProbe(errs, c.startupProbe, `${p}.startupProbe`);
    if (startup && startup.successThreshold !== undefined && startup.successThreshold !== 1)
      errs.push(field.invalid(`${p}.startupProbe.successThreshold`, startup.successThreshold, "must be 1"));
  }
  checkHostPortConflicts(errs, containers, path);
}

function validateInitContainers(
  errs: FieldError[],
  initContainers: readonly unknown[],
  containers: readonly unknown[],
  volumes: ReadonlyMap<string, Json>,
  path: string,
  opts: PodSpecOptions,
): void {
  const names = new Set<string>();
  for (const c of containers) names.add(str(objOrEmpty(c).name));
  for (let i = 0; i < initContainers.length; i++) {
    const c = objOrEmpty(initContainers[i]);
    const p = `${path}[${i}]`;
    validateContainerCommon(errs, c, volumes, p, opts);
    const name = str(c.name);
    if (names.has(name)) errs.push(field.duplicate(`${p}.name`, name));
    else if (name !== "") names.add(name);
    // Init containers run one by one, so only clashes within one of them count.
    checkHostPortConflicts(errs, [c], path, i);
    for (const key of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"] as const) {
      if (c[key] !== undefined && c[key] !== null)
        errs.push(field.forbidden(`${p}.${key}`, "may not be set for init containers"));
    }
  }
}

/** What an ephemeral container may not set: it must not be relied upon by the pod. */
const EPHEMERAL_FORBIDDEN = [
  "ports",
  "resources",
  "resizePolicy",
  "livenessProbe",
  "readinessProbe",
  "startupProbe",
  "lifecycle",
];

/**
 * Whether a value is its Go type's zero value as far as a request can send one: absent, null, an
 * empty list, or a struct with nothing set (`resources: {}`, which clients such as kubectl debug
 * send because Go encodes an empty struct).
 */
function isUnset(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  const o = obj(v);
  return o !== undefined && Object.values(o).every((x) => x === undefined || x === null);
}

function validateEphemeralContainers(
  errs: FieldError[],
  ephemeral: readonly unknown[],
  containers: readonly unknown[],
  initContainers: readonly unknown[],
  volumes: ReadonlyMap<string, Json>,
  path: string,
  opts: PodSpecOptions,
): void {
  if (ephemeral.length === 0) return;
  const others = new Set<string>();
  for (const c of containers) others.add(str(objOrEmpty(c).name));
  for (const c of initContainers) others.add(str(objOrEmpty(c).name));
  const all = new Set(others);
  for (let i = 0; i < ephemeral.length; i++) {
    const c = objOrEmpty(ephemeral[i]);
    const p = `${path}[${i}]`;
    validateContainerCommon(errs, c, volumes, p, { ...opts, isPod: true });
    const name = str(c.name);
    if (all.has(name)) errs.push(field.duplicate(`${p}.name`, name));
    else all.add(name);
    const target = str(c.targetContainerName);
    if (target !== "" && !others.has(target))
      errs.push({ field: `${p}.targetContainerName`, type: NOT_FOUND, value: target });
    for (const key of EPHEMERAL_FORBIDDEN) {
      if (!isUnset(c[key]))
        errs.push(field.forbidden(`${p}.${key}`, "cannot be set for an Ephemeral Container"));
    }
    const mounts = arr(c.volumeMounts);
    for (let j = 0; j < mounts.length; j++) {
      const m = objOrEmpty(mounts[j]);
      if (str(m.subPath) !== "")
        errs.push(
          field.forbidden(`${p}.volumeMounts[${j}].subPath`, "cannot be set for an Ephemeral Container"),
        );
      if (str(m.subPathExpr) !== "")
        errs.push(
          field.forbidden(`${p}.volumeMounts[${j}].subPathExpr`, "cannot be set for an Ephemeral Container"),
        );
    }
  }
}

// ---- scheduling -------------------------------------------------------------------------------

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

export function validateTolerations(errs: FieldError[], tolerations: readonly unknown[], path: string): void {
  for (let i = 0; i < tolerations.length; i++) {
    const t = objOrEmpty(tolerations[i]);
    const p = `${path}[${i}]`;
    const key = str(t.key);
    const operator = str(t.operator);
    const effect = str(t.effect);
    const value = str(t.value);
    if (key !== "") qualifiedName(errs, key, `${p}.key`);
    if (key === "" && operator !== "Exists")
      errs.push(
        field.invalid(
          `${p}.operator`,
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    if (t.tolerationSeconds != null && effect !== "NoExecute")
      errs.push(
        field.invalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      );
    switch (operator) {
      case "Equal":
      case "": {
        const msgs = okLabelValue(value) ? [] : isValidLabelValue(value);
        if (msgs.length > 0) errs.push(field.invalid(`${p}.operator`, value, msgs.join(";")));
        break;
      }
      case "Exists":
        if (value !== "")
          errs.push(field.invalid(`${p}.operator`, value, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(field.notSupported(`${p}.operator`, operator, ["Equal", "Exists"]));
    }
    if (effect !== "" && !TAINT_EFFECTS.includes(effect))
      errs.push(field.notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
  }
}

function validateNodeFieldSelectorRequirement(errs: FieldError[], rq: Json, path: string): void {
  const values = arr(rq.values);
  const op = str(rq.operator);
  if (op === "In" || op === "NotIn") {
    if (values.length !== 1)
      errs.push(
        field.required(
          `${path}.values`,
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        ),
      );
  } else if (op === "Exists" || op === "DoesNotExist" || op === "Gt" || op === "Lt") {
    // Operators outside the enum are the schema's; these are valid for labels, not fields.
    errs.push(field.invalid(`${path}.operator`, op, "not a valid selector operator"));
  }
  if (rq.key === undefined) return;
  if (str(rq.key) !== "metadata.name") {
    errs.push(field.invalid(`${path}.key`, str(rq.key), "not a valid field selector key"));
  } else {
    for (let i = 0; i < values.length; i++) dnsSubdomain(errs, str(values[i]), `${path}.values[${i}]`);
  }
}

function validateNodeSelectorTerm(errs: FieldError[], term: Json, path: string, checkValues: boolean): void {
  const exprs = arr(term.matchExpressions);
  for (let j = 0; j < exprs.length; j++)
    validateNodeSelectorRequirement(
      errs,
      objOrEmpty(exprs[j]),
      `${path}.matchExpressions[${j}]`,
      checkValues,
    );
  const fields = arr(term.matchFields);
  for (let j = 0; j < fields.length; j++)
    validateNodeFieldSelectorRequirement(errs, objOrEmpty(fields[j]), `${path}.matchFields[${j}]`);
}

function validatePodAffinityTerm(errs: FieldError[], term: Json, path: string): void {
  validateLabelSelector(errs, term.labelSelector, `${path}.labelSelector`);
  validateLabelSelector(errs, term.namespaceSelector, `${path}.namespaceSelector`);
  for (const ns of arr(term.namespaces)) dnsLabel(errs, str(ns), `${path}.namespace`);
  if (term.topologyKey === undefined) return;
  const topologyKey = str(term.topologyKey);
  if (topologyKey === "") errs.push(field.required(`${path}.topologyKey`, "can not be empty"));
  qualifiedName(errs, topologyKey, `${path}.topologyKey`);
}

function validatePodAffinity(errs: FieldError[], affinity: Json, path: string): void {
  const required = arr(affinity.requiredDuringSchedulingIgnoredDuringExecution);
  for (let i = 0; i < required.length; i++)
    validatePodAffinityTerm(
      errs,
      objOrEmpty(required[i]),
      `${path}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`,
    );
  const preferred = arr(affinity.preferredDuringSchedulingIgnoredDuringExecution);
  for (let i = 0; i < preferred.length; i++) {
    const w = objOrEmpty(preferred[i]);
    const p = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    const weight = num(w.weight);
    if (weight !== undefined && (weight <= 0 || weight > 100))
      errs.push(field.invalid(`${p}.weight`, weight, "must be in the range 1-100"));
    validatePodAffinityTerm(errs, objOrEmpty(w.podAffinityTerm), `${p}.podAffinityTerm`);
  }
}

function validateAffinity(errs: FieldError[], affinityValue: unknown, path: string): void {
  const affinity = obj(affinityValue);
  if (!affinity) return;
  const node = obj(affinity.nodeAffinity);
  if (node) {
    const p = `${path}.nodeAffinity`;
    const required = obj(node.requiredDuringSchedulingIgnoredDuringExecution);
    if (required) {
      const termsPath = `${p}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
      const terms = arr(required.nodeSelectorTerms);
      if (terms.length === 0)
        requiredIfPresent(
          errs,
          required.nodeSelectorTerms,
          termsPath,
          "must have at least one node selector term",
        );
      for (let i = 0; i < terms.length; i++)
        validateNodeSelectorTerm(errs, objOrEmpty(terms[i]), `${termsPath}[${i}]`, true);
    }
    const preferred = arr(node.preferredDuringSchedulingIgnoredDuringExecution);
    for (let i = 0; i < preferred.length; i++) {
      const term = objOrEmpty(preferred[i]);
      const tp = `${p}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      const weight = num(term.weight);
      if (weight !== undefined && (weight <= 0 || weight > 100))
        errs.push(field.invalid(`${tp}.weight`, weight, "must be in the range 1-100"));
      // A preferred term may name label values no node has yet.
      validateNodeSelectorTerm(errs, objOrEmpty(term.preference), `${tp}.preference`, false);
    }
  }
  const podAffinity = obj(affinity.podAffinity);
  if (podAffinity) validatePodAffinity(errs, podAffinity, `${path}.podAffinity`);
  const podAntiAffinity = obj(affinity.podAntiAffinity);
  if (podAntiAffinity) validatePodAffinity(errs, podAntiAffinity, `${path}.podAntiAffinity`);
}

function validateTopologySpreadConstraints(
  errs: FieldError[],
  constraints: readonly unknown[],
  path: string,
): void {
  for (let i = 0; i < constraints.length; i++) {
    const c = objOrEmpty(constraints[i]);
    const p = `${path}[${i}]`;
    const maxSkew = num(c.maxSkew);
    if (maxSkew !== undefined && maxSkew <= 0)
      errs.push(field.invalid(`${p}.maxSkew`, maxSkew, NOT_POSITIVE));
    const key = str(c.topologyKey);
    if (key === "") requiredIfPresent(errs, c.topologyKey, `${p}.topologyKey`, "can not be empty");
    const action = str(c.whenUnsatisfiable);
    for (let j = i + 1; j < constraints.length; j++) {
      const other = objOrEmpty(constraints[j]);
      if (str(other.topologyKey) === key && str(other.whenUnsatisfiable) === action) {
        errs.push(field.duplicate(`${p}.{topologyKey, whenUnsatisfiable}`, `{${key}, ${action}}`));
        break;
      }
    }
    const minDomains = num(c.minDomains);
    if (minDomains !== undefined) {
      if (minDomains <= 0) errs.push(field.invalid(`${p}.minDomains`, minDomains, NOT_POSITIVE));
      // Only the other enum member: an absent or unknown action is the schema's error.
      if (action === "ScheduleAnyway")
        errs.push(
          field.invalid(
            `${p}.minDomains`,
            minDomains,
            `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`,
          ),
        );
    }
    const keys = arr(c.matchLabelKeys);
    if (keys.length > 0) {
      const selector = obj(c.labelSelector);
      const selectorKeys = new Set<string>();
      if (selector) {
        for (const k in objOrEmpty(selector.matchLabels)) selectorKeys.add(k);
        for (const e of arr(selector.matchExpressions)) selectorKeys.add(str(objOrEmpty(e).key));
      } else {
        errs.push(
          field.forbidden(`${p}.matchLabelKeys`, "must not be specified when labelSelector is not set"),
        );
      }
      for (let j = 0; j < keys.length; j++) {
        const k = str(keys[j]);
        qualifiedName(errs, k, `${p}.matchLabelKeys[${j}]`);
        if (selectorKeys.has(k))
          errs.push(
            field.invalid(`${p}.matchLabelKeys[${j}]`, k, "exists in both matchLabelKeys and labelSelector"),
          );
      }
    }
    validateLabelSelector(errs, c.labelSelector, `${p}.labelSelector`);
  }
}

// ---- pod-level settings -----------------------------------------------------------------------

const SYSCTL = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
const SYSCTL_MESSAGE = `must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`;

function validatePodSecurityContext(errs: FieldError[], scValue: unknown, path: string): void {
  const sc = obj(scValue);
  if (!sc) return;
  const fsGroup = num(sc.fsGroup);
  if (fsGroup !== undefined && (fsGroup < 0 || fsGroup > MAX_INT32))
    errs.push(field.invalid(`${path}.fsGroup`, fsGroup, inclusiveRange(0, MAX_INT32)));
  for (const key of ["runAsUser", "runAsGroup"] as const) {
    const id = num(sc[key]);
    if (id !== undefined && (id < 0 || id > MAX_INT32))
      errs.push(field.invalid(`${path}.${key}`, id, inclusiveRange(0, MAX_INT32)));
  }
  const groups = arr(sc.supplementalGroups);
  for (let i = 0; i < groups.length; i++) {
    const g = num(groups[i]);
    if (g !== undefined && (g < 0 || g > MAX_INT32))
      errs.push(field.invalid(`${path}.supplementalGroups[${i}]`, g, inclusiveRange(0, MAX_INT32)));
  }
  const sysctls = arr(sc.sysctls);
  const names = new Set<string>();
  for (let i = 0; i < sysctls.length; i++) {
    const sysctl = objOrEmpty(sysctls[i]);
    const name = str(sysctl.name);
    const p = `${path}.sysctls[${i}].name`;
    if (name === "") requiredIfPresent(errs, sysctl.name, p);
    else if (name.length > 253 || !SYSCTL.test(name)) errs.push(field.invalid(p, name, SYSCTL_MESSAGE));
    else if (names.has(name)) errs.push(field.duplicate(p, name));
    names.add(name);
  }
  validateSeccompProfile(errs, sc.seccompProfile, `${path}.seccompProfile`);
}

/** The shareProcessNamespace check upstream runs with the pod-level security settings. */
function validateShareProcessNamespace(errs: FieldError[], spec: Json, path: string): void {
  if (spec.shareProcessNamespace === true && spec.hostPID === true)
    errs.push(
      field.invalid(
        `${path}.securityContext.shareProcessNamespace`,
        true,
        "ShareProcessNamespace and HostPID cannot both be enabled",
      ),
    );
}

function validateHostNetwork(errs: FieldError[], spec: Json, path: string): void {
  if (spec.hostNetwork !== true) return;
  const containers = arr(spec.containers);
  for (let i = 0; i < containers.length; i++) {
    const ports = arr(objOrEmpty(containers[i]).ports);
    for (let j = 0; j < ports.length; j++) {
      const port = objOrEmpty(ports[j]);
      const containerPort = num(port.containerPort) ?? 0;
      // Defaulting copies containerPort into an unset hostPort of host-network pods.
      const hostPort = num(port.hostPort) ?? 0;
      if (hostPort !== 0 && hostPort !== containerPort)
        errs.push(
          field.invalid(
            `${path}.containers[${i}].ports[${j}].containerPort`,
            containerPort,
            "must match `hostPort` when `hostNetwork` is true",
          ),
        );
    }
  }
}

function validateDNSConfig(errs: FieldError[], spec: Json, path: string): void {
  const config = obj(spec.dnsConfig);
  if (str(spec.dnsPolicy) === "None") {
    if (!config) {
      errs.push(field.required(path, "must provide `dnsConfig` when `dnsPolicy` is None"));
      return;
    }
    if (arr(config.nameservers).length === 0) {
      errs.push(
        field.required(
          `${path}.nameservers`,
          "must provide at least one DNS nameserver when `dnsPolicy` is None",
        ),
      );
      return;
    }
  }
  if (!config) return;
  const nameservers = arr(config.nameservers);
  if (nameservers.length > 3)
    errs.push(field.invalid(`${path}.nameservers`, nameservers, "must not have more than 3 nameservers"));
  for (let i = 0; i < nameservers.length; i++)
    validateIP(errs, str(nameservers[i]), `${path}.nameservers[${i}]`);
  const searches = arr(config.searches).map(str);
  if (searches.length > 32)
    errs.push(field.invalid(`${path}.searches`, searches, "must not have more than 32 search paths"));
  if (searches.join(" ").length > 2048)
    errs.push(
      field.invalid(
        `${path}.searches`,
        searches,
        "must not have more than 2048 characters (including spaces) in the search list",
      ),
    );
  for (let i = 0; i < searches.length; i++) {
    const s = searches[i]!;
    dnsSubdomain(errs, s.endsWith(".") ? s.slice(0, -1) : s, `${path}.searches[${i}]`);
  }
  const options = arr(config.options);
  for (let i = 0; i < options.length; i++) {
    if (str(objOrEmpty(options[i]).name) === "")
      errs.push(field.required(`${path}.options[${i}]`, "must not be empty"));
  }
}

const WINDOWS_POD_FORBIDDEN = [
  "seLinuxOptions",
  "seccompProfile",
  "fsGroup",
  "fsGroupChangePolicy",
  "sysctls",
  "runAsUser",
  "runAsGroup",
  "supplementalGroups",
];
const WINDOWS_CONTAINER_FORBIDDEN = [
  "seLinuxOptions",
  "seccompProfile",
  "capabilities",
  "readOnlyRootFilesystem",
  "privileged",
  "allowPrivilegeEscalation",
  "procMount",
  "runAsUser",
  "runAsGroup",
];

function forEachContainer(spec: Json, path: string, fn: (c: Json, p: string) => void): void {
  for (const kind of ["initContainers", "containers", "ephemeralContainers"] as const) {
    const list = arr(spec[kind]);
    for (let i = 0; i < list.length; i++) fn(objOrEmpty(list[i]), `${path}.${kind}[${i}]`);
  }
}

function hasValue(v: unknown): boolean {
  return v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
}

function validateOS(errs: FieldError[], spec: Json, path: string): void {
  const os = obj(spec.os);
  if (!os) return;
  const name = str(os.name);
  if (name === "") {
    requiredIfPresent(errs, os.name, `${path}.os.name`, "cannot be empty");
    return;
  }
  if (name !== "linux" && name !== "windows") {
    errs.push(field.notSupported(`${path}.os`, name, ["linux", "windows"]));
    return;
  }
  const sc = obj(spec.securityContext);
  if (name === "linux") {
    if (sc && hasValue(sc.windowsOptions))
      errs.push(
        field.forbidden(
          `${path}.securityContext.windowsOptions`,
          "windows options cannot be set for a linux pod",
        ),
      );
    forEachContainer(spec, path, (c, p) => {
      if (hasValue(objOrEmpty(c.securityContext).windowsOptions))
        errs.push(
          field.forbidden(
            `${p}.securityContext.windowsOptions`,
            "windows options cannot be set for a linux pod",
          ),
        );
    });
    return;
  }
  if (sc) {
    for (const key of WINDOWS_POD_FORBIDDEN)
      if (hasValue(sc[key]))
        errs.push(field.forbidden(`${path}.securityContext.${key}`, "cannot be set for a windows pod"));
  }
  if (spec.shareProcessNamespace != null)
    errs.push(field.forbidden(`${path}.shareProcessNamespace`, "cannot be set for a windows pod"));
  if (spec.hostPID === true) errs.push(field.forbidden(`${path}.hostPID`, "cannot be set for a windows pod"));
  if (spec.hostIPC === true) errs.push(field.forbidden(`${path}.hostIPC`, "cannot be set for a windows pod"));
  forEachContainer(spec, path, (c, p) => {
    const csc = obj(c.securityContext);
    if (!csc) return;
    for (const key of WINDOWS_CONTAINER_FORBIDDEN)
      if (hasValue(csc[key]))
        errs.push(field.forbidden(`${p}.securityContext.${key}`, "cannot be set for a windows pod"));
  });
}

/** Everything a pod spec must satisfy wherever it sits. */
export function validatePodSpec(
  errs: FieldError[],
  specValue: unknown,
  path: string,
  opts: PodSpecOptions,
): void {
  const spec = objOrEmpty(specValue);
  const volumes = validateVolumes(errs, arr(spec.volumes), `${path}.volumes`, {
    naming: opts.naming,
    ...(opts.podName ? { podName: opts.podName } : {}),
  });
  const containers = arr(spec.containers);
  const initContainers = arr(spec.initContainers);
  validateContainers(
    errs,
    containers,
    volumes,
    `${path}.containers`,
    opts,
    spec !== specValue || spec.containers !== undefined,
  );
  validateInitContainers(errs, initContainers, containers, volumes, `${path}.initContainers`, opts);
  validateEphemeralContainers(
    errs,
    arr(spec.ephemeralContainers),
    containers,
    initContainers,
    volumes,
    `${path}.ephemeralContainers`,
    opts,
  );
  validateHostNetwork(errs, spec, path);
  const nodeSelector = spec.nodeSelector;
  if (nodeSelector !== undefined) validateLabelMap(errs, nodeSelector, `${path}.nodeSelector`);
  validatePodSecurityContext(errs, spec.securityContext, `${path}.securityContext`);
  validateShareProcessNamespace(errs, spec, path);
  validateAffinity(errs, spec.affinity, `${path}.affinity`);
  validateDNSConfig(errs, spec, `${path}.dnsConfig`);
  const gates = arr(spec.readinessGates);
  for (let i = 0; i < gates.length; i++) {
    const conditionType = objOrEmpty(gates[i]).conditionType;
    if (conditionType !== undefined)
      qualifiedName(errs, str(conditionType), `${path}.readinessGates[${i}].conditionType`);
  }
  const schedulingGates = arr(spec.schedulingGates);
  const gateNames = new Set<string>();
  for (let i = 0; i < schedulingGates.length; i++) {
    const raw = objOrEmpty(schedulingGates[i]).name;
    const name = str(raw);
    if (raw !== undefined) qualifiedName(errs, name, `${path}.schedulingGates[${i}]`);
    if (gateNames.has(name)) errs.push(field.duplicate(`${path}.schedulingGates[${i}]`, name));
    gateNames.add(name);
  }
  validateTopologySpreadConstraints(
    errs,
    arr(spec.topologySpreadConstraints),
    `${path}.topologySpreadConstraints`,
  );
  const serviceAccount = str(spec.serviceAccountName);
  if (serviceAccount !== "") dnsSubdomain(errs, serviceAccount, `${path}.serviceAccountName`);
  const nodeName = str(spec.nodeName);
  if (nodeName !== "") dnsSubdomain(errs, nodeName, `${path}.nodeName`);
  const deadline = num(spec.activeDeadlineSeconds);
  if (deadline !== undefined && (deadline < 1 || deadline > MAX_INT32))
    errs.push(field.invalid(`${path}.activeDeadlineSeconds`, deadline, inclusiveRange(1, MAX_INT32)));
  const hostname = str(spec.hostname);
  if (hostname !== "") dnsLabel(errs, hostname, `${path}.hostname`);
  const subdomain = str(spec.subdomain);
  if (subdomain !== "") dnsLabel(errs, subdomain, `${path}.subdomain`);
  const tolerations = arr(spec.tolerations);
  if (tolerations.length > 0) validateTolerations(errs, tolerations, `${path}.tolerations`);
  const aliases = arr(spec.hostAliases);
  for (let i = 0; i < aliases.length; i++) {
    const alias = objOrEmpty(aliases[i]);
    validateIP(errs, str(alias.ip), `${path}.hostAliases[${i}].ip`);
    const names = arr(alias.hostnames);
    for (let j = 0; j < names.length; j++)
      dnsSubdomain(errs, str(names[j]), `${path}.hostAliases[${i}].hostnames[${j}]`);
  }
  const priorityClass = str(spec.priorityClassName);
  if (priorityClass !== "") dnsSubdomain(errs, priorityClass, `${path}.priorityClassName`);
  if (spec.runtimeClassName != null)
    dnsSubdomain(errs, str(spec.runtimeClassName), `${path}.runtimeClassName`);
  const overhead = obj(spec.overhead);
  if (overhead) validateResourceRequirements(errs, { limits: overhead }, `${path}.overhead`, opts.naming);
  validateOS(errs, spec, path);
}

/** A template's labels, annotations and pod spec; templates never carry ephemeral containers. */
export function validatePodTemplateSpec(
  errs: FieldError[],
  templateValue: unknown,
  path: string,
  opts: PodSpecOptions,
): void {
  const template = objOrEmpty(templateValue);
  const meta = objOrEmpty(template.metadata);
  if (meta.labels !== undefined) validateLabelMap(errs, meta.labels, `${path}.labels`);
  if (meta.annotations !== undefined)
    errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  validatePodSpec(errs, template.spec, `${path}.spec`, opts);
  if (arr(objOrEmpty(template.spec).ephemeralContainers).length > 0)
    errs.push(
      field.forbidden(`${path}.spec.ephemeralContainers`, "ephemeral containers not allowed in pod template"),
    );
}
