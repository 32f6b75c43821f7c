// The registry of the message descriptors of the Kubernetes Protobuf wire format and of the kinds
// that travel in it. Almost every message is generated from the built-in catalog
// (catalog-descriptors.ts); written here by hand are only the messages the catalog models as
// special scalars (Time, MicroTime, FieldsV1, Quantity, IntOrString, RawExtension) and the
// runtime envelope. descriptor-model.ts explains what each field records. Tests cross-check every
// entry against the upstream generated.proto files.
import { type NamingPreset, naming } from "../../backends/naming/index.ts";
import { catalogDescriptors } from "./catalog-descriptors.ts";
import {
  BYTES,
  field,
  INTSTR,
  int32,
  int64,
  type KindDescriptor,
  META_V1,
  META_V1BETA1,
  type MessageDescriptor,
  MICRO_TIME,
  msg,
  msgs,
  RESOURCE,
  RUNTIME,
  str,
  TIME,
} from "./descriptor-model.ts";

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
  INTSTR,
  META_V1,
  RBAC_V1,
  RESOURCE,
  RUNTIME,
} from "./descriptor-model.ts";

const timestampFields = [int64("seconds", 1), int32("nanos", 2)];

/** The messages behind the catalog's special scalars, and the envelope's. */
const SPECIAL_MESSAGES: readonly MessageDescriptor[] = [
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
  {
    name: `${RUNTIME}.RawExtension`,
    fields: [field("raw", 1, BYTES, { pointer: true })],
    special: "rawExtension",
  },
  { name: `${META_V1}.FieldsV1`, fields: [field("Raw", 1, BYTES, { pointer: true })], special: "fieldsV1" },
  { name: TIME, fields: timestampFields, special: "time" },
  { name: MICRO_TIME, fields: timestampFields, special: "microTime" },
  { name: `${RESOURCE}.Quantity`, fields: [str("string", 1)], special: "quantity" },
  {
    name: `${INTSTR}.IntOrString`,
    fields: [int64("type", 1), int32("intVal", 2), str("strVal", 3)],
    special: "intOrString",
  },
];

/**
 * Meta messages that are not catalog types: the metadata-only views client-go's metadata
 * informers ask for, and the event of a Protobuf watch stream.
 */
const META_MESSAGES: readonly MessageDescriptor[] = [
  { name: `${META_V1}.PartialObjectMetadata`, fields: [msg("metadata", 1, `${META_V1}.ObjectMeta`)] },
  {
    name: `${META_V1}.PartialObjectMetadataList`,
    fields: [
      msg("metadata", 1, `${META_V1}.ListMeta`),
      msgs("items", 2, `${META_V1}.PartialObjectMetadata`, { omitEmpty: false, emptyAsArray: true }),
    ],
  },
  {
    // v1beta1's list numbers its fields the other way round.
    name: `${META_V1BETA1}.PartialObjectMetadataList`,
    fields: [
      msg("metadata", 2, `${META_V1}.ListMeta`),
      msgs("items", 1, `${META_V1}.PartialObjectMetadata`, { omitEmpty: false, emptyAsArray: true }),
    ],
  },
  { name: `${META_V1}.WatchEvent`, fields: [str("type", 1), msg("object", 2, `${RUNTIME}.RawExtension`)] },
];

const generated = catalogDescriptors();

/** Every descriptor by its fully qualified name. */
export const MESSAGES: ReadonlyMap<string, MessageDescriptor> = new Map(
  [...SPECIAL_MESSAGES, ...META_MESSAGES, ...generated.messages].map((m) => [m.name, m]),
);

export function messageDescriptor(name: string): MessageDescriptor {
  const descriptor = MESSAGES.get(name);
  if (!descriptor) throw new Error(`no protobuf descriptor for message ${name}`);
  return descriptor;
}

export const KINDS: readonly KindDescriptor[] = [
  ...generated.kinds,
  // Upstream registers these in every group version (and in meta.k8s.io/v1).
  { kind: "DeleteOptions", group: "*", version: "*", message: `${META_V1}.DeleteOptions` },
  { kind: "Status", group: "*", version: "*", message: `${META_V1}.Status` },
  ...["v1", "v1beta1"].map((version) => ({
    kind: "PartialObjectMetadata",
    group: "meta",
    version,
    message: `${META_V1}.PartialObjectMetadata`,
  })),
  {
    kind: "PartialObjectMetadataList",
    group: "meta",
    version: "v1",
    message: `${META_V1}.PartialObjectMetadataList`,
  },
  {
    kind: "PartialObjectMetadataList",
    group: "meta",
    version: "v1beta1",
    message: `${META_V1BETA1}.PartialObjectMetadataList`,
  },
];

// Every naming preset; a Record so that a new preset cannot be forgotten here.
const PRESETS: Record<NamingPreset, true> = { cluster: true, kubernetes: true };

/**
 * The full group names a kind's group prefix has under the naming presets: a body may name
 * its group in either spelling (clients with upstream's group names built in send
 * `rbac.authorization.k8s.io/v1` whatever the server's preset); the caller checks the group
 * against the route, as it does for JSON bodies.
 */
export function groupSpellings(prefix: string, bare = false): readonly string[] {
  if (prefix === "" || prefix === "*" || bare) return [prefix];
  return [...new Set(Object.keys(PRESETS).map((p) => naming(p as NamingPreset).group(prefix)))];
}

const spellings = new Map<string, ReadonlySet<string>>();

function servedIn(k: KindDescriptor, group: string, version: string): boolean {
  if (k.group === "*") return true;
  if (k.version !== version) return false;
  const key = k.bare ? `${k.group} bare` : k.group;
  let groups = spellings.get(key);
  if (!groups) {
    groups = new Set(groupSpellings(k.group, k.bare));
    spellings.set(key, groups);
  }
  return groups.has(group);
}

const KINDS_BY_NAME = new Map<string, KindDescriptor[]>();
for (const k of KINDS) KINDS_BY_NAME.set(k.kind, [...(KINDS_BY_NAME.get(k.kind) ?? []), k]);

/** The descriptor for an envelope's apiVersion and kind, if the gateway knows it. */
export function kindDescriptor(apiVersion: string, kind: string): KindDescriptor | undefined {
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return (KINDS_BY_NAME.get(kind) ?? []).find((k) => servedIn(k, group, version));
}
