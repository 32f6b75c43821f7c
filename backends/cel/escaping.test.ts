import assert from "node:assert/strict";
import { it } from "node:test";
import { escapePropertyName, unescapePropertyName } from "./escaping.ts";

it("plain identifiers pass through; special characters are spelled out", () => {
  assert.equal(escapePropertyName("replicas"), "replicas");
  assert.equal(escapePropertyName("_x1"), "_x1");
  assert.equal(escapePropertyName("a__b"), "a__underscores__b");
  assert.equal(escapePropertyName("a___b"), "a__underscores___b");
  assert.equal(escapePropertyName("my-field"), "my__dash__field");
  assert.equal(escapePropertyName("a.b"), "a__dot__b");
  assert.equal(escapePropertyName("x/y"), "x__slash__y");
  assert.equal(escapePropertyName("-leading.dash/"), "__dash__leading__dot__dash__slash__");
});

it("reserved words are wrapped in double underscores", () => {
  for (const word of ["namespace", "in", "true", "null", "if", "return", "var", "while"]) {
    assert.equal(escapePropertyName(word), `__${word}__`);
  }
  assert.equal(escapePropertyName("namespaces"), "namespaces");
});

it("names CEL cannot access are undefined", () => {
  for (const name of ["", "1abc", "a b", "a:b", "ä", "a+b", "x@y"]) {
    assert.equal(escapePropertyName(name), undefined, name);
  }
});

it("unescaping inverts escaping and rejects unknown escapes", () => {
  for (const name of ["a__b", "my-field", "a.b/c", "namespace", "plain", "-x-"]) {
    const escaped = escapePropertyName(name);
    assert.ok(escaped !== undefined);
    assert.equal(unescapePropertyName(escaped), name);
  }
  assert.equal(unescapePropertyName("a__bogus__b"), undefined);
  assert.equal(unescapePropertyName("x__in__"), undefined);
});
