import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileSchema } from "../schema/structural/index.ts";
import { Catalog } from "./catalog.ts";
import { DecodeChecks } from "./decode-check.ts";
import { SchemaExpander } from "./expand.ts";
import { f, inline, mapList, mergeBy, pkg, required, t } from "./model.ts";

const META = pkg("meta/v1", "test.meta", {
  ObjectMeta: t("Object metadata.", {
    name: f(1, "string", "The name."),
    labels: f(11, "{}string", "Labels."),
  }),
});

const APPS = pkg("apps/v1", "test.apps", {
  Widget: t("A widget.", {
    metadata: f(1, "meta/v1.ObjectMeta", "Metadata."),
    spec: f(2, "WidgetSpec", "Desired state."),
  }),
  WidgetSpec: t("What a widget should be.", {
    replicas: f(1, "int32", "How many."),
    mode: f(2, "string", "The mode.", { enum: ["Fast", "Slow"] }),
    parts: f(3, "[]Part", "Parts by name.", { ...mergeBy("name"), ...mapList("name") }),
    size: f(4, "quantity", "How big."),
    probe: f(5, "Probe", "A probe."),
    data: f(6, "bytes", "Raw data."),
    extra: f(7, "{}Extra", "Named lists."),
  }),
  Part: t("One part.", {
    name: f(1, "string", "The part's name.", required),
    port: f(2, "intOrString", "Port number or name."),
  }),
  Probe: t("A probe.", {
    handler: f(1, "Handler", "How to probe.", inline),
    periodSeconds: f(2, "int32", "How often."),
  }),
  Handler: t("One way to probe.", { command: f(1, "[]string", "The command.") }, { structType: "atomic" }),
  Extra: {
    ...t("A named list of strings.", { items: f(1, "[]string", "The strings.") }),
    jsonAs: "[]string",
  },
});

const catalog = new Catalog([META, APPS]);

describe("SchemaExpander", () => {
  const schema = new SchemaExpander(catalog).type("apps/v1.Widget");

  it("writes types, formats, list and patch markers and descriptions", () => {
    const spec = schema.properties?.spec;
    assert.equal(spec?.description, "Desired state.");
    assert.deepEqual(spec?.properties?.replicas, {
      type: "integer",
      format: "int32",
      description: "How many.",
    });
    assert.deepEqual(spec?.properties?.mode?.enum, ["Fast", "Slow"]);
    const parts = spec?.properties?.parts;
    assert.equal(parts?.["x-kubernetes-list-type"], "map");
    assert.deepEqual(parts?.["x-kubernetes-list-map-keys"], ["name"]);
    assert.equal(parts?.["x-kubernetes-patch-merge-key"], "name");
    assert.deepEqual((parts?.items as { required?: string[] } | undefined)?.required, ["name"]);
    assert.equal(spec?.properties?.size?.format, "quantity");
    assert.equal(spec?.properties?.data?.format, "byte");
  });

  it("flattens inline fields into their parent", () => {
    const probe = schema.properties?.spec?.properties?.probe;
    assert.deepEqual(Object.keys(probe?.properties ?? {}), ["command", "periodSeconds"]);
  });

  it("validates and prunes through the structural schema", () => {
    const compiled = compileSchema(schema, { builtin: true });
    const object = {
      metadata: { name: "w", extra: 1 },
      spec: { replicas: 1, mode: "Medium", parts: [{ name: "a" }, { name: "a" }], size: "1Gx", bogus: true },
    };
    assert.deepEqual(compiled.prune(object, { root: false }), ["metadata.extra", "spec.bogus"]);
    const errors = compiled.validate(object).map((e) => `${e.field}: ${e.type}`);
    assert.ok(errors.includes("spec.mode: FieldValueNotSupported"), errors.join("\n"));
    assert.ok(errors.includes("spec.parts[1]: FieldValueDuplicate"), errors.join("\n"));
    assert.ok(
      errors.some((e) => e.startsWith("spec.size")),
      errors.join("\n"),
    );
  });
});

describe("DecodeChecks", () => {
  const check = new DecodeChecks(catalog).forType("apps/v1.Widget");

  it("accepts well-typed objects and nulls", () => {
    assert.equal(
      check({
        metadata: { name: "w" },
        spec: { replicas: 2, parts: [{ name: "a", port: 80 }], probe: null },
      }),
      undefined,
    );
  });

  it("names the innermost struct, the path without indices and Go's type", () => {
    assert.equal(
      check({ spec: { replicas: "2" } }),
      "json: cannot unmarshal string into Go struct field WidgetSpec.spec.replicas of type int32",
    );
    assert.equal(
      check({ spec: { parts: [{ name: 5 }] } }),
      "json: cannot unmarshal number into Go struct field Part.spec.parts.name of type string",
    );
    assert.equal(
      check({ spec: { parts: {} } }),
      "json: cannot unmarshal object into Go struct field WidgetSpec.spec.parts of type []v1.Part",
    );
    assert.equal(
      check({ spec: { replicas: 1.5 } }),
      "json: cannot unmarshal number 1.5 into Go struct field WidgetSpec.spec.replicas of type int32",
    );
    assert.equal(
      check({ metadata: { labels: { a: true } } }),
      "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string",
    );
  });

  it("names a Go named type rather than its shape", () => {
    assert.equal(
      check({ spec: { extra: { a: "x" } } }),
      "json: cannot unmarshal string into Go struct field WidgetSpec.spec.extra of type v1.Extra",
    );
    assert.equal(check({ spec: { extra: { a: ["x"] } } }), undefined);
  });

  it("checks inline fields under the embedded struct's name", () => {
    assert.equal(
      check({ spec: { probe: { command: "ls" } } }),
      "json: cannot unmarshal string into Go struct field Handler.spec.probe.command of type []string",
    );
  });
});
