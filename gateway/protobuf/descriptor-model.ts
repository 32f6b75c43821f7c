// The shape of the message descriptors (generated from the built-in catalog in
// catalog-descriptors.ts, plus the few hand-written ones in descriptors.ts) and the small builders
// they are written with. Kept apart so the generator and the registry in descriptors.ts can share
// them without importing each other.
//
// Besides the wire facts, each field records how the Go type behind it behaves, because the JSON
// we produce must be what a Go client would have sent as JSON for the same object:
// - `pointer`: the Go field is a pointer (or a []byte). It is written only when set, and a zero
//   value that arrives on the wire is kept (`"immutable": false`). Value fields are always
//   written, so a zero value on the wire means "unset". A nil pointer without omitempty is
//   `null` in the JSON (`"expirationSeconds": null`).
// - `omitEmpty`: the Go JSON tag has omitempty. A value field without it is emitted even when
//   zero (`"reportingComponent": ""`). Value structs are always emitted: omitempty does not
//   apply to Go structs (`"spec": {}`), and a zero Time/MicroTime is `null`.
// - A repeated field without omitempty that holds nothing is `null`: Go's unmarshaller leaves
//   the slice nil (`"rules": null`). List `items` are the one exception (`emptyAsArray`): they
//   read as `[]`, the form the server's own lists always have. A map without omitempty that holds
//   nothing is `null` the same way.
// - `inline`: an embedded Go struct (`json:",inline"`): a message field on the wire whose fields
//   appear in the parent's JSON object.
// Fields are listed in Go struct order, which is the JSON key order; the wire order is by number.

export type ScalarType = "string" | "bool" | "int32" | "int64" | "double";

export type FieldType =
  | { readonly kind: "scalar"; readonly scalar: ScalarType }
  | { readonly kind: "bytes" }
  | { readonly kind: "message"; readonly message: string }
  | { readonly kind: "map"; readonly value: "string" | "bytes" }
  /** A map whose values are messages (Go `map[string]ExtraValue`). */
  | { readonly kind: "map"; readonly value: "message"; readonly message: string };

export interface FieldDescriptor {
  /** The JSON name, which is also the Protobuf field name unless `protoName` says otherwise. */
  readonly name: string;
  /** The IDL's field name where it differs from the JSON name (`uID` for `uid`). */
  readonly protoName?: string;
  readonly number: number;
  readonly type: FieldType;
  readonly repeated: boolean;
  /** Go pointer (or []byte): written only when set; zero values on the wire are kept. */
  readonly pointer: boolean;
  /** Go's `omitempty`: an empty value is left out of the JSON. */
  readonly omitEmpty: boolean;
  /** A repeated field without omitempty that holds nothing reads as `[]` instead of Go's `null`. */
  readonly emptyAsArray: boolean;
  /** An embedded Go struct: its message's fields are the parent's JSON keys. */
  readonly inline?: boolean;
}

/**
 * Messages whose JSON form is not an object of their fields:
 * - `time`: meta/v1 Time, RFC 3339 in whole seconds (`2006-01-02T15:04:05Z`), `null` when zero;
 * - `microTime`: meta/v1 MicroTime, RFC 3339 with six fractional digits, `null` when zero;
 * - `fieldsV1`: meta/v1 FieldsV1, whose `Raw` bytes hold the JSON value itself;
 * - `stringList`: a Go named `[]string` (ExtraValue) wrapped in a message of one repeated string
 *   field; its JSON is the bare array, `[]` when empty (Go makes the slice before filling it);
 * - `quantity`: resource.Quantity, `string` (1) on the wire, a string in JSON, `"0"` when zero;
 * - `intOrString`: intstr.IntOrString, `type` (1, 0 int or 1 string), `intVal` (2) and `strVal`
 *   (3) on the wire, a number or a string in JSON;
 * - `rawExtension`: runtime.RawExtension, `raw` (1) bytes holding JSON, `null` when empty;
 * - `json`: apiextensions' JSON, the same: `raw` (1) bytes holding any JSON value, `null` when empty;
 * - `schemaOrArray`, `schemaOrBool`, `schemaOrStringArray`: apiextensions' JSON unions, a message
 *   of the alternatives on the wire and whichever alternative is set in JSON.
 */
export type SpecialJson =
  | "time"
  | "microTime"
  | "fieldsV1"
  | "stringList"
  | "quantity"
  | "intOrString"
  | "rawExtension"
  | "json"
  | "schemaOrArray"
  | "schemaOrBool"
  | "schemaOrStringArray";

export interface MessageDescriptor {
  /** Fully qualified Protobuf name, e.g. `k8s.io.api.core.v1.Namespace`. */
  readonly name: string;
  /** In Go struct order (the JSON key order). */
  readonly fields: readonly FieldDescriptor[];
  readonly special?: SpecialJson;
}

/** A top-level kind that can travel in the envelope. */
export interface KindDescriptor {
  readonly kind: string;
  /**
   * Where the kind is served: `""` for the core group; the group's name before the naming
   * preset's suffix (`rbac.authorization`), so that every preset's spelling of the group matches;
   * or `"*"` for meta kinds registered in every group version.
   */
  readonly group: string;
  /** The version it is served in (`"*"` with group `"*"`). */
  readonly version: string;
  readonly message: string;
  /**
   * The group's name is `group` itself under every preset (apps, batch, autoscaling, policy):
   * upstream's groups without a domain suffix.
   */
  readonly bare?: boolean;
}

// Protobuf package names of upstream's IDL; the message names on the wire stay upstream's.
export const CORE_V1 = "k8s.io.api.core.v1";
export const META_V1 = "k8s.io.apimachinery.pkg.apis.meta.v1";
export const META_V1BETA1 = "k8s.io.apimachinery.pkg.apis.meta.v1beta1";
export const RUNTIME = "k8s.io.apimachinery.pkg.runtime";
export const RESOURCE = "k8s.io.apimachinery.pkg.api.resource";
export const INTSTR = "k8s.io.apimachinery.pkg.util.intstr";
export const RBAC_V1 = "k8s.io.api.rbac.v1";
export const AUTHENTICATION_V1 = "k8s.io.api.authentication.v1";
export const AUTHENTICATION_V1BETA1 = "k8s.io.api.authentication.v1beta1";
export const AUTHENTICATION_V1ALPHA1 = "k8s.io.api.authentication.v1alpha1";
export const AUTHORIZATION_V1 = "k8s.io.api.authorization.v1";

export const LIST_META = `${META_V1}.ListMeta`;
export const TIME = `${META_V1}.Time`;
export const MICRO_TIME = `${META_V1}.MicroTime`;

export interface FieldOptions {
  repeated?: boolean;
  pointer?: boolean;
  /** Defaults to true: most Go JSON tags have omitempty. */
  omitEmpty?: boolean;
  emptyAsArray?: boolean;
  protoName?: string;
  inline?: boolean;
}

export function field(
  name: string,
  number: number,
  type: FieldType,
  options: FieldOptions = {},
): FieldDescriptor {
  return {
    name,
    ...(options.protoName !== undefined ? { protoName: options.protoName } : {}),
    number,
    type,
    repeated: options.repeated ?? false,
    pointer: options.pointer ?? false,
    omitEmpty: options.omitEmpty ?? true,
    emptyAsArray: options.emptyAsArray ?? false,
    ...(options.inline ? { inline: true } : {}),
  };
}

export const STRING: FieldType = { kind: "scalar", scalar: "string" };
export const INT32: FieldType = { kind: "scalar", scalar: "int32" };
export const INT64: FieldType = { kind: "scalar", scalar: "int64" };
export const BYTES: FieldType = { kind: "bytes" };

export const str = (name: string, number: number, options?: FieldOptions) =>
  field(name, number, STRING, options);
export const int32 = (name: string, number: number, options?: FieldOptions) =>
  field(name, number, INT32, options);
export const int64 = (name: string, number: number, options?: FieldOptions) =>
  field(name, number, INT64, options);
export const msg = (name: string, number: number, message: string, options?: FieldOptions) =>
  field(name, number, { kind: "message", message }, options);
export const msgs = (name: string, number: number, message: string, options?: FieldOptions) =>
  field(name, number, { kind: "message", message }, { ...options, repeated: true });

/** metadata (1) and items (2): the shape of every list kind. */
export function list(name: string, item: string): MessageDescriptor {
  return {
    name,
    fields: [msg("metadata", 1, LIST_META), msgs("items", 2, item, { omitEmpty: false, emptyAsArray: true })],
  };
}
