// Validation of a JSON value against a compiled schema, producing upstream's field errors:
// first what the OpenAPI schema validator reports (kube-openapi, as apiextensions converts it into
// field errors), then embedded-resource errors, then x-kubernetes-list-type errors, the order the
// custom-resource strategy appends them in. Texts, paths, the checks' order and their quirks
// (a root map key reads ".key", a failed min/maxProperties skips the object's children, anyOf
// reports the branch that matched the most) follow upstream.
import { ERROR_LIMITS, type FieldError, type FieldErrorType } from "../../registry/field-error.ts";
import { validateEmbeddedResource } from "./embedded-meta.ts";
import { goFloat, goNumber, goQuote } from "./go-text.ts";
import { canonicalJson, isJsonObject } from "./json-value.ts";
import { type CompileOptions, compileNode, type SchemaNode } from "./node.ts";
import { childField, INDEX, MAP_KEY, PathStack, PROPERTY } from "./path-stack.ts";
import { QUANTITY_FORMAT_ERROR, quantityError } from "./quantity.ts";
import type { StructuralSchema } from "./types.ts";

/**
 * Upstream's "Too many" type. The shared FieldErrorType union lacks it; until it is added there
 * (text "Too many", value shown), the cast keeps the type name exact on the wire.
 */
export const FIELD_VALUE_TOO_MANY: FieldErrorType = "FieldValueTooMany";

export interface ValidateOptions {
  /** Prefix of every field path (upstream's fldPath), e.g. `spec.versions[0].schema...default`. */
  readonly basePath?: string;
}

const IN = "in body";

function invalid(fieldPath: string, value: unknown, detail: string): FieldError {
  return { field: fieldPath, type: "FieldValueInvalid", value, detail };
}

function typeInvalid(fieldPath: string, value: unknown, detail: string): FieldError {
  return { field: fieldPath, type: "FieldValueTypeInvalid", value, detail };
}

// JSON value kinds as Go's decoder produces them.
const K_NULL = 0;
const K_STRING = 1;
const K_INT = 2;
const K_FLOAT = 3;
const K_BOOL = 4;
const K_ARRAY = 5;
const K_OBJECT = 6;

function kindOf(v: unknown): number {
  switch (typeof v) {
    case "string":
      return K_STRING;
    case "number":
      return Number.isInteger(v) ? K_INT : K_FLOAT;
    case "boolean":
      return K_BOOL;
    case "object":
      return v === null ? K_NULL : Array.isArray(v) ? K_ARRAY : K_OBJECT;
    default:
      return K_NULL;
  }
}

// The JSON type and Go-side format upstream infers from a decoded value.
const SCHEMA_TYPE = ["null", "string", "integer", "number", "boolean", "array", "object"];
const INFERRED_FORMAT = ["", "", "int64", "float64", "", "", ""];

/** Unicode code points, the unit of maxLength/minLength (Go counts runes). */
function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

// Upstream's test for "is a multiple": the quotient is an integer up to a relative 1e-9 of its
// whole part (so 3.0000000000000004 passes and 2.9999999999999996 does not).
function isJsonInteger(f: number): boolean {
  if (!Number.isFinite(f) || f < -(2 ** 53) || f > 2 ** 53) return false;
  const g = Math.trunc(f);
  if (f === g) return true;
  if (g === 0) return false;
  return Math.abs(f - g) / Math.min(Math.abs(f) + Math.abs(g), Number.MAX_VALUE) < 1e-9;
}

const EMPTY_KEY = Symbol("unspecified key");

/** The walker: one per validation call, reusing its path stack for every position. */
class Walker {
  readonly path = new PathStack();
  schemaErrs: FieldError[] = [];
  readonly metaErrs: FieldError[] = [];
  listErrs: FieldError[] = [];
  doSchema = true;
  doMeta = true;
  doList = true;

  readonly base: string;

  constructor(base: string) {
    this.base = base;
  }

  private name(): string {
    return this.path.openapi();
  }

  /**
   * The field of an error reported under `name` (or its child `key`): upstream drops one leading
   * dot and appends the name as one child of the base; an empty name (or ".") is the base. The
   * trimmed name comes from the path, as reading `name` would copy it (see PathStack.openapi).
   */
  private fieldOf(name: string, key?: string): string {
    if (key === undefined)
      return name === "" || name === "." ? this.base : childField(this.base, this.path.openapi(true));
    if (name === "") return key === "" ? this.base : childField(this.base, key);
    return childField(this.base, `${this.path.openapi(true)}.${key}`);
  }

  /**
   * Whether the errors being gathered reached ERROR_LIMITS.collected: walks over lists and maps
   * stop then. In a junctor's branch these are the branch's own errors (a branch that many
   * errors fails anyway), so stopping never changes whether an object is valid.
   */
  full(): boolean {
    return this.schemaErrs.length + this.metaErrs.length + this.listErrs.length >= ERROR_LIMITS.collected;
  }

  private schemaError(e: FieldError): void {
    this.schemaErrs.push(e);
  }

  // Errors of allOf/anyOf/oneOf/not are not tied to a field: upstream reports them on the base.
  private composite(message: string): void {
    this.schemaErrs.push(invalid(this.base, "", message));
  }

  /** Validates `v` at the current path; returns upstream's match count (anyOf picks by it). */
  value(v: unknown, n: SchemaNode): number {
    const kind = kindOf(v);
    if (kind === K_NULL) return this.nullValue(n);
    let count = 1;
    if (this.doSchema) {
      if (n.typeNames.length > 0 || n.format !== "") count += 1 + (this.typeCheck(v, kind, n) ? 1 : 0);
      count += 2 + this.junctors(v, n);
      if (kind === K_STRING) {
        count++;
        this.stringChecks(v as string, n);
        if (n.formatCheck) {
          count++;
          if (!n.formatCheck(v as string)) {
            const name = this.name();
            this.schemaError(
              typeInvalid(
                this.fieldOf(name),
                v,
                `${name} ${IN} must be of type ${n.format}: ${goQuote(v as string)}`,
              ),
            );
          }
        }
      } else if (kind === K_INT || kind === K_FLOAT) {
        count += 2;
        this.numberChecks(v as number, kind, n);
      }
      if (n.quantity) this.quantityCheck(v);
    }
    if (kind === K_ARRAY) count += 1 + this.array(v as unknown[], n);
    if (this.doSchema) {
      count++;
      if (n.enumValues) this.enumCheck(v, n);
    }
    if (kind === K_OBJECT) count += 1 + this.object(v as Record<string, unknown>, n);
    return count;
  }

  private nullValue(n: SchemaNode): number {
    if (!this.doSchema || n.zeroNull) return 0;
    let count = 1;
    if (n.typeNames.length > 0 && !n.nullable) {
      count = 0;
      const name = this.name();
      this.schemaError(
        typeInvalid(this.fieldOf(name), "null", `${name} ${IN} must be of type ${n.typeText}: "null"`),
      );
    }
    // null never equals an enum member upstream.
    if (n.enumValues) this.schemaError(this.enumError(null, n));
    return count;
  }

  private typeCheck(v: unknown, kind: number, n: SchemaNode): boolean {
    if (n.format === "" && n.acceptsKind[kind] === true) return true;
    const schType = SCHEMA_TYPE[kind] as string;
    const types = n.typeNames;
    const wantsInteger = types.includes("integer");
    const isFloatInt = kind === K_FLOAT && Number.isInteger(v) && wantsInteger;
    const isIntFloat = kind === K_INT && types.includes("number");
    if (kind !== K_STRING && kind !== K_ARRAY && n.format !== "") {
      const inferred = INFERRED_FORMAT[kind] as string;
      if (!(types.includes(schType) || inferred === n.format || isFloatInt || isIntFloat)) {
        const name = this.name();
        this.schemaError(
          typeInvalid(
            this.fieldOf(name),
            inferred,
            `${name} ${IN} must be of type ${n.format}: ${goQuote(inferred)}`,
          ),
        );
        return false;
      }
    }
    // A string or list under a format is left to the format check unless a number is wanted.
    if (
      n.format !== "" &&
      (kind === K_STRING || kind === K_ARRAY) &&
      !wantsInteger &&
      !types.includes("number")
    )
      return true;
    if (types.includes(schType) || isFloatInt || isIntFloat) return true;
    const name = this.name();
    this.schemaError(
      typeInvalid(
        this.fieldOf(name),
        schType,
        `${name} ${IN} must be of type ${n.typeText}: ${goQuote(schType)}`,
      ),
    );
    return false;
  }

  private stringChecks(s: string, n: SchemaNode): void {
    // Upstream stops at the first failing string check.
    if (n.maxLength !== undefined && s.length > n.maxLength && runeCount(s) > n.maxLength) {
      const name = this.name();
      this.schemaError({
        field: this.fieldOf(name),
        type: "FieldValueTooLong",
        value: s,
        detail: n.maxLength >= 0 ? `may not be longer than ${n.maxLength}` : "value is too long",
      });
      return;
    }
    if (n.minLength !== undefined && runeCount(s) < n.minLength) {
      const name = this.name();
      this.schemaError(
        invalid(this.fieldOf(name), s, `${name} ${IN} should be at least ${n.minLength} chars long`),
      );
      return;
    }
    if (n.pattern !== undefined) {
      if (n.patternError !== undefined) {
        const name = this.name();
        this.schemaError(
          invalid(
            this.fieldOf(name),
            s,
            `${name} ${IN} should match '${n.pattern}, but pattern is invalid: ${n.patternError}'`,
          ),
        );
      } else if (n.patternRegex && !n.patternRegex.test(s)) {
        const name = this.name();
        this.schemaError(invalid(this.fieldOf(name), s, `${name} ${IN} should match '${n.pattern}'`));
      }
    }
  }

  private numberChecks(x: number, kind: number, n: SchemaNode): void {
    // Integers are compared with integer-truncated bounds, as upstream's native-type path does.
    const isInt = kind === K_INT;
    const show = (b: number): string => (isInt ? goNumber(Math.trunc(b)) : goFloat(b));
    if (n.multipleOf !== undefined) {
      const factor = isInt ? Math.trunc(n.multipleOf) : n.multipleOf;
      const name = this.name();
      if (factor <= 0) {
        this.schemaError(
          invalid(
            this.fieldOf(name),
            factor,
            `factor MultipleOf declared for ${name} must be positive: ${show(factor)}`,
          ),
        );
      } else {
        const multiple = isInt ? x % factor === 0 : isJsonInteger(factor < 1 ? (1 / factor) * x : x / factor);
        if (!multiple)
          this.schemaError(
            invalid(this.fieldOf(name), x, `${name} ${IN} should be a multiple of ${show(factor)}`),
          );
      }
    }
    if (n.minimum !== undefined) {
      const min = isInt ? Math.trunc(n.minimum) : n.minimum;
      if (n.exclusiveMinimum ? x <= min : x < min) {
        const name = this.name();
        const op = n.exclusiveMinimum ? "greater than" : "greater than or equal to";
        this.schemaError(invalid(this.fieldOf(name), x, `${name} ${IN} should be ${op} ${show(min)}`));
      }
    }
    if (n.maximum !== undefined) {
      const max = isInt ? Math.trunc(n.maximum) : n.maximum;
      if (n.exclusiveMaximum ? x >= max : x > max) {
        const name = this.name();
        const op = n.exclusiveMaximum ? "less than" : "less than or equal to";
        this.schemaError(invalid(this.fieldOf(name), x, `${name} ${IN} should be ${op} ${show(max)}`));
      }
    }
    if (n.intRange !== undefined && isInt) {
      const limit = n.intRange === "int32" ? 2 ** 31 : 2 ** 63;
      if (x >= limit || x < -limit) {
        const name = this.name();
        this.schemaError(
          invalid(
            this.fieldOf(name),
            x,
            `Checked value must be of type integer with format ${n.intRange} in ${name}`,
          ),
        );
      }
    }
  }

  // Upstream's Quantity decoder reads a string (trimmed) or a number's JSON text; every JSON
  // number is a valid quantity.
  private quantityCheck(v: unknown): void {
    if (typeof v === "number") return;
    const message = typeof v === "string" ? quantityError(v.trim()) : QUANTITY_FORMAT_ERROR;
    if (message !== undefined) this.schemaError(invalid(this.fieldOf(this.name()), v, message));
  }

  private enumError(v: unknown, n: SchemaNode): FieldError {
    return {
      field: this.fieldOf(this.name()),
      type: "FieldValueNotSupported",
      value: v,
      supported: n.enumSupported,
    };
  }

  private enumCheck(v: unknown, n: SchemaNode): void {
    const member =
      typeof v === "object" && v !== null ? n.enumCompounds.has(canonicalJson(v)) : n.enumScalars.has(v);
    if (!member) this.schemaError(this.enumError(v, n));
  }

  // allOf/anyOf/oneOf/not; returns the match count merged from the branches.
  private junctors(v: unknown, n: SchemaNode): number {
    if (!n.hasJunctors) return 0;
    let merged = 0;
    if (n.anyOf) {
      let best: Branch | undefined;
      let succeeded: Branch | undefined;
      for (const b of n.anyOf) {
        const r = this.branch(v, b);
        if (r.errors.length === 0) {
          best = undefined;
          succeeded = r;
          break;
        }
        if (!best || r.count > best.count) best = r;
      }
      if (!succeeded) this.composite(`${this.path.quoted()} must validate at least one schema (anyOf)`);
      if (best) {
        this.schemaErrs.push(...best.errors);
        merged += best.count;
      } else if (succeeded) {
        merged += succeeded.count;
      }
    }
    if (n.oneOf) {
      let best: Branch | undefined;
      let first: Branch | undefined;
      let validated = 0;
      for (const b of n.oneOf) {
        const r = this.branch(v, b);
        if (r.errors.length === 0) {
          validated++;
          best = undefined;
          first ??= r;
          continue;
        }
        if (validated === 0 && (!best || r.count > best.count)) best = r;
      }
      if (validated !== 1) {
        const found = validated === 0 ? "Found none valid" : `Found ${validated} valid alternatives`;
        this.composite(`${this.path.quoted()} must validate one and only one schema (oneOf). ${found}`);
        if (best) {
          this.schemaErrs.push(...best.errors);
          merged += best.count;
        }
      } else if (first) {
        merged += first.count;
      }
    }
    if (n.allOf) {
      let validated = 0;
      for (const b of n.allOf) {
        const r = this.branch(v, b);
        if (r.errors.length === 0) validated++;
        this.schemaErrs.push(...r.errors);
        merged += r.count;
      }
      if (validated !== n.allOf.length) {
        const none = validated === 0 ? ". None validated" : "";
        this.composite(`${this.path.quoted()} must validate all the schemas (allOf)${none}`);
      }
    }
    if (n.not) {
      const r = this.branch(v, n.not);
      if (r.errors.length === 0) this.composite(`${this.path.quoted()} must not validate the schema (not)`);
    }
    return merged;
  }

  // A branch of a junctor: schema checks only, errors kept apart.
  private branch(v: unknown, b: SchemaNode): Branch {
    const saved = this.schemaErrs;
    const savedMeta = this.doMeta;
    const savedList = this.doList;
    this.schemaErrs = [];
    this.doMeta = false;
    this.doList = false;
    const count = this.value(v, b);
    const errors = this.schemaErrs;
    this.schemaErrs = saved;
    this.doMeta = savedMeta;
    this.doList = savedList;
    return { errors, count };
  }

  private array(list: unknown[], n: SchemaNode): number {
    if (this.doList && n.listType !== undefined) this.listChecks(list, n);
    let count = 0;
    const items = n.items;
    if (items && (this.doSchema || items.extrasBelow)) {
      const path = this.path;
      for (let i = 0; i < list.length && !this.full(); i++) {
        path.push(INDEX, i);
        count += this.value(list[i], items);
        path.pop();
      }
    }
    if (!this.doSchema) return count;
    const size = list.length;
    if (n.minItems !== undefined && size < n.minItems) {
      const name = this.name();
      this.schemaError(
        invalid(this.fieldOf(name), size, `${name} ${IN} should have at least ${n.minItems} items`),
      );
    }
    if (n.maxItems !== undefined && size > n.maxItems) {
      this.schemaError({
        field: this.fieldOf(this.name()),
        type: FIELD_VALUE_TOO_MANY,
        value: size,
        detail: `must have at most ${n.maxItems} items`,
      });
    }
    if (n.uniqueItems && size > 1) {
      const seen = new Set<string>();
      for (const item of list) {
        const key = canonicalJson(item);
        if (seen.has(key)) {
          const name = this.name();
          this.schemaError(invalid(this.fieldOf(name), "", `${name} ${IN} shouldn't contain duplicates`));
          break;
        }
        seen.add(key);
      }
    }
    return count + 1;
  }

  private object(obj: Record<string, unknown>, n: SchemaNode): number {
    if (this.doMeta && n.embedded)
      this.metaErrs.push(...validateEmbeddedResource(obj, this.path.field(this.base)));
    const schemaOn = this.doSchema;
    if (schemaOn && (n.minProperties !== undefined || n.maxProperties !== undefined)) {
      const size = Object.keys(obj).length;
      let failed = false;
      if (n.minProperties !== undefined && size < n.minProperties) {
        const name = this.name();
        this.schemaError(
          invalid(
            this.fieldOf(name),
            size,
            `${name} ${IN} should have at least ${n.minProperties} properties`,
          ),
        );
        failed = true;
      } else if (n.maxProperties !== undefined && size > n.maxProperties) {
        this.schemaError({
          field: this.fieldOf(this.name()),
          type: FIELD_VALUE_TOO_MANY,
          value: size,
          detail: `must have at most ${n.maxProperties} items`,
        });
        failed = true;
      }
      if (failed) {
        // Upstream stops checking this object; the metadata and list-type passes still descend.
        this.doSchema = false;
        if (n.extrasBelow) this.children(obj, n);
        this.doSchema = true;
        return 0;
      }
    }
    if (!schemaOn && !n.extrasBelow) return 0;
    const count = this.children(obj, n);
    if (schemaOn && n.required.length > 0) {
      for (const key of n.required) {
        if (!Object.hasOwn(obj, key)) {
          const name = this.name();
          this.schemaError({ field: this.fieldOf(name, key), type: "FieldValueRequired" });
        }
      }
    }
    return count;
  }

  private children(obj: Record<string, unknown>, n: SchemaNode): number {
    let count = 0;
    const props = n.properties;
    const additional = n.additional;
    const path = this.path;
    if (additional === false) {
      if (this.doSchema) {
        for (const key in obj) {
          if (!props?.has(key)) {
            const name = this.name();
            this.schemaError(
              invalid(this.fieldOf(name), key, `${name}.${key} ${IN} is a forbidden property`),
            );
          }
        }
      }
    } else if (additional !== undefined && additional !== true) {
      // Map values are checked before the declared properties.
      if (this.doSchema || additional.extrasBelow) {
        for (const key in obj) {
          if (props?.has(key)) continue;
          if (this.full()) break;
          path.push(MAP_KEY, key);
          count += this.value(obj[key], additional);
          path.pop();
        }
      }
    }
    if (props) {
      const all = this.doSchema;
      for (const key in obj) {
        const p = props.get(key);
        if (p === undefined || (!all && !p.extrasBelow)) continue;
        if (this.full()) break;
        path.push(PROPERTY, key);
        count += this.value(obj[key], p);
        path.pop();
      }
    }
    return count;
  }

  // x-kubernetes-list-type set/map: no two equal elements, no two elements with equal keys.
  private listChecks(list: unknown[], n: SchemaNode): void {
    const base = this.path.field(this.base);
    const at = (i: number): string => `${base}[${i}]`;
    if (n.listType === "set") {
      for (const i of duplicateIndices(list))
        this.listErrs.push({ field: at(i), type: "FieldValueDuplicate", value: list[i] });
      return;
    }
    for (let i = 0; i < list.length; i++) {
      const x = list[i];
      if (x !== null && !isJsonObject(x)) {
        this.listErrs.push(invalid(at(i), x, "must be an object for an array of list-type map"));
        return;
      }
    }
    if (list.length <= 1) return;
    const keyFields = n.listMapKeys;
    if (keyFields.length === 1) {
      const keyField = keyFields[0] as string;
      const keys = list.map((x) => (isJsonObject(x) && Object.hasOwn(x, keyField) ? x[keyField] : EMPTY_KEY));
      for (const i of duplicateIndices(keys)) {
        const key = keys[i];
        this.listErrs.push({
          field: at(i),
          type: "FieldValueDuplicate",
          value: key === EMPTY_KEY ? {} : { [keyField]: key },
        });
      }
      return;
    }
    const keys = list.map((x) => {
      const key: Record<string, unknown> = {};
      if (isJsonObject(x)) for (const f of keyFields) if (Object.hasOwn(x, f)) key[f] = x[f];
      return key;
    });
    for (const i of duplicateIndices(keys))
      this.listErrs.push({ field: at(i), type: "FieldValueDuplicate", value: keys[i] });
  }
}

interface Branch {
  readonly errors: FieldError[];
  readonly count: number;
}

/** Indices of the second occurrence of each repeated value (compound values compared as JSON). */
function duplicateIndices(list: readonly unknown[]): number[] {
  if (list.length <= 1) return [];
  const seen = new Map<unknown, number>();
  const out: number[] = [];
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    const key = typeof x === "object" && x !== null ? `\u0000${canonicalJson(x)}` : x;
    const times = seen.get(key);
    if (times === undefined) seen.set(key, 1);
    else {
      if (times === 1) out.push(i);
      seen.set(key, times + 1);
    }
  }
  return out;
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    // The key would copy a long field or detail (a megabyte map key in the path) for every error.
    if (e.field.length + (e.detail?.length ?? 0) > ERROR_LIMITS.textChars) return true;
    const key = `${e.field}\u0000${e.type}\u0000${e.detail ?? ""}\u0000${canonicalJson(e.value ?? null)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function walk(n: SchemaNode, value: unknown, base: string): Walker {
  const w = new Walker(base);
  w.value(value, n);
  const stopped = w.full();
  if (n.junctorsBelow && w.schemaErrs.length > 1) w.schemaErrs = dedupe(w.schemaErrs);
  // First, so that an answer listing only some errors still says the list is incomplete.
  if (stopped)
    w.schemaErrs.unshift({
      field: base || "<root>",
      type: FIELD_VALUE_TOO_MANY,
      detail: `validation stopped after ${ERROR_LIMITS.collected} errors; there may be more`,
    });
  return w;
}

function joined(w: Walker, withList: boolean): FieldError[] {
  const list = withList ? w.listErrs : [];
  if (w.metaErrs.length === 0 && list.length === 0) return w.schemaErrs;
  return [...w.schemaErrs, ...w.metaErrs, ...list];
}

/** Validates a value against a compiled node (see the module comment for the error order). */
export function validateNode(n: SchemaNode, value: unknown, options: ValidateOptions = {}): FieldError[] {
  return joined(walk(n, value, options.basePath ?? ""), true);
}

/**
 * Validates an update: as validateNode, except that list-type errors count only when the old
 * object had none (objects stored before a list rule existed can still be updated).
 */
export function validateNodeUpdate(
  n: SchemaNode,
  value: unknown,
  old: unknown,
  options: ValidateOptions = {},
): FieldError[] {
  const w = walk(n, value, options.basePath ?? "");
  if (w.listErrs.length === 0) return joined(w, false);
  const oldWalk = new Walker("");
  oldWalk.doSchema = false;
  oldWalk.doMeta = false;
  oldWalk.value(old, n);
  return joined(w, oldWalk.listErrs.length === 0);
}

/** Validates a value against a schema (compiled once per schema object and options). */
export function validateValue(
  schema: StructuralSchema,
  value: unknown,
  options: ValidateOptions & CompileOptions = {},
): FieldError[] {
  return validateNode(compileNode(schema, options), value, options);
}
