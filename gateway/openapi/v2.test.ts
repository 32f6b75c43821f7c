import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { buildGroupVersions } from "./group-versions.ts";
import { allRefs, configMaps, namespaces, widgets } from "./testing.ts";
import { openApiV2Document } from "./v2.ts";

const k8s = naming("kubernetes");
type Json = Record<string, unknown>;

describe("openApiV2Document", () => {
  const doc = openApiV2Document(buildGroupVersions([configMaps, namespaces, widgets], { naming: k8s }), {
    title: "Kubernetes",
    version: "v1.27.16",
  });
  const paths = doc.paths as Record<string, Json>;
  const definitions = doc.definitions as Json;

  it("covers every served group version in one Swagger 2.0 document", () => {
    assert.equal(doc.swagger, "2.0");
    assert.ok(paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]);
    assert.ok(paths["/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}"]);
    assert.ok(paths["/apis/stable.example.com/v1beta1/widgets"]);
    assert.ok(!Object.keys(paths).some((p) => p.includes("v1alpha1")));
    assert.ok(definitions["io.k8s.api.core.v1.ConfigMap"]);
    assert.ok(definitions["com.example.stable.v1beta1.Widget"]);
    assert.deepEqual(Object.keys(paths), [...Object.keys(paths)].sort());
  });

  it("puts the body first among a write's parameters and keeps fieldValidation on PATCH", () => {
    const patch = paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]!.patch as Json;
    const params = patch.parameters as Json[];
    assert.deepEqual(params[0], {
      in: "body",
      name: "body",
      required: true,
      schema: { $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch" },
    });
    assert.deepEqual(
      params.map((p) => p.name),
      ["body", "dryRun", "fieldManager", "fieldValidation", "force"],
    );
    assert.deepEqual(params[3], {
      description: params[3]!.description,
      in: "query",
      name: "fieldValidation",
      type: "string",
      uniqueItems: true,
    });
    assert.deepEqual(patch.consumes, ["application/json-patch+json", "application/merge-patch+json"]);
    assert.deepEqual(patch.schemes, ["https"]);
    assert.deepEqual(patch["x-kubernetes-group-version-kind"], {
      group: "",
      kind: "ConfigMap",
      version: "v1",
    });
    assert.deepEqual((patch.responses as Json)["200"], {
      description: "OK",
      schema: { $ref: "#/definitions/io.k8s.api.core.v1.ConfigMap" },
    });
    const del = paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]!.delete as Json;
    assert.deepEqual((del.parameters as Json[])[0], {
      in: "body",
      name: "body",
      schema: { $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions" },
    });
    assert.deepEqual(del.consumes, ["*/*"]);
  });

  it("resolves every reference and uses plain $ref with siblings", () => {
    for (const ref of allRefs(doc)) {
      assert.ok(ref.startsWith("#/definitions/"), ref);
      assert.ok(definitions[ref.slice("#/definitions/".length)], ref);
    }
    const cm = definitions["io.k8s.api.core.v1.ConfigMap"] as { properties: Record<string, Json> };
    assert.deepEqual(cm.properties.metadata, {
      $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
      description: "Standard object's metadata.",
    });
    assert.deepEqual(doc.security, [{ BearerToken: [] }]);
  });
});
