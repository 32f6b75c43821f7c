// ServiceAccount (core/v1): an identity for processes in pods. References to token secrets keep
// only the secret's name.

import { asObject, asString, type JsonObject } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import type { Strategy } from "../registry/strategy.ts";
import { OBJECT_META_FIELDS, validateMetadataFinalizerNames } from "../validation/object-meta.ts";
import { ageColumn } from "./human-duration.ts";
import { ALL_VERBS, type BuiltinKind, CORE_V1, column } from "./kind.ts";

/** The fields of a reference to another object (core/v1 ObjectReference). */
export const OBJECT_REFERENCE_FIELDS = {
  kind: true,
  namespace: true,
  name: true,
  uid: true,
  apiVersion: true,
  resourceVersion: true,
  fieldPath: true,
} as const;

function cleanSecretReferences(object: JsonObject): void {
  if (!Array.isArray(object.secrets)) return;
  object.secrets = object.secrets.map((ref) => {
    const name = asString(asObject(ref)?.name);
    return name === "" ? {} : { name };
  });
}

export function serviceAccountKind(naming: Naming): BuiltinKind {
  const strategy: Strategy = {
    prepareForCreate: cleanSecretReferences,
    prepareForUpdate: cleanSecretReferences,
    validate: (object) => validateMetadataFinalizerNames(object.metadata, naming),
    validateUpdate: (object) => validateMetadataFinalizerNames(object.metadata, naming),
    fieldTypes: { automountServiceAccountToken: "bool", secrets: "[]object", imagePullSecrets: "[]object" },
    nameRule: "dns-subdomain",
    knownFields: {
      apiVersion: true,
      kind: true,
      metadata: OBJECT_META_FIELDS,
      secrets: { "[]": OBJECT_REFERENCE_FIELDS },
      imagePullSecrets: { "[]": { name: true } },
      automountServiceAccountToken: true,
    },
  };
  return {
    schema: {
      group: "",
      versions: CORE_V1,
      plural: "serviceaccounts",
      singular: "serviceaccount",
      kind: "ServiceAccount",
      listKind: "ServiceAccountList",
      shortNames: ["sa"],
      categories: [],
      namespaced: true,
      verbs: ALL_VERBS,
      // `token` (TokenRequest) is answered by the gateway, not stored.
      subresources: ["token"],
      allowCreateOnUpdate: false,
      tableColumns: [
        column("Secrets", "Number of secrets listed for the account.", (object) =>
          Array.isArray(object.secrets) ? object.secrets.length : 0,
        ),
        ageColumn(),
      ],
    },
    strategy,
  };
}
