import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  byPriority,
  filterPaths,
  type Json,
  MAX_SPEC_DEPTH,
  mergeInto,
  mergeV2Document,
  pruneDefaults,
  readV2Spec,
  type SpecParts,
} from "./merge.ts";
import { decodeV2Document, encodeV2Document } from "./v2-proto.ts";

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
const get = (definition: string) => ({
  get: { responses: { "200": { description: "OK", schema: ref(definition) } } },
});

function parts(paths: Record<string, Json>, definitions: Record<string, Json>): SpecParts {
  return { paths: new Map(Object.entries(paths)), definitions: new Map(Object.entries(definitions)) };
}

function dest(paths: Record<string, Json>, definitions: Record<string, Json>) {
  return { paths: new Map(Object.entries(paths)), definitions: new Map(Object.entries(definitions)) };
}

describe("filterPaths", () => {
  it("keeps the paths asked for, what they reach through definitions, and what no path used", () => {
    const spec = parts(
      { "/apis/a/v1/things": get("a.Thing"), "/apis/b/v1/others": get("b.Other") },
      {
        "a.Thing": { properties: { meta: ref("Meta"), list: { items: ref("a.Item") } } },
        "a.Item": { type: "object" },
        Meta: { type: "object" },
        "b.Other": { properties: { meta: ref("Meta"), x: ref("b.Only") } },
        "b.Only": { type: "string" },
        Unused: { type: "object" },
      },
    );
    const out = filterPaths(spec, (p) => p.startsWith("/apis/a/v1/"));
    assert.deepEqual([...out.paths.keys()], ["/apis/a/v1/things"]);
    assert.deepEqual([...out.definitions.keys()].sort(), ["Meta", "Unused", "a.Item", "a.Thing"]);
  });
});

describe("mergeInto", () => {
  it("adds the source's paths and definitions, sharing identical definitions", () => {
    const into = dest({ "/api/v1/pods": get("Pod") }, { Pod: { type: "object" }, Meta: { type: "object" } });
    mergeInto(
      into,
      parts(
        { "/apis/x/v1/widgets": get("x.Widget") },
        { "x.Widget": { properties: { m: ref("Meta") } }, Meta: { type: "object" } },
      ),
    );
    assert.deepEqual([...into.paths.keys()], ["/api/v1/pods", "/apis/x/v1/widgets"]);
    assert.deepEqual([...into.definitions.keys()], ["Pod", "Meta", "x.Widget"]);
    assert.deepEqual(into.definitions.get("x.Widget"), { properties: { m: ref("Meta") } });
  });

  it("renames a definition whose name is taken by another schema, and the references to it", () => {
    const into = dest({ "/api/v1/pods": get("Meta") }, { Meta: { type: "object" } });
    const source = parts(
      { "/apis/x/v1/widgets": get("x.Widget") },
      { "x.Widget": { properties: { m: ref("Meta") } }, Meta: { type: "object", description: "theirs" } },
    );
    mergeInto(into, source);
    assert.deepEqual(into.definitions.get("Meta"), { type: "object" });
    assert.deepEqual(into.definitions.get("Meta_v2"), { type: "object", description: "theirs" });
    assert.deepEqual(into.definitions.get("x.Widget"), { properties: { m: ref("Meta_v2") } });
    // The source itself is not changed.
    assert.deepEqual(source.definitions.get("x.Widget"), { properties: { m: ref("Meta") } });

    // A third spec with the same different Meta shares Meta_v2; one with yet another gets Meta_v3.
    mergeInto(
      into,
      parts({ "/apis/y/v1/gadgets": get("Meta") }, { Meta: { type: "object", description: "theirs" } }),
    );
    mergeInto(
      into,
      parts({ "/apis/z/v1/gizmos": get("Meta") }, { Meta: { type: "object", description: "third" } }),
    );
    assert.deepEqual((into.paths.get("/apis/y/v1/gadgets")!.get as Json).responses, {
      "200": { description: "OK", schema: ref("Meta_v2") },
    });
    assert.deepEqual(into.definitions.get("Meta_v3"), { type: "object", description: "third" });
    assert.deepEqual((into.paths.get("/apis/z/v1/gizmos")!.get as Json).responses, {
      "200": { description: "OK", schema: ref("Meta_v3") },
    });
  });

  it("skips a renamed name the source itself defines", () => {
    const into = dest({ "/a": get("Meta") }, { Meta: { type: "object" } });
    mergeInto(
      into,
      parts(
        { "/b": get("Meta"), "/c": get("Meta_v2") },
        { Meta: { type: "string" }, Meta_v2: { type: "integer" } },
      ),
    );
    assert.deepEqual(into.definitions.get("Meta_v3"), { type: "string" });
    assert.deepEqual(into.definitions.get("Meta_v2"), { type: "integer" });
  });

  it("leaves a path already present to the earlier spec, and what only it used", () => {
    const into = dest({ "/apis/x/v1/widgets": get("Mine") }, { Mine: { type: "object" } });
    mergeInto(
      into,
      parts(
        { "/apis/x/v1/widgets": get("Theirs"), "/apis/x/v1/other": get("Other") },
        { Theirs: { type: "object" }, Other: { type: "string" } },
      ),
    );
    assert.deepEqual(into.paths.get("/apis/x/v1/widgets"), get("Mine"));
    assert.ok(into.paths.has("/apis/x/v1/other"));
    assert.equal(into.definitions.has("Theirs"), false);

    // Nothing at all comes from a spec whose every path is taken.
    mergeInto(into, parts({ "/apis/x/v1/widgets": get("Lone") }, { Lone: { type: "object" }, Free: {} }));
    assert.equal(into.definitions.has("Lone"), false);
    assert.equal(into.definitions.has("Free"), false);
  });
});

describe("mergeV2Document", () => {
  it("keeps the gateway's document and sorts the merged paths and definitions", () => {
    const local = {
      definitions: { B: { type: "object" } },
      info: { title: "Kubernetes", version: "v1.27.16" },
      paths: { "/b": get("B") },
      swagger: "2.0",
    };
    const merged = mergeV2Document(local, [parts({ "/a": get("A") }, { A: { type: "object" } })]);
    assert.deepEqual(Object.keys(merged), ["definitions", "info", "paths", "swagger"]);
    assert.deepEqual(Object.keys(merged.paths as Json), ["/a", "/b"]);
    assert.deepEqual(Object.keys(merged.definitions as Json), ["A", "B"]);
    assert.equal(mergeV2Document(local, []), local);
  });
});

describe("byPriority", () => {
  const spec = (name: string, group: string, groupPriorityMinimum: number, versionPriority: number) => ({
    entry: { name, group, groupPriorityMinimum, versionPriority },
  });

  it("orders by group priority (the group's highest), then version priority, then name", () => {
    const order = byPriority([
      spec("v1.low.example.com", "low.example.com", 100, 10),
      spec("v1beta1.high.example.com", "high.example.com", 50, 5),
      spec("v1.high.example.com", "high.example.com", 2000, 20),
      spec("v1.b.example.com", "b.example.com", 1000, 1),
      spec("v1.a.example.com", "a.example.com", 1000, 1),
    ]).map((s) => s.entry.name);
    assert.deepEqual(order, [
      "v1.high.example.com",
      "v1beta1.high.example.com",
      "v1.a.example.com",
      "v1.b.example.com",
      "v1.low.example.com",
    ]);
  });
});

describe("pruneDefaults", () => {
  it("drops defaults from every nested schema, not properties named default", () => {
    const schema: Json = {
      default: {},
      properties: {
        default: { type: "string", default: "x" },
        list: { items: { default: 1, type: "integer" } },
        map: { additionalProperties: { default: true } },
      },
      allOf: [{ default: 2 }],
    };
    pruneDefaults(schema);
    assert.deepEqual(schema, {
      properties: {
        default: { type: "string" },
        list: { items: { type: "integer" } },
        map: { additionalProperties: {} },
      },
      allOf: [{}],
    });
  });
});

describe("readV2Spec", () => {
  const extension = {
    swagger: "2.0",
    info: { title: "Extension", version: "v1" },
    parameters: { pretty: { in: "query", name: "pretty", type: "string", uniqueItems: true } },
    paths: {
      "/apis/ext.example.com/v1/namespaces/{namespace}/widgets": {
        get: {
          parameters: [{ $ref: "#/parameters/pretty" }],
          responses: { "200": { description: "OK", schema: ref("com.example.ext.v1.WidgetList") } },
        },
      },
      "/apis/ext.example.com/v1beta1/widgets": get("com.example.ext.v1beta1.Widget"),
      "/api/v1/pods": get("io.k8s.api.core.v1.Pod"),
    },
    definitions: {
      "com.example.ext.v1.WidgetList": { properties: { items: { items: ref("com.example.ext.v1.Widget") } } },
      "com.example.ext.v1.Widget": {
        properties: {
          spec: { properties: { size: { type: "integer", default: 3, description: "How big." } } },
        },
      },
      "com.example.ext.v1beta1.Widget": { type: "object" },
      "io.k8s.api.core.v1.Pod": { type: "object" },
    },
  };

  it("keeps the group version's paths and what they use, parameters inlined, defaults dropped", () => {
    const spec = readV2Spec(JSON.stringify(extension), "ext.example.com", "v1");
    assert.deepEqual([...spec.paths.keys()], ["/apis/ext.example.com/v1/namespaces/{namespace}/widgets"]);
    assert.deepEqual(
      [...spec.definitions.keys()],
      ["com.example.ext.v1.WidgetList", "com.example.ext.v1.Widget"],
    );
    const op = spec.paths.get("/apis/ext.example.com/v1/namespaces/{namespace}/widgets")?.get as Json;
    assert.deepEqual(op.parameters, [extension.parameters.pretty]);
    assert.deepEqual(spec.definitions.get("com.example.ext.v1.Widget"), {
      properties: { spec: { properties: { size: { type: "integer", description: "How big." } } } },
    });
  });

  it("refuses what is not a Swagger object the gateway can serve", () => {
    const refused = (body: string, pattern: RegExp) =>
      assert.throws(() => readV2Spec(body, "ext.example.com", "v1"), pattern);
    refused("<html>not json</html>", /JSON/);
    refused("[1, 2]", /not a JSON object/);
    refused(JSON.stringify({ paths: [] }), /paths of the OpenAPI v2 spec is not an object/);
    refused(
      JSON.stringify({ definitions: { X: "y" } }),
      /definitions\["X"\] of the OpenAPI v2 spec is not an object/,
    );
    refused(JSON.stringify({ paths: { "/apis/ext.example.com/v1/x": 7 } }), /not an object/);
    let deep: Json = { type: "string" };
    for (let i = 0; i < MAX_SPEC_DEPTH; i++) deep = { properties: { f: deep } };
    refused(
      JSON.stringify({ paths: { "/apis/ext.example.com/v1/x": get("Deep") }, definitions: { Deep: deep } }),
      /nests \d+ levels, more than/,
    );
    // Deep enough for protobuf's recursion limit, yet within the nesting bound: refused by the trial encoding.
    let nested: Json = { type: "string" };
    for (let i = 0; i < MAX_SPEC_DEPTH / 2 - 4; i++) nested = { properties: { f: nested } };
    refused(
      JSON.stringify({ paths: { "/apis/ext.example.com/v1/x": get("Deep") }, definitions: { Deep: nested } }),
      /maximum nesting depth exceeded/,
    );
  });

  it("accepts a spec with parameters protobuf has no message for, leaving them out of that encoding", () => {
    const spec = readV2Spec(
      JSON.stringify({
        paths: {
          "/apis/ext.example.com/v1/x": {
            get: {
              parameters: [
                { in: "header", name: "X-Trace", type: "string" },
                { in: "query", name: "pretty", type: "string" },
              ],
              responses: { "200": { description: "OK" } },
            },
          },
        },
      }),
      "ext.example.com",
      "v1",
    );
    const decoded = decodeV2Document(
      encodeV2Document({ swagger: "2.0", paths: Object.fromEntries(spec.paths) }),
    ) as { paths: { path: { value: { get: { parameters: unknown[] } } }[] } };
    assert.equal(decoded.paths.path[0]?.value.get.parameters.length, 1);
  });
});
