// YAML bodies: YAML 1.2 values, duplicate keys by path and by line, one document only.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_BODY_DEPTH } from "../../backends/registry/index.ts";
import { decodeYaml, YamlSyntaxError } from "./yaml-decode.ts";

const POD_YAML = `apiVersion: v1
kind: Pod
metadata:
  name: web-0
  labels:
    app: web
    app.kubernetes.io/name: web
  annotations:
    note: "a: b"
spec:
  containers:
  - name: web
    image: nginx:1.25
    ports:
    - containerPort: 80
    args: ["--a=b", 'c:d']
  nodeSelector: {}
  tolerations: []
status:
  phase: Running
  empty: null
  ratio: 1.5
  ok: true
  text: |
    line one
    line two
`;

describe("decodeYaml: values", () => {
  it("a Pod", () => {
    const decoded = decodeYaml(POD_YAML);
    assert.deepEqual(decoded.duplicates, []);
    assert.equal(decoded.duplicatesMessage, undefined);
    assert.deepEqual(decoded.value, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "web-0",
        labels: { app: "web", "app.kubernetes.io/name": "web" },
        annotations: { note: "a: b" },
      },
      spec: {
        containers: [
          { name: "web", image: "nginx:1.25", ports: [{ containerPort: 80 }], args: ["--a=b", "c:d"] },
        ],
        nodeSelector: {},
        tolerations: [],
      },
      status: { phase: "Running", empty: null, ratio: 1.5, ok: true, text: "line one\nline two\n" },
    });
  });
  const scalars: [string, unknown][] = [
    ["v: yes", { v: "yes" }], // YAML 1.2: a string
    ["v: on", { v: "on" }],
    ["v: 0777", { v: 777 }],
    ["v: 0o17", { v: 15 }],
    ["v: 0x1F", { v: 31 }],
    ["v: 2024-01-01T00:00:00Z", { v: "2024-01-01T00:00:00Z" }],
    ["v: ~", { v: null }],
    ["v:", { v: null }],
    ["v: '123'", { v: "123" }],
    ["1: one", { "1": "one" }],
    ["{a: 1, b: [x, y]}", { a: 1, b: ["x", "y"] }],
    ["- a\n- b", ["a", "b"]],
    ["just text", "just text"],
  ];
  for (const [text, value] of scalars) {
    it(JSON.stringify(text), () => assert.deepEqual(decodeYaml(text).value, value));
  }
  it("an empty body is null", () => {
    assert.equal(decodeYaml("").value, null);
    assert.equal(decodeYaml("# only a comment\n").value, null);
  });
  it("a JSON body is YAML too", () => {
    assert.deepEqual(decodeYaml('{"a": {"b": [1, 2]}}').value, { a: { b: [1, 2] } });
  });
  it("explicit document markers, and an empty trailing document", () => {
    assert.deepEqual(decodeYaml("---\na: 1\n...\n").value, { a: 1 });
    assert.deepEqual(decodeYaml("a: 1\n---\n").value, { a: 1 });
  });
  it("aliases", () => {
    assert.deepEqual(decodeYaml("x: &v {q: 1}\ny: *v\n").value, { x: { q: 1 }, y: { q: 1 } });
  });
});

describe("decodeYaml: duplicates", () => {
  const cases: [string, string, string[], unknown, string][] = [
    ["top level", "a: 1\na: 2\n", ["a"], { a: 2 }, '  line 2: key "a" already set in map'],
    [
      "nested map",
      "metadata:\n  labels:\n    a: '1'\n    b: '2'\n    a: '3'\n",
      ["metadata.labels.a"],
      { metadata: { labels: { a: "3", b: "2" } } },
      '  line 5: key "a" already set in map',
    ],
    [
      "in a sequence item",
      "spec:\n  containers:\n  - name: x\n  - name: y\n    image: i\n    name: z\n",
      ["spec.containers[1].name"],
      { spec: { containers: [{ name: "x" }, { name: "z", image: "i" }] } },
      '  line 6: key "name" already set in map',
    ],
    [
      "flow style",
      "spec: {containers: [{name: x, name: y}]}\n",
      ["spec.containers[0].name"],
      { spec: { containers: [{ name: "y" }] } },
      '  line 1: key "name" already set in map',
    ],
    [
      "a duplicated block value is on the line of its first key",
      "metadata:\n  name: a\nmetadata:\n  name: b\n",
      ["metadata"],
      { metadata: { name: "b" } },
      '  line 4: key "metadata" already set in map',
    ],
    [
      "quoted and plain spellings of one key",
      "a: 1\n'a': 2\n\"a\": 3\n",
      ["a"],
      { a: 3 },
      '  line 2: key "a" already set in map\n  line 3: key "a" already set in map',
    ],
    [
      "numeric keys as the value has them",
      "1: a\n1.0: b\n",
      ["1"],
      { "1": "b" },
      '  line 2: key "1" already set in map',
    ],
    ["null keys", "~: a\nnull: b\n", ["null"], { null: "b" }, '  line 2: key "null" already set in map'],
    [
      "alias as key",
      "x: &k foo\n*k : 1\nfoo: 2\n",
      ["foo"],
      { x: "foo", foo: 2 },
      '  line 3: key "foo" already set in map',
    ],
    ["top-level sequence", "- a: 1\n  a: 2\n", ["[0].a"], [{ a: 2 }], '  line 2: key "a" already set in map'],
  ];
  for (const [name, text, duplicates, value, lines] of cases) {
    it(name, () => {
      const decoded = decodeYaml(text);
      assert.deepEqual(decoded.duplicates, duplicates);
      assert.deepEqual(decoded.value, value);
      assert.equal(
        decoded.duplicatesMessage,
        `error converting YAML to JSON: yaml: unmarshal errors:\n${lines}`,
      );
    });
  }
});

describe("decodeYaml: refused", () => {
  const cases: [string, string, RegExp, number | undefined][] = [
    ["two documents", "a: 1\n---\nb: 2\n", /more than one document/, undefined],
    ["a second scalar document", "a: 1\n--- x\n", /more than one document/, undefined],
    ["bad indentation", "a: b: c\n", /^yaml: .*\(line 1, column 5\)$/, 1],
    ["unclosed flow sequence", "a: [1, 2\n", /^yaml: /, 2],
    ["tab indentation", "a:\n\tb: 1\n", /^yaml: /, 2],
    ["collection as key", "? [a]\n: 1\n", /invalid map key/, undefined],
    ["infinity", "a: .inf\n", /^json: unsupported value: \+Inf$/, undefined],
    ["negative infinity", "a: -.Inf\n", /^json: unsupported value: -Inf$/, undefined],
    ["not a number", "a: [.nan]\n", /^json: unsupported value: NaN$/, undefined],
    ["undefined alias", "a: *nope\n", /^yaml: /, 1],
  ];
  for (const [name, text, message, line] of cases) {
    it(name, () => {
      assert.throws(
        () => decodeYaml(text),
        (err: unknown) => {
          assert.ok(err instanceof YamlSyntaxError, String(err));
          assert.match(err.message, message);
          if (line !== undefined) assert.equal(err.line, line);
          return true;
        },
      );
    });
  }

  it("excessive aliasing", () => {
    let text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i < 8; i++) {
      text += `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(", ")}]\n`;
    }
    assert.throws(() => decodeYaml(text), /excessive aliasing/);
  });

  it("deep nesting is refused, not a crash", () => {
    const text = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    assert.throws(() => decodeYaml(text), YamlSyntaxError);
  });

  it(`nests ${MAX_BODY_DEPTH} levels in every style, as JSON does, and refuses more naming the limit`, () => {
    const limit = `may not nest more than ${MAX_BODY_DEPTH} levels of objects and arrays`;
    const flowMap = (d: number) => `${"{a: ".repeat(d)}1${"}".repeat(d)}`;
    const flowSeq = (d: number) => `${"[".repeat(d)}1${"]".repeat(d)}`;
    const blockMap = (d: number) =>
      Array.from({ length: d }, (_, i) => `${"  ".repeat(i)}a:${i === d - 1 ? " 1" : ""}`).join("\n");
    const blockSeq = (d: number) =>
      `${Array.from({ length: d }, (_, i) => `${"  ".repeat(i)}-`).join("\n")}\n${"  ".repeat(d)}1`;
    for (const make of [flowMap, flowSeq, blockMap, blockSeq]) {
      assert.doesNotThrow(() => decodeYaml(make(MAX_BODY_DEPTH)), make.name);
      assert.throws(
        () => decodeYaml(make(MAX_BODY_DEPTH + 1)),
        (err: unknown) => err instanceof YamlSyntaxError && err.message.includes(limit),
        make.name,
      );
    }
  });
});
