import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compareValues,
  FieldSet,
  FieldSetError,
  formatPath,
  goNumber,
  type Path,
  type PathElement,
  parsePathElement,
  serializePathElement,
} from "./field-set.ts";

const f = (field: string): PathElement => ({ field });
const k = (fields: Record<string, unknown>): PathElement => ({
  key: Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
});
const v = (value: unknown): PathElement => ({ value });
const i = (index: number): PathElement => ({ index });

/** ".a.b" style paths of plain field names, for compact tables. */
const p = (dotted: string): Path => dotted.split(".").filter(Boolean).map(f);
const set = (...dotted: string[]) => FieldSet.of(...dotted.map(p));
const lines = (s: FieldSet) => s.paths().map(formatPath);

/** Round trip through the wire form, compared as JSON text (key order included). */
const roundTrip = (text: string) => JSON.stringify(FieldSet.fromFieldsV1(JSON.parse(text)).toFieldsV1());

describe("FieldSet algebra", () => {
  const cases: {
    name: string;
    a: string[];
    b: string[];
    union: string[];
    intersection: string[];
    difference: string[];
    recursiveDifference: string[];
  }[] = [
    {
      name: "disjoint leaves",
      a: [".a.b"],
      b: [".a.c"],
      union: [".a.b", ".a.c"],
      intersection: [],
      difference: [".a.b"],
      recursiveDifference: [".a.b"],
    },
    {
      name: "shared leaf",
      a: [".a.b", ".x"],
      b: [".a.b", ".y"],
      union: [".x", ".y", ".a.b"],
      intersection: [".a.b"],
      difference: [".x"],
      recursiveDifference: [".x"],
    },
    {
      name: "a parent member in the other set",
      a: [".a.b", ".a.c.d"],
      b: [".a"],
      union: [".a", ".a.b", ".a.c.d"],
      intersection: [],
      // Difference is by member: a.b is not a member of b, so it stays.
      difference: [".a.b", ".a.c.d"],
      // RecursiveDifference drops everything below a member of b.
      recursiveDifference: [],
    },
    {
      name: "a child in the other set",
      a: [".a", ".a.b"],
      b: [".a.b.c", ".a.b"],
      union: [".a", ".a.b", ".a.b.c"],
      intersection: [".a.b"],
      difference: [".a"],
      recursiveDifference: [".a"],
    },
    {
      name: "nested member removes deep subtree only",
      a: [".s.x", ".s.y.z", ".s.y.w", ".t"],
      b: [".s.y"],
      union: [".t", ".s.x", ".s.y", ".s.y.w", ".s.y.z"],
      intersection: [],
      difference: [".t", ".s.x", ".s.y.w", ".s.y.z"],
      recursiveDifference: [".t", ".s.x"],
    },
    {
      name: "empty operands",
      a: [],
      b: [".a"],
      union: [".a"],
      intersection: [],
      difference: [],
      recursiveDifference: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const a = set(...c.a);
      const b = set(...c.b);
      assert.deepEqual(lines(a.union(b)), c.union, "union");
      assert.deepEqual(lines(a.intersection(b)), c.intersection, "intersection");
      assert.deepEqual(lines(a.difference(b)), c.difference, "difference");
      assert.deepEqual(lines(a.recursiveDifference(b)), c.recursiveDifference, "recursiveDifference");
      // Results never keep empty nodes: equality with a set built directly holds.
      assert.ok(a.intersection(b).equals(set(...c.intersection)));
      assert.ok(a.difference(b).equals(set(...c.difference)));
      assert.ok(a.recursiveDifference(b).equals(set(...c.recursiveDifference)));
      assert.equal(a.intersection(b).isEmpty(), c.intersection.length === 0);
    });
  }

  it("operations are pure and results independent of their inputs", () => {
    const a = set(".a.b");
    const b = set(".a.c");
    const u = a.union(b);
    u.insert(p(".a.d"));
    assert.deepEqual(lines(a), [".a.b"]);
    assert.deepEqual(lines(b), [".a.c"]);
    const child = u.child(f("a"));
    u.insert(p(".a.e"));
    assert.deepEqual(lines(child), [".b", ".c", ".d"]);
    child.insert(p(".z"));
    assert.deepEqual(lines(u), [".a.b", ".a.c", ".a.d", ".a.e"]);
  });

  it("members, prefixes and sizes", () => {
    const s = FieldSet.of(
      [f("spec"), f("containers"), k({ name: "a" })],
      [f("spec"), f("containers"), k({ name: "a" }), f("image")],
    );
    assert.equal(s.size(), 2);
    assert.ok(s.has([f("spec"), f("containers"), k({ name: "a" })]));
    assert.ok(!s.has([f("spec"), f("containers")]));
    assert.ok(s.touches([f("spec"), f("containers")]));
    assert.ok(s.touches([f("spec")]));
    assert.ok(!s.touches([f("status")]));
    assert.ok(s.touches([]));
    assert.ok(!FieldSet.empty().touches([]));
    assert.ok(!s.has([]));
    s.insert([]);
    assert.equal(s.size(), 2, "the root is never a member");
    s.insert([f("spec"), f("containers"), k({ name: "a" })]);
    assert.equal(s.size(), 2, "inserting twice is one member");
    assert.ok(s.hasMember(f("spec")) === false);
  });

  it("lists paths as upstream iterates: a node's members, then each child's subtree", () => {
    const s = set(".b", ".a.x", ".a", ".c.y.z", ".0");
    assert.deepEqual(lines(s), [".0", ".a", ".b", ".a.x", ".c.y.z"]);
  });

  it("values and keys compare by JSON value", () => {
    const s = FieldSet.of([v({ a: 1, b: [true] })], [k({ port: 80, protocol: "TCP" })]);
    assert.ok(s.has([v({ b: [true], a: 1 })]));
    assert.ok(!s.has([v({ a: 1, b: [false] })]));
    assert.ok(
      s.has([
        {
          key: [
            ["port", 80],
            ["protocol", "TCP"],
          ],
        },
      ]),
    );
    assert.ok(!s.has([k({ port: 80, protocol: "UDP" })]));
    assert.ok(!s.has([k({ port: "80", protocol: "TCP" })]));
  });

  it("orders path elements as upstream: fields, keys, values, indexes", () => {
    const s = FieldSet.of(
      [i(2)],
      [v("b")],
      [v(1)],
      [k({ a: 1 })],
      [f("z")],
      [i(10)],
      [v(null)],
      [v(true)],
      [f("a")],
    );
    assert.deepEqual(s.paths().map(formatPath), [
      ".a",
      ".z",
      "[a=1]",
      "[=1]",
      '[="b"]',
      "[=true]",
      "[=null]",
      "[2]",
      "[10]",
    ]);
  });

  it("orders values as upstream: numbers, strings, booleans, lists, maps, null", () => {
    const ordered: unknown[] = [
      -1,
      0.5,
      2,
      "",
      "a",
      "b",
      "\uffff",
      "\u{10000}",
      false,
      true,
      [],
      [1],
      [1, 2],
      [2],
      {},
      { a: 1 },
      { a: 2 },
      { b: 0 },
      null,
    ];
    for (let x = 0; x < ordered.length; x++)
      for (let y = 0; y < ordered.length; y++)
        assert.equal(
          Math.sign(compareValues(ordered[x], ordered[y])),
          Math.sign(x - y),
          `${JSON.stringify(ordered[x])} vs ${JSON.stringify(ordered[y])}`,
        );
  });

  it("promotes child nodes to members on request", () => {
    const s = set(".spec.template.x", ".data.k");
    const promoted = s.withPromotedMembers(
      0,
      (d) => d + 1,
      (d, pe) => d === 0 && "field" in pe && pe.field === "spec",
    );
    assert.deepEqual(lines(promoted), [".spec", ".data.k", ".spec.template.x"]);
    assert.deepEqual(lines(s), [".data.k", ".spec.template.x"], "the original is unchanged");
  });
});

describe("FieldsV1", () => {
  // Written by upstream API servers (kubectl create, kubectl run, kubectl apply --server-side).
  const upstream: [string, string][] = [
    [
      "deployment created by kubectl",
      `{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`,
    ],
    [
      "configmap applied server-side",
      `{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:test-label":{}}}}`,
    ],
    [
      "pod created by kubectl run",
      `{"f:metadata":{"f:labels":{".":{},"f:run":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`,
    ],
    [
      "status conditions of a controller",
      `{"f:status":{"f:conditions":{".":{},"k:{\\"type\\":\\"Available\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:replicas":{}}}`,
    ],
    ["finalizers as a set", `{"f:metadata":{"f:finalizers":{".":{},"v:\\"foregroundDeletion\\"":{}}}}`],
  ];
  for (const [name, text] of upstream)
    it(`round-trips upstream's ${name} exactly`, () => assert.equal(roundTrip(text), text));

  it("reads members, children and '.' as upstream does", () => {
    const s = FieldSet.fromFieldsV1(JSON.parse(upstream[0]?.[1] as string));
    assert.deepEqual(lines(s), [
      ".metadata.labels",
      ".metadata.labels.app",
      '.spec.template.spec.containers[name="nginx"]',
      '.spec.template.spec.containers[name="nginx"].image',
      '.spec.template.spec.containers[name="nginx"].name',
    ]);
    assert.equal(s.size(), 5);
  });

  it("sorts what it reads and writes it in upstream's order", () => {
    const text = `{"i:1":{},"v:\\"a\\"":{},"v:2":{},"k:{\\"b\\":1,\\"a\\":\\"x\\"}":{"f:z":{},"f:y":{}},"f:b":{},"f:a":{".":{},"f:c":{}}}`;
    assert.equal(
      roundTrip(text),
      `{"f:a":{".":{},"f:c":{}},"f:b":{},"k:{\\"a\\":\\"x\\",\\"b\\":1}":{"f:y":{},"f:z":{}},"v:2":{},"v:\\"a\\"":{},"i:1":{}}`,
    );
  });

  it("treats null as an empty node and drops element kinds it does not know", () => {
    assert.equal(roundTrip(`{"f:a":null,"x:future":{"f:b":{}},".":{}}`), `{"f:a":{}}`);
    // A node whose only children are unknown is a member.
    assert.equal(roundTrip(`{"f:a":{"x:future":{}}}`), `{"f:a":{}}`);
    assert.ok(FieldSet.fromFieldsV1(null).isEmpty());
    assert.ok(FieldSet.fromFieldsV1({}).isEmpty());
  });

  it("writes key and set values as upstream's JSON encoder does", () => {
    const s = FieldSet.of([k({ name: "a<b>&", z: 1.5 })], [v({ b: 1, a: "\u2028" })], [v("é\u0001")]);
    assert.deepEqual(Object.keys(s.toFieldsV1()), [
      'k:{"name":"a\\u003cb\\u003e\\u0026","z":1.5}',
      'v:"é\\u0001"',
      'v:{"a":"\\u2028","b":1}',
    ]);
    for (const pe of [k({ name: "a<b>&" }), v({ b: 1, a: [null, false] }), i(7), f("x.y")])
      assert.deepEqual(parsePathElement(serializePathElement(pe)), pe);
  });

  const malformed: [string, unknown, RegExp][] = [
    ["a string", "f:a", /expect \{ or n/],
    ["a list", [], /expect \{ or n/],
    ["a number below a key", { "f:a": 1 }, /expect \{ or n/],
    ["a list below a key", { "f:a": { "f:b": [] } }, /expect \{ or n/],
    ["a one-character key", { f: {} }, /parsing key as path element: key must be 2 characters long/],
    ["a key without a colon", { fx: {} }, /parsing key as path element: missing colon: fx/],
    ["bad JSON in a value", { "v:{": {} }, /invalid JSON in v:\{/],
    ["a key element that is not an object", { "k:1": {} }, /expected an object of key fields/],
    ["an index that is not a number", { "i:x": {} }, /strconv.Atoi: parsing "x": invalid syntax/],
    ["an index with a fraction", { "i:1.5": {} }, /strconv.Atoi/],
    ["a value nested too deeply", { [`v:${"[".repeat(200)}${"]".repeat(200)}`]: {} }, /nested too deeply/],
  ];
  for (const [name, json, message] of malformed)
    it(`rejects ${name}`, () => {
      assert.throws(
        () => FieldSet.fromFieldsV1(json),
        (err: unknown) =>
          err instanceof FieldSetError && err.name === "FieldSetError" && message.test(err.message),
      );
    });
});

describe("formatPath", () => {
  const cases: [Path, string][] = [
    [[f("spec"), f("containers"), k({ name: "nginx" }), f("image")], '.spec.containers[name="nginx"].image'],
    [[f("ports"), k({ containerPort: 80, protocol: "TCP" })], '.ports[containerPort=80,protocol="TCP"]'],
    [[v("x")], '[="x"]'],
    [[i(3)], "[3]"],
    [[v(null)], "[=null]"],
    [[v(true)], "[=true]"],
    [[v(1.5)], "[=1.5]"],
    [[v('a"b\n\u0001')], '[="a\\"b\\n\\x01"]'],
    [[v({ b: 2, a: "x" })], '[=a="x"b=2]'],
    [[v([1, "a"])], '[=[1,"a"]]'],
    [[], ""],
  ];
  for (const [path, text] of cases) it(text || "(root)", () => assert.equal(formatPath(path), text));

  it("prints numbers as Go's %v does", () => {
    assert.deepEqual([0, -3, 1e20, 0.25, 1e-5, 1.5e-7, 2e21].map(goNumber), [
      "0",
      "-3",
      "100000000000000000000",
      "0.25",
      "1e-05",
      "1.5e-07",
      "2e+21",
    ]);
  });
});

describe("deep sets", () => {
  it("builds, serializes, parses and combines a 10,000-level set without recursion", () => {
    const depth = 10_000;
    const path: PathElement[] = [];
    const s = FieldSet.empty();
    for (let d = 0; d < depth; d++) {
      path.push(f("a"));
      if (d % 1000 === 999) s.insert([...path, f("leaf")]);
    }
    s.insert(path);
    const wire = s.toFieldsV1();
    const back = FieldSet.fromFieldsV1(wire);
    assert.ok(back.equals(s));
    assert.equal(back.size(), 11);
    assert.ok(s.union(back).equals(s));
    assert.ok(s.difference(back).isEmpty());
    assert.ok(s.intersection(back).equals(s));
    assert.equal(s.recursiveDifference(FieldSet.of([f("a"), f("a")])).size(), 0);
    assert.ok(s.touches(path.slice(0, 5000)));
    assert.ok(s.has(path));
    const c = s.cursor();
    let at = c;
    for (let d = 0; d < depth; d++) at = at.child(f("b"));
    at.member(f("end"));
    assert.equal(s.size(), 12);
  });
});
