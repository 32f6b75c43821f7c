import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goJsonMarshal, JsonPathError, parseJsonPath, printResult } from "./jsonpath.ts";

const object = {
  metadata: { name: "a", labels: { "app.kind/name": "web" } },
  spec: {
    replicas: 3,
    ratio: 0.5,
    enabled: true,
    containers: [
      { name: "main", image: "nginx", ports: [{ port: 80 }, { port: 443 }] },
      { name: "side", image: "envoy", ports: [] },
    ],
  },
  status: {
    conditions: [
      { type: "Progressing", status: "True" },
      { type: "Ready", status: "False", count: 2 },
    ],
  },
};

function first(template: string, data: unknown = object): unknown[] {
  return parseJsonPath(template).find(data)[0] ?? [];
}

describe("kubectl JSONPath", () => {
  it("selects fields, bracketed keys and missing keys (no result)", () => {
    assert.deepEqual(first("{.spec.replicas}"), [3]);
    // As in kubectl, a dot inside brackets still separates fields unless escaped.
    assert.deepEqual(first("{.metadata.labels['app.kind/name']}"), []);
    assert.deepEqual(first("{.metadata.labels['app\\.kind/name']}"), ["web"]);
    assert.deepEqual(first("{.metadata.labels.app\\.kind/name}"), ["web"]);
    assert.deepEqual(first("{.spec.missing.deeper}"), []);
    assert.deepEqual(first("{$.spec.enabled}"), [true]);
  });

  it("indexes, slices and wildcards arrays", () => {
    assert.deepEqual(first("{.spec.containers[0].name}"), ["main"]);
    assert.deepEqual(first("{.spec.containers[-1].name}"), ["side"]);
    assert.deepEqual(first("{.spec.containers[*].image}"), ["nginx", "envoy"]);
    assert.deepEqual(first("{.spec.containers[0:1].name}"), ["main"]);
    assert.deepEqual(first("{.spec.containers[0].ports[*].port}"), [80, 443]);
    assert.deepEqual(first("{.spec.containers[0,1].name}"), ["main", "side"]);
    assert.deepEqual(first("{.spec.containers[::2].name}"), ["main"]);
  });

  it("filters list items by a comparison or by existence", () => {
    assert.deepEqual(first('{.status.conditions[?(@.type=="Ready")].status}'), ["False"]);
    assert.deepEqual(first("{.status.conditions[?(@.type!='Ready')].type}"), ["Progressing"]);
    assert.deepEqual(first("{.status.conditions[?(@.count)].type}"), ["Ready"]);
    assert.deepEqual(first("{.status.conditions[?(@.count > 1)].type}"), ["Ready"]);
  });

  it("descends recursively", () => {
    assert.deepEqual(first("{..port}"), [80, 443]);
    assert.deepEqual(first("{.spec..name}"), ["main", "side"]);
  });

  it("reports evaluation errors (out of range, not a list) and syntax errors", () => {
    assert.throws(() => first("{.spec.containers[5].name}"), /array index out of bounds: index 5, length 2/);
    assert.throws(() => first("{.spec.replicas[0]}"), /is not array or slice/);
    assert.throws(() => parseJsonPath("{.spec.x"), JsonPathError);
    assert.throws(() => parseJsonPath("{.spec[0}"), /unterminated array|invalid array index/);
    assert.throws(() => parseJsonPath("{.spec[?(@.x=='a']}"), /unterminated filter|unclosed array/);
  });

  it("prints results as kubectl does", () => {
    assert.equal(printResult("text"), "text");
    assert.equal(printResult(3), "3");
    assert.equal(printResult(0.5), "0.5");
    assert.equal(printResult(1234567.5), "1.2345675e+06");
    assert.equal(printResult(true), "true");
    assert.equal(printResult(null), "<no value>");
    assert.equal(printResult({ b: 1, a: "<x>" }), '{"a":"\\u003cx\\u003e","b":1}');
    assert.equal(printResult([1, "a"]), '[1,"a"]');
    assert.equal(goJsonMarshal({ z: [{ y: 1, x: 2 }] }), '{"z":[{"x":2,"y":1}]}');
  });
});
