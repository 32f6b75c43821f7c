// Message descriptors for the Kubernetes Protobuf wire format of the kinds the gateway serves,
// written by hand from the upstream IDL facts (field names, numbers, types, repeated/map) and the
// Go JSON tags; descriptor-model.ts explains what each field records. This file holds the core,
// meta and runtime messages and the registry of every message and kind; the API groups have a
// file each. A test cross-checks every entry against the upstream generated.proto files.
import { type NamingPreset, naming } from "../../backends/naming/index.ts";
import { AUTHENTICATION_KINDS, AUTHENTICATION_MESSAGES } from "./authentication-descriptors.ts";
import { AUTHORIZATION_KINDS, AUTHORIZATION_MESSAGES } from "./authorization-descriptors.ts";
import {
  BYTES,
  bool,
  bytesMap,
  CORE_V1,
  field,
  int32,
  int64,
  type KindDescriptor,
  LIST_META,
  list,
  META_V1,
  type MessageDescriptor,
  MICRO_TIME,
  msg,
  msgs,
  OBJECT_META,
  RUNTIME,
  str,
  stringMap,
  strings,
  TIME,
} from "./descriptor-model.ts";
import { RBAC_KINDS, RBAC_MESSAGES } from "./rbac-descriptors.ts";

export type {
  FieldDescriptor,
  FieldType,
  KindDescriptor,
  MessageDescriptor,
  ScalarType,
  SpecialJson,
} from "./descriptor-model.ts";
export {
  AUTHENTICATION_V1,
  AUTHENTICATION_V1ALPHA1,
  AUTHENTICATION_V1BETA1,
  AUTHORIZATION_V1,
  CORE_V1,
  META_V1,
  RBAC_V1,
  RUNTIME,
} from "./descriptor-model.ts";

const OBJECT_REFERENCE = `${CORE_V1}.ObjectReference`;
const timestampFields = [int64("seconds", 1), int32("nanos", 2)];

const MESSAGE_LIST: readonly MessageDescriptor[] = [
  // runtime
  { name: `${RUNTIME}.TypeMeta`, fields: [str("apiVersion", 1), str("kind", 2)] },
  {
    name: `${RUNTIME}.Unknown`,
    fields: [
      msg("typeMeta", 1, `${RUNTIME}.TypeMeta`),
      field("raw", 2, BYTES, { pointer: true }),
      str("contentEncoding", 3),
      str("contentType", 4),
    ],
  },

  // meta/v1
  {
    name: OBJECT_META,
    fields: [
      str("name", 1),
      str("generateName", 2),
      str("namespace", 3),
      str("selfLink", 4),
      str("uid", 5),
      str("resourceVersion", 6),
      int64("generation", 7),
      msg("creationTimestamp", 8, TIME),
      msg("deletionTimestamp", 9, TIME, { pointer: true }),
      int64("deletionGracePeriodSeconds", 10, { pointer: true }),
      stringMap("labels", 11),
      stringMap("annotations", 12),
      msgs("ownerReferences", 13, `${META_V1}.OwnerReference`),
      strings("finalizers", 14),
      msgs("managedFields", 17, `${META_V1}.ManagedFieldsEntry`),
    ],
  },
  {
    name: `${META_V1}.OwnerReference`,
    fields: [
      str("apiVersion", 5, { omitEmpty: false }),
      str("kind", 1, { omitEmpty: false }),
      str("name", 3, { omitEmpty: false }),
      str("uid", 4, { omitEmpty: false }),
      bool("controller", 6, { pointer: true }),
      bool("blockOwnerDeletion", 7, { pointer: true }),
    ],
  },
  {
    name: `${META_V1}.ManagedFieldsEntry`,
    fields: [
      str("manager", 1),
      str("operation", 2),
      str("apiVersion", 3),
      msg("time", 4, TIME, { pointer: true }),
      str("fieldsType", 6),
      msg("fieldsV1", 7, `${META_V1}.FieldsV1`, { pointer: true }),
      str("subresource", 8),
    ],
  },
  { name: `${META_V1}.FieldsV1`, fields: [field("Raw", 1, BYTES, { pointer: true })], special: "fieldsV1" },
  { name: TIME, fields: timestampFields, special: "time" },
  { name: MICRO_TIME, fields: timestampFields, special: "microTime" },
  {
    name: LIST_META,
    fields: [
      str("selfLink", 1),
      str("resourceVersion", 2),
      str("continue", 3),
      int64("remainingItemCount", 4, { pointer: true }),
    ],
  },
  {
    name: `${META_V1}.DeleteOptions`,
    fields: [
      int64("gracePeriodSeconds", 1, { pointer: true }),
      msg("preconditions", 2, `${META_V1}.Preconditions`, { pointer: true }),
      bool("orphanDependents", 3, { pointer: true }),
      str("propagationPolicy", 4, { pointer: true }),
      strings("dryRun", 5),
    ],
  },
  {
    name: `${META_V1}.Preconditions`,
    fields: [str("uid", 1, { pointer: true }), str("resourceVersion", 2, { pointer: true })],
  },
  {
    name: `${META_V1}.Status`,
    fields: [
      msg("metadata", 1, LIST_META),
      str("status", 2),
      str("message", 3),
      str("reason", 4),
      msg("details", 5, `${META_V1}.StatusDetails`, { pointer: true }),
      int32("code", 6),
    ],
  },
  {
    name: `${META_V1}.StatusDetails`,
    fields: [
      str("name", 1),
      str("group", 2),
      str("kind", 3),
      str("uid", 6),
      msgs("causes", 4, `${META_V1}.StatusCause`),
      int32("retryAfterSeconds", 5),
    ],
  },
  { name: `${META_V1}.StatusCause`, fields: [str("reason", 1), str("message", 2), str("field", 3)] },
  {
    name: `${META_V1}.LabelSelector`,
    fields: [stringMap("matchLabels", 1), msgs("matchExpressions", 2, `${META_V1}.LabelSelectorRequirement`)],
  },
  {
    name: `${META_V1}.LabelSelectorRequirement`,
    fields: [
      str("key", 1, { omitEmpty: false }),
      str("operator", 2, { omitEmpty: false }),
      strings("values", 3),
    ],
  },

  // core/v1
  {
    name: `${CORE_V1}.Namespace`,
    fields: [
      msg("metadata", 1, OBJECT_META),
      msg("spec", 2, `${CORE_V1}.NamespaceSpec`),
      msg("status", 3, `${CORE_V1}.NamespaceStatus`),
    ],
  },
  { name: `${CORE_V1}.NamespaceSpec`, fields: [strings("finalizers", 1)] },
  {
    name: `${CORE_V1}.NamespaceStatus`,
    fields: [str("phase", 1), msgs("conditions", 2, `${CORE_V1}.NamespaceCondition`)],
  },
  {
    name: `${CORE_V1}.NamespaceCondition`,
    fields: [
      str("type", 1, { omitEmpty: false }),
      str("status", 2, { omitEmpty: false }),
      msg("lastTransitionTime", 4, TIME),
      str("reason", 5),
      str("message", 6),
    ],
  },
  {
    name: `${CORE_V1}.ConfigMap`,
    fields: [
      msg("metadata", 1, OBJECT_META),
      bool("immutable", 4, { pointer: true }),
      stringMap("data", 2),
      bytesMap("binaryData", 3),
    ],
  },
  {
    name: `${CORE_V1}.Secret`,
    fields: [
      msg("metadata", 1, OBJECT_META),
      bool("immutable", 5, { pointer: true }),
      bytesMap("data", 2),
      stringMap("stringData", 4),
      str("type", 3),
    ],
  },
  {
    name: `${CORE_V1}.ServiceAccount`,
    fields: [
      msg("metadata", 1, OBJECT_META),
      msgs("secrets", 2, OBJECT_REFERENCE),
      msgs("imagePullSecrets", 3, `${CORE_V1}.LocalObjectReference`),
      bool("automountServiceAccountToken", 4, { pointer: true }),
    ],
  },
  {
    name: OBJECT_REFERENCE,
    fields: [
      str("kind", 1),
      str("namespace", 2),
      str("name", 3),
      str("uid", 4),
      str("apiVersion", 5),
      str("resourceVersion", 6),
      str("fieldPath", 7),
    ],
  },
  { name: `${CORE_V1}.LocalObjectReference`, fields: [str("name", 1)] },
  {
    name: `${CORE_V1}.Event`,
    fields: [
      msg("metadata", 1, OBJECT_META),
      msg("involvedObject", 2, OBJECT_REFERENCE),
      str("reason", 3),
      str("message", 4),
      msg("source", 5, `${CORE_V1}.EventSource`),
      msg("firstTimestamp", 6, TIME),
      msg("lastTimestamp", 7, TIME),
      int32("count", 8),
      str("type", 9),
      msg("eventTime", 10, MICRO_TIME),
      msg("series", 11, `${CORE_V1}.EventSeries`, { pointer: true }),
      str("action", 12),
      msg("related", 13, OBJECT_REFERENCE, { pointer: true }),
      str("reportingComponent", 14, { omitEmpty: false }),
      str("reportingInstance", 15, { omitEmpty: false }),
    ],
  },
  { name: `${CORE_V1}.EventSource`, fields: [str("component", 1), str("host", 2)] },
  { name: `${CORE_V1}.EventSeries`, fields: [int32("count", 1), msg("lastObservedTime", 2, MICRO_TIME)] },
  list(`${CORE_V1}.NamespaceList`, `${CORE_V1}.Namespace`),
  list(`${CORE_V1}.ConfigMapList`, `${CORE_V1}.ConfigMap`),
  list(`${CORE_V1}.SecretList`, `${CORE_V1}.Secret`),
  list(`${CORE_V1}.ServiceAccountList`, `${CORE_V1}.ServiceAccount`),
  list(`${CORE_V1}.EventList`, `${CORE_V1}.Event`),
];

/** Every descriptor by its fully qualified name. */
export const MESSAGES: ReadonlyMap<string, MessageDescriptor> = new Map(
  [...MESSAGE_LIST, ...RBAC_MESSAGES, ...AUTHENTICATION_MESSAGES, ...AUTHORIZATION_MESSAGES].map((m) => [
    m.name,
    m,
  ]),
);

export function messageDescriptor(name: string): MessageDescriptor {
  const descriptor = MESSAGES.get(name);
  if (!descriptor) throw new Error(`no protobuf descriptor for message ${name}`);
  return descriptor;
}

const CORE_KINDS = [
  "Namespace",
  "NamespaceList",
  "ConfigMap",
  "ConfigMapList",
  "Secret",
  "SecretList",
  "ServiceAccount",
  "ServiceAccountList",
  "Event",
  "EventList",
];

export const KINDS: readonly KindDescriptor[] = [
  ...CORE_KINDS.map((kind) => ({ kind, group: "", version: "v1", message: `${CORE_V1}.${kind}` })),
  ...RBAC_KINDS,
  ...AUTHENTICATION_KINDS,
  ...AUTHORIZATION_KINDS,
  // Upstream registers these in every group version (and in meta.k8s.io/v1).
  { kind: "DeleteOptions", group: "*", version: "*", message: `${META_V1}.DeleteOptions` },
  { kind: "Status", group: "*", version: "*", message: `${META_V1}.Status` },
];

// Every naming preset; a Record so that a new preset cannot be forgotten here.
const PRESETS: Record<NamingPreset, true> = { cluster: true, kubernetes: true };

/**
 * The full group names a kind's group prefix has under the naming presets: a body may name
 * its group in either spelling (clients with upstream's group names built in send
 * `rbac.authorization.k8s.io/v1` whatever the server's preset); the caller checks the group
 * against the route, as it does for JSON bodies.
 */
export function groupSpellings(prefix: string): readonly string[] {
  if (prefix === "" || prefix === "*") return [prefix];
  return [...new Set(Object.keys(PRESETS).map((p) => naming(p as NamingPreset).group(prefix)))];
}

const spellings = new Map<string, ReadonlySet<string>>();

function servedIn(k: KindDescriptor, group: string, version: string): boolean {
  if (k.group === "*") return true;
  if (k.version !== version) return false;
  let groups = spellings.get(k.group);
  if (!groups) {
    groups = new Set(groupSpellings(k.group));
    spellings.set(k.group, groups);
  }
  return groups.has(group);
}

/** The descriptor for an envelope's apiVersion and kind, if the gateway knows it. */
export function kindDescriptor(apiVersion: string, kind: string): KindDescriptor | undefined {
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return KINDS.find((k) => k.kind === kind && servedIn(k, group, version));
}
