// Schemas for the OpenAPI tests.
import type { ResourceSchema } from "../../backends/schema/index.ts";

export function testSchema(
  fields: Partial<ResourceSchema> & Pick<ResourceSchema, "group" | "plural" | "kind">,
): ResourceSchema {
  return {
    versions: [{ name: "v1", served: true, storage: true }],
    singular: fields.kind.toLowerCase(),
    listKind: `${fields.kind}List`,
    shortNames: [],
    categories: [],
    namespaced: true,
    verbs: ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"],
    subresources: [],
    allowCreateOnUpdate: false,
    ...fields,
  };
}

export const configMaps = testSchema({ group: "", plural: "configmaps", kind: "ConfigMap" });

export const namespaces = testSchema({
  group: "",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  subresources: ["status", "finalize"],
});

export const widgets = testSchema({
  group: "stable.example.com",
  plural: "widgets",
  kind: "Widget",
  versions: [
    { name: "v1beta1", served: true, storage: false },
    { name: "v1", served: true, storage: true },
    { name: "v1alpha1", served: false, storage: false },
  ],
  subresources: ["status", "scale"],
});

/** kubectl's OpenAPI v3 check (cli-runtime query_param_verifier_v3.go), for documents as JSON. */
export function v3SupportsFieldValidation(
  doc: Record<string, unknown>,
  gvk: { group: string; version: string; kind: string },
): boolean {
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  for (const item of Object.values(paths)) {
    const op = item.patch as Record<string, unknown> | undefined;
    if (!op) continue;
    const ext = op["x-kubernetes-group-version-kind"] as Record<string, string> | undefined;
    if (!ext || ext.group !== gvk.group || ext.version !== gvk.version || ext.kind !== gvk.kind) continue;
    const params = (op.parameters ?? []) as { name: string }[];
    return params.some((p) => p.name === "fieldValidation");
  }
  return false;
}

/** Every `$ref` in a document, e.g. `#/definitions/<name>`. */
export function allRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) allRefs(v, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else allRefs(v, out);
    }
  }
  return out;
}
