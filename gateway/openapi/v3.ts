// OpenAPI 3.0 documents, one per group version (`/openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>`),
// laid out like the reference server's: shared parameters on the path item, each operation with
// its own parameters, request body and responses keyed by media type, and the vendor extensions
// clients read (`x-kubernetes-action`, `x-kubernetes-group-version-kind`).
import type { Naming } from "../../backends/naming/index.ts";
import { renderSchema } from "./definitions.ts";
import type { GroupVersionApi, Operation, Parameter, PathItem } from "./model.ts";

export interface DocumentInfo {
  readonly title: string;
  readonly version: string;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function parameter(p: Parameter): Record<string, unknown> {
  return {
    description: p.description,
    in: p.in,
    name: p.name,
    ...(p.required ? { required: true } : {}),
    schema: { type: p.type, uniqueItems: true },
  };
}

function schemaRef(definition: string): { $ref: string } {
  return { $ref: `#/components/schemas/${definition}` };
}

function operation(op: Operation): Record<string, unknown> {
  const out: Record<string, unknown> = { description: op.description, operationId: op.operationId };
  if (op.parameters.length > 0) out.parameters = op.parameters.map(parameter);
  if (op.requestBody) {
    const content: Record<string, unknown> = {};
    for (const mt of op.requestBody.mediaTypes)
      content[mt] = { schema: schemaRef(op.requestBody.definition) };
    out.requestBody = { content };
  }
  const responses: Record<string, unknown> = {};
  for (const r of op.responses) {
    if (r.definition === undefined) {
      responses[r.code] = { description: r.description };
      continue;
    }
    const content: Record<string, unknown> = {};
    for (const mt of [...op.produces].sort(compare)) content[mt] = { schema: schemaRef(r.definition) };
    responses[r.code] = { content, description: r.description };
  }
  out.responses = responses;
  out.tags = [...op.tags];
  out["x-kubernetes-action"] = op.action;
  out["x-kubernetes-group-version-kind"] = {
    group: op.gvk.group,
    kind: op.gvk.kind,
    version: op.gvk.version,
  };
  return out;
}

function pathItem(item: PathItem): Record<string, unknown> {
  const entries: [string, unknown][] = item.operations.map((op) => [op.method, operation(op)]);
  if (item.parameters.length > 0) entries.push(["parameters", item.parameters.map(parameter)]);
  // Keys in lexical order, as the reference server's encoder writes them.
  return Object.fromEntries(entries.sort((a, b) => compare(a[0], b[0])));
}

export function bearerTokenScheme(): Record<string, unknown> {
  return { description: "Bearer Token authentication", in: "header", name: "authorization", type: "apiKey" };
}

/** The OpenAPI 3.0 document of one group version. */
export function openApiV3Document(api: GroupVersionApi, info: DocumentInfo): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const d of api.definitions) schemas[d.name] = renderSchema(d.schema, "v3");
  const paths: Record<string, unknown> = {};
  for (const item of api.paths) paths[item.path] = pathItem(item);
  return {
    components: { schemas, securitySchemes: { BearerToken: bearerTokenScheme() } },
    info: { title: info.title, version: info.version },
    openapi: "3.0.0",
    paths,
    security: [{ BearerToken: [] }],
  };
}

/** `Kubernetes` / `Cluster`: the document title from the naming preset's product name. */
export function documentTitle(naming: Naming): string {
  const name = naming.productName;
  return name.length === 0 ? name : name[0]!.toUpperCase() + name.slice(1);
}
