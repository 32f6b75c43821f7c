// The JSON type check a built-in object passes before anything else, worded as upstream's Go
// decoder words a mismatch (a 400, not a field error): `json: cannot unmarshal string into Go
// struct field DeploymentSpec.spec.replicas of type int32`. The struct is the innermost Go struct
// holding the field, the path runs from the root without list indices, and the type is Go's
// (`v1.PodSpec`, `[]v1.Container`, `map[string]string`). Special values (quantities,
// int-or-string, times) are left to schema validation, which names them in its own errors.
import { type Catalog, type ParsedRef, parseRef, type ScalarType } from "./catalog.ts";

/** Returns the decoder's message for the first mismatch, or undefined. */
export type DecodeCheck = (value: unknown) => string | undefined;

interface Context {
  /** The Go struct whose field is being decoded. */
  readonly struct: string;
  readonly path: string;
}

type Checker = (value: unknown, ctx: Context) => string | undefined;

const GO_SCALARS: Partial<Record<ScalarType, string>> = {
  string: "string",
  bool: "bool",
  int32: "int32",
  int64: "int64",
  double: "float64",
  bytes: "[]uint8",
  duration: "string",
};

const INT_RANGE: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "object") return "object";
  return typeof value;
}

function mismatch(value: unknown, ctx: Context, goType: string): string {
  // Go names a number that does not fit an integer field by its literal.
  const shown =
    typeof value === "number" && (goType === "int32" || goType === "int64")
      ? `number ${value}`
      : jsonKind(value);
  const where = ctx.path === "" ? "Go value" : `Go struct field ${ctx.struct}.${ctx.path}`;
  return `json: cannot unmarshal ${shown} into ${where} of type ${goType}`;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export class DecodeChecks {
  readonly #catalog: Catalog;
  readonly #structs = new Map<string, Checker>();

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  /** The check of a kind's root type (`apps/v1.Deployment`). */
  forType(id: string): DecodeCheck {
    const check = this.#struct(id);
    const name = this.#catalog.mustType(id).name;
    return (value) => check(value, { struct: name, path: "" });
  }

  /** Go's name of a type: `v1.Container`, `[]v1.Container`, `map[string]string`. */
  #goName(ref: ParsedRef): string {
    switch (ref.kind) {
      case "scalar":
        return GO_SCALARS[ref.scalar] ?? ref.scalar;
      case "list":
        return `[]${this.#goName(ref.of)}`;
      case "map":
        return `map[string]${this.#goName(ref.of)}`;
      case "type": {
        const t = this.#catalog.mustType(ref.id);
        return `${t.packageId.split("/").pop()}.${t.name}`;
      }
    }
  }

  #struct(id: string): Checker {
    const existing = this.#structs.get(id);
    if (existing) return existing;
    // Filled below; a recursive type finds this entry and calls through it.
    const fields = new Map<string, Checker>();
    const checker: Checker = (value, ctx) => {
      if (!isObject(value)) return ctx.path === "" ? mismatch(value, ctx, "object") : undefined;
      for (const key in value) {
        const check = fields.get(key);
        const v = value[key];
        if (check === undefined || v === null || v === undefined) continue;
        const problem = check(v, ctx);
        if (problem) return problem;
      }
      return undefined;
    };
    this.#structs.set(id, checker);
    const add = (typeId: string) => {
      const t = this.#catalog.mustType(typeId);
      if (t.spec.jsonAs) return;
      for (const [name, field] of Object.entries(t.spec.fields)) {
        const ref = parseRef(t.packageId, field.type);
        if (field.inline && ref.kind === "type") {
          add(ref.id);
          continue;
        }
        const inner = this.#value(ref);
        if (!inner) continue;
        const struct = t.name;
        fields.set(name, (v, ctx) =>
          inner(v, { struct, path: ctx.path === "" ? name : `${ctx.path}.${name}` }),
        );
      }
    };
    add(id);
    return checker;
  }

  /** The check of a value of a field; undefined when any JSON value decodes. */
  #value(ref: ParsedRef): Checker | undefined {
    switch (ref.kind) {
      case "scalar": {
        const go = GO_SCALARS[ref.scalar];
        if (!go) return undefined;
        const range = INT_RANGE[go];
        if (range) {
          const [min, max] = range;
          return (v, ctx) =>
            typeof v === "number" && Number.isInteger(v) && v >= min && v <= max
              ? undefined
              : mismatch(v, ctx, go);
        }
        if (go === "bool") return (v, ctx) => (typeof v === "boolean" ? undefined : mismatch(v, ctx, go));
        if (go === "float64") return (v, ctx) => (typeof v === "number" ? undefined : mismatch(v, ctx, go));
        return (v, ctx) => (typeof v === "string" ? undefined : mismatch(v, ctx, go));
      }
      case "list": {
        const item = this.#value(ref.of);
        const go = this.#goName(ref);
        return (v, ctx) => {
          if (!Array.isArray(v)) return mismatch(v, ctx, go);
          if (!item) return undefined;
          for (const x of v) {
            if (x === null) continue;
            const problem = item(x, ctx);
            if (problem) return problem;
          }
          return undefined;
        };
      }
      case "map": {
        const item = this.#value(ref.of);
        const go = this.#goName(ref);
        return (v, ctx) => {
          if (!isObject(v)) return mismatch(v, ctx, go);
          if (!item) return undefined;
          for (const key in v) {
            const x = v[key];
            if (x === null) continue;
            const problem = item(x, ctx);
            if (problem) return problem;
          }
          return undefined;
        };
      }
      case "type": {
        const t = this.#catalog.mustType(ref.id);
        if (t.spec.jsonAs) {
          // A Go named type (ExtraValue is a []string): Go names the named type in its message.
          const shape = parseRef(t.packageId, t.spec.jsonAs);
          const inner = this.#value(shape);
          if (!inner) return undefined;
          const named = this.#goName(ref);
          return (v, ctx) =>
            shape.kind === "list" && !Array.isArray(v) ? mismatch(v, ctx, named) : inner(v, ctx);
        }
        const go = this.#goName(ref);
        const struct = this.#struct(ref.id);
        return (v, ctx) => (isObject(v) ? struct(v, ctx) : mismatch(v, ctx, go));
      }
    }
  }
}
