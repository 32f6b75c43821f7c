// Reading the typed maps of ConfigMaps and Secrets the way upstream's decoder does: bytes values
// must be standard base64 and are stored in canonical form; a wrong JSON type or bad base64 is a
// 400 BadRequest naming the kind, as kube-apiserver answers before any validation runs.

import { asObject, asString, type JsonObject, metadataOf } from "../common/json.ts";
import { RegistryError, type ResourceIdentity } from "../registry/errors.ts";
import { decodeBase64 } from "../validation/go-codec.ts";

/** The BadRequest upstream sends when a body cannot be read into the kind's type. */
export function decodeError(target: ResourceIdentity, object: JsonObject, detail: string): RegistryError {
  return new RegistryError(
    "BadRequest",
    target,
    asString(metadataOf(object).name),
    `${target.kind} in version "v1" cannot be handled as a ${target.kind}: ${detail}`,
  );
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

function typeError(
  target: ResourceIdentity,
  object: JsonObject,
  fieldName: string,
  value: unknown,
  goType: string,
) {
  return decodeError(
    target,
    object,
    `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${target.kind}.${fieldName} of type ${goType}`,
  );
}

/** A `map<string, bytes>` field: checks and canonicalizes each base64 value (null becomes ""). */
export function readBytesMap(target: ResourceIdentity, object: JsonObject, fieldName: string): void {
  const raw = object[fieldName];
  if (raw === undefined) return;
  if (raw === null) {
    delete object[fieldName];
    return;
  }
  const map = asObject(raw);
  if (!map) throw typeError(target, object, fieldName, raw, "map[string][]uint8");
  for (const [k, v] of Object.entries(map)) {
    if (v === null) {
      map[k] = "";
      continue;
    }
    if (typeof v !== "string") throw typeError(target, object, fieldName, v, "[]uint8");
    const decoded = decodeBase64(v);
    if (!decoded.ok) throw decodeError(target, object, decoded.error);
    map[k] = decoded.bytes.toString("base64");
  }
}

/** A `map<string, string>` field: checks the value types (null becomes ""). */
export function readStringMap(target: ResourceIdentity, object: JsonObject, fieldName: string): void {
  const raw = object[fieldName];
  if (raw === undefined) return;
  if (raw === null) {
    delete object[fieldName];
    return;
  }
  const map = asObject(raw);
  if (!map) throw typeError(target, object, fieldName, raw, "map[string]string");
  for (const [k, v] of Object.entries(map)) {
    if (v === null) map[k] = "";
    else if (typeof v !== "string") throw typeError(target, object, fieldName, v, "string");
  }
}

/** Bytes held by a canonical base64 value. */
export function decodedLength(value: unknown): number {
  if (typeof value !== "string") return 0;
  return Buffer.byteLength(value, "base64");
}
