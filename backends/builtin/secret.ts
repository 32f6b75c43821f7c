// Secret (core/v1): base64 data under config keys, 1 MiB in all. `stringData` is a write-only
// convenience merged into `data` (winning over it) and never stored. `type` defaults to Opaque,
// never changes, and some types require certain keys.

import {
  asObject,
  asString,
  childPath,
  ensureObject,
  type JsonObject,
  keyPath,
  metadataOf,
} from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import type { ResourceIdentity } from "../registry/errors.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import type { Strategy } from "../registry/strategy.ts";
import { goJsonMapError } from "../validation/go-codec.ts";
import { isConfigMapKey } from "../validation/names.ts";
import {
  FIELD_IMMUTABLE,
  OBJECT_META_FIELDS,
  validateMetadataFinalizerNames,
} from "../validation/object-meta.ts";
import { IMMUTABLE_DETAIL, MAX_DATA_SIZE, sameMap } from "./configmap.ts";
import { decodedLength, readBytesMap, readStringMap } from "./decode.ts";
import { ageColumn } from "./human-duration.ts";
import { ALL_VERBS, type BuiltinKind, CORE_V1, column } from "./kind.ts";

export const SECRET_TYPE_OPAQUE = "Opaque";
const REDACTED = "<secret contents redacted>";
const IDENTITY: ResourceIdentity = { group: "", resource: "secrets", kind: "Secret" };

/** The well-known secret types and keys, spelled with the naming preset's domain. */
export function secretTypes(naming: Naming) {
  return {
    serviceAccountToken: naming.label("service-account-token"),
    dockercfg: naming.label("dockercfg"),
    dockerConfigJson: naming.label("dockerconfigjson"),
    basicAuth: naming.label("basic-auth"),
    sshAuth: naming.label("ssh-auth"),
    tls: naming.label("tls"),
    bootstrapToken: naming.label("token", "bootstrap"),
    /** The annotation a service-account token secret names its account with. */
    serviceAccountNameAnnotation: naming.label("service-account.name"),
  };
}

/** Reads data and stringData, merges stringData into data and drops it, defaults the type. */
function read(object: JsonObject): void {
  readBytesMap(IDENTITY, object, "data");
  readStringMap(IDENTITY, object, "stringData");
  const stringData = asObject(object.stringData);
  if (stringData && Object.keys(stringData).length > 0) {
    const data = ensureObject(object, "data");
    for (const [k, v] of Object.entries(stringData))
      data[k] = Buffer.from(asString(v), "utf8").toString("base64");
  }
  delete object.stringData;
  if (asString(object.type) === "") object.type = SECRET_TYPE_OPAQUE;
}

export function secretKind(naming: Naming): BuiltinKind {
  const types = secretTypes(naming);

  const secretErrors = (object: JsonObject): FieldError[] => {
    const errs: FieldError[] = [];
    const data = asObject(object.data) ?? {};
    let total = 0;
    for (const [key, value] of Object.entries(data)) {
      for (const msg of isConfigMapKey(key)) errs.push(field.invalid(keyPath("data", key), key, msg));
      total += decodedLength(value);
    }
    if (total > MAX_DATA_SIZE) errs.push(field.tooLong("data", MAX_DATA_SIZE));

    const has = (key: string) => Object.hasOwn(data, key);
    const jsonCheck = (key: string) => {
      if (!has(key)) {
        errs.push(field.required(keyPath("data", key)));
        return;
      }
      const problem = goJsonMapError(Buffer.from(asString(data[key]), "base64"));
      if (problem !== undefined) errs.push(field.invalid(keyPath("data", key), REDACTED, problem));
    };
    switch (asString(object.type)) {
      case types.serviceAccountToken: {
        const annotations = asObject(metadataOf(object).annotations) ?? {};
        if (asString(annotations[types.serviceAccountNameAnnotation]) === "") {
          errs.push(
            field.required(keyPath(childPath("metadata", "annotations"), types.serviceAccountNameAnnotation)),
          );
        }
        break;
      }
      case types.dockercfg:
        jsonCheck(".dockercfg");
        break;
      case types.dockerConfigJson:
        jsonCheck(".dockerconfigjson");
        break;
      case types.basicAuth:
        // Either may be empty, but one of them must be there.
        if (!has("username") && !has("password")) {
          errs.push(field.required(keyPath("data", "username")), field.required(keyPath("data", "password")));
        }
        break;
      case types.sshAuth:
        if (decodedLength(data["ssh-privatekey"]) === 0)
          errs.push(field.required(keyPath("data", "ssh-privatekey")));
        break;
      case types.tls:
        if (!has("tls.crt")) errs.push(field.required(keyPath("data", "tls.crt")));
        if (!has("tls.key")) errs.push(field.required(keyPath("data", "tls.key")));
        break;
      default:
        // Opaque, bootstrap tokens and custom types carry no required keys.
        break;
    }
    return errs;
  };

  const strategy: Strategy = {
    prepareForCreate: read,
    prepareForUpdate: read,
    validate(object) {
      return [...validateMetadataFinalizerNames(object.metadata, naming), ...secretErrors(object)];
    },
    validateUpdate(object, old) {
      const errs = validateMetadataFinalizerNames(object.metadata, naming);
      const type = asString(object.type);
      if (type !== asString(old.type)) errs.push(field.invalid("type", type, FIELD_IMMUTABLE));
      if (old.immutable === true) {
        if (object.immutable !== true) errs.push(field.forbidden("immutable", IMMUTABLE_DETAIL));
        if (!sameMap(object.data, old.data)) errs.push(field.forbidden("data", IMMUTABLE_DETAIL));
      }
      errs.push(...secretErrors(object));
      return errs;
    },
    fieldTypes: { immutable: "bool", type: "string" },
    nameRule: "dns-subdomain",
    knownFields: {
      apiVersion: true,
      kind: true,
      metadata: OBJECT_META_FIELDS,
      immutable: true,
      data: { "*": true },
      stringData: { "*": true },
      type: true,
    },
  };

  return {
    schema: {
      group: "",
      versions: CORE_V1,
      plural: "secrets",
      singular: "secret",
      kind: "Secret",
      listKind: "SecretList",
      shortNames: [],
      categories: [],
      namespaced: true,
      verbs: ALL_VERBS,
      subresources: [],
      allowCreateOnUpdate: false,
      selectableFields: (object) => ({ type: asString(object.type) }),
      tableColumns: [
        column("Type", "The kind of secret, which decides the keys it must hold.", (object) =>
          asString(object.type),
        ),
        column(
          "Data",
          "Number of entries in data.",
          (object) => Object.keys(asObject(object.data) ?? {}).length,
        ),
        ageColumn(),
      ],
    },
    strategy,
  };
}
