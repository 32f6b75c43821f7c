import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { kindSchema } from "../../backends/builtin/typed.ts";
import { builtinCatalog } from "../../backends/catalog/index.ts";
import type { StructuralSchema } from "../../backends/schema/structural/types.ts";
import { FieldSet, formatPath, type Path, type PathElement } from "./field-set.ts";
import {
  compare,
  compareSteps,
  merge,
  pruneUnowned,
  removeItems,
  runWalkSliced,
  TypedWalkError,
  toFieldSet,
  validate,
} from "./typed-walk.ts";

const catalog = builtinCatalog();
const deployment = kindSchema(catalog, "apps/v1.Deployment");
const pod = kindSchema(catalog, "core/v1.Pod");
const configMap = kindSchema(catalog, "core/v1.ConfigMap");
const service = kindSchema(catalog, "core/v1.Service");

type Json = Record<string, unknown>;

const f = (field: string): PathElement => ({ field });
const wire = (s: FieldSet) => JSON.stringify(s.toFieldsV1());
const lines = (s: FieldSet) => s.paths().map(formatPath);

function deploymentOf(containers: unknown[], extra: Json = {}): Json {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", labels: { app: "web" } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers } },
      ...extra,
    },
  };
}

function containersOf(o: unknown): unknown {
  return ((((o as Json).spec as Json).template as Json).spec as Json).containers;
}

/** Asserts a TypedWalkError with exactly this message. */
function throwsWalk(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof TypedWalkError, String(err));
    assert.equal(err.name, "TypedWalkError");
    assert.equal(err.message, message);
    return true;
  });
}

/** A CRD-like schema: typed spec with a free-form part, no metadata declared. */
const widget: StructuralSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        size: { type: "integer" },
        tags: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
        extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        port: { "x-kubernetes-int-or-string": true },
        labels: {
          type: "object",
          additionalProperties: { type: "string" },
          "x-kubernetes-map-type": "atomic",
        },
        closed: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
        open: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: { typed: { type: "object", properties: { n: { type: "integer" } } } },
        },
        anything: {},
      },
    },
  },
};

describe("toFieldSet", () => {
  it("gives an applied Deployment's set as upstream records it", () => {
    const cfg = deploymentOf([
      { name: "nginx", image: "nginx", ports: [{ containerPort: 80, protocol: "TCP" }] },
    ]);
    assert.equal(
      wire(toFieldSet(cfg, deployment)),
      JSON.stringify({
        "f:apiVersion": {},
        "f:kind": {},
        "f:metadata": { "f:labels": { "f:app": {} }, "f:name": {} },
        "f:spec": {
          "f:replicas": {},
          "f:selector": {},
          "f:template": {
            "f:metadata": { "f:labels": { "f:app": {} } },
            "f:spec": {
              "f:containers": {
                'k:{"name":"nginx"}': {
                  ".": {},
                  "f:image": {},
                  "f:name": {},
                  "f:ports": {
                    'k:{"containerPort":80,"protocol":"TCP"}': {
                      ".": {},
                      "f:containerPort": {},
                      "f:protocol": {},
                    },
                  },
                },
              },
            },
          },
        },
      }),
    );
  });

  it("gives the ConfigMap of upstream's server-side apply documentation", () => {
    const cfg = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", labels: { "test-label": "x" } },
      data: { key: "v" },
    };
    const stripped = FieldSet.of([f("apiVersion")], [f("kind")], [f("metadata"), f("name")]);
    assert.equal(
      wire(toFieldSet(cfg, configMap).difference(stripped)),
      `{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:test-label":{}}}}`,
    );
  });

  const cases: { name: string; schema: StructuralSchema | undefined; value: unknown; paths: string[] }[] = [
    {
      name: "finalizers are a set named by value",
      schema: configMap,
      value: { metadata: { finalizers: ["b", "a"] } },
      paths: ['.metadata.finalizers[="a"]', '.metadata.finalizers[="b"]'],
    },
    {
      name: "an empty set sets nothing",
      schema: configMap,
      value: { metadata: { finalizers: [] } },
      paths: [],
    },
    {
      name: "null and empty objects are members, atomic maps are leaves",
      schema: service,
      value: { spec: { selector: { app: "x" }, clusterIP: null, sessionAffinityConfig: {} } },
      paths: [".spec.clusterIP", ".spec.selector", ".spec.sessionAffinityConfig"],
    },
    {
      name: "service ports are named by port and protocol",
      schema: service,
      value: { spec: { ports: [{ port: 80, protocol: "TCP", targetPort: "http" }] } },
      paths: [
        '.spec.ports[port=80,protocol="TCP"]',
        '.spec.ports[port=80,protocol="TCP"].port',
        '.spec.ports[port=80,protocol="TCP"].protocol',
        '.spec.ports[port=80,protocol="TCP"].targetPort',
      ],
    },
    {
      name: "atomic lists are one leaf; owner references are named by uid",
      schema: pod,
      value: {
        metadata: { ownerReferences: [{ uid: "u1", kind: "ReplicaSet", name: "r", apiVersion: "apps/v1" }] },
        spec: { containers: [{ name: "c", args: ["a", "b"] }] },
      },
      paths: [
        '.metadata.ownerReferences[uid="u1"]',
        '.spec.containers[name="c"]',
        '.spec.containers[name="c"].args',
        '.spec.containers[name="c"].name',
      ],
    },
    {
      name: "free-form parts: map keys are members, lists atomic",
      schema: widget,
      value: { spec: { extra: { a: { b: 1 }, l: [{ x: 1 }] }, anything: { q: [1] } } },
      paths: [".spec.anything.q", ".spec.extra.a", ".spec.extra.l", ".spec.extra.a.b"],
    },
    {
      name: "typed fields below preserve-unknown-fields stay typed",
      schema: widget,
      value: { spec: { open: { typed: { n: 1 }, other: { m: 2 } } } },
      paths: [".spec.open.other", ".spec.open.other.m", ".spec.open.typed.n"],
    },
    {
      name: "int-or-string and atomic maps are leaves",
      schema: widget,
      value: { spec: { port: "http", labels: { a: "b" }, tags: ["x"], size: 3 } },
      paths: [".spec.labels", ".spec.port", ".spec.size", '.spec.tags[="x"]'],
    },
    {
      name: "no schema at all: everything is deduced",
      schema: undefined,
      value: { a: { b: [1, { c: 2 }] }, d: null },
      paths: [".a", ".d", ".a.b"],
    },
    { name: "a scalar root sets nothing", schema: undefined, value: 5, paths: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(lines(toFieldSet(c.value, c.schema)), c.paths));

  it("reads list markers as upstream's schema conversion does", () => {
    const listOf = (markers: Partial<StructuralSchema>): StructuralSchema => ({
      type: "object",
      properties: {
        l: {
          type: "array",
          items: { type: "object", properties: { n: { type: "string" }, v: { type: "integer" } } },
          ...markers,
        },
        s: { type: "array", items: { type: "string" }, ...markers },
      },
    });
    const value = { l: [{ n: "a", v: 1 }] };
    const table: [Partial<StructuralSchema>, string[]][] = [
      [{}, [".l"]],
      [{ "x-kubernetes-list-type": "atomic", "x-kubernetes-patch-strategy": "merge" }, [".l"]],
      [
        { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["n", "v"] },
        ['.l[n="a",v=1]', '.l[n="a",v=1].n', '.l[n="a",v=1].v'],
      ],
      [
        { "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "n" },
        ['.l[n="a"]', '.l[n="a"].n', '.l[n="a"].v'],
      ],
      [
        { "x-kubernetes-patch-strategy": "merge,retainKeys", "x-kubernetes-patch-merge-key": "n" },
        ['.l[n="a"]', '.l[n="a"].n', '.l[n="a"].v'],
      ],
      [{ "x-kubernetes-patch-strategy": "retainKeys" }, [".l"]],
    ];
    for (const [markers, paths] of table)
      assert.deepEqual(lines(toFieldSet(value, listOf(markers))), paths, JSON.stringify(markers));
    assert.deepEqual(lines(toFieldSet({ s: ["x"] }, listOf({ "x-kubernetes-patch-strategy": "merge" }))), [
      '.s[="x"]',
    ]);
    assert.deepEqual(lines(toFieldSet({ s: ["x"] }, listOf({ "x-kubernetes-list-type": "set" }))), [
      '.s[="x"]',
    ]);
  });

  it("fills a missing key field from the schema default", () => {
    const prop = (s: StructuralSchema | undefined, name: string) => s?.properties?.[name] as StructuralSchema;
    const container = prop(prop(pod, "spec"), "containers").items as StructuralSchema;
    const items = prop(container, "ports").items as StructuralSchema;
    const withDefault: StructuralSchema = {
      type: "object",
      properties: {
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
          items: {
            ...items,
            properties: { ...items.properties, protocol: { type: "string", default: "TCP" } },
          },
        },
      },
    };
    assert.deepEqual(lines(toFieldSet({ ports: [{ containerPort: 80 }] }, withDefault)), [
      '.ports[containerPort=80,protocol="TCP"]',
      '.ports[containerPort=80,protocol="TCP"].containerPort',
    ]);
  });

  it("accepts undeclared fields as free-form unless asked to refuse them", () => {
    const cfg = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data_error: { x: 1 } };
    assert.deepEqual(lines(toFieldSet(cfg, configMap)), [
      ".apiVersion",
      ".data_error",
      ".kind",
      ".data_error.x",
      ".metadata.name",
    ]);
    throwsWalk(
      () => toFieldSet(cfg, configMap, { rejectUnknownFields: true }),
      ".data_error: field not declared in schema",
    );
    const deep = deploymentOf([{ name: "nginx", imagePullPolic: "Always" }]);
    throwsWalk(
      () => validate(deep, deployment, { rejectUnknownFields: true }),
      '.spec.template.spec.containers[name="nginx"].imagePullPolic: field not declared in schema',
    );
    // The root's identity fields are always known, even where a schema leaves them out.
    validate({ apiVersion: "x/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } }, widget, {
      rejectUnknownFields: true,
    });
    throwsWalk(
      () => validate({ status: {} }, widget, { rejectUnknownFields: true }),
      ".status: field not declared in schema",
    );
    throwsWalk(
      () => validate({ spec: { closed: { b: "x" } } }, widget, { rejectUnknownFields: true }),
      ".spec.closed.b: field not declared in schema",
    );
    // Below preserve-unknown-fields, nothing is undeclared.
    validate({ spec: { open: { typed: { n: 1, z: 2 }, q: 1 } } }, widget, { rejectUnknownFields: true });
  });
});

describe("errors", () => {
  const cases: [string, StructuralSchema | undefined, unknown, string][] = [
    [
      "duplicate list-map keys",
      deployment,
      deploymentOf([{ name: "a" }, { name: "a", image: "x" }]),
      '.spec.template.spec.containers: duplicate entries for key [name="a"]',
    ],
    [
      "a missing key field without default",
      deployment,
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        spec: { template: { spec: { topologySpreadConstraints: [{ topologyKey: "zone", maxSkew: 1 }] } } },
      },
      `.spec.template.spec.topologySpreadConstraints: element 0: associative list with keys has an element that omits key field "whenUnsatisfiable" (and doesn't have default value)`,
    ],
    [
      "a null list-map item",
      deployment,
      deploymentOf([null]),
      ".spec.template.spec.containers: element 0: associative list with keys may not have a null element",
    ],
    [
      "a scalar list-map item",
      deployment,
      deploymentOf(["a"]),
      ".spec.template.spec.containers: element 0: associative list with keys may not have non-map elements",
    ],
    [
      "a map in a set",
      configMap,
      { metadata: { finalizers: [{ a: 1 }] } },
      ".metadata.finalizers: element 0: associative list without keys has an element that's a map type",
    ],
    [
      "a list in a set",
      configMap,
      { metadata: { finalizers: [["a"]] } },
      ".metadata.finalizers: element 0: not supported: associative list with lists as elements",
    ],
    [
      "a null in a set",
      configMap,
      { metadata: { finalizers: [null] } },
      ".metadata.finalizers: element 0: associative list without keys has an element that's an explicit null",
    ],
    [
      "a duplicate set value",
      configMap,
      { metadata: { finalizers: ["a", "a"] } },
      '.metadata.finalizers: duplicate entries for key [="a"]',
    ],
    [
      "a string for a number",
      deployment,
      { spec: { replicas: "2" } },
      ".spec.replicas: expected numeric (int or float), got string",
    ],
    [
      "a map for a number",
      deployment,
      { spec: { replicas: {} } },
      ".spec.replicas: expected numeric (int or float), got map[string]interface {}",
    ],
    [
      "a number for a string",
      deployment,
      deploymentOf([{ name: "a", image: 5 }]),
      '.spec.template.spec.containers[name="a"].image: expected string, got &value.valueUnstructured{Value:5}',
    ],
    [
      "a string for a boolean",
      pod,
      { spec: { hostNetwork: "yes" } },
      ".spec.hostNetwork: expected boolean, got &{yes}",
    ],
    ["a string for a map", deployment, { spec: "x" }, ".spec: expected map, got &{x}"],
    ["a list for a map", deployment, { spec: [1, "a"] }, ".spec: expected map, got &{[1 a]}"],
    [
      "a map for a list",
      deployment,
      deploymentOf({ a: 1 } as unknown as unknown[]),
      ".spec.template.spec.containers: expected list, got &{map[a:1]}",
    ],
    [
      "a string for a list",
      pod,
      { spec: { containers: [{ name: "c", args: "x" }] } },
      '.spec.containers[name="c"].args: expected list, got &{x}',
    ],
    ["a non-object root", deployment, "x", "expected map, got &{x}"],
  ];
  for (const [name, schema, value, message] of cases)
    it(name, () => {
      throwsWalk(() => toFieldSet(value, schema), message);
      throwsWalk(() => validate(value, schema), message);
      throwsWalk(() => merge({}, value, schema), message);
      throwsWalk(() => compare(value, {}, schema), message);
    });

  it("carries the place of the problem", () => {
    try {
      toFieldSet({ spec: { replicas: true } }, deployment);
      assert.fail("no error");
    } catch (err) {
      assert.ok(err instanceof TypedWalkError);
      assert.equal(err.path, ".spec.replicas");
    }
  });

  it("accepts what untyped scalars hold and null anywhere", () => {
    validate(
      { metadata: { creationTimestamp: { odd: 1 } }, spec: { replicas: null, template: null } },
      deployment,
    );
  });
});

describe("sliced walks", () => {
  it("give the event loop turns while they run, and end as the walk at once does", async () => {
    const env = (value: string) =>
      Array.from({ length: 10_000 }, (_, i) => ({ name: `E${i}`, value: `${value}${i % 3}` }));
    const withEnv = (value: string) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "i", env: env(value) }] },
    });
    const [a, b] = [withEnv("x"), withEnv("y")];
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    // A slice of 0 ms: a turn at every pause (every 1,024 places), whatever the machine's speed.
    const sliced = await runWalkSliced(compareSteps(a, b, pod), 0);
    done = true;
    // Each env item is at least three places (the item, name, value), twice (both validations).
    assert.ok(turns >= (2 * 3 * 10_000) / 1024, `${turns} turns`);
    const atOnce = compare(a, b, pod);
    for (const k of ["added", "modified", "removed"] as const)
      assert.ok(sliced[k].equals(atOnce[k]), `${k} differs`);
    // Every item's value changed.
    assert.equal(sliced.modified.paths().length, 10_000);
  });

  it("report a walk's error from a sliced run as from one at once", async () => {
    await assert.rejects(runWalkSliced(compareSteps({ spec: 1 }, { spec: 2 }, pod), 0), TypedWalkError);
  });
});

describe("compare", () => {
  it("reports added places with their intermediate nodes", () => {
    const cfg = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1" } };
    const c = compare({}, cfg, configMap);
    assert.equal(
      wire(c.added),
      `{"f:apiVersion":{},"f:data":{".":{},"f:a":{}},"f:kind":{},"f:metadata":{".":{},"f:name":{}}}`,
    );
    assert.ok(c.modified.isEmpty() && c.removed.isEmpty());
  });

  it("reproduces upstream's record of a Deployment created by kubectl", () => {
    // Upstream compares against the kind's empty object, where containers is null.
    const before = { metadata: { name: "x" }, spec: { template: { spec: { containers: null } } } };
    const after = {
      metadata: { name: "x", labels: { app: "nginx" } },
      spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx" }] } } },
    };
    const c = compare(before, after, deployment);
    assert.equal(
      wire(c.added.union(c.modified)),
      `{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`,
    );
  });

  it("reports modified leaves only, and removed items whole", () => {
    const before = deploymentOf([
      { name: "a", image: "1", args: ["x"] },
      { name: "b", image: "1", env: [{ name: "E", value: "v" }] },
    ]);
    const after = deploymentOf([{ name: "a", image: "2", args: ["y"] }], { paused: true });
    const c = compare(before, after, deployment);
    assert.deepEqual(lines(c.modified), [
      '.spec.template.spec.containers[name="a"].args',
      '.spec.template.spec.containers[name="a"].image',
    ]);
    assert.deepEqual(lines(c.added), [".spec.paused"]);
    assert.deepEqual(lines(c.removed), [
      '.spec.template.spec.containers[name="b"]',
      '.spec.template.spec.containers[name="b"].env',
      '.spec.template.spec.containers[name="b"].image',
      '.spec.template.spec.containers[name="b"].name',
      '.spec.template.spec.containers[name="b"].env[name="E"]',
      '.spec.template.spec.containers[name="b"].env[name="E"].name',
      '.spec.template.spec.containers[name="b"].env[name="E"].value',
    ]);
    assert.ok(compare(before, before, deployment).added.isEmpty());
  });

  it("treats a set's values and an atomic map as wholes", () => {
    const c = compare(
      { metadata: { finalizers: ["a", "b"] }, spec: { selector: { x: "1" } } },
      { metadata: { finalizers: ["b", "c"] }, spec: { selector: { x: "2" } } },
      service,
    );
    assert.deepEqual(lines(c.added), ['.metadata.finalizers[="c"]']);
    assert.deepEqual(lines(c.removed), ['.metadata.finalizers[="a"]']);
    assert.deepEqual(lines(c.modified), [".spec.selector"]);
  });

  it("handles a free-form value changing kind", () => {
    const c = compare({ spec: { anything: { a: { b: 1 } } } }, { spec: { anything: 5 } }, widget);
    assert.deepEqual(lines(c.modified), [".spec.anything"]);
    assert.deepEqual(lines(c.removed), [".spec.anything.a", ".spec.anything.a.b"]);
    const back = compare({ spec: { anything: 5 } }, { spec: { anything: { a: 1 } } }, widget);
    assert.deepEqual(lines(back.modified), [".spec.anything"]);
    assert.deepEqual(lines(back.added), [".spec.anything.a"]);
  });

  it("tells {} from null", () => {
    const c = compare(
      { spec: { template: { spec: { securityContext: {} } } } },
      { spec: { template: { spec: { securityContext: null } } } },
      deployment,
    );
    assert.deepEqual(lines(c.modified), [".spec.template.spec.securityContext"]);
  });
});

describe("merge", () => {
  it("keeps live fields, lets the configuration win on leaves, merges items by key", () => {
    const live = deploymentOf(
      [{ name: "a", image: "1", ports: [{ containerPort: 80, protocol: "TCP" }], imagePullPolicy: "Always" }],
      { strategy: { type: "RollingUpdate" } },
    );
    const config = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { replicas: 3, template: { spec: { containers: [{ name: "a", image: "2" }] } } },
    };
    const out = merge(live, config, deployment) as Json;
    const expected = structuredClone(live);
    (expected.spec as Json as Json).replicas = 3;
    (containersOf(expected) as Json[])[0] = {
      name: "a",
      image: "2",
      ports: [{ containerPort: 80, protocol: "TCP" }],
      imagePullPolicy: "Always",
    };
    assert.deepEqual(out, expected);
    assert.equal(JSON.stringify(out), JSON.stringify(expected), "live key order is kept");
  });

  const order: [string, string[], string[], string[]][] = [
    ["new items before the shared item that follows them", ["a", "b", "c"], ["d", "b"], ["a", "d", "b", "c"]],
    ["shared items take the configuration's order", ["a", "b"], ["b", "a"], ["b", "a"]],
    ["new items at the end", ["a", "b"], ["a", "b", "c"], ["a", "b", "c"]],
    ["only new items", ["a"], ["x", "y"], ["a", "x", "y"]],
    ["reordered around a live-only item", ["a", "x", "b"], ["b", "a"], ["x", "b", "a"]],
  ];
  for (const [name, live, config, merged] of order)
    it(`orders items as upstream: ${name}`, () => {
      const out = merge(
        deploymentOf(live.map((name) => ({ name }))),
        deploymentOf(config.map((name) => ({ name }))),
        deployment,
      );
      assert.deepEqual(
        (containersOf(out) as Json[]).map((c) => c.name),
        merged,
      );
      const set = merge(
        { metadata: { finalizers: live } },
        { metadata: { finalizers: config } },
        configMap,
      ) as Json;
      assert.deepEqual((set.metadata as Json).finalizers, merged);
    });

  it("replaces atomic values whole", () => {
    const out = merge(
      { spec: { selector: { a: "1", b: "2" } }, metadata: { finalizers: ["x"] } },
      { spec: { selector: { c: "3" } } },
      service,
    ) as Json;
    assert.deepEqual(out, { spec: { selector: { c: "3" } }, metadata: { finalizers: ["x"] } });
    const args = merge(
      deploymentOf([{ name: "a", args: ["1", "2"] }]),
      deploymentOf([{ name: "a", args: ["3"] }]),
      deployment,
    );
    assert.deepEqual((containersOf(args) as Json[])[0]?.args, ["3"]);
  });

  it("follows upstream on null in the configuration", () => {
    const live = {
      metadata: { labels: { a: "1" }, annotations: {} },
      spec: { replicas: 2, selector: { matchLabels: { a: "1" } } },
    };
    const out = merge(
      live,
      { metadata: { labels: null, annotations: null }, spec: { replicas: null, selector: null } },
      deployment,
    );
    // A granular map with content stays; an empty one, a scalar and an atomic struct become null.
    assert.deepEqual(out, {
      metadata: { labels: { a: "1" }, annotations: null },
      spec: { replicas: null, selector: null },
    });
  });

  it("does not change its inputs or share objects with them", () => {
    const live = deploymentOf([{ name: "a", args: ["x"] }]);
    const config = deploymentOf([{ name: "a", command: ["y"] }]);
    const [l0, c0] = [structuredClone(live), structuredClone(config)];
    const out = merge(live, config, deployment) as Json;
    (containersOf(out) as Json[])[0]?.args &&
      ((containersOf(out) as { args: string[] }[])[0] as { args: string[] }).args.push("z");
    (((containersOf(out) as Json[])[0] as Json).command as string[]).push("z");
    ((out.metadata as Json).labels as Json).x = "y";
    assert.deepEqual(live, l0);
    assert.deepEqual(config, c0);
  });

  it("refuses duplicates on either side", () => {
    const dup = deploymentOf([{ name: "a" }, { name: "a" }]);
    throwsWalk(
      () => merge(dup, {}, deployment),
      '.spec.template.spec.containers: duplicate entries for key [name="a"]',
    );
    throwsWalk(
      () => merge({}, dup, deployment),
      '.spec.template.spec.containers: duplicate entries for key [name="a"]',
    );
  });

  it("merges free-form values as maps, lists as wholes", () => {
    const out = merge({ a: { b: 1, l: [1] }, k: "v" }, { a: { c: 2, l: [2, 3] } }, undefined);
    assert.deepEqual(out, { a: { b: 1, l: [2, 3], c: 2 }, k: "v" });
  });
});

describe("removeItems", () => {
  const live = deploymentOf([
    { name: "a", image: "1" },
    { name: "b", image: "2" },
  ]);

  it("removes items by key and fields by name, without touching the input", () => {
    const before = structuredClone(live);
    const set = FieldSet.of(
      [f("spec"), f("template"), f("spec"), f("containers"), { key: [["name", "a"]] }],
      [f("spec"), f("template"), f("spec"), f("containers"), { key: [["name", "b"]] }, f("image")],
      [f("spec"), f("replicas")],
    );
    const out = removeItems(live, set, deployment) as Json;
    assert.deepEqual(containersOf(out), [{ name: "b" }]);
    assert.equal((out.spec as Json).replicas, undefined);
    assert.deepEqual(live, before);
  });

  it("leaves null where a container was emptied, as upstream does", () => {
    const out = removeItems(live, FieldSet.of([f("metadata"), f("labels"), f("app")]), deployment) as Json;
    assert.deepEqual(out.metadata, { name: "web", labels: null });
    assert.deepEqual(removeItems({ a: 1 }, FieldSet.of([f("a")]), undefined), {});
  });

  it("removes set values and leaves atomic lists alone unless named", () => {
    const out = removeItems(
      { metadata: { finalizers: ["a", "b"] } },
      FieldSet.of([f("metadata"), f("finalizers"), { value: "a" }]),
      configMap,
    );
    assert.deepEqual(out, { metadata: { finalizers: ["b"] } });
  });
});

describe("pruneUnowned", () => {
  const configOf = (labels: Json, containers: unknown[]) => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", labels },
    spec: { template: { spec: { containers } } },
  });
  const stripped = FieldSet.of([f("apiVersion")], [f("kind")], [f("metadata"), f("name")]);
  const setOf = (v: unknown) => toFieldSet(v, deployment).difference(stripped);

  it("drops what the applier no longer applies and nobody else owns", () => {
    const first = configOf({ a: "1", b: "2" }, [
      { name: "x", image: "1" },
      { name: "y", image: "1" },
    ]);
    const second = configOf({ a: "1" }, [{ name: "x", image: "2" }]);
    // Defaulting added a field to y that nobody owns.
    const live = merge(first, {}, deployment) as Json;
    ((containersOf(live) as Json[])[1] as Json).imagePullPolicy = "Always";
    const merged = merge(live, second, deployment);
    const out = pruneUnowned(merged, setOf(first), setOf(second), deployment) as Json;
    assert.deepEqual(out.metadata, { name: "web", labels: { a: "1" } });
    assert.deepEqual(containersOf(out), [{ name: "x", image: "2" }]);
  });

  it("keeps what another manager owns", () => {
    const first = configOf({ a: "1", b: "2" }, [{ name: "x" }]);
    const second = configOf({ a: "1" }, [{ name: "x" }]);
    const other = FieldSet.of([f("metadata"), f("labels"), f("b")]);
    const out = pruneUnowned(
      merge(first, second, deployment),
      setOf(first),
      setOf(second).union(other),
      deployment,
    ) as Json;
    assert.deepEqual((out.metadata as Json).labels, { a: "1", b: "2" });
  });

  it("puts back what pruning a named parent took but the applier never owned", () => {
    // Owning labels.b makes metadata and labels named members, which removes all of metadata at
    // first; metadata.name is owned by nobody and comes back.
    const live = configOf({ a: "1", b: "2" }, [{ name: "x" }]);
    const last = FieldSet.of([f("metadata"), f("labels"), f("b")]);
    const owned = FieldSet.of([f("metadata"), f("labels"), f("a")]);
    const out = pruneUnowned(live, last, owned, deployment) as Json;
    assert.deepEqual(out.metadata, { name: "web", labels: { a: "1" } });
    assert.deepEqual(out.spec, live.spec);
  });

  it("returns an equal copy when nothing was applied before", () => {
    const live = configOf({ a: "1" }, []);
    const out = pruneUnowned(live, FieldSet.empty(), FieldSet.empty(), deployment);
    assert.deepEqual(out, live);
    assert.notEqual(out, live);
  });
});

describe("deep values", () => {
  function nested(depth: number, leaf: unknown): Json {
    let o: Json = { leaf };
    for (let d = 0; d < depth; d++) o = { a: o };
    return o;
  }
  function path(depth: number, last: string): Path {
    return [...Array.from({ length: depth }, () => f("a")), f(last)];
  }

  for (const depth of [1_000, 10_000])
    it(`walks objects ${depth} levels deep without recursion`, () => {
      const live = nested(depth, 1);
      const set = toFieldSet(live, widget.properties?.spec?.properties?.extra);
      assert.equal(set.size(), depth + 1);
      assert.ok(set.has(path(depth, "leaf")));
      const c = compare(live, nested(depth, 2), undefined);
      assert.deepEqual(c.modified.paths(), [path(depth, "leaf")]);
      const m = merge(live, nested(depth, { b: 1 }), undefined);
      assert.ok(toFieldSet(m, undefined).has([...path(depth, "leaf"), f("b")]));
      const removed = removeItems(live, FieldSet.of(path(depth, "leaf")), undefined);
      assert.ok(!toFieldSet(removed, undefined).has(path(depth, "leaf")));
      const pruned = pruneUnowned(live, FieldSet.of(path(depth, "leaf")), FieldSet.empty(), undefined);
      assert.ok(!toFieldSet(pruned, undefined).touches(path(depth, "leaf")));
    });

  it("compares and copies deep atomic values", () => {
    let deepList: unknown = [];
    for (let d = 0; d < 10_000; d++) deepList = [deepList];
    const c = compare(
      { spec: { anything: { l: deepList } } },
      { spec: { anything: { l: [deepList] } } },
      widget,
    );
    assert.deepEqual(lines(c.modified), [".spec.anything.l"]);
    const out = merge({}, { spec: { anything: { l: deepList } } }, widget) as Json;
    assert.notEqual(((out.spec as Json).anything as Json).l, deepList);
  });

  it("reports problems deep down with their place", () => {
    const bad: Json = nested(1_000, 1);
    let o = bad;
    for (let d = 0; d < 999; d++) o = o.a as Json;
    o.a = { leaf: [{ x: 1 }, { x: 1 }] };
    const schemaFor = (depth: number): StructuralSchema => {
      let s: StructuralSchema = {
        type: "object",
        properties: {
          leaf: {
            type: "array",
            items: { type: "object", properties: { x: { type: "integer" } } },
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["x"],
          },
        },
      };
      for (let d = 0; d < depth; d++) s = { type: "object", properties: { a: s } };
      return s;
    };
    assert.throws(
      () => toFieldSet(bad, schemaFor(1_000)),
      (err: unknown) =>
        err instanceof TypedWalkError && err.message.endsWith(".a.leaf: duplicate entries for key [x=1]"),
    );
  });
});
