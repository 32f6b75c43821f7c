import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import type { ResourceSchema } from "../../backends/schema/index.ts";
import { DiscoveryCache, discoveryFingerprint, ifNoneMatchMatches } from "./cache.ts";

function schema(
  fields: Partial<ResourceSchema> & Pick<ResourceSchema, "group" | "plural" | "singular" | "kind">,
): ResourceSchema {
  return {
    versions: [{ name: "v1", served: true, storage: true }],
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

const configmaps = schema({ group: "", plural: "configmaps", singular: "configmap", kind: "ConfigMap" });
const leases = schema({
  group: naming("cluster").group("coordination"),
  plural: "leases",
  singular: "lease",
  kind: "Lease",
});
const widgets = schema({
  group: "stable.example.com",
  plural: "widgets",
  singular: "widget",
  kind: "Widget",
  versions: [
    { name: "v1beta1", served: true, storage: false, deprecated: true },
    { name: "v1", served: true, storage: true },
  ],
  subresources: ["status"],
});

const options = { naming: naming("cluster"), serverAddress: "[::1]:6443" };

describe("DiscoveryCache", () => {
  it("serves every legacy path, with or without a trailing slash", () => {
    const cache = new DiscoveryCache(options, [configmaps, leases, widgets]);
    for (const path of [
      "/api",
      "/api/v1",
      "/apis",
      "/apis/coordination.cluster.io",
      "/apis/coordination.cluster.io/v1",
      "/apis/stable.example.com",
      "/apis/stable.example.com/v1",
      "/apis/stable.example.com/v1beta1",
    ]) {
      const got = cache.get(path, "legacy");
      assert.ok(got, path);
      assert.equal(got.contentType, "application/json");
      assert.ok(got.body.endsWith("}\n"), path);
      assert.deepEqual(cache.get(`${path}/`, "legacy"), got);
    }
    assert.equal(
      cache.get("/api", "legacy")!.body,
      '{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"[::1]:6443"}]}\n',
    );
    assert.equal(
      JSON.parse(cache.get("/apis/stable.example.com", "legacy")!.body).preferredVersion.version,
      "v1",
    );
    for (const missing of [
      "/apis/nope",
      "/apis/stable.example.com/v2",
      "/api/v2",
      "/apis/coordination.cluster.io/v1/x",
    ]) {
      assert.equal(cache.get(missing, "legacy"), undefined, missing);
    }
  });

  it("serves the aggregated document at /api and /apis only, in v2beta1 and v2", () => {
    const cache = new DiscoveryCache(options, [configmaps, leases, widgets]);
    const beta = cache.get("/apis", "aggregated-v2beta1")!;
    const ga = cache.get("/apis/", "aggregated-v2")!;
    assert.equal(
      beta.contentType,
      "application/json;g=apidiscovery.cluster.io;v=v2beta1;as=APIGroupDiscoveryList",
    );
    assert.equal(ga.contentType, "application/json;g=apidiscovery.cluster.io;v=v2;as=APIGroupDiscoveryList");
    const betaDoc = JSON.parse(beta.body);
    const gaDoc = JSON.parse(ga.body);
    assert.equal(betaDoc.apiVersion, "apidiscovery.cluster.io/v2beta1");
    assert.equal(gaDoc.apiVersion, "apidiscovery.cluster.io/v2");
    assert.deepEqual(gaDoc.items, betaDoc.items);
    assert.deepEqual(
      betaDoc.items.map((g: { metadata: { name: string } }) => g.metadata.name),
      ["coordination.cluster.io", "stable.example.com"],
    );
    assert.notEqual(beta.etag, ga.etag);
    const core = JSON.parse(cache.get("/api", "aggregated-v2")!.body);
    assert.deepEqual(core.items[0].metadata, { creationTimestamp: null });
    assert.equal(cache.get("/api/v1", "aggregated-v2"), undefined);
    assert.equal(cache.get("/apis/stable.example.com", "aggregated-v2beta1"), undefined);
  });

  it("tags each body with the quoted SHA-512 of its bytes", () => {
    const cache = new DiscoveryCache(options, [configmaps]);
    const got = cache.get("/apis", "aggregated-v2")!;
    const hex = createHash("sha512").update(got.body).digest("hex").toUpperCase();
    assert.equal(got.etag, `"${hex}"`);
  });

  it("rebuilds only when the schema set changes", () => {
    const cache = new DiscoveryCache(options, [configmaps, leases]);
    assert.equal(cache.builds, 1);
    const before = cache.get("/apis", "aggregated-v2beta1")!;
    assert.equal(cache.update([leases, configmaps]), false);
    assert.equal(
      cache.update([{ ...configmaps, listKind: "Changed", allowCreateOnUpdate: true }, leases]),
      false,
    );
    assert.equal(cache.builds, 1);
    assert.equal(cache.get("/apis", "aggregated-v2beta1"), before);

    assert.equal(cache.update([configmaps, leases, widgets]), true);
    assert.equal(cache.builds, 2);
    const after = cache.get("/apis", "aggregated-v2beta1")!;
    assert.notEqual(after.etag, before.etag);
    // The core documents did not change, so neither did their tags.
    assert.equal(
      cache.get("/api", "aggregated-v2beta1")!.etag,
      new DiscoveryCache(options, [configmaps]).get("/api", "aggregated-v2beta1")!.etag,
    );

    assert.equal(cache.update([configmaps, leases]), true);
    assert.equal(cache.get("/apis", "aggregated-v2beta1")!.etag, before.etag);
    assert.equal(cache.get("/apis/stable.example.com", "legacy"), undefined);
  });

  it("notices a change in any field discovery shows", () => {
    const base = discoveryFingerprint([widgets]);
    const variants: ResourceSchema[] = [
      { ...widgets, shortNames: ["w"] },
      { ...widgets, categories: ["all"] },
      { ...widgets, namespaced: false },
      { ...widgets, verbs: ["get"] },
      { ...widgets, subresources: [] },
      { ...widgets, singular: "wid" },
      { ...widgets, kind: "Widgit" },
      { ...widgets, versions: [{ name: "v1", served: true, storage: true }] },
      { ...widgets, versions: widgets.versions.map((v) => ({ ...v, served: v.name === "v1" })) },
    ];
    for (const variant of variants) assert.notEqual(discoveryFingerprint([variant]), base);
  });

  it("keeps the enabled-versions choice it was built with", () => {
    const cache = new DiscoveryCache({ ...options, enabled: (_g, version) => version !== "v1beta1" }, [
      widgets,
    ]);
    assert.equal(cache.get("/apis/stable.example.com/v1beta1", "legacy"), undefined);
    assert.ok(cache.get("/apis/stable.example.com/v1", "legacy"));
  });
});

describe("ifNoneMatchMatches", () => {
  const cache = new DiscoveryCache(options, [configmaps]);
  const { etag } = cache.get("/apis", "aggregated-v2beta1")!;

  it("matches the tag the client got back, weak or in a list, and *", () => {
    assert.equal(ifNoneMatchMatches(etag, etag), true);
    assert.equal(ifNoneMatchMatches(`W/${etag}`, etag), true);
    assert.equal(ifNoneMatchMatches(`"other", ${etag}`, etag), true);
    assert.equal(ifNoneMatchMatches("*", etag), true);
  });

  it("does not match another tag, an unquoted one, or none", () => {
    assert.equal(ifNoneMatchMatches('"other"', etag), false);
    assert.equal(ifNoneMatchMatches(etag.slice(1, -1), etag), false);
    assert.equal(ifNoneMatchMatches(undefined, etag), false);
    assert.equal(ifNoneMatchMatches("", etag), false);
  });
});
