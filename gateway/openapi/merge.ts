// Extension servers' OpenAPI v2 specs merged into the gateway's own, the way upstream's aggregator
// merges APIServices' specs: an extension's spec keeps only the paths of its APIService's group
// version and the definitions they reach; specs are merged after the gateway's, in APIService
// priority order; a path already present stays the earlier spec's, and a definition whose name an
// earlier spec took with a different schema is renamed `<name>_v2`, `_v3`, ... (an identical one
// is shared). Extensions are not trusted: `readV2Spec` refuses anything that is not a Swagger
// object the gateway can serve in both of its encodings.
import { cloneJson, jsonEqual } from "../../backends/common/json.ts";
import { MAX_BODY_DEPTH, nestingDepth } from "../../backends/registry/index.ts";
import { encodeV2Document } from "./v2-proto.ts";

export type Json = Record<string, unknown>;

/** What a merge moves from one spec to another: its paths and its definitions. */
export interface SpecParts {
  readonly paths: ReadonlyMap<string, Json>;
  readonly definitions: ReadonlyMap<string, Json>;
}

const DEFINITION_REF = "#/definitions/";
const PARAMETER_REF = "#/parameters/";
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

/**
 * A spec nested deeper than this is refused: the encoders recurse, and the gateway's own
 * documents (custom resource schemas within the object depth limit) stay well inside it.
 */
export const MAX_SPEC_DEPTH = 2 * MAX_BODY_DEPTH;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every object holding a string `$ref` inside a value, iteratively (any depth). */
function refHolders(value: unknown): Json[] {
  const out: Json[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      stack.push(...v);
      continue;
    }
    if (!isObject(v)) continue;
    if (typeof v.$ref === "string") out.push(v);
    for (const [key, child] of Object.entries(v)) if (key !== "$ref") stack.push(child);
  }
  return out;
}

/**
 * The definitions the paths use, following definitions into definitions. A name counts once it is
 * referred to, defined or not (as upstream's walk counts it).
 */
export function usedDefinitions(paths: Iterable<Json>, definitions: ReadonlyMap<string, Json>): Set<string> {
  const used = new Set<string>();
  const pending: unknown[] = [...paths];
  while (pending.length > 0) {
    for (const holder of refHolders(pending.pop())) {
      const ref = holder.$ref as string;
      if (!ref.startsWith(DEFINITION_REF)) continue;
      const name = ref.slice(DEFINITION_REF.length);
      if (used.has(name)) continue;
      used.add(name);
      const definition = definitions.get(name);
      if (definition) pending.push(definition);
    }
  }
  return used;
}

/**
 * The paths `keep` accepts and the definitions they use. Definitions no path used in the first
 * place stay: only what the dropped paths alone used goes (upstream's filter).
 */
export function filterPaths(spec: SpecParts, keep: (path: string) => boolean): SpecParts {
  const usedBefore = usedDefinitions(spec.paths.values(), spec.definitions);
  const paths = new Map([...spec.paths].filter(([path]) => keep(path)));
  const used = usedDefinitions(paths.values(), spec.definitions);
  const definitions = new Map(
    [...spec.definitions].filter(([name]) => used.has(name) || !usedBefore.has(name)),
  );
  return { paths, definitions };
}

/** A copy of the spec with definitions renamed, and every reference to them. */
function renameDefinitions(spec: SpecParts, renames: ReadonlyMap<string, string>): SpecParts {
  const paths = new Map([...spec.paths].map(([path, item]) => [path, cloneJson(item)]));
  const definitions = new Map(
    [...spec.definitions].map(([name, schema]) => [renames.get(name) ?? name, cloneJson(schema)]),
  );
  for (const holder of refHolders([...paths.values(), ...definitions.values()])) {
    const ref = holder.$ref as string;
    if (!ref.startsWith(DEFINITION_REF)) continue;
    const renamed = renames.get(ref.slice(DEFINITION_REF.length));
    if (renamed !== undefined) holder.$ref = `${DEFINITION_REF}${renamed}`;
  }
  return { paths, definitions };
}

/** New names for the source's definitions whose names the destination holds with other schemas. */
function conflictRenames(
  dest: ReadonlyMap<string, Json>,
  source: ReadonlyMap<string, Json>,
): Map<string, string> {
  const renames = new Map<string, string>();
  const taken = new Set(dest.keys());
  for (const [name, schema] of source) {
    if (!taken.has(name)) continue;
    const existing = dest.get(name);
    if (existing !== undefined && jsonEqual(schema, existing)) continue;
    // An earlier rename of an identical schema is reused.
    let i = 1;
    let candidate = name;
    let reused = false;
    for (let found = existing !== undefined; found; ) {
      i++;
      candidate = `${name}_v${i}`;
      const other = dest.get(candidate);
      found = other !== undefined;
      if (found && jsonEqual(schema, other)) {
        reused = true;
        break;
      }
    }
    if (!reused) {
      while (taken.has(candidate) || source.has(candidate)) {
        i++;
        candidate = `${name}_v${i}`;
      }
      taken.add(candidate);
    }
    renames.set(name, candidate);
  }
  return renames;
}

/** Merges `source` into `dest` (which changes); `source` does not. */
export function mergeInto(
  dest: { paths: Map<string, Json>; definitions: Map<string, Json> },
  source: SpecParts,
): void {
  let from = source;
  const conflicting = [...from.paths.keys()].filter((path) => dest.paths.has(path));
  // A spec whose every path is taken adds nothing, not even its definitions.
  if (conflicting.length === from.paths.size) return;
  if (conflicting.length > 0) from = filterPaths(from, (path) => !dest.paths.has(path));
  const renames = conflictRenames(dest.definitions, from.definitions);
  if (renames.size > 0) from = renameDefinitions(from, renames);
  for (const [name, schema] of from.definitions)
    if (!dest.definitions.has(name)) dest.definitions.set(name, schema);
  for (const [path, item] of from.paths) dest.paths.set(path, item);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The gateway's Swagger document with the extensions' specs merged in, in the order given. */
export function mergeV2Document(local: Json, remotes: readonly SpecParts[]): Json {
  if (remotes.length === 0) return local;
  const dest = {
    paths: new Map(Object.entries(isObject(local.paths) ? local.paths : {}) as [string, Json][]),
    definitions: new Map(
      Object.entries(isObject(local.definitions) ? local.definitions : {}) as [string, Json][],
    ),
  };
  for (const remote of remotes) mergeInto(dest, remote);
  const sorted = (m: Map<string, Json>) => Object.fromEntries([...m].sort((a, b) => compare(a[0], b[0])));
  return { ...local, definitions: sorted(dest.definitions), paths: sorted(dest.paths) };
}

/** What orders APIServices' specs in a merge. */
export interface Prioritized {
  readonly name: string;
  readonly group: string;
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
}

/**
 * Specs in merge order, as upstream sorts remote APIServices: by their group's priority (the
 * highest groupPriorityMinimum among its APIServices) first, within a group by versionPriority,
 * both highest first, then by name.
 */
export function byPriority<T extends { readonly entry: Prioritized }>(specs: readonly T[]): T[] {
  const groupPriority = new Map<string, number>();
  for (const { entry } of specs)
    groupPriority.set(entry.group, Math.max(groupPriority.get(entry.group) ?? 0, entry.groupPriorityMinimum));
  return [...specs].sort((a, b) => {
    const sameGroup = a.entry.group === b.entry.group;
    const pa = sameGroup ? a.entry.versionPriority : (groupPriority.get(a.entry.group) ?? 0);
    const pb = sameGroup ? b.entry.versionPriority : (groupPriority.get(b.entry.group) ?? 0);
    return pa !== pb ? pb - pa : compare(a.entry.name, b.entry.name);
  });
}

/** Schemas directly inside a schema, at the places a schema may hold one. */
function childSchemas(schema: Json): Json[] {
  const out: Json[] = [];
  for (const key of ["properties", "patternProperties", "definitions", "dependencies"]) {
    const map = schema[key];
    if (isObject(map)) out.push(...Object.values(map).filter(isObject));
  }
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    const list = schema[key];
    if (Array.isArray(list)) out.push(...list.filter(isObject));
  }
  for (const key of ["not", "additionalProperties", "additionalItems", "items"]) {
    const child = schema[key];
    if (isObject(child)) out.push(child);
    else if (key === "items" && Array.isArray(child)) out.push(...child.filter(isObject));
  }
  return out;
}

/** Drops `default` from a schema and every schema inside it (upstream serves v2 without them). */
export function pruneDefaults(schema: Json): void {
  const stack = [schema];
  while (stack.length > 0) {
    const s = stack.pop() as Json;
    delete s.default;
    stack.push(...childSchemas(s));
  }
}

/** Parameters given as `#/parameters/<name>` replaced by that parameter, so each path stands alone. */
function inlineParameters(item: Json, shared: Json): void {
  const resolve = (list: unknown) =>
    Array.isArray(list)
      ? list.map((p) => {
          if (!isObject(p) || typeof p.$ref !== "string" || !p.$ref.startsWith(PARAMETER_REF)) return p;
          const target = shared[p.$ref.slice(PARAMETER_REF.length)];
          return isObject(target) ? target : p;
        })
      : list;
  if (item.parameters !== undefined) item.parameters = resolve(item.parameters);
  for (const method of METHODS) {
    const op = item[method];
    if (isObject(op) && op.parameters !== undefined) op.parameters = resolve(op.parameters);
  }
}

/**
 * The part of an extension's `/openapi/v2` answer the gateway serves: the paths under
 * `/apis/<group>/<version>/` and what they use, without defaults. Throws when the answer is not a
 * Swagger object (not JSON, paths or definitions not objects, nested too deep) or could not be
 * encoded as protobuf.
 */
export function readV2Spec(body: string, group: string, version: string): SpecParts {
  const doc = JSON.parse(body) as unknown;
  if (!isObject(doc)) throw new Error("the OpenAPI v2 spec is not a JSON object");
  const depth = nestingDepth(doc);
  if (depth > MAX_SPEC_DEPTH)
    throw new Error(`the OpenAPI v2 spec nests ${depth} levels, more than ${MAX_SPEC_DEPTH}`);
  const objects = (field: string): Map<string, Json> => {
    const value = doc[field] ?? {};
    if (!isObject(value)) throw new Error(`${field} of the OpenAPI v2 spec is not an object`);
    const entries = Object.entries(value);
    for (const [name, v] of entries)
      if (!isObject(v))
        throw new Error(`${field}[${JSON.stringify(name)}] of the OpenAPI v2 spec is not an object`);
    return new Map(entries as [string, Json][]);
  };
  const prefix = `/apis/${group}/${version}/`;
  const spec = filterPaths({ paths: objects("paths"), definitions: objects("definitions") }, (path) =>
    path.startsWith(prefix),
  );
  const shared = isObject(doc.parameters) ? doc.parameters : {};
  for (const item of spec.paths.values()) inlineParameters(item, shared);
  for (const schema of spec.definitions.values()) pruneDefaults(schema);
  // What cannot be encoded now never reaches the served document.
  encodeV2Document({
    swagger: "2.0",
    paths: Object.fromEntries(spec.paths),
    definitions: Object.fromEntries(spec.definitions),
  });
  return spec;
}
