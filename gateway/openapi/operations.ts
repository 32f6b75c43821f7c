// The paths and operations of one resource at one version, laid out as the reference server's
// route installer does: collection and item paths (plus the all-namespaces list of namespaced
// resources), the deprecated `watch/` paths, and the subresources that read and write the
// resource's own kind. Which operations exist follows the schema's verbs.
import type { Naming } from "../../backends/naming/index.ts";
import type { ResourceSchema } from "../../backends/schema/index.ts";
import { subresourceShape } from "../discovery/index.ts";
import { supportedMediaTypes, supportedStreamMediaTypes } from "../negotiation/media-type.ts";
import type {
  Action,
  GroupVersionKind,
  HttpMethod,
  Operation,
  Parameter,
  PathItem,
  RequestBody,
  Response,
} from "./model.ts";
import { operationId, operationTag } from "./names.ts";
import { actionParameters, nameParameter, namespaceParameter, pretty, sortParameters } from "./parameters.ts";

/** The patch media types the server accepts; the documents advertise exactly these. */
export const DEFAULT_PATCH_MEDIA_TYPES: readonly string[] = [
  "application/json-patch+json",
  "application/merge-patch+json",
];

/** Definition names an operation set refers to. */
export interface OperationDefinitions {
  readonly kind: string;
  readonly list: string;
  readonly status: string;
  readonly deleteOptions: string;
  readonly watchEvent: string;
  readonly patch: string;
}

export interface OperationOptions {
  readonly naming: Naming;
  readonly definitions: OperationDefinitions;
  readonly patchMediaTypes?: readonly string[];
}

interface Route {
  readonly path: string;
  readonly action: Action;
  /** Path parameters, in path order. */
  readonly pathParameters: readonly Parameter[];
  readonly allNamespaces?: boolean;
  readonly subresource?: string;
}

const methods: Readonly<Record<Action, HttpMethod>> = {
  get: "get",
  list: "get",
  watch: "get",
  watchlist: "get",
  post: "post",
  put: "put",
  patch: "patch",
  delete: "delete",
  deletecollection: "delete",
};

/** `a ` / `an ` before a noun, nothing before a plural (upstream's rule). */
function article(noun: string): string {
  if (!noun.endsWith("ss") && noun.endsWith("s")) return " ";
  return /^[aeiou]/i.test(noun) ? " an " : " a ";
}

function titleCase(word: string): string {
  return word.length === 0 ? word : word[0]!.toUpperCase() + word.slice(1);
}

function describe(action: Action, kind: string, subresource: string | undefined, watches: boolean): string {
  switch (action) {
    case "get":
      return subresource ? `read ${subresource} of the specified ${kind}` : `read the specified ${kind}`;
    case "list":
      return watches ? `list or watch objects of kind ${kind}` : `list objects of kind ${kind}`;
    case "put":
      return subresource
        ? `replace ${subresource} of the specified ${kind}`
        : `replace the specified ${kind}`;
    case "patch":
      return subresource
        ? `partially update ${subresource} of the specified ${kind}`
        : `partially update the specified ${kind}`;
    case "post":
      return `create${article(kind)}${kind}`;
    case "delete":
      return `delete${article(kind)}${kind}`;
    case "deletecollection":
      return `delete collection of ${kind}`;
    case "watch":
      return `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`;
    case "watchlist":
      return `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`;
  }
}

/** The verb and the rest of the operation name: `read` + `NamespacedConfigMapStatus`. */
function operationName(route: Route, kind: string, namespaced: boolean): [string, string] {
  const scope = namespaced && !route.allNamespaces ? "Namespaced" : "";
  const sub = route.subresource ? titleCase(route.subresource) : "";
  const suffix = route.allNamespaces ? "ForAllNamespaces" : "";
  switch (route.action) {
    case "get":
      return ["read", `${scope}${kind}${sub}${suffix}`];
    case "list":
      return ["list", `${scope}${kind}${sub}${suffix}`];
    case "put":
      return ["replace", `${scope}${kind}${sub}${suffix}`];
    case "patch":
      return ["patch", `${scope}${kind}${sub}${suffix}`];
    case "post":
      return ["create", `${scope}${kind}${sub}${suffix}`];
    case "delete":
      return ["delete", `${scope}${kind}${sub}${suffix}`];
    case "deletecollection":
      return ["delete", `Collection${scope}${kind}${sub}${suffix}`];
    case "watch":
      return ["watch", `${scope}${kind}${sub}${suffix}`];
    case "watchlist":
      return ["watch", `${scope}${kind}${sub}List${suffix}`];
  }
}

function responses(action: Action, defs: OperationDefinitions): Response[] {
  const ok = (definition: string): Response => ({ code: "200", description: "OK", definition });
  const unauthorized: Response = { code: "401", description: "Unauthorized" };
  switch (action) {
    case "get":
      return [ok(defs.kind), unauthorized];
    case "list":
      return [ok(defs.list), unauthorized];
    case "watch":
    case "watchlist":
      return [ok(defs.watchEvent), unauthorized];
    case "post":
      return [
        ok(defs.kind),
        { code: "201", description: "Created", definition: defs.kind },
        { code: "202", description: "Accepted", definition: defs.kind },
        unauthorized,
      ];
    case "put":
    case "patch":
      return [ok(defs.kind), { code: "201", description: "Created", definition: defs.kind }, unauthorized];
    case "delete":
      return [
        ok(defs.status),
        { code: "202", description: "Accepted", definition: defs.status },
        unauthorized,
      ];
    case "deletecollection":
      return [ok(defs.status), unauthorized];
  }
}

function requestBody(action: Action, options: OperationOptions): RequestBody | undefined {
  const defs = options.definitions;
  switch (action) {
    case "post":
    case "put":
      return { definition: defs.kind, mediaTypes: ["*/*"], required: true };
    case "patch":
      return {
        definition: defs.patch,
        mediaTypes: options.patchMediaTypes ?? DEFAULT_PATCH_MEDIA_TYPES,
        required: true,
      };
    case "delete":
    case "deletecollection":
      return { definition: defs.deleteOptions, mediaTypes: ["*/*"], required: false };
    default:
      return undefined;
  }
}

function produces(action: Action, naming: Naming): string[] {
  const plain = supportedMediaTypes(naming);
  const streaming = action === "list" || action === "watch" || action === "watchlist";
  return streaming ? [...plain, ...supportedStreamMediaTypes(naming)] : plain;
}

/** The routes of one resource, in the reference server's order. */
function routes(schema: ResourceSchema): Route[] {
  const verbs = new Set(schema.verbs);
  const lists = verbs.has("list");
  const watchList = verbs.has("watch") && lists;
  const out: Route[] = [];
  const add = (when: boolean, route: Route) => {
    if (when) out.push(route);
  };
  const namespace = namespaceParameter();
  const name = nameParameter(schema.kind);
  const collection = schema.namespaced ? `namespaces/{namespace}/${schema.plural}` : schema.plural;
  const collectionParameters = schema.namespaced ? [namespace] : [];
  const item = `${collection}/{name}`;
  const itemParameters = [...collectionParameters, name];

  add(lists, { path: collection, action: "list", pathParameters: collectionParameters });
  add(verbs.has("create"), { path: collection, action: "post", pathParameters: collectionParameters });
  add(verbs.has("deletecollection"), {
    path: collection,
    action: "deletecollection",
    pathParameters: collectionParameters,
  });
  add(watchList, { path: `watch/${collection}`, action: "watchlist", pathParameters: collectionParameters });
  add(verbs.has("get"), { path: item, action: "get", pathParameters: itemParameters });
  add(verbs.has("update"), { path: item, action: "put", pathParameters: itemParameters });
  add(verbs.has("patch"), { path: item, action: "patch", pathParameters: itemParameters });
  add(verbs.has("delete"), { path: item, action: "delete", pathParameters: itemParameters });
  add(verbs.has("watch"), { path: `watch/${item}`, action: "watch", pathParameters: itemParameters });

  for (const subresource of schema.subresources) {
    const shape = subresourceShape(schema.plural, subresource);
    // Subresources of another kind (scale, eviction, ...) need that kind's schema, and
    // connections and logs (kinds named in their shapes) are not the object: not yet.
    if (shape.kind !== undefined || shape.foreign !== undefined) continue;
    const path = `${item}/${subresource}`;
    const subVerbs = new Set(shape.verbs);
    add(subVerbs.has("get"), { path, action: "get", pathParameters: itemParameters, subresource });
    add(subVerbs.has("update"), { path, action: "put", pathParameters: itemParameters, subresource });
    add(subVerbs.has("patch"), { path, action: "patch", pathParameters: itemParameters, subresource });
  }

  if (schema.namespaced) {
    add(lists, { path: schema.plural, action: "list", pathParameters: [], allNamespaces: true });
    add(watchList, {
      path: `watch/${schema.plural}`,
      action: "watchlist",
      pathParameters: [],
      allNamespaces: true,
    });
  }
  return out;
}

/** The path items of one resource at one version, with shared parameters hoisted. */
export function resourcePaths(
  schema: ResourceSchema,
  version: string,
  options: OperationOptions,
): PathItem[] {
  const gvk: GroupVersionKind = { group: schema.group, version, kind: schema.kind };
  const base = schema.group === "" ? `/api/${version}` : `/apis/${schema.group}/${version}`;
  const tag = operationTag(options.naming, schema.group, version);
  const watches = schema.verbs.includes("watch");

  const byPath = new Map<string, { operation: Operation; all: Parameter[] }[]>();
  for (const route of routes(schema)) {
    const [verb, rest] = operationName(route, schema.kind, schema.namespaced);
    const body = requestBody(route.action, options);
    const operation: Operation = {
      method: methods[route.action],
      operationId: operationId(options.naming, gvk, verb, rest),
      description: describe(route.action, schema.kind, route.subresource, watches),
      action: route.action,
      gvk,
      tags: [tag],
      parameters: [],
      ...(body ? { requestBody: body } : {}),
      responses: responses(route.action, options.definitions),
      produces: produces(route.action, options.naming),
    };
    const all = [...route.pathParameters, pretty, ...actionParameters(route.action)];
    const path = `${base}/${route.path}`;
    const entries = byPath.get(path) ?? [];
    entries.push({ operation, all });
    byPath.set(path, entries);
  }

  const items: PathItem[] = [];
  for (const [path, entries] of byPath) {
    // Parameters every operation of the path takes move up to the path, as upstream's builder does.
    const shared = entries[0]!.all.filter((p) =>
      entries.every((e) => e.all.some((q) => q.name === p.name && q.in === p.in)),
    );
    const sharedKeys = new Set(shared.map((p) => `${p.in}:${p.name}`));
    items.push({
      path,
      parameters: sortParameters(shared),
      operations: entries.map((e) => ({
        ...e.operation,
        parameters: sortParameters(e.all.filter((p) => !sharedKeys.has(`${p.in}:${p.name}`))),
      })),
    });
  }
  return items;
}
