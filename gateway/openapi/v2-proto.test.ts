import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { load } from "js-yaml";
import { naming } from "../../backends/naming/index.ts";
import { buildGroupVersions } from "./group-versions.ts";
import { configMaps, namespaces } from "./testing.ts";
import { openApiV2Document } from "./v2.ts";
import { decodeV2Document, encodeV2Document } from "./v2-proto.ts";

type Json = Record<string, unknown>;

/** A protobuf wire reader independent of the .proto: field number → raw values. */
function fields(bytes: Uint8Array): Map<number, (Uint8Array | number)[]> {
  const out = new Map<number, (Uint8Array | number)[]>();
  let i = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[i++]!;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  };
  while (i < bytes.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    let value: Uint8Array | number;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = varint();
      value = bytes.subarray(i, i + len);
      i += len;
    } else throw new Error(`unexpected wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}
const text = (v: Uint8Array | number | undefined) => new TextDecoder().decode(v as Uint8Array);
const sub = (m: Map<number, (Uint8Array | number)[]>, n: number) => fields(m.get(n)![0] as Uint8Array);

describe("encodeV2Document", () => {
  const k8s = naming("kubernetes");
  const doc = openApiV2Document(buildGroupVersions([configMaps, namespaces], { naming: k8s }), {
    title: "Kubernetes",
    version: "v1.27.16",
  });
  const bytes = encodeV2Document(doc);

  it("uses gnostic's field numbers", () => {
    const document = fields(bytes);
    assert.equal(text(document.get(1)![0]), "2.0"); // swagger
    assert.equal(text(sub(document, 2).get(1)![0]), "Kubernetes"); // info.title
    const paths = sub(document, 8); // paths
    const named = paths.get(2)!.map((p) => fields(p as Uint8Array)); // NamedPathItem
    const item = named.find(
      (n) => text(n.get(1)![0]) === "/api/v1/namespaces/{namespace}/configmaps/{name}",
    )!;
    const pathItem = sub(item, 2);
    const patch = sub(pathItem, 8); // PathItem.patch
    assert.equal(text(patch.get(5)![0]), "patchCoreV1NamespacedConfigMap"); // operation_id
    const queryNames = patch
      .get(8)! // parameters: ParametersItem
      .map((p) => sub(fields(p as Uint8Array), 1)) // .parameter
      .filter((p) => p.has(2)) // non_body_parameter
      .map((p) => sub(sub(p, 2), 3)) // .query_parameter_sub_schema
      .map((q) => text(q.get(4)![0])); // name
    assert.deepEqual(queryNames, ["dryRun", "fieldManager", "fieldValidation", "force"]);
    const ext = patch.get(13)!.map((e) => fields(e as Uint8Array)); // vendor_extension: NamedAny
    const gvk = ext.find((e) => text(e.get(1)![0]) === "x-kubernetes-group-version-kind")!;
    assert.deepEqual(load(text(sub(gvk, 2).get(2)![0])), { group: "", kind: "ConfigMap", version: "v1" }); // Any.yaml
    const definitions = sub(document, 9)
      .get(1)!
      .map((d) => fields(d as Uint8Array));
    const cm = definitions.find((d) => text(d.get(1)![0]) === "io.k8s.api.core.v1.ConfigMap")!;
    const schema = sub(cm, 2);
    assert.equal(text(sub(schema, 22).get(1)![0]), "object"); // type: TypeItem
    const props = sub(schema, 25)
      .get(1)!
      .map((p) => text(fields(p as Uint8Array).get(1)![0])); // properties
    assert.deepEqual(props, ["apiVersion", "kind", "metadata"]);
  });

  it("lets kubectl 1.27's check find fieldValidation (query_param_verifier.go)", () => {
    const decoded = decodeV2Document(bytes) as Json;
    const supports = (kind: string): boolean | undefined => {
      for (const named of (decoded.paths as { path: Json[] }).path) {
        const patch = (named.value as Json).patch as Json | undefined;
        const ext = ((patch?.vendor_extension ?? []) as { name: string; value: { yaml: string } }[]).find(
          (e) => e.name === "x-kubernetes-group-version-kind",
        );
        if (!ext) continue;
        const gvk = load(ext.value.yaml) as Record<string, string>;
        if (gvk.group !== "" || gvk.version !== "v1" || gvk.kind !== kind) continue;
        return (patch!.parameters as Json[]).some(
          (p) =>
            (
              ((p.parameter as Json).non_body_parameter as Json | undefined)?.query_parameter_sub_schema as
                | Json
                | undefined
            )?.name === "fieldValidation",
        );
      }
      return undefined;
    };
    assert.equal(supports("ConfigMap"), true);
    assert.equal(supports("Namespace"), true);
    assert.equal(supports("Secret"), undefined);
  });

  it("keeps the document's content", () => {
    const decoded = decodeV2Document(bytes) as Json;
    assert.equal((decoded.paths as { path: unknown[] }).path.length, Object.keys(doc.paths as Json).length);
    assert.equal(
      (decoded.definitions as { additional_properties: unknown[] }).additional_properties.length,
      Object.keys(doc.definitions as Json).length,
    );
    const item = (decoded.paths as { path: Json[] }).path.find(
      (p) => p.name === "/api/v1/namespaces/{namespace}/configmaps/{name}",
    )!.value as Json;
    const pathParams = (item.parameters as Json[]).map(
      (p) => (p.parameter as Json).non_body_parameter as Json,
    );
    assert.deepEqual(pathParams[0], {
      path_parameter_sub_schema: {
        required: true,
        in: "path",
        description: "name of the ConfigMap",
        name: "name",
        type: "string",
        unique_items: true,
      },
    });
    const body = ((item.patch as Json).parameters as Json[])[0]!.parameter as Json;
    assert.deepEqual(body, {
      body_parameter: {
        name: "body",
        in: "body",
        required: true,
        schema: { _ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch" },
      },
    });
    assert.deepEqual(decoded.security, [{ additional_properties: [{ name: "BearerToken", value: {} }] }]);
    assert.deepEqual(decoded.security_definitions, {
      additional_properties: [
        {
          name: "BearerToken",
          value: {
            api_key_security: {
              type: "apiKey",
              name: "authorization",
              in: "header",
              description: "Bearer Token authentication",
            },
          },
        },
      ],
    });
  });
});
