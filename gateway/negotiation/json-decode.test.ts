// JSON bodies: values as JSON.parse gives them, duplicate paths as upstream's strict decoder names
// them, and syntax errors in upstream's words.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_BODY_DEPTH } from "../../backends/registry/index.ts";
import { decodeJson, duplicateFieldMessage, goQuote, JsonSyntaxError } from "./json-decode.ts";

const POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "web-0",
    namespace: "default",
    labels: { app: "web", "app.kubernetes.io/name": "web" },
    annotations: { note: 'has "quotes", colons: and {braces} [brackets] \\ backslashes \\' },
  },
  spec: {
    containers: [
      { name: "web", image: "nginx:1.25", ports: [{ containerPort: 80 }], args: ["--a=b", "c:d"] },
      { name: "sidecar", image: "busybox", command: ["sh", "-c", 'echo "{\\"x\\":1}"'] },
    ],
    nodeSelector: {},
    tolerations: [],
  },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }], empty: null, n: -1.5e3 },
};

describe("decodeJson: values", () => {
  const texts: [string, string][] = [
    ["compact object", JSON.stringify(POD)],
    ["indented object", JSON.stringify(POD, null, 2)],
    ["top-level array", '[1, {"a": [true, false, null]}, "x"]'],
    ["string", '"x"'],
    ["number", "  42 "],
    ["null", "null"],
    ["empty containers", '{"a":{},"b":[],"c":[{}]}'],
    ["escaped keys that differ", '{"a\\"b":1,"a\\\\":2,"a":3}'],
    ["keys that only look alike", '{"a":1,"A":2,"a ":3}'],
    ["colons and braces in strings", '{"a":"::{{[[","b":"\\\\","c":"\\\\\\""}'],
  ];
  for (const [name, text] of texts) {
    it(name, () => {
      const decoded = decodeJson(text);
      assert.deepEqual(decoded.value, JSON.parse(text));
      assert.deepEqual(decoded.duplicates, []);
    });
  }
});

describe("decodeJson: duplicates", () => {
  const cases: [string, string, string[], unknown][] = [
    ["top level", '{"a":1,"a":2}', ["a"], { a: 2 }],
    [
      "nested map",
      '{"metadata":{"labels":{"a":"1","b":"2","a":"3"}}}',
      ["metadata.labels.a"],
      { metadata: { labels: { a: "3", b: "2" } } },
    ],
    [
      "in an array element",
      '{"spec":{"containers":[{"name":"a"},{"name":"b","image":"x","name":"c"}]}}',
      ["spec.containers[1].name"],
      { spec: { containers: [{ name: "a" }, { name: "c", image: "x" }] } },
    ],
    [
      "first element",
      '{"spec":{"containers":[{"name":"x","name":"y"}]}}',
      ["spec.containers[0].name"],
      { spec: { containers: [{ name: "y" }] } },
    ],
    ["top-level array", '[{"a":1},{"a":1,"a":2}]', ["[1].a"], [{ a: 1 }, { a: 2 }]],
    ["nested arrays", '{"m":[[{"k":1,"k":2}]]}', ["m[0][0].k"], { m: [[{ k: 2 }]] }],
    ["same key thrice, reported once", '{"a":1,"a":2,"a":3}', ["a"], { a: 3 }],
    ["escape spelling of the same key", '{"ab":1,"a\\u0062":2}', ["ab"], { ab: 2 }],
    [
      "inside the first value and the key itself, in document order",
      '{"metadata":{"labels":{"a":"1","a":"2"}},"spec":{},"metadata":{"name":"n"}}',
      ["metadata.labels.a", "metadata"],
      { metadata: { name: "n" }, spec: {} },
    ],
    [
      "separate paths each reported",
      '{"a":{"x":1,"x":2},"b":{"x":1,"x":2}}',
      ["a.x", "b.x"],
      { a: { x: 2 }, b: { x: 2 } },
    ],
    ["empty key", '{"":{"a":1,"a":2},"":1}', [".a", ""], { "": 1 }],
    ["with whitespace", '{\n  "a" : 1 ,\n  "a" : 2\n}', ["a"], { a: 2 }],
  ];
  for (const [name, text, duplicates, value] of cases) {
    it(name, () => {
      const decoded = decodeJson(text);
      assert.deepEqual(decoded.duplicates, duplicates);
      assert.deepEqual(decoded.value, value);
    });
  }

  it("reports at most 100", () => {
    const entries = Array.from({ length: 150 }, (_, i) => `"k${i}":{"x":1,"x":2}`).join(",");
    const decoded = decodeJson(`{${entries}}`);
    assert.equal(decoded.duplicates.length, 100);
    assert.equal(decoded.duplicates[0], "k0.x");
  });

  it("upstream's strict-decoding text", () => {
    assert.equal(duplicateFieldMessage("metadata.labels.a"), 'duplicate field "metadata.labels.a"');
    assert.equal(duplicateFieldMessage('we"ird\n'), 'duplicate field "we\\"ird\\n"');
  });
});

describe("decodeJson: syntax errors", () => {
  const cases: [string, string, string, number, number, number][] = [
    // name, text, message, offset, line, column
    ["empty", "", "unexpected end of JSON input", 0, 1, 1],
    ["only spaces", "   ", "unexpected end of JSON input", 3, 1, 4],
    ["unterminated object", '{"a":1', "unexpected end of JSON input", 6, 1, 7],
    ["unterminated string", '{"a":"x', "unexpected end of JSON input", 7, 1, 8],
    [
      "trailing comma in object",
      '{"a":1,}',
      "invalid character '}' looking for beginning of object key string",
      7,
      1,
      8,
    ],
    ["trailing comma in array", "[1,]", "invalid character ']' looking for beginning of value", 3, 1, 4],
    ["missing colon", '{"a" 1}', "invalid character '1' after object key", 5, 1, 6],
    ["missing comma", '{"a":1 "b":2}', "invalid character '\"' after object key:value pair", 7, 1, 8],
    ["missing comma in array", "[1 2]", "invalid character '2' after array element", 3, 1, 4],
    [
      "single quotes",
      "{'a':1}",
      "invalid character '\\'' looking for beginning of object key string",
      1,
      1,
      2,
    ],
    ["unquoted key", "{a:1}", "invalid character 'a' looking for beginning of object key string", 1, 1, 2],
    ["bad literal", '{"a":tru}', "invalid character '}' in literal true (expecting 'e')", 8, 1, 9],
    ["bad null", "nul", "unexpected end of JSON input", 3, 1, 4],
    ["nope", "nope", "invalid character 'o' in literal null (expecting 'u')", 1, 1, 2],
    ["leading zero", '{"a":01}', "invalid character '1' after object key:value pair", 6, 1, 7],
    ["bare minus", "[-]", "invalid character ']' in numeric literal", 2, 1, 3],
    ["bare point", "[1.]", "invalid character ']' after decimal point in numeric literal", 3, 1, 4],
    ["bare exponent", "[1e+]", "invalid character ']' in exponent of numeric literal", 4, 1, 5],
    ["bad escape", '["\\x"]', "invalid character 'x' in string escape code", 3, 1, 4],
    [
      "bad unicode escape",
      '["\\u12G4"]',
      "invalid character 'G' in \\u hexadecimal character escape",
      6,
      1,
      7,
    ],
    ["control character in string", '["a\tb"]', "invalid character '\\t' in string literal", 3, 1, 4],
    ["newline in string", '{\n"a":"x\ny"}', "invalid character '\\n' in string literal", 8, 2, 7],
    ["after top-level value", '{"a":1} x', "invalid character 'x' after top-level value", 8, 1, 9],
    ["two documents", "{}{}", "invalid character '{' after top-level value", 2, 1, 3],
    ["NaN", "[NaN]", "invalid character 'N' looking for beginning of value", 1, 1, 2],
    [
      "non-ASCII named by its first UTF-8 byte",
      '{"é":1,é}',
      "invalid character 'Ã' looking for beginning of object key string",
      7,
      1,
      8,
    ],
    ["byte order mark", "\ufeff{}", "invalid character 'ï' looking for beginning of value", 0, 1, 1],
    [
      "on a later line",
      '{\n  "a": 1,\n  "b": ?\n}',
      "invalid character '?' looking for beginning of value",
      19,
      3,
      8,
    ],
  ];
  for (const [name, text, message, offset, line, column] of cases) {
    it(name, () => {
      assert.throws(
        () => decodeJson(text),
        (err: unknown) => {
          assert.ok(err instanceof JsonSyntaxError, String(err));
          assert.equal(err.message, message);
          assert.equal(err.offset, offset);
          assert.equal(err.line, line);
          assert.equal(err.column, column);
          return true;
        },
      );
    });
  }

  it(`nesting up to ${MAX_BODY_DEPTH} is accepted, deeper is refused naming the limit`, () => {
    const ok = `${"[".repeat(MAX_BODY_DEPTH)}${"]".repeat(MAX_BODY_DEPTH)}`;
    assert.deepEqual(decodeJson(ok).duplicates, []);
    const deep = `${"[".repeat(MAX_BODY_DEPTH + 1)}${"]".repeat(MAX_BODY_DEPTH + 1)}`;
    assert.throws(
      () => decodeJson(deep),
      (err: unknown) =>
        err instanceof JsonSyntaxError &&
        err.message ===
          `invalid character '[' exceeded max depth: may not nest more than ${MAX_BODY_DEPTH} levels of objects and arrays` &&
        err.offset === MAX_BODY_DEPTH,
    );
    const objects = (d: number) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`;
    assert.equal(decodeJson(objects(MAX_BODY_DEPTH)).duplicates.length, 0);
    assert.throws(() => decodeJson(objects(MAX_BODY_DEPTH + 1)), /exceeded max depth/);
    // Far deeper still: a clean error, not a stack overflow.
    assert.throws(() => decodeJson(objects(100_000)), JsonSyntaxError);
  });
});

describe("goQuote", () => {
  const cases: [string, string][] = [
    ["plain", '"plain"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ["\u0007\b\f\n\r\t\v", '"\\a\\b\\f\\n\\r\\t\\v"'],
    ["\u0001\u007f", '"\\x01\\x7f"'],
    ["\u0085", '"\\u0085"'],
    ["héllo", '"héllo"'],
  ];
  for (const [input, expected] of cases) {
    it(JSON.stringify(input), () => assert.equal(goQuote(input), expected));
  }
});
