import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { buildGroupVersions } from "./group-versions.ts";
import { allRefs, configMaps, namespaces, v3SupportsFieldValidation, widgets } from "./testing.ts";
import { documentTitle, openApiV3Document } from "./v3.ts";

const cluster = naming("cluster");
const info = { title: "Cluster", version: "v1.27.16" };

type Json = Record<string, unknown>;

describe("openApiV3Document", () => {
  const apis = buildGroupVersions([configMaps, namespaces, widgets], { naming: cluster });
  const core = openApiV3Document(apis[0]!, info);
  const paths = core.paths as Record<string, Json>;
  const schemas = (core.components as { schemas: Json }).schemas;

  it("is an OpenAPI 3.0 document with info, paths and components", () => {
    assert.equal(core.openapi, "3.0.0");
    assert.deepEqual(core.info, info);
    assert.ok(paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]);
    assert.ok(schemas["io.cluster.api.core.v1.ConfigMap"]);
    assert.equal(documentTitle(naming("kubernetes")), "Kubernetes");
  });

  it("lets kubectl find fieldValidation on every kind's PATCH", () => {
    for (const kind of ["ConfigMap", "Namespace"]) {
      assert.equal(v3SupportsFieldValidation(core, { group: "", version: "v1", kind }), true, kind);
    }
    assert.equal(v3SupportsFieldValidation(core, { group: "", version: "v1", kind: "Secret" }), false);
    const widgetsV1 = openApiV3Document(apis[1]!, info);
    assert.equal(
      v3SupportsFieldValidation(widgetsV1, { group: "stable.example.com", version: "v1", kind: "Widget" }),
      true,
    );
    // kubectl stops at the first PATCH of the kind it meets, in map order: all of them must carry it.
    for (const item of Object.values(paths)) {
      const patch = item.patch as Json | undefined;
      if (patch)
        assert.ok((patch.parameters as { name: string }[]).some((p) => p.name === "fieldValidation"));
    }
  });

  it("renders an operation the way the reference server does", () => {
    const item = paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]!;
    assert.deepEqual(Object.keys(item), ["delete", "get", "parameters", "patch", "put"]);
    assert.deepEqual((item.parameters as Json[])[0], {
      description: "name of the ConfigMap",
      in: "path",
      name: "name",
      required: true,
      schema: { type: "string", uniqueItems: true },
    });
    const patch = item.patch as Json;
    assert.equal(patch.operationId, "patchCoreV1NamespacedConfigMap");
    assert.equal(patch["x-kubernetes-action"], "patch");
    assert.deepEqual(patch["x-kubernetes-group-version-kind"], {
      group: "",
      kind: "ConfigMap",
      version: "v1",
    });
    assert.deepEqual(patch.tags, ["core_v1"]);
    assert.deepEqual(Object.keys((patch.requestBody as { content: Json }).content), [
      "application/json-patch+json",
      "application/merge-patch+json",
    ]);
    const ok = (patch.responses as Record<string, { content: Json }>)["200"]!;
    // Upstream's Protobuf type is served under this preset too (client-go asks for it).
    assert.deepEqual(Object.keys(ok.content), [
      "application/json",
      "application/vnd.cluster.protobuf",
      "application/vnd.kubernetes.protobuf",
      "application/yaml",
    ]);
    assert.deepEqual(ok.content["application/json"], {
      schema: { $ref: "#/components/schemas/io.cluster.api.core.v1.ConfigMap" },
    });
    assert.deepEqual((patch.responses as Json)["401"], { description: "Unauthorized" });
    const post = paths["/api/v1/namespaces/{namespace}/configmaps"]!.post as Json;
    assert.deepEqual(post.requestBody, {
      content: { "*/*": { schema: { $ref: "#/components/schemas/io.cluster.api.core.v1.ConfigMap" } } },
    });
  });

  it("resolves every reference within the document", () => {
    for (const ref of allRefs(core)) {
      assert.ok(ref.startsWith("#/components/schemas/"), ref);
      assert.ok(schemas[ref.slice("#/components/schemas/".length)], ref);
    }
    const cm = schemas["io.cluster.api.core.v1.ConfigMap"] as { properties: Record<string, Json> };
    assert.deepEqual(cm.properties.metadata, {
      allOf: [{ $ref: "#/components/schemas/io.cluster.apimachinery.pkg.apis.meta.v1.ObjectMeta" }],
      description: "Standard object's metadata.",
    });
  });

  it("describes only its own group version", () => {
    const beta = openApiV3Document(apis[2]!, info);
    for (const path of Object.keys(beta.paths as Json))
      assert.ok(path.startsWith("/apis/stable.example.com/v1beta1/"));
    assert.ok(!Object.keys((beta.components as { schemas: Json }).schemas).some((n) => n.includes("core")));
  });
});
