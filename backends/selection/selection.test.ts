import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFieldSelector } from "./field-selector.ts";
import { labelSelectorFromObject, parseLabelSelector, SelectorParseError } from "./label-selector.ts";

describe("label selectors", () => {
  const labels = { app: "web", tier: "front", "example.com/team": "a" };
  const cases: [string, boolean][] = [
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app = web", true],
    ["app!=web", false],
    ["app!=db", true],
    ["missing!=x", true],
    ["missing=x", false],
    ["app", true],
    ["!app", false],
    ["!missing", true],
    ["app in (web,db)", true],
    ["app in (db)", false],
    ["app notin (db)", true],
    ["missing notin (db)", true],
    ["missing in (db)", false],
    ["app=web,tier=front", true],
    ["app=web,tier=back", false],
    ["example.com/team=a", true],
    ["tier in (front, back),!gone", true],
    ["app=", false],
  ];
  for (const [selector, expected] of cases) {
    it(`${JSON.stringify(selector)} -> ${expected}`, () => {
      assert.equal(parseLabelSelector(selector).matches(labels), expected);
    });
  }

  it("matches objects without labels", () => {
    assert.equal(parseLabelSelector("!app").matches(undefined), true);
    assert.equal(parseLabelSelector("app").matches(undefined), false);
  });

  for (const bad of [
    "app=web=x",
    "in (a)",
    "app in a",
    "app in (a",
    "-bad=x",
    "app=-x",
    "a/b/c=x",
    ",",
    "app=web,",
    `x=${"v".repeat(64)}`,
  ]) {
    it(`rejects ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseLabelSelector(bad), SelectorParseError);
    });
  }
});

describe("field selectors", () => {
  const supported = new Set(["metadata.name", "metadata.namespace", "spec.nodeName"]);
  const fields = { "metadata.name": "a,b", "metadata.namespace": "ns", "spec.nodeName": "" };
  const cases: [string, boolean][] = [
    ["", true],
    ["metadata.namespace=ns", true],
    ["metadata.namespace==ns", true],
    ["metadata.namespace!=ns", false],
    ["metadata.name=a\\,b", true],
    ["metadata.name=a\\,b,metadata.namespace=other", false],
    ["spec.nodeName=", true],
    ["spec.nodeName!=", false],
  ];
  for (const [selector, expected] of cases) {
    it(`${JSON.stringify(selector)} -> ${expected}`, () => {
      assert.equal(parseFieldSelector(selector, supported).matches(fields), expected);
    });
  }

  it("knows the name a selector pins", () => {
    assert.equal(parseFieldSelector("metadata.name=x", supported).requiredValue("metadata.name"), "x");
    assert.equal(parseFieldSelector("metadata.name!=x", supported).requiredValue("metadata.name"), undefined);
  });

  it("rejects unsupported fields and malformed terms", () => {
    assert.throws(
      () => parseFieldSelector("spec.other=x", supported),
      /field label not supported: spec.other/,
    );
    assert.throws(() => parseFieldSelector("metadata.name", supported), SelectorParseError);
    assert.throws(() => parseFieldSelector("metadata.name=a\\x", supported), SelectorParseError);
    assert.throws(() => parseFieldSelector("metadata.name=a=b", supported), SelectorParseError);
  });
});

describe("labelSelectorFromObject", () => {
  it("match labels and expressions as the API defines them", () => {
    const s = labelSelectorFromObject({
      matchLabels: { a: "1" },
      matchExpressions: [
        { key: "b", operator: "In", values: ["x", "y"] },
        { key: "c", operator: "NotIn", values: ["z"] },
        { key: "d", operator: "Exists" },
        { key: "e", operator: "DoesNotExist" },
      ],
    });
    assert.equal(s.matches({ a: "1", b: "y", c: "w", d: "" }), true);
    assert.equal(s.matches({ a: "1", b: "y", d: "" }), true);
    assert.equal(s.matches({ a: "2", b: "y", d: "" }), false);
    assert.equal(s.matches({ a: "1", b: "q", d: "" }), false);
    assert.equal(s.matches({ a: "1", b: "x", c: "z", d: "" }), false);
    assert.equal(s.matches({ a: "1", b: "x" }), false);
    assert.equal(s.matches({ a: "1", b: "x", d: "", e: "" }), false);
    assert.equal(
      labelSelectorFromObject({}).matches({ any: "thing" }),
      true,
      "an empty selector selects everything",
    );
    assert.throws(
      () => labelSelectorFromObject({ matchExpressions: [{ key: "a", operator: "Near" }] }),
      /not a valid/,
    );
  });
});
