// An OpenAPI v3 schema node as CustomResourceDefinitions write it (JSONSchemaProps), and as the
// built-in catalog describes its kinds. Only a "structural" schema (structural-check.ts) is served;
// the other keywords are representable so that the check can name them in its errors.

export type SchemaType = "object" | "array" | "string" | "integer" | "number" | "boolean";

export type ListType = "atomic" | "set" | "map";
export type MapType = "atomic" | "granular";

/** One `x-kubernetes-validations` entry; evaluated by the CEL module, kept here as data. */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
}

export interface StructuralSchema {
  /** One of SchemaType in a valid schema; any string is representable so it can be rejected. */
  readonly type?: SchemaType | (string & {});
  readonly description?: string;
  readonly title?: string;
  readonly format?: string;

  readonly properties?: { readonly [name: string]: StructuralSchema };
  /** A schema for the values of a map, or a boolean (`false`: no keys besides `properties`). */
  readonly additionalProperties?: StructuralSchema | boolean;
  /** A list's element schema; the array form is representable only so it can be rejected. */
  readonly items?: StructuralSchema | readonly StructuralSchema[];
  readonly required?: readonly string[];

  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly nullable?: boolean;

  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly multipleOf?: number;

  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;

  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;

  readonly minProperties?: number;
  readonly maxProperties?: number;

  /** Value validation only: these branches may not declare types or structure of their own. */
  readonly allOf?: readonly StructuralSchema[];
  readonly anyOf?: readonly StructuralSchema[];
  readonly oneOf?: readonly StructuralSchema[];
  readonly not?: StructuralSchema;

  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
  readonly "x-kubernetes-list-type"?: ListType | (string & {});
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
  readonly "x-kubernetes-map-type"?: MapType | (string & {});
  readonly "x-kubernetes-validations"?: readonly ValidationRule[];
  /** Strategic-merge-patch hints of built-in kinds; no effect on validation. */
  readonly "x-kubernetes-patch-strategy"?: string;
  readonly "x-kubernetes-patch-merge-key"?: string;

  /** Documentation only. */
  readonly example?: unknown;
  readonly externalDocs?: { readonly description?: string; readonly url?: string };

  /** Not supported by structural schemas; present only to be reported. */
  readonly id?: string;
  readonly $schema?: string;
  readonly $ref?: string;
  readonly patternProperties?: { readonly [pattern: string]: StructuralSchema };
  readonly dependencies?: { readonly [name: string]: StructuralSchema | readonly string[] };
  readonly additionalItems?: StructuralSchema | boolean;
  readonly definitions?: { readonly [name: string]: StructuralSchema };
}

/**
 * Formats beyond upstream's CRD registry that built-in kinds use (compiled with `builtin: true`):
 * `quantity` (a resource quantity, string or number) and integer ranges `int32`/`int64`.
 */
export const BUILTIN_FORMATS = ["quantity", "int32", "int64"] as const;
