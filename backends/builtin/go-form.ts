// A built-in object in the form upstream's Go types give it: upstream decodes every write into its
// Go struct and encodes that, so what it stores and returns follows the struct's JSON tags rather
// than the bytes sent. From the catalog's Go facts (`pointer`, `omitEmpty`):
// - a value field with omitempty is left out when it is empty: `""`, `0`, `false`, an empty list,
//   map or `[]byte` (pointers keep their zero: `replicas: 0` stays);
// - a struct field that is not a pointer is always there (Go's omitempty never drops a struct):
//   `status: {}`, `status.loadBalancer: {}`, `resources: {}`;
// - a number or string without omitempty is always there, zero when unset (`status.replicas: 0`);
// - a resource quantity reads and writes in its canonical spelling (`0.5` → `500m`).
// A required field missing from what the client sent is left to validation (reported missing, not
// filled); in a struct the server adds it is zero, as in Go (`acceptedNames: {kind: "", plural: ""}`).
// Where Go writes `null` (a nil pointer, list or map without omitempty, a zero time) nothing is
// written.
// Values of the wrong JSON type are left alone; validation reports them.
import { type Catalog, type ParsedRef, parseRef } from "../catalog/index.ts";
import { formatQuantity, quantityFromJson } from "../schema/structural/quantity.ts";

type JsonMap = Record<string, unknown>;

/** How a field's value is brought into Go's form. */
type Value =
  | { readonly kind: "zeroable"; readonly zero: string | number | boolean }
  | { readonly kind: "bytes" }
  | { readonly kind: "quantity" }
  | { readonly kind: "list" | "map"; readonly of: Value | undefined }
  | { readonly kind: "struct"; readonly plan: Plan };

interface Step {
  readonly key: string;
  readonly value: Value;
  /** Go writes the field even when empty (no omitempty, or a struct). */
  readonly always: boolean;
  /** The field is a Go pointer: its zero value is kept. */
  readonly pointer: boolean;
  /** Absent is reported by validation, so it is not filled. */
  readonly required: boolean;
}

interface Plan {
  readonly steps: Step[];
  /** Plans of inlined structs, whose fields share this object. */
  readonly inline: Plan[];
}

const ZEROS: Readonly<Record<string, string | number | boolean>> = {
  string: "",
  bool: false,
  int32: 0,
  int64: 0,
  double: 0,
};

function isMap(value: unknown): value is JsonMap {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmpty(value: Value, v: unknown): boolean {
  switch (value.kind) {
    case "zeroable":
      return v === value.zero;
    case "bytes":
      return v === "";
    case "list":
      return Array.isArray(v) && v.length === 0;
    case "map":
      return isMap(v) && Object.keys(v).length === 0;
    default:
      return false;
  }
}

// Canonical spellings of recent quantity texts: the same few ("1", "500m", "1Gi") come up in
// object after object, and parsing is most of the walk's cost. Emptied when full.
const canonicalTexts = new Map<string, string>();
const CANONICAL_TEXTS_MAX = 4096;

/** The canonical spelling of a quantity, or the value itself when it is none (validation says so). */
function canonical(v: unknown): unknown {
  if (typeof v === "string") {
    const known = canonicalTexts.get(v);
    if (known !== undefined) return known;
  } else if (typeof v !== "number") return v;
  let text: string;
  try {
    text = formatQuantity(quantityFromJson(v));
  } catch {
    return v;
  }
  if (typeof v === "string") {
    if (canonicalTexts.size >= CANONICAL_TEXTS_MAX) canonicalTexts.clear();
    canonicalTexts.set(v, text);
  }
  return text;
}

function runValue(value: Value, v: unknown, fill: boolean): unknown {
  switch (value.kind) {
    case "quantity":
      return canonical(v);
    case "struct":
      if (isMap(v)) runPlan(value.plan, v, fill);
      return v;
    case "list":
      if (value.of !== undefined && Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) v[i] = runValue(value.of, v[i], fill);
      }
      return v;
    case "map":
      if (value.of !== undefined && isMap(v)) {
        for (const key of Object.keys(v)) v[key] = runValue(value.of, v[key], fill);
      }
      return v;
    default:
      return v;
  }
}

/**
 * `fill` adds what Go always writes; in a struct the server creates (`created`) that includes the
 * required fields, which a client's own struct leaves to validation.
 */
function runPlan(plan: Plan, object: JsonMap, fill: boolean, created = false): void {
  for (const inline of plan.inline) runPlan(inline, object, fill, created);
  for (const step of plan.steps) {
    const v = object[step.key];
    if (v === undefined || v === null) {
      if (!fill || !step.always || (step.required && !created)) continue;
      if (step.value.kind === "struct") {
        const struct: JsonMap = {};
        runPlan(step.value.plan, struct, fill, true);
        object[step.key] = struct;
      } else if (step.value.kind === "zeroable" && !step.pointer) {
        object[step.key] = step.value.zero;
      }
      continue;
    }
    if (!step.always && !step.pointer && isEmpty(step.value, v)) {
      delete object[step.key];
      continue;
    }
    const next = runValue(step.value, v, fill);
    if (next !== v) object[step.key] = next;
  }
}

class Compiler {
  readonly #catalog: Catalog;
  readonly #plans = new Map<string, Plan>();

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  plan(typeId: string): Plan {
    const known = this.#plans.get(typeId);
    if (known) return known;
    const plan: Plan = { steps: [], inline: [] };
    // Registered before its fields so that recursive types refer back to it.
    this.#plans.set(typeId, plan);
    const type = this.#catalog.mustType(typeId);
    for (const [key, field] of Object.entries(type.spec.fields)) {
      const value = this.#value(parseRef(type.packageId, field.type));
      if (value === undefined) continue;
      if (field.inline) {
        if (value.kind === "struct") plan.inline.push(value.plan);
        continue;
      }
      const pointer = field.pointer === true;
      plan.steps.push({
        key,
        value,
        // A struct is never empty to Go; a pointer to one is, when nil.
        always: field.omitEmpty === false || (value.kind === "struct" && !pointer),
        pointer,
        required: field.required === true,
      });
    }
    return plan;
  }

  #value(ref: ParsedRef): Value | undefined {
    switch (ref.kind) {
      case "scalar": {
        const zero = ZEROS[ref.scalar];
        if (zero !== undefined) return { kind: "zeroable", zero };
        if (ref.scalar === "bytes") return { kind: "bytes" };
        if (ref.scalar === "quantity") return { kind: "quantity" };
        // Time, IntOrString, raw JSON and the like keep their own forms.
        return undefined;
      }
      case "type": {
        const type = this.#catalog.type(ref.id);
        // A type with its own JSON form (a named slice, a JSON union) is left as written.
        if (type === undefined || type.spec.jsonAs !== undefined) return undefined;
        return { kind: "struct", plan: this.plan(ref.id) };
      }
      case "list":
      case "map":
        return { kind: ref.kind, of: this.#value(ref.of) };
    }
  }
}

const compilers = new WeakMap<Catalog, Compiler>();

function compilerFor(catalog: Catalog): Compiler {
  let compiler = compilers.get(catalog);
  if (!compiler) {
    compiler = new Compiler(catalog);
    compilers.set(catalog, compiler);
  }
  return compiler;
}

export interface GoForm {
  /**
   * What decoding into the Go struct already does, before defaulting: empty values of omitempty
   * fields read as unset (so defaulting fills them as Go's does), quantities canonical.
   */
  decoded(value: unknown): void;
  /** The whole form, after defaulting: also the structs and zero values Go always writes. */
  encoded(value: unknown): void;
}

/** The Go form of values of a catalog type (a kind's whole object, e.g. `apps/v1.Deployment`). */
export function compileGoForm(catalog: Catalog, typeId: string): GoForm {
  const plan = compilerFor(catalog).plan(typeId);
  return {
    decoded(value) {
      if (isMap(value)) runPlan(plan, value, false);
    },
    encoded(value) {
      if (isMap(value)) runPlan(plan, value, true);
    },
  };
}
