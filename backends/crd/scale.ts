// The scale subresource of a custom resource: an autoscaling/v1 Scale read from and written to
// the paths the CRD names (`specReplicasPath`, `statusReplicasPath`, `labelSelectorPath`), with
// upstream's errors. Paths are simple dotted JSON paths such as `.spec.replicas`.
import { asObject, asString, cloneJson, type JsonObject } from "../common/json.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import { goType, goValue } from "./go-values.ts";

export interface ScaleSubresource {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

export type ScaleError = {
  readonly ok: false;
  readonly reason: "BadRequest" | "InternalError";
  readonly message: string;
};

/** Marks a Scale whose spec replicas were unset in the custom resource (upstream's sentinel). */
export const UNSET_SPEC_REPLICAS = -2147483648;
const MAX_INT32 = 2147483647;

function fieldsOf(path: string): string[] {
  return (path.startsWith(".") ? path.slice(1) : path).split(".");
}

const jsonPath = (fields: readonly string[]): string => `.${fields.join(".")}`;

type Nested = { found: false } | { found: true; value: unknown } | { error: string };

// unstructured.NestedFieldNoCopy: missing keys are "not found"; a non-object on the way is an error.
function nestedField(object: JsonObject, fields: readonly string[]): Nested {
  let value: unknown = object;
  for (let i = 0; i < fields.length; i++) {
    if (value === null || value === undefined) return { found: false };
    const o = asObject(value);
    if (!o)
      return {
        error: `${jsonPath(fields.slice(0, i + 1))} accessor error: ${goValue(value)} is of the type ${goType(value)}, expected map[string]interface{}`,
      };
    const key = fields[i] as string;
    if (!Object.hasOwn(o, key)) return { found: false };
    value = o[key];
  }
  return { found: true, value };
}

type NestedInt = { readonly value: number; readonly found: boolean } | { readonly error: string };

/** unstructured.NestedInt64. */
export function nestedInt64(object: JsonObject, path: string): NestedInt {
  const fields = fieldsOf(path);
  const r = nestedField(object, fields);
  if ("error" in r) return { error: r.error };
  if (!r.found) return { value: 0, found: false };
  const v = r.value;
  if (typeof v !== "number" || !Number.isInteger(v))
    return {
      error: `${jsonPath(fields)} accessor error: ${goValue(v)} is of the type ${goType(v)}, expected int64`,
    };
  return { value: v, found: true };
}

type NestedString = { readonly value: string; readonly found: boolean } | { readonly error: string };

/** unstructured.NestedString. */
export function nestedString(object: JsonObject, path: string): NestedString {
  const fields = fieldsOf(path);
  const r = nestedField(object, fields);
  if ("error" in r) return { error: r.error };
  if (!r.found) return { value: "", found: false };
  const v = r.value;
  if (typeof v !== "string")
    return {
      error: `${jsonPath(fields)} accessor error: ${goValue(v)} is of the type ${goType(v)}, expected string`,
    };
  return { value: v, found: true };
}

function int32(v: number): number {
  return Number(BigInt.asIntN(32, BigInt(v)));
}

export type ReadScaleResult =
  | { readonly ok: true; readonly scale: JsonObject; readonly specReplicasFound: boolean }
  | { readonly ok: false; readonly message: string };

/** The Scale of a custom resource (upstream's scaleFromCustomResource). */
export function readScale(object: JsonObject, paths: ScaleSubresource): ReadScaleResult {
  const spec = nestedInt64(object, paths.specReplicasPath);
  if ("error" in spec) return { ok: false, message: spec.error };
  const status = nestedInt64(object, paths.statusReplicasPath);
  if ("error" in status) return { ok: false, message: status.error };
  let selector = "";
  if (paths.labelSelectorPath) {
    const s = nestedString(object, paths.labelSelectorPath);
    if ("error" in s) return { ok: false, message: s.error };
    selector = s.value;
  }
  const m = asObject(object.metadata) ?? {};
  const metadata: JsonObject = { name: asString(m.name) };
  if (asString(m.namespace) !== "") metadata.namespace = m.namespace;
  if (asString(m.uid) !== "") metadata.uid = m.uid;
  if (asString(m.resourceVersion) !== "") metadata.resourceVersion = m.resourceVersion;
  metadata.creationTimestamp = asString(m.creationTimestamp) !== "" ? m.creationTimestamp : null;
  const specReplicas = int32(spec.value);
  return {
    ok: true,
    scale: {
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata,
      spec: specReplicas !== 0 ? { replicas: specReplicas } : {},
      status: { replicas: int32(status.value), ...(selector !== "" ? { selector } : {}) },
    },
    specReplicasFound: spec.found,
  };
}

/** GET of the scale subresource: the Scale, or upstream's error. */
export function getScale(
  object: JsonObject,
  paths: ScaleSubresource,
): { readonly ok: true; readonly scale: JsonObject } | ScaleError {
  const r = readScale(object, paths);
  if (!r.ok) return { ok: false, reason: "InternalError", message: r.message };
  if (!r.specReplicasFound)
    return {
      ok: false,
      reason: "InternalError",
      message: `the spec replicas field ${JSON.stringify(paths.specReplicasPath)} does not exist`,
    };
  return { ok: true, scale: r.scale };
}

/**
 * The Scale an update (PUT or patch of the scale subresource) starts from: as GET, except that
 * missing spec replicas read as UNSET_SPEC_REPLICAS, so that an update leaving them unset fails.
 */
export function scaleForUpdate(
  object: JsonObject,
  paths: ScaleSubresource,
): { readonly ok: true; readonly scale: JsonObject } | ScaleError {
  const r = readScale(object, paths);
  if (!r.ok) return { ok: false, reason: "InternalError", message: r.message };
  if (!r.specReplicasFound) {
    const spec = asObject(r.scale.spec) ?? {};
    spec.replicas = UNSET_SPEC_REPLICAS;
    r.scale.spec = spec;
  }
  return { ok: true, scale: r.scale };
}

/**
 * The custom resource with the replicas of `scale` written to the spec replicas path (and the
 * Scale's resourceVersion, if any, as a precondition); the main resource's update then validates
 * and stores it. `object` is not modified.
 */
export function applyScale(
  object: JsonObject,
  scale: JsonObject,
  paths: ScaleSubresource,
): { readonly ok: true; readonly object: JsonObject } | ScaleError {
  const raw = asObject(scale.spec)?.replicas;
  const replicas = typeof raw === "number" && Number.isInteger(raw) ? int32(raw) : 0;
  if (replicas === UNSET_SPEC_REPLICAS)
    return {
      ok: false,
      reason: "BadRequest",
      message: `the spec replicas field ${JSON.stringify(paths.specReplicasPath)} cannot be empty`,
    };
  const out = cloneJson(object);
  const fields = fieldsOf(paths.specReplicasPath);
  let target: JsonObject = out;
  for (let i = 0; i < fields.length - 1; i++) {
    const key = fields[i] as string;
    const next = target[key];
    if (next === undefined || next === null) {
      const created: JsonObject = {};
      target[key] = created;
      target = created;
      continue;
    }
    const o = asObject(next);
    if (!o)
      return {
        ok: false,
        reason: "InternalError",
        message: `value cannot be set because ${jsonPath(fields.slice(0, i + 1))} is not a map[string]interface{}`,
      };
    target = o;
  }
  target[fields[fields.length - 1] as string] = replicas;
  const rv = asString(asObject(scale.metadata)?.resourceVersion);
  if (rv !== "") {
    const m = asObject(out.metadata) ?? {};
    m.resourceVersion = rv;
    out.metadata = m;
  }
  return { ok: true, object: out };
}

function replicasErrors(object: JsonObject, path: string): FieldError[] {
  const r = nestedInt64(object, path);
  if ("error" in r) return [field.invalid(path, 0, r.error)];
  if (r.value < 0) return [field.invalid(path, r.value, "should be a non-negative integer")];
  if (r.value > MAX_INT32)
    return [field.invalid(path, r.value, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** The spec replicas of a custom resource are a valid int32 (checked on writes of the main resource). */
export function validateScaleSpec(object: JsonObject, paths: ScaleSubresource): FieldError[] {
  return replicasErrors(object, paths.specReplicasPath);
}

/** The status replicas are a valid int32 and the label selector a string (checked on every write). */
export function validateScaleStatus(object: JsonObject, paths: ScaleSubresource): FieldError[] {
  const errs = replicasErrors(object, paths.statusReplicasPath);
  if (paths.labelSelectorPath !== undefined) {
    const s = nestedString(object, paths.labelSelectorPath);
    if ("error" in s) errs.push(field.invalid(paths.labelSelectorPath, "", s.error));
  }
  return errs;
}
