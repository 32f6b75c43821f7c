import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { serveKind } from "../builtin/testing.ts";
import { cloneJson, type JsonObject } from "../common/json.ts";
import { naming } from "../naming/naming.ts";
import { RegistryError } from "../registry/errors.ts";
import { type FieldError, formatFieldError } from "../registry/field-error.ts";
import { ConversionError } from "./conversion-webhook.ts";
import { crdStatus, crdStrategy } from "./crd-strategy.ts";
import { compareKubeAwareVersions, customResourceKind, defaultDeprecationWarning } from "./custom-kind.ts";
import { applyScale, getScale, scaleForUpdate, UNSET_SPEC_REPLICAS } from "./scale.ts";

const cluster = naming("cluster");
const text = (errs: readonly FieldError[] | undefined) => (errs ?? []).map(formatFieldError);

function schema(): JsonObject {
  return {
    type: "object",
    properties: {
      spec: {
        type: "object",
        "x-kubernetes-validations": [
          { rule: "self.minReplicas <= self.replicas", message: "replicas below minReplicas" },
          {
            rule: "self.tags.all(t, t.startsWith('app-'))",
            messageExpression:
              "'tags must start with app-: ' + self.tags.filter(t, !t.startsWith('app-')).join(', ')",
          },
        ],
        properties: {
          replicas: { type: "integer", default: 1 },
          minReplicas: { type: "integer", default: 0 },
          color: { type: "string", enum: ["red", "blue"], default: "red" },
          tags: { type: "array", maxItems: 8, items: { type: "string", maxLength: 32 }, default: [] },
          immutableName: {
            type: "string",
            maxLength: 63,
            "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "immutableName is immutable" }],
          },
          ports: {
            type: "array",
            maxItems: 4,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            items: {
              type: "object",
              required: ["name"],
              properties: { name: { type: "string", maxLength: 15 }, port: { type: "integer" } },
              "x-kubernetes-validations": [{ rule: "self.port >= oldSelf.port", message: "ports only grow" }],
            },
          },
          extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      },
      status: {
        type: "object",
        properties: {
          replicas: { type: "integer" },
          selector: { type: "string" },
          conditions: {
            type: "array",
            items: { type: "object", properties: { type: { type: "string" }, status: { type: "string" } } },
          },
        },
      },
    },
  };
}

function widgetsCrd(): JsonObject {
  const crd: JsonObject = {
    apiVersion: `${cluster.group("apiextensions")}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com", uid: "crd-uid" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", kind: "Widget", shortNames: ["wd"], categories: ["all"] },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema() },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: ".spec.replicas",
              statusReplicasPath: ".status.replicas",
              labelSelectorPath: ".status.selector",
            },
          },
          additionalPrinterColumns: [
            { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
            {
              name: "Color",
              type: "string",
              jsonPath: ".spec.color",
              priority: 1,
              description: "The color.",
            },
            { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: "Created", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
        },
        {
          name: "v1beta1",
          served: true,
          storage: false,
          deprecated: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", properties: { replicas: { type: "integer" } } } },
            },
          },
        },
      ],
    },
  };
  const { main } = crdStrategy(cluster);
  main.prepareForCreate?.(crd);
  assert.deepEqual(text(main.validate?.(crd)), []);
  crd.status = crdStatus(crd, [], { now: "2024-01-01T00:00:00Z" });
  return crd;
}

const kind = customResourceKind(cluster, widgetsCrd());
const typed = kind.strategy.typed;
assert.ok(typed);

function widget(spec: JsonObject = {}, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w1", namespace: "default" },
    spec,
    ...extra,
  };
}

/** What decoding and defaulting do to a body, then create validation. */
function created(object: JsonObject): string[] {
  assert.equal(typed?.decodeError(object), undefined);
  typed?.prune(object);
  typed?.default(object);
  return text(typed?.validate(object));
}

describe("custom resource kind: schema", () => {
  it("serves the accepted names, versions, scope and subresources", () => {
    const s = kind.schema;
    assert.equal(s.group, "example.com");
    assert.equal(s.plural, "widgets");
    assert.equal(s.singular, "widget");
    assert.equal(s.kind, "Widget");
    assert.equal(s.listKind, "WidgetList");
    assert.deepEqual(s.shortNames, ["wd"]);
    assert.deepEqual(s.categories, ["all"]);
    assert.equal(s.namespaced, true);
    assert.deepEqual(s.subresources, ["status", "scale"]);
    assert.equal(s.verbs.length, 8);
    assert.deepEqual(
      s.versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false, v.deprecationWarning]),
      [
        ["v1", true, true, false, undefined],
        ["v1beta1", true, false, true, "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"],
      ],
    );
    assert.equal(s.versions[0]?.schema?.type, "object");
    assert.deepEqual(kind.scale, {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
      labelSelectorPath: ".status.selector",
    });
    assert.equal(kind.conversionStrategy, "None");
  });

  it("orders versions the kube-aware way for the default deprecation warning", () => {
    const order = ["foo", "v1alpha1", "v1alpha2", "v2alpha1", "v1beta1", "v1", "v2"];
    for (let i = 0; i + 1 < order.length; i++)
      assert.ok(
        compareKubeAwareVersions(order[i] as string, order[i + 1] as string) < 0,
        `${order[i]} < ${order[i + 1]}`,
      );
    const crd = widgetsCrd();
    const versions = (crd.spec as JsonObject).versions as JsonObject[];
    versions.push(
      { name: "v2", served: true, storage: false },
      { name: "v3", served: false, storage: false },
    );
    assert.equal(
      defaultDeprecationWarning("v1beta1", crd),
      "example.com/v1beta1 Widget is deprecated; use example.com/v2 Widget",
    );
    assert.equal(defaultDeprecationWarning("v9", crd), "example.com/v9 Widget is deprecated");
  });

  it("converts between versions by rewriting apiVersion and pruning to the target schema", () => {
    const w = widget({ replicas: 2, color: "blue" });
    const beta = kind.schema.convert?.(w, "v1beta1");
    assert.deepEqual(beta, {
      apiVersion: "example.com/v1beta1",
      kind: "Widget",
      metadata: { name: "w1", namespace: "default" },
      spec: { replicas: 2 },
    });
    assert.equal(w.apiVersion, "example.com/v1", "the input is not modified");
    const webhook = widgetsCrd();
    (webhook.spec as JsonObject).conversion = { strategy: "Webhook" };
    const k = customResourceKind(cluster, webhook);
    assert.throws(() => k.schema.convert?.(widget(), "v1beta1"), ConversionError);
    assert.deepEqual(k.schema.convert?.(widget(), "v1"), widget());
  });
});

describe("custom resource kind: decoding, pruning, defaulting", () => {
  it("prunes unknown fields (not below preserve-unknown-fields) and reports them", () => {
    const w = widget(
      { replicas: 2, bogus: 1, extra: { anything: { goes: true } } },
      { status: { replicas: 1, x: 1 } },
    );
    (w.metadata as JsonObject).nickname = "x";
    assert.deepEqual(typed?.prune(w), ["metadata.nickname", "spec.bogus", "status.x"]);
    assert.deepEqual(w.spec, { replicas: 2, extra: { anything: { goes: true } } });
    assert.deepEqual(w.metadata, { name: "w1", namespace: "default" });
  });

  it("applies the schema's defaults", () => {
    const w = widget({ replicas: 3 });
    typed?.default(w);
    assert.deepEqual(w.spec, { replicas: 3, minReplicas: 0, color: "red", tags: [] });
  });

  it("metadata must decode; other type mismatches are validation errors", () => {
    assert.equal(
      typed?.decodeError(widget({}, { metadata: { name: "w1", labels: "x" } })),
      "json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string",
    );
    assert.equal(typed?.decodeError(widget({ replicas: "two" })), undefined);
    assert.equal(typed?.decodeError({ apiVersion: "example.com/v1", kind: "Widget" }), undefined);
    assert.deepEqual(created(widget({ replicas: "two" })), [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });
});

describe("custom resource kind: validation", () => {
  it("accepts a valid object", () => {
    assert.deepEqual(created(widget({ replicas: 2, tags: ["app-a"] })), []);
  });

  it("checks enums and other schema keywords, then rules", () => {
    assert.deepEqual(created(widget({ color: "green" })), [
      'spec.color: Unsupported value: "green": supported values: "red", "blue"',
    ]);
  });

  it("evaluates rules with macros and messageExpression", () => {
    assert.deepEqual(created(widget({ replicas: 1, minReplicas: 2, tags: ["app-a", "db", "x"] })), [
      'spec: Invalid value: "object": replicas below minReplicas',
      'spec: Invalid value: "object": tags must start with app-: db, x',
    ]);
  });

  it("a rule on the root reports the <nil> path", () => {
    const crd = widgetsCrd();
    const v1 = ((crd.spec as JsonObject).versions as JsonObject[])[0] as JsonObject;
    const root = (v1.schema as JsonObject).openAPIV3Schema as JsonObject;
    root["x-kubernetes-validations"] = [
      { rule: "self.metadata.name.startsWith('w-')", message: "name must start with w-" },
    ];
    const k = customResourceKind(cluster, crd);
    const w = widget();
    k.strategy.typed?.default(w);
    assert.deepEqual(text(k.strategy.typed?.validate(w)), [
      '<nil>: Invalid value: "object": name must start with w-',
    ]);
  });

  it("transition rules compare with oldSelf on update only, following map-list keys", () => {
    const old = widget({
      immutableName: "a",
      ports: [
        { name: "http", port: 80 },
        { name: "https", port: 443 },
      ],
    });
    typed?.default(old);
    assert.deepEqual(text(typed?.validate(old)), []);
    const same = cloneJson(old);
    assert.deepEqual(text(typed?.validateUpdate(same, old)), []);
    const changed = cloneJson(old);
    const spec = changed.spec as JsonObject;
    spec.immutableName = "b";
    // Reordered items correlate by name: https is unchanged, http shrinks.
    spec.ports = [
      { name: "https", port: 443 },
      { name: "http", port: 79 },
      { name: "new", port: 1 },
    ];
    assert.deepEqual(text(typed?.validateUpdate(changed, old)), [
      'spec.immutableName: Invalid value: "string": immutableName is immutable',
      'spec.ports[1]: Invalid value: "object": ports only grow',
    ]);
  });

  it("checks apiVersion and kind", () => {
    assert.deepEqual(text(typed?.validate({ ...widget(), kind: "Gadget", apiVersion: "example.com/v9" })), [
      'kind: Invalid value: "Gadget": must be Widget',
      'apiVersion: Invalid value: "example.com/v9": must be example.com/v1',
    ]);
  });

  it("validates an object by the schema of the version it is written in", () => {
    const beta: JsonObject = {
      ...widget({ replicas: 2, color: "green" }),
      apiVersion: "example.com/v1beta1",
    };
    typed?.prune(beta);
    assert.deepEqual(beta.spec, { replicas: 2 });
    assert.deepEqual(text(typed?.validate(beta)), []);
  });

  it("a runaway rule ends in an error, not a hang", () => {
    const crd = widgetsCrd();
    const v1 = ((crd.spec as JsonObject).versions as JsonObject[])[0] as JsonObject;
    const props = ((v1.schema as JsonObject).openAPIV3Schema as JsonObject).properties as JsonObject;
    // A definition stored before its rules were costed: quadratic over an unbounded list.
    props.spec = {
      type: "object",
      properties: { items: { type: "array", items: { type: "integer" } } },
      "x-kubernetes-validations": [
        { rule: "self.items.all(x, self.items.all(y, self.items.all(z, x + y + z >= 0)))" },
        { rule: "self.items.size() < 0" },
      ],
    };
    const k = customResourceKind(cluster, crd);
    const w = widget({ items: Array.from({ length: 400 }, (_, i) => i) });
    // The cost limit, not a clock, ends it: the error below is the proof.
    const errs = text(k.strategy.typed?.validate(w));
    assert.deepEqual(errs, [
      "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.items.all(x, self.items.all(y, self.items.all(z, x + y + z >= 0)))",
    ]);
  });
});

describe("custom resource kind: status subresource and generation", () => {
  it("the main resource keeps the stored status and counts generations", () => {
    const main = kind.strategy;
    const w = widget({ replicas: 1 }, { status: { replicas: 5 } });
    main.prepareForCreate?.(w);
    assert.equal(w.status, undefined);
    assert.equal((w.metadata as JsonObject).generation, 1);
    const old: JsonObject = { ...cloneJson(w), status: { replicas: 1 } };
    const next = cloneJson(old);
    next.status = { replicas: 9 };
    (next.metadata as JsonObject).labels = { a: "b" };
    main.prepareForUpdate?.(next, old);
    assert.deepEqual(next.status, { replicas: 1 });
    assert.equal((next.metadata as JsonObject).generation, 1, "metadata and status do not count");
    (next.spec as JsonObject).replicas = 2;
    main.prepareForUpdate?.(next, old);
    assert.equal((next.metadata as JsonObject).generation, 2);
  });

  it("status writes keep everything but status", () => {
    const status = kind.subresourceStrategies?.status;
    assert.ok(status);
    const old = widget({ replicas: 1 }, { status: { replicas: 1 } });
    (old.metadata as JsonObject).labels = { a: "b" };
    const next = widget({ replicas: 7 }, { status: { replicas: 3 } });
    const meta = next.metadata as JsonObject;
    meta.labels = { c: "d" };
    meta.managedFields = [{ manager: "m" }];
    status.prepareForUpdate?.(next, old);
    assert.deepEqual(next.spec, { replicas: 1 });
    assert.deepEqual(next.status, { replicas: 3 });
    assert.equal(next.metadata, meta, "the metadata object is updated in place");
    assert.deepEqual(meta, {
      name: "w1",
      namespace: "default",
      labels: { a: "b" },
      managedFields: [{ manager: "m" }],
    });
  });

  it("without a status subresource, status is an ordinary field", () => {
    const crd = widgetsCrd();
    const v1 = ((crd.spec as JsonObject).versions as JsonObject[])[0] as JsonObject;
    delete v1.subresources;
    const k = customResourceKind(cluster, crd);
    assert.deepEqual(k.schema.subresources, []);
    assert.equal(k.subresourceStrategies, undefined);
    const old = widget({}, { status: { replicas: 1 } });
    (old.metadata as JsonObject).generation = 4;
    const next = cloneJson(old);
    next.status = { replicas: 2 };
    k.strategy.prepareForUpdate?.(next, old);
    assert.deepEqual(next.status, { replicas: 2 });
    assert.equal((next.metadata as JsonObject).generation, 5);
  });

  it("works end to end through a registry", async () => {
    const served = await serveKind(kind);
    try {
      const { object } = await served.registry.create(
        "default",
        widget({ replicas: 2, bogus: true }, { status: { replicas: 9 } }),
      );
      assert.deepEqual(object.spec, { replicas: 2, minReplicas: 0, color: "red", tags: [] });
      assert.equal(object.status, undefined);
      assert.equal((object.metadata as JsonObject).generation, 1);
      await assert.rejects(
        served.registry.create("default", { ...widget({ color: "pink" }), metadata: { name: "w2" } }),
        (err: unknown) =>
          err instanceof RegistryError &&
          err.reason === "Invalid" &&
          text(err.causes).join("\n") ===
            'spec.color: Unsupported value: "pink": supported values: "red", "blue"',
      );
      const status = await served.registry.update(
        "default",
        "w1",
        (current) => ({ ...(current as JsonObject), spec: { replicas: 100 }, status: { replicas: 2 } }),
        { subresource: "status" },
      );
      assert.deepEqual(status.object.status, { replicas: 2 });
      assert.equal((status.object.spec as JsonObject).replicas, 2);
      const updated = await served.registry.update("default", "w1", (current) => {
        const o = cloneJson(current as JsonObject);
        (o.spec as JsonObject).replicas = 4;
        return o;
      });
      assert.equal((updated.object.metadata as JsonObject).generation, 2);
      assert.deepEqual(updated.object.status, { replicas: 2 });
    } finally {
      await served.stop();
    }
  });
});

describe("custom resource kind: printer columns", () => {
  it("builds cells from JSONPath with the column's type", () => {
    const columns = kind.schema.tableColumns ?? [];
    assert.deepEqual(
      columns.map((c) => [c.name, c.type, c.priority, c.description]),
      [
        ["Replicas", "integer", 0, "Custom resource definition column (in JSONPath format): .spec.replicas"],
        ["Color", "string", 1, "The color."],
        [
          "Ready",
          "string",
          0,
          'Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Ready")].status',
        ],
        [
          "Created",
          "date",
          0,
          "Custom resource definition column (in JSONPath format): .metadata.creationTimestamp",
        ],
      ],
    );
    const created = new Date(Date.now() - 3 * 3600_000).toISOString();
    const w = widget(
      { replicas: 2.7, color: "red" },
      {
        status: {
          conditions: [
            { type: "Progressing", status: "True" },
            { type: "Ready", status: "False" },
          ],
        },
      },
    );
    (w.metadata as JsonObject).creationTimestamp = created;
    assert.deepEqual(
      columns.map((c) => c.cell(w)),
      [2, "red", "False", "3h"],
    );
    const empty = widget({ replicas: "many" });
    assert.deepEqual(
      columns.map((c) => c.cell(empty)),
      [null, null, null, null],
    );
  });

  it("a definition without printer columns gets Age", () => {
    const crd = widgetsCrd();
    const v1 = ((crd.spec as JsonObject).versions as JsonObject[])[0] as JsonObject;
    delete v1.additionalPrinterColumns;
    const columns = customResourceKind(cluster, crd).schema.tableColumns ?? [];
    assert.deepEqual(
      columns.map((c) => [c.name, c.type]),
      [["Age", "date"]],
    );
    const w = widget();
    (w.metadata as JsonObject).creationTimestamp = new Date(Date.now() - 90_000).toISOString();
    assert.equal(columns[0]?.cell(w), "90s");
  });

  it("string columns print maps and lists as JSON and missing values as <no value>", () => {
    const crd = widgetsCrd();
    const v1 = ((crd.spec as JsonObject).versions as JsonObject[])[0] as JsonObject;
    v1.additionalPrinterColumns = [
      { name: "Tags", type: "string", jsonPath: ".spec.tags" },
      { name: "First", type: "string", jsonPath: ".spec.tags[0]" },
      { name: "Null", type: "string", jsonPath: ".spec.nothing" },
    ];
    const columns = customResourceKind(cluster, crd).schema.tableColumns ?? [];
    assert.deepEqual(
      columns.map((c) => c.cell(widget({ tags: ["app-a", "app-b"], nothing: null }))),
      ['["app-a","app-b"]', "app-a", "<no value>"],
    );
  });
});

describe("custom resource kind: scale", () => {
  const paths = kind.scale;
  assert.ok(paths);

  it("reads a Scale from the declared paths", () => {
    const w = widget({ replicas: 3 }, { status: { replicas: 2, selector: "app=w" } });
    Object.assign(w.metadata as JsonObject, {
      uid: "u1",
      resourceVersion: "7",
      creationTimestamp: "2024-01-01T00:00:00Z",
    });
    assert.deepEqual(getScale(w, paths), {
      ok: true,
      scale: {
        kind: "Scale",
        apiVersion: "autoscaling/v1",
        metadata: {
          name: "w1",
          namespace: "default",
          uid: "u1",
          resourceVersion: "7",
          creationTimestamp: "2024-01-01T00:00:00Z",
        },
        spec: { replicas: 3 },
        status: { replicas: 2, selector: "app=w" },
      },
    });
  });

  it("reports missing or mistyped replicas as upstream does", () => {
    assert.deepEqual(getScale(widget({}), paths), {
      ok: false,
      reason: "InternalError",
      message: 'the spec replicas field ".spec.replicas" does not exist',
    });
    assert.deepEqual(getScale(widget({ replicas: "3" }), paths), {
      ok: false,
      reason: "InternalError",
      message: ".spec.replicas accessor error: 3 is of the type string, expected int64",
    });
    assert.deepEqual(getScale(widget({ replicas: 1 }, { status: "ready" }), paths), {
      ok: false,
      reason: "InternalError",
      // As upstream's accessor says it: the path up to the key it could not look up.
      message:
        ".status.replicas accessor error: ready is of the type string, expected map[string]interface{}",
    });
  });

  it("writes the Scale's replicas back to the object", () => {
    const w = widget({ replicas: 3 });
    Object.assign(w.metadata as JsonObject, { resourceVersion: "7" });
    const start = scaleForUpdate(w, paths);
    assert.ok(start.ok);
    const scale = cloneJson(start.scale);
    scale.spec = { replicas: 5 };
    const result = applyScale(w, scale, paths);
    assert.ok(result.ok);
    assert.equal((result.object.spec as JsonObject).replicas, 5);
    assert.equal((w.spec as JsonObject).replicas, 3, "the input is not modified");
    // Replicas unset in the object and left unset by the update: refused.
    const unset = scaleForUpdate(widget({}), paths);
    assert.ok(unset.ok);
    assert.equal((unset.scale.spec as JsonObject).replicas, UNSET_SPEC_REPLICAS);
    assert.deepEqual(applyScale(widget({}), unset.scale, paths), {
      ok: false,
      reason: "BadRequest",
      message: 'the spec replicas field ".spec.replicas" cannot be empty',
    });
    // Intermediate objects are created.
    const created = applyScale(
      { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "x" } },
      { spec: { replicas: 2 } },
      paths,
    );
    assert.ok(created.ok);
    assert.deepEqual(created.object.spec, { replicas: 2 });
  });

  it("validates the replicas of every write", () => {
    assert.deepEqual(text(kind.strategy.validate?.(widget({ replicas: -1 }))), [
      ".spec.replicas: Invalid value: -1: should be a non-negative integer",
    ]);
    assert.deepEqual(created(widget({ replicas: 1 }, { status: { replicas: 2147483648 } })), [
      ".status.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647",
    ]);
  });
});
