// The format-neutral description of the REST surface both OpenAPI documents are rendered from:
// paths, their operations and parameters, and the definitions operations refer to by name.

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** The operation kinds of the reference server, as its `x-kubernetes-action` spells them. */
export type Action =
  | "get"
  | "list"
  | "post"
  | "put"
  | "patch"
  | "delete"
  | "deletecollection"
  | "watch"
  | "watchlist";

export type HttpMethod = "get" | "put" | "post" | "delete" | "patch";

export interface Parameter {
  readonly name: string;
  readonly in: "query" | "path";
  readonly description: string;
  readonly type: "string" | "integer" | "boolean";
  /** Path parameters are required. */
  readonly required?: boolean;
}

export interface RequestBody {
  /** Definition name of the body's schema. */
  readonly definition: string;
  /** The media types the body may be sent in (`*\/*` for objects, the patch types for patches). */
  readonly mediaTypes: readonly string[];
  readonly required: boolean;
}

export interface Response {
  /** `200`, `201`, `202`, `401`. */
  readonly code: string;
  readonly description: string;
  /** Definition name of the body; absent for a body-less response. */
  readonly definition?: string;
}

export interface Operation {
  readonly method: HttpMethod;
  readonly operationId: string;
  readonly description: string;
  readonly action: Action;
  readonly gvk: GroupVersionKind;
  readonly tags: readonly string[];
  /** Operation-level parameters (those shared by every operation of the path are hoisted). */
  readonly parameters: readonly Parameter[];
  readonly requestBody?: RequestBody;
  readonly responses: readonly Response[];
  /** Media types of the responses' bodies. */
  readonly produces: readonly string[];
}

export interface PathItem {
  /** `/api/v1/namespaces/{namespace}/configmaps/{name}`. */
  readonly path: string;
  /** Parameters shared by all of its operations. */
  readonly parameters: readonly Parameter[];
  readonly operations: readonly Operation[];
}

/**
 * A JSON Schema object in the neutral form: `$ref` values are bare definition names, rendered
 * into `#/definitions/<name>` or `#/components/schemas/<name>` per document format.
 */
export type SchemaObject = { readonly [key: string]: unknown };

export interface Definition {
  readonly name: string;
  readonly schema: SchemaObject;
}

/** Everything one group version contributes: its paths and the definitions they reach. */
export interface GroupVersionApi {
  readonly group: string;
  readonly version: string;
  readonly paths: readonly PathItem[];
  readonly definitions: readonly Definition[];
}
