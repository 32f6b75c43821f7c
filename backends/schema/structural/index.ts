// OpenAPI v3 structural schemas shared by built-in kinds and custom resources: the structural
// check for CRDs, validation, pruning, defaulting and resource quantities.
export { applyDefaults, type CompiledSchema, compileSchema, pruneValue } from "./compile.ts";
export { defaultNode } from "./default.ts";
export { objectMetaDecodeError, validateEmbeddedResource } from "./embedded-meta.ts";
export { type FormatCheck, formatCheck, normalizeFormat } from "./formats.ts";
export { type CompileOptions, compileNode, type SchemaNode } from "./node.ts";
export { dropNullsNode, type PruneOptions, pruneNode } from "./prune.ts";
export {
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  QUANTITY_FORMAT_ERROR,
  QUANTITY_NUMERIC_ERROR,
  QUANTITY_SUFFIX_ERROR,
  type Quantity,
  QuantityError,
  type QuantityFormat,
  quantityError,
  quantityFromJson,
  quantityToNumber,
} from "./quantity.ts";
export {
  isStructural,
  type SchemaCheckOptions,
  structuralErrors,
  unsupportedKeyword,
  validateOpenAPISchema,
} from "./structural-check.ts";
export type { ListType, MapType, SchemaType, StructuralSchema, ValidationRule } from "./types.ts";
export { BUILTIN_FORMATS } from "./types.ts";
export {
  FIELD_VALUE_TOO_MANY,
  type ValidateOptions,
  validateNode,
  validateNodeUpdate,
  validateValue,
} from "./validate.ts";
