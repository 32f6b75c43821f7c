// The OpenAPI v2 (Swagger 2.0) document: one document for every group version, as served at
// `/openapi/v2`. Same paths, operations and extensions as the v3 documents, in v2's shapes: the
// request body is a `body` parameter, media types are `consumes`/`produces` lists, and schemas
// live under `definitions`.
import { renderSchema } from "./definitions.ts";
import type { GroupVersionApi, Operation, Parameter, PathItem } from "./model.ts";
import type { DocumentInfo } from "./v3.ts";
import { bearerTokenScheme } from "./v3.ts";

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function parameter(p: Parameter): Record<string, unknown> {
  return {
    description: p.description,
    in: p.in,
    name: p.name,
    ...(p.required ? { required: true } : {}),
    type: p.type,
    uniqueItems: true,
  };
}

function operation(op: Operation): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = [];
  if (op.requestBody) {
    parameters.push({
      in: "body",
      name: "body",
      ...(op.requestBody.required ? { required: true } : {}),
      schema: { $ref: `#/definitions/${op.requestBody.definition}` },
    });
  }
  parameters.push(...op.parameters.map(parameter));
  const responses: Record<string, unknown> = {};
  for (const r of op.responses) {
    responses[r.code] =
      r.definition === undefined
        ? { description: r.description }
        : { description: r.description, schema: { $ref: `#/definitions/${r.definition}` } };
  }
  return {
    consumes: op.requestBody && op.method === "patch" ? [...op.requestBody.mediaTypes] : ["*/*"],
    description: op.description,
    operationId: op.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    produces: [...op.produces],
    responses,
    schemes: ["https"],
    tags: [...op.tags],
    "x-kubernetes-action": op.action,
    "x-kubernetes-group-version-kind": { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version },
  };
}

function pathItem(item: PathItem): Record<string, unknown> {
  const entries: [string, unknown][] = item.operations.map((op) => [op.method, operation(op)]);
  if (item.parameters.length > 0) entries.push(["parameters", item.parameters.map(parameter)]);
  return Object.fromEntries(entries.sort((a, b) => compare(a[0], b[0])));
}

/** The Swagger 2.0 document of all group versions. */
export function openApiV2Document(
  apis: readonly GroupVersionApi[],
  info: DocumentInfo,
): Record<string, unknown> {
  const definitions = new Map<string, unknown>();
  const paths = new Map<string, unknown>();
  for (const api of apis) {
    for (const d of api.definitions)
      if (!definitions.has(d.name)) definitions.set(d.name, renderSchema(d.schema, "v2"));
    for (const item of api.paths) paths.set(item.path, pathItem(item));
  }
  const sorted = <T>(m: Map<string, T>) => Object.fromEntries([...m].sort((a, b) => compare(a[0], b[0])));
  return {
    definitions: sorted(definitions),
    info: { title: info.title, version: info.version },
    paths: sorted(paths),
    security: [{ BearerToken: [] }],
    securityDefinitions: { BearerToken: bearerTokenScheme() },
    swagger: "2.0",
  };
}
