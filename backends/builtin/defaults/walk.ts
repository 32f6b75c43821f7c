// Runs type-level defaulters over a JSON object the catalog describes, in the order upstream's
// generated defaulters use: a typed object's own defaulter first, then its fields in field order,
// each nested object the same way (through lists `[]T`, maps `{}T` and inlined structs, whose
// fields share the parent's JSON object). A walk is compiled once per type: only fields that can
// lead to a defaulter are visited, so the cost follows what can be defaulted, not the object's
// size. Values of the wrong JSON type are skipped without a word; validation reports them.
import { type Catalog, type ParsedRef, parseRef } from "../../catalog/catalog.ts";

/** Defaults one typed object in place; it may create, replace or delete the object's fields. */
export type TypeDefaulter = (value: Record<string, unknown>) => void;

/** Defaulters by type id (`<package id>.<Name>`, e.g. `core/v1.Container`). */
export type TypeDefaulters = Readonly<Record<string, TypeDefaulter>>;

const TYPE = 0;
const LIST = 1;
const MAP = 2;

/** How to reach typed objects below a field's value. */
type Shape =
  | { readonly kind: typeof TYPE; readonly plan: Plan }
  | { readonly kind: typeof LIST | typeof MAP; readonly of: Shape };

interface Step {
  readonly key: string;
  /** Set when the field's struct is inlined: this plan runs on the same object. */
  readonly inline: Plan | undefined;
  readonly shape: Shape;
}

interface Plan {
  readonly own: TypeDefaulter | undefined;
  /** Only the fields that can lead to a defaulter, in field order. */
  readonly steps: Step[];
}

type JsonMap = Record<string, unknown>;

function runPlan(plan: Plan, object: JsonMap): void {
  const own = plan.own;
  if (own !== undefined) own(object);
  const steps = plan.steps;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (step.inline !== undefined) {
      runPlan(step.inline, object);
      continue;
    }
    const value = object[step.key];
    if (typeof value === "object" && value !== null) runShape(step.shape, value);
  }
}

function runShape(shape: Shape, value: object): void {
  if (shape.kind === TYPE) {
    if (!Array.isArray(value)) runPlan(shape.plan, value as JsonMap);
    return;
  }
  const of = shape.of;
  if (shape.kind === LIST) {
    if (!Array.isArray(value)) return;
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (typeof element === "object" && element !== null) runShape(of, element);
    }
    return;
  }
  if (Array.isArray(value)) return;
  const map = value as JsonMap;
  for (const key in map) {
    const element = map[key];
    if (typeof element === "object" && element !== null) runShape(of, element);
  }
}

function namedType(ref: ParsedRef): string | undefined {
  let r = ref;
  while (r.kind === "list" || r.kind === "map") r = r.of;
  return r.kind === "type" ? r.id : undefined;
}

/** The walks for one catalog and one set of defaulters. */
class Compiler {
  readonly #catalog: Catalog;
  readonly #defaulters: TypeDefaulters;
  /** Types below which some defaulter applies. */
  readonly #live = new Set<string>();
  readonly #plans = new Map<string, Plan>();

  constructor(catalog: Catalog, defaulters: TypeDefaulters) {
    this.#catalog = catalog;
    this.#defaulters = defaulters;
    // Which types lead to a defaulter: those with their own, then, until nothing changes, those
    // with a field that leads to one. Recursive types (JSON schemas) settle like any other.
    const edges = new Map<string, string[]>();
    for (const t of catalog.types()) {
      if (t.spec.jsonAs !== undefined) continue;
      if (this.#own(t.id) !== undefined) this.#live.add(t.id);
      const targets: string[] = [];
      for (const field of Object.values(t.spec.fields)) {
        const target = namedType(parseRef(t.packageId, field.type));
        if (target !== undefined) targets.push(target);
      }
      edges.set(t.id, targets);
    }
    let changed = true;
    while (changed) {
      changed = false;
      for (const [id, targets] of edges) {
        if (this.#live.has(id)) continue;
        if (targets.some((target) => this.#live.has(target))) {
          this.#live.add(id);
          changed = true;
        }
      }
    }
  }

  #own(typeId: string): TypeDefaulter | undefined {
    return Object.hasOwn(this.#defaulters, typeId) ? this.#defaulters[typeId] : undefined;
  }

  /** Whether any defaulter can apply to a value of this type. */
  live(typeId: string): boolean {
    return this.#live.has(typeId);
  }

  plan(typeId: string): Plan {
    const known = this.#plans.get(typeId);
    if (known) return known;
    const steps: Step[] = [];
    const plan: Plan = { own: this.#own(typeId), steps };
    // Registered before its fields so that recursive types refer back to it.
    this.#plans.set(typeId, plan);
    const type = this.#catalog.type(typeId);
    if (type === undefined || type.spec.jsonAs !== undefined) return plan;
    for (const [key, field] of Object.entries(type.spec.fields)) {
      const ref = parseRef(type.packageId, field.type);
      const shape = this.#shape(ref);
      if (shape === undefined) continue;
      if (!field.inline) steps.push({ key, inline: undefined, shape });
      else if (shape.kind === TYPE) steps.push({ key, inline: shape.plan, shape });
    }
    return plan;
  }

  #shape(ref: ParsedRef): Shape | undefined {
    switch (ref.kind) {
      case "scalar":
        return undefined;
      case "type":
        return this.#live.has(ref.id) ? { kind: TYPE, plan: this.plan(ref.id) } : undefined;
      case "list":
      case "map": {
        const of = this.#shape(ref.of);
        return of === undefined ? undefined : { kind: ref.kind === "list" ? LIST : MAP, of };
      }
    }
  }
}

const compilers = new WeakMap<Catalog, WeakMap<TypeDefaulters, Compiler>>();

function compilerFor(catalog: Catalog, defaulters: TypeDefaulters): Compiler {
  let byDefaulters = compilers.get(catalog);
  if (!byDefaulters) {
    byDefaulters = new WeakMap();
    compilers.set(catalog, byDefaulters);
  }
  let compiler = byDefaulters.get(defaulters);
  if (!compiler) {
    compiler = new Compiler(catalog, defaulters);
    byDefaulters.set(defaulters, compiler);
  }
  return compiler;
}

function noDefaults(_value: unknown): void {}

/**
 * The defaulting walk for values of `typeId`: every applicable defaulter runs, parent first, then
 * nested objects in field order. A value that is not a JSON object is left alone.
 */
export function compileDefaulter(
  catalog: Catalog,
  typeId: string,
  defaulters: TypeDefaulters,
): (value: unknown) => void {
  return compileDefaulterIfAny(catalog, typeId, defaulters) ?? noDefaults;
}

/** Like compileDefaulter, but undefined when no defaulter can apply anywhere in the type. */
export function compileDefaulterIfAny(
  catalog: Catalog,
  typeId: string,
  defaulters: TypeDefaulters,
): ((value: unknown) => void) | undefined {
  catalog.mustType(typeId);
  const compiler = compilerFor(catalog, defaulters);
  if (!compiler.live(typeId)) return undefined;
  const plan = compiler.plan(typeId);
  return (value) => {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) runPlan(plan, value as JsonMap);
  };
}

/** Defaulter keys that name no type of the catalog (a misspelt id would never run). */
export function unknownDefaulterIds(catalog: Catalog, defaulters: TypeDefaulters): string[] {
  return Object.keys(defaulters).filter((id) => catalog.type(id) === undefined);
}
