// The vocabulary the built-in catalog is written in: one package per API group version, holding
// named types whose fields carry upstream's wire facts (JSON name, Protobuf number, type, list and
// patch semantics) and a description in our own words. expand.ts turns a kind's type into the
// structural schema that validation, pruning, defaulting and OpenAPI share.

/**
 * Field types:
 * - scalars: `string`, `bool`, `int32`, `int64`, `double`, `bytes` (base64 in JSON);
 * - upstream's special values: `quantity` (resource quantity), `intOrString`, `time` (RFC 3339),
 *   `microTime`, `duration` (Go duration string), `rawExtension` (any embedded JSON object),
 *   `json` (any JSON value), `fieldsV1` (managed-field sets);
 * - a type of the same package by name (`Container`), or of another package as
 *   `<package>.<Type>` (`core/v1.PodTemplateSpec`, `meta/v1.ObjectMeta`);
 * - `[]T`: a list of T; `{}T`: a map from strings to T.
 */
export type TypeRef = string;

export type ListType = "atomic" | "set" | "map";

export interface FieldOptions {
  /** Upstream publishes the field as required (no `+optional`, no omitempty). */
  readonly required?: boolean;
  /** The allowed values of a string enum, as upstream 1.27 publishes them. */
  readonly enum?: readonly string[];
  /** `+default`: the value upstream's published schema declares (a list-map key may rely on it). */
  readonly default?: string;
  /** `+listType`. */
  readonly listType?: ListType;
  /** `+listMapKey`, in order. */
  readonly listMapKeys?: readonly string[];
  /** `+mapType`. */
  readonly mapType?: "atomic" | "granular";
  /** `+structType` on the field. */
  readonly structType?: "atomic" | "granular";
  /** `+patchStrategy` (`merge`, `retainKeys`, `merge,retainKeys`, `replace`). */
  readonly patchStrategy?: string;
  /** `+patchMergeKey`. */
  readonly patchMergeKey?: string;
  /** The Go field is embedded (`json:",inline"`): its fields appear in the parent's JSON. */
  readonly inline?: boolean;
  /** The Protobuf field name where it differs from the JSON name. */
  readonly protoName?: string;
  /** A JSON value that may also be `null` (rare; upstream marks such fields nullable). */
  readonly nullable?: boolean;
  /**
   * Go fact: the field is a pointer (`*int32`, `*string`, `*metav1.Time`, `*PodSecurityContext`),
   * so unset (nil) differs from the zero value: a zero on the Protobuf wire is kept. Fields without
   * it are Go values, whose zero on the wire means unset. (`bytes` fields are Go `[]byte`, nil-able
   * by their type; lists and maps are never pointers.) Read from upstream's 1.27 Go types.
   */
  readonly pointer?: boolean;
  /**
   * Go fact: `false` when the field's Go JSON tag lacks omitempty, so Go writes it even when empty
   * (`""`, `0`, `false`, `null` for a nil pointer, list or map). Unset means omitempty. Read from
   * upstream's 1.27 Go types; not given for inline fields nor inside types with `jsonAs`.
   */
  readonly omitEmpty?: boolean;
}

export interface FieldSpec extends FieldOptions {
  /** Protobuf field number. */
  readonly number: number;
  readonly type: TypeRef;
  readonly description: string;
}

export interface TypeSpec {
  readonly description: string;
  /** In Go struct order (the JSON key order). */
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /**
   * A type whose JSON is not an object of its fields (a Go named slice such as ExtraValue, or
   * apiextensions' JSON unions): the JSON shape, written as a TypeRef. `fields` still lists the
   * Protobuf message's fields for the wire.
   */
  readonly jsonAs?: TypeRef;
  /** `+structType=atomic` on the type itself: the object is replaced as a whole. */
  readonly structType?: "atomic";
}

export interface CatalogPackage {
  /** `<group>/<version>` with the group's short name: `core/v1`, `apps/v1`, `meta/v1`. */
  readonly id: string;
  /** Upstream's Protobuf package, e.g. `k8s.io.api.apps.v1`. */
  readonly protoPackage: string;
  readonly types: Readonly<Record<string, TypeSpec>>;
}

/** A field: Protobuf number, type, description, then the options that apply. */
export function f(number: number, type: TypeRef, description: string, options: FieldOptions = {}): FieldSpec {
  return { number, type, description, ...options };
}

/** A struct type; `options` carries the type's own markers. */
export function t(
  description: string,
  fields: Record<string, FieldSpec>,
  options: Pick<TypeSpec, "structType"> = {},
): TypeSpec {
  return { description, fields, ...options };
}

export function pkg(id: string, protoPackage: string, types: Record<string, TypeSpec>): CatalogPackage {
  return { id, protoPackage, types };
}

// Option shorthands for the markers that come up most.
export const required = { required: true } as const;
export const atomic = { listType: "atomic" } as const;
export const set = { listType: "set" } as const;
export const inline = { inline: true } as const;

/** `+listType=map` keyed by `keys`. */
export function mapList(...keys: string[]): FieldOptions {
  return { listType: "map", listMapKeys: keys };
}

/** `+patchStrategy=merge` with `+patchMergeKey=key`. */
export function mergeBy(key: string): FieldOptions {
  return { patchStrategy: "merge", patchMergeKey: key };
}
