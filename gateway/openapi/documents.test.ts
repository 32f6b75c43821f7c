import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { OpenApiCache, OpenApiDocuments, openApiFingerprint, serverRelativeUrl } from "./documents.ts";
import { configMaps, namespaces, testSchema, widgets } from "./testing.ts";

const k8s = naming("kubernetes");

describe("OpenApiDocuments", () => {
  const docs = new OpenApiDocuments([configMaps, namespaces, widgets], { naming: k8s });

  it("indexes each group version with the hash of its document", () => {
    const index = JSON.parse(docs.index.body.toString()) as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    assert.deepEqual(Object.keys(index.paths), [
      "api/v1",
      "apis/stable.example.com/v1",
      "apis/stable.example.com/v1beta1",
    ]);
    for (const [gv, entry] of Object.entries(index.paths)) {
      const doc = docs.v3.get(gv)!;
      const hash = createHash("sha512").update(doc.body).digest("hex").toUpperCase();
      assert.equal(doc.etag, hash);
      assert.equal(entry.serverRelativeURL, `/openapi/v3/${gv}?hash=${hash}`);
      assert.equal(serverRelativeUrl(gv, hash), entry.serverRelativeURL);
    }
  });

  it("serves the v2 document as JSON and as protobuf under one tag", () => {
    const v2 = JSON.parse(docs.v2Json.body.toString()) as { swagger: string; info: { version: string } };
    assert.equal(v2.swagger, "2.0");
    assert.equal(v2.info.version, "v1.27.16");
    assert.equal(docs.v2Proto.etag, docs.v2Json.etag);
    assert.ok(docs.v2Proto.body.length > 0);
    assert.equal(docs.v2Proto, docs.v2Proto, "encoded once");
  });
});

describe("OpenApiCache", () => {
  it("rebuilds only when what the documents show changes", () => {
    const cache = new OpenApiCache({ naming: k8s });
    const first = cache.documents([configMaps, widgets]);
    assert.equal(cache.documents([configMaps, widgets]), first);
    assert.equal(cache.documents([widgets, configMaps]), first, "order does not matter");
    assert.equal(
      cache.documents([{ ...configMaps, shortNames: ["cm"] }, widgets]),
      first,
      "nor fields not shown",
    );
    assert.equal(cache.builds, 1);
    const second = cache.documents([configMaps, widgets, namespaces]);
    assert.notEqual(second, first);
    assert.equal(cache.builds, 2);
  });

  it("fingerprints verbs, versions and scope", () => {
    const base = openApiFingerprint([configMaps]);
    assert.notEqual(openApiFingerprint([{ ...configMaps, verbs: ["get"] }]), base);
    assert.notEqual(openApiFingerprint([{ ...configMaps, namespaced: false }]), base);
    assert.notEqual(
      openApiFingerprint([{ ...configMaps, versions: [{ name: "v2", served: true, storage: true }] }]),
      base,
    );
    assert.notEqual(
      openApiFingerprint([testSchema({ group: "", plural: "configmaps", kind: "Other" })]),
      base,
    );
  });
});
