// CEL environments: the shared base (standard functions, cel-go's string extension functions
// upstream enables, and the list, regex and URL libraries) and environments that add typed
// variables and custom functions on top, e.g. `self`/`oldSelf` for CRD validation rules or
// `object`/`request`/`params` for admission policies.
import { Environment } from "@marcbachmann/cel-js";
import { celEquals } from "./equality.ts";
import { registerListLibrary } from "./libraries/lists.ts";
import { RE2_MATCHES, registerRegexLibrary } from "./libraries/regex.ts";
import { LOWER_ASCII, registerStringLibrary, UPPER_ASCII } from "./libraries/strings.ts";
import { registerUrlLibrary } from "./libraries/urls.ts";
import { type CelSchema, celTypeName, type DeclType, declTypeFromSchema, objectTypesOf } from "./schema.ts";

/** A function added by an environment's user (e.g. an admission policy's `authorizer` helpers). */
export interface CustomFunction {
  /** A cel-js signature: `name(type, ...): type` or `receiverType.name(type, ...): type`. */
  readonly signature: string;
  // biome-ignore lint/suspicious/noExplicitAny: handler parameters are whatever the signature declares
  readonly handler: (...args: any[]) => unknown;
  /** Runtime cost from the evaluated arguments (receiver first); 1 if absent. */
  readonly cost?: (args: readonly unknown[]) => number;
}

export interface EnvironmentOptions {
  /** Declared variables and their types (DYN for untyped JSON; declTypeFromSchema for schema-typed). */
  readonly variables?: Readonly<Record<string, DeclType>>;
  readonly functions?: readonly CustomFunction[];
  /** Object types only functions return (e.g. the admission authorizer's checks and decisions). */
  readonly types?: readonly DeclType[];
}

export interface CelEnvironment {
  /** The cel-js environment (variables, types and functions registered). */
  readonly cel: Environment;
  readonly variables: ReadonlyMap<string, DeclType>;
  /** Names callable as `f(...)` and as `x.f(...)`; anything else is an undeclared reference. */
  readonly globalFunctions: ReadonlySet<string>;
  readonly memberFunctions: ReadonlySet<string>;
  readonly customCosts: ReadonlyMap<string, (args: readonly unknown[]) => number>;
}

/** Functions of upstream's CRD environment callable without a receiver (`has` is a macro). */
const GLOBAL_FUNCTIONS = [
  "has",
  "size",
  "int",
  "uint",
  "double",
  "string",
  "bytes",
  "bool",
  "type",
  "dyn",
  "duration",
  "timestamp",
  "matches",
  "url",
  "isURL",
];

/** Functions of upstream's CRD environment called on a receiver (macros included). */
const MEMBER_FUNCTIONS = [
  "all",
  "exists",
  "exists_one",
  "map",
  "filter",
  "size",
  "matches",
  "contains",
  "startsWith",
  "endsWith",
  "getDate",
  "getDayOfMonth",
  "getDayOfWeek",
  "getDayOfYear",
  "getFullYear",
  "getHours",
  "getMilliseconds",
  "getMinutes",
  "getMonth",
  "getSeconds",
  "charAt",
  "indexOf",
  "lastIndexOf",
  "lowerAscii",
  "upperAscii",
  "replace",
  "split",
  "substring",
  "trim",
  "join",
  "find",
  "findAll",
  "isSorted",
  "sum",
  "min",
  "max",
  "getScheme",
  "getHost",
  "getHostname",
  "getPort",
  "getEscapedPath",
  "getQuery",
];

/** Calls the compiler redirects to this module's implementations (RE2, ASCII-only case mapping). */
export const RENAMED_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ["matches", RE2_MATCHES],
  ["lowerAscii", LOWER_ASCII],
  ["upperAscii", UPPER_ASCII],
]);

let base: Environment | undefined;

function baseEnvironment(): Environment {
  if (base === undefined) {
    const env = new Environment({ homogeneousAggregateLiterals: true, enableOptionalTypes: false });
    registerStringLibrary(env);
    registerRegexLibrary(env);
    registerListLibrary(env);
    registerUrlLibrary(env);
    base = env;
  }
  return base;
}

/** An environment with the base libraries plus `options`' variables and functions. */
export function createEnvironment(options: EnvironmentOptions = {}): CelEnvironment {
  const cel = baseEnvironment().clone();
  const variables = new Map(Object.entries(options.variables ?? {}));
  const objectTypes = new Set<DeclType>();
  for (const t of [...variables.values(), ...(options.types ?? [])]) objectTypesOf(t, objectTypes);
  for (const t of objectTypes) {
    if (t.kind !== "object") continue;
    const fields: Record<string, string> = Object.create(null);
    for (const f of t.fields.values()) fields[f.celName] = celTypeName(f.type);
    cel.registerType(t.name, { ctor: t.ctor, fields });
    cel.registerOperator(`${t.name} == ${t.name}`, celEquals);
  }
  for (const [name, t] of variables) cel.registerVariable(name, celTypeName(t));
  const globalFunctions = new Set(GLOBAL_FUNCTIONS);
  const memberFunctions = new Set(MEMBER_FUNCTIONS);
  const customCosts = new Map<string, (args: readonly unknown[]) => number>();
  for (const f of options.functions ?? []) {
    cel.registerFunction(f.signature, f.handler);
    const m = /^(?:([\w.<>, ]+)\.)?(\w+)\(/.exec(f.signature);
    const name = m?.[2];
    if (name === undefined) throw new Error(`invalid function signature ${f.signature}`);
    (m?.[1] !== undefined ? memberFunctions : globalFunctions).add(name);
    if (f.cost !== undefined) customCosts.set(name, f.cost);
  }
  return { cel, variables, globalFunctions, memberFunctions, customCosts };
}

const ruleEnvironments = new WeakMap<
  CelSchema,
  { plain?: CelEnvironment | null; root?: CelEnvironment | null }
>();

/**
 * The environment of `x-kubernetes-validations` rules declared on `schema`: `self` and `oldSelf`
 * typed by the schema. Undefined when CEL cannot see values of this schema. Cached per schema.
 */
export function ruleEnvironment(schema: CelSchema, isResourceRoot = false): CelEnvironment | undefined {
  let entry = ruleEnvironments.get(schema);
  if (entry === undefined) {
    entry = {};
    ruleEnvironments.set(schema, entry);
  }
  const cached = isResourceRoot ? entry.root : entry.plain;
  if (cached !== undefined) return cached ?? undefined;
  const type = declTypeFromSchema(schema, isResourceRoot);
  const env = type === undefined ? null : createEnvironment({ variables: { self: type, oldSelf: type } });
  if (isResourceRoot) entry.root = env;
  else entry.plain = env;
  return env ?? undefined;
}
