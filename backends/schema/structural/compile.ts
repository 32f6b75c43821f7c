// One compiled schema with every operation the request path needs, so callers compile a kind's
// schema once (per version) and reuse it.
import type { FieldError } from "../../registry/field-error.ts";
import { defaultNode } from "./default.ts";
import { type CompileOptions, compileNode, type SchemaNode } from "./node.ts";
import { dropNullsNode, type PruneOptions, pruneNode } from "./prune.ts";
import type { StructuralSchema } from "./types.ts";
import { type ValidateOptions, validateNode, validateNodeUpdate } from "./validate.ts";

export interface CompiledSchema {
  readonly node: SchemaNode;
  /** Schema errors, then embedded-resource errors, then list-type errors. */
  validate(value: unknown, options?: ValidateOptions): FieldError[];
  /** As validate; list-type errors only count when `old` had none. */
  validateUpdate(value: unknown, old: unknown, options?: ValidateOptions): FieldError[];
  /** Removes unknown fields in place; returns their paths (sorted; embedded metadata last). */
  prune(value: unknown, options?: PruneOptions): string[];
  /** Removes null fields that are neither nullable nor defaulted. */
  dropNulls(value: unknown): void;
  /** Applies `default` values in place. */
  applyDefaults(value: unknown): void;
  /**
   * What decoding a request body does before validation, in upstream's order: prune, drop
   * nulls, default. Returns the pruned paths, for fieldValidation.
   */
  normalize(value: unknown, options?: PruneOptions): string[];
}

/** Compiles a schema once; the result is cached per schema object and options. */
export function compileSchema(schema: StructuralSchema, options: CompileOptions = {}): CompiledSchema {
  const node = compileNode(schema, options);
  return {
    node,
    validate: (value, opts) => validateNode(node, value, opts),
    validateUpdate: (value, old, opts) => validateNodeUpdate(node, value, old, opts),
    prune: (value, opts) => pruneNode(node, value, opts),
    dropNulls: (value) => dropNullsNode(node, value),
    applyDefaults: (value) => defaultNode(node, value),
    normalize(value, opts) {
      const unknown = pruneNode(node, value, opts);
      dropNullsNode(node, value);
      defaultNode(node, value);
      return unknown;
    },
  };
}

/** Prunes `value` in place by a schema; returns the removed fields' paths. */
export function pruneValue(
  schema: StructuralSchema,
  value: unknown,
  options: PruneOptions & CompileOptions = {},
): string[] {
  return pruneNode(compileNode(schema, options), value, options);
}

/** Applies a schema's defaults to `value` in place. */
export function applyDefaults(schema: StructuralSchema, value: unknown, options: CompileOptions = {}): void {
  defaultNode(compileNode(schema, options), value);
}
