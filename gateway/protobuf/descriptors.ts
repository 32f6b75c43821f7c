// Message descriptors for the Kubernetes Protobuf wire format of the kinds the gateway serves,
// written by hand from the upstream IDL facts (field names, numbers, types, repeated/map).
//
// Besides the wire facts, each field records how the Go type behind it behaves, because the JSON
// we produce must be what a Go client would have sent as JSON for the same object:
// - `pointer`: the Go field is a pointer (or a []byte). It is written only when set, and a zero
//   value that arrives on the wire is kept (`"immutable": false`). Value fields are always
//   written, so a zero value on the wire means "unset".
// - `omitEmpty`: the Go JSON tag has omitempty. A value field without it is emitted even when
//   zero (`"reportingComponent": ""`). Value structs are always emitted: omitempty does not
//   apply to Go structs (`"spec": {}`), and a zero Time/MicroTime is `null`.
// Fields are listed in Go struct order, which is the JSON key order; the wire order is by number.
// A test cross-checks every entry against the upstream generated.proto files.

export type ScalarType = "string" | "bool" | "int32" | "int64";

export type FieldType =
  | { readonly kind: "scalar"; readonly scalar: ScalarType }
  | { readonly kind: "bytes" }
  | { readonly kind: "message"; readonly message: string }
  | { readonly kind: "map"; readonly value: "string" | "bytes" };

export interface FieldDescriptor {
  /** The JSON name, which is also the Protobuf field name. */
  readonly name: string;
  readonly number: number;
  readonly type: FieldType;
  readonly repeated: boolean;
  /** Go pointer (or []byte): written only when set; zero values on the wire are kept. */
  readonly pointer: boolean;
  /** Go's `omitempty`: an empty value is left out of the JSON. */
  readonly omitEmpty: boolean;
}

/**
 * Messages whose JSON form is not an object of their fields:
 * - `time`: meta/v1 Time, RFC 3339 in whole seconds (`2006-01-02T15:04:05Z`), `null` when zero;
 * - `microTime`: meta/v1 MicroTime, RFC 3339 with six fractional digits, `null` when zero;
 * - `fieldsV1`: meta/v1 FieldsV1, whose `Raw` bytes hold the JSON value itself.
 */
export type SpecialJson = "time" | "microTime" | "fieldsV1";

export interface MessageDescriptor {
  /** Fully qualified Protobuf name, e.g. `k8s.io.api.core.v1.Namespace`. */
  readonly name: string;
  /** In Go struct order (the JSON key order). */
  readonly fields: readonly FieldDescriptor[];
  readonly special?: SpecialJson;
}

export const CORE_V1 = "k8s.io.api.core.v1";
export const META_V1 = "k8s.io.apimachinery.pkg.apis.meta.v1";
export const RUNTIME = "k8s.io.apimachinery.pkg.runtime";

interface FieldOptions {
  repeated?: boolean;
  pointer?: boolean;
  /** Defaults to true: almost every field of these kinds is omitempty. */
  omitEmpty?: boolean;
}

function field(name: string, number: number, type: FieldType, options: FieldOptions = {}): FieldDescriptor {
  return {
    name,
    number,
    type,
    repeated: options.repeated ?? false,
    pointer: options.pointer ?? false,
    omitEmpty: options.omitEmpty ?? true,
  };
}

const STRING: FieldType = { kind: "scalar", scalar: "string" };
const BOOL: FieldType = { kind: "scalar", scalar: "bool" };
const INT32: FieldType = { kind: "scalar", scalar: "int32" };
const INT64: FieldType = { kind: "scalar", scalar: "int64" };
const BYTES: FieldType = { kind: "bytes" };

const str = (name: string, number: number, options?: FieldOptions) => field(name, number, STRING, options);
const bool = (name: string, number: number, options?: FieldOptions) => field(name, number, BOOL, options);
const int32 = (name: string, number: number, options?: FieldOptions) => field(name, number, INT32, options);
const int64 = (name: string, number: number, options?: FieldOptions) => field(name, number, INT64, options);
const strings = (name: string, number: number) => field(name, number, STRING, { repeated: true });
const msg = (name: string, number: number, message: string, options?: FieldOptions) =>
  field(name, number, { kind: "message", message }, options);
const msgs = (name: string, number: number, message: string, options?: FieldOptions) =>
  field(name, number, { kind: "message", message }, { ...options, repeated: true });
const stringMap = (name: string, number: number) => field(name, number, { kind: "map", value: "string" });
const bytesMap = (name: string, number: number) => field(name, number, { kind: "map", value: "bytes" });

const OBJECT_META = `${META_V1}.ObjectMeta`;
const LIST_META = `${META_V1}.ListMeta`;
const TIME = `${META_V1}.Time`;
const MICRO_TIME = `${META_V1}.MicroTime`;
const OBJECT_REFERENCE = `${CORE_V1}.ObjectReference`;

const timestampFields = [int64("seconds", 1), int32("nanos", 2)];

function list(name: string, item: string): MessageDescriptor {
  return {
    name,
    fields: [msg("metadata", 1, LIST_META), msgs("items", 2, item, { omitEmpty: false })],
  };
}

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
export const MESSAGES: ReadonlyMap<string, MessageDescriptor> = new Map(MESSAGE_LIST.map((m) => [m.name, m]));

export function messageDescriptor(name: string): MessageDescriptor {
  const descriptor = MESSAGES.get(name);
  if (!descriptor) throw new Error(`no protobuf descriptor for message ${name}`);
  return descriptor;
}

/** A top-level kind that can travel in the envelope. */
export interface KindDescriptor {
  readonly kind: string;
  /** The only apiVersion it is served in, or `"*"` for meta kinds registered in every group version. */
  readonly apiVersion: string;
  readonly message: string;
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
  ...CORE_KINDS.map((kind) => ({ kind, apiVersion: "v1", message: `${CORE_V1}.${kind}` })),
  // Upstream registers these in every group version (and in meta.k8s.io/v1).
  { kind: "DeleteOptions", apiVersion: "*", message: `${META_V1}.DeleteOptions` },
  { kind: "Status", apiVersion: "*", message: `${META_V1}.Status` },
];

/** The descriptor for an envelope's apiVersion and kind, if the gateway knows it. */
export function kindDescriptor(apiVersion: string, kind: string): KindDescriptor | undefined {
  return KINDS.find((k) => k.kind === kind && (k.apiVersion === "*" || k.apiVersion === apiVersion));
}
