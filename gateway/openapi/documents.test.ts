import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { OpenApiCache, OpenApiDocuments, openApiFingerprint, serverRelativeUrl } from "./documents.ts";
import { readV2Spec } from "./merge.ts";
import type { RemoteSpecs } from "./remote.ts";
import { configMaps, namespaces, testSchema, widgets } from "./testing.ts";
import { decodeV2Document } from "./v2-proto.ts";

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

describe("OpenApiDocuments with extensions' specs", () => {
  const gadget = {
    paths: {
      "/apis/ext.example.com/v1/gadgets": {
        get: {
          responses: {
            "200": { description: "OK", schema: { $ref: "#/definitions/com.example.ext.v1.Gadget" } },
          },
        },
      },
    },
    definitions: {
      "com.example.ext.v1.Gadget": {
        description: "A gadget of the extension.",
        properties: { size: { type: "integer", description: "How big." } },
        "x-kubernetes-group-version-kind": [{ group: "ext.example.com", kind: "Gadget", version: "v1" }],
      },
    },
  };
  const extV3 = Buffer.from(
    JSON.stringify({ openapi: "3.0.0", paths: { "/apis/ext.example.com/v1/gadgets": {} } }),
  );
  const otherWidgets = Buffer.from(
    JSON.stringify({ openapi: "3.0.0", paths: {}, info: { title: "theirs" } }),
  );
  const remote: RemoteSpecs = {
    generation: 1,
    v2: [readV2Spec(JSON.stringify(gadget), "ext.example.com", "v1")],
    v3: new Map([
      ["apis/ext.example.com/v1", extV3],
      ["apis/stable.example.com/v1", otherWidgets],
    ]),
  };
  const docs = new OpenApiDocuments([configMaps, widgets], { naming: k8s }, new Date(), remote);

  it("lists the extensions' v3 documents as they sent them, in place of a local one of the same group version", () => {
    const index = JSON.parse(docs.index.body.toString()) as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    assert.deepEqual(Object.keys(index.paths), [
      "api/v1",
      "apis/ext.example.com/v1",
      "apis/stable.example.com/v1",
      "apis/stable.example.com/v1beta1",
    ]);
    const doc = docs.v3.get("apis/ext.example.com/v1")!;
    assert.equal(doc.body, extV3);
    assert.equal(doc.etag, createHash("sha512").update(extV3).digest("hex").toUpperCase());
    assert.equal(
      index.paths["apis/ext.example.com/v1"]?.serverRelativeURL,
      serverRelativeUrl("apis/ext.example.com/v1", doc.etag),
    );
    assert.equal(docs.v3.get("apis/stable.example.com/v1")!.body, otherWidgets);
  });

  it("merges the extensions' v2 specs into the JSON and protobuf documents", () => {
    const v2 = JSON.parse(docs.v2Json.body.toString()) as {
      paths: Record<string, unknown>;
      definitions: Record<string, unknown>;
    };
    assert.deepEqual(
      v2.paths["/apis/ext.example.com/v1/gadgets"],
      gadget.paths["/apis/ext.example.com/v1/gadgets"],
    );
    assert.deepEqual(
      v2.definitions["com.example.ext.v1.Gadget"],
      gadget.definitions["com.example.ext.v1.Gadget"],
    );
    assert.ok(v2.paths["/api/v1/namespaces/{namespace}/configmaps"], "the gateway's own paths stay");
    const proto = decodeV2Document(docs.v2Proto.body) as {
      definitions: { additional_properties: { name: string; value: { description?: string } }[] };
    };
    const named = proto.definitions.additional_properties.find((d) => d.name === "com.example.ext.v1.Gadget");
    assert.equal(named?.value.description, "A gadget of the extension.");
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

  it("rebuilds when the extensions' specs change, not otherwise", () => {
    const cache = new OpenApiCache({ naming: k8s });
    const none = cache.documents([configMaps]);
    const remote = (generation: number): RemoteSpecs => ({ generation, v2: [], v3: new Map() });
    const first = cache.documents([configMaps], remote(1));
    assert.notEqual(first, none);
    assert.equal(cache.documents([configMaps], remote(1)), first);
    assert.notEqual(cache.documents([configMaps], remote(2)), first);
    assert.equal(cache.builds, 3);
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
