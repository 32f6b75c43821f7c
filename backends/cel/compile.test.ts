import assert from "node:assert/strict";
import { it } from "node:test";
import { compile } from "./compile.ts";
import { createEnvironment, ruleEnvironment } from "./environment.ts";
import { evaluate } from "./evaluate.ts";
import type { CelSchema } from "./schema.ts";
import { celValueFromJson } from "./values.ts";

const schema: CelSchema = {
  type: "object",
  properties: {
    replicas: { type: "integer" },
    "max-surge": { type: "integer" },
    containers: {
      type: "array",
      items: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" }, ports: { type: "array", items: { type: "integer" } } },
      },
    },
    labels: { type: "object", additionalProperties: { type: "string" } },
  },
};
const env = ruleEnvironment(schema);
assert.ok(env !== undefined);
const spec = {
  replicas: 3,
  "max-surge": 1,
  containers: [
    { name: "web", ports: [80, 443] },
    { name: "sidecar", ports: [] },
  ],
  labels: { app: "web", tier: "front" },
};
const self = celValueFromJson(spec, schema);

function run(expr: string): unknown {
  assert.ok(env !== undefined);
  const compiled = compile(expr, env, { resultType: "bool" });
  if (!compiled.ok) return `compile: ${compiled.error.message}`;
  const result = evaluate(compiled.program, { self, oldSelf: self });
  return result.ok ? result.value : `error: ${result.error.message}`;
}

it("all() and exists() over lists and map keys", () => {
  assert.equal(run("self.containers.all(c, c.name.size() > 0)"), true);
  assert.equal(run("self.containers.all(c, c.ports.size() > 0)"), false);
  assert.equal(run("self.containers.exists(c, c.name == 'sidecar')"), true);
  assert.equal(run("self.containers.exists(c, c.ports.exists(p, p == 8080))"), false);
  assert.equal(run("self.labels.all(k, k.size() <= 4 && self.labels[k] != '')"), true);
  assert.equal(run("self.labels.exists(k, k == 'tier')"), true);
  assert.equal(run("[].all(x, false) && ![].exists(x, true)"), true);
});

it("exists_one, map, filter and has()", () => {
  assert.equal(run("self.containers.exists_one(c, c.ports.size() == 2)"), true);
  assert.equal(run("self.containers.map(c, c.name) == ['web', 'sidecar']"), true);
  assert.equal(run("self.containers.filter(c, c.ports.size() > 0).size() == 1"), true);
  assert.equal(run("self.containers.map(c, c.ports.size() > 0, c.name) == ['web']"), true);
  assert.equal(run("has(self.replicas) && !has(self.labels.missing) && has(self.labels.app)"), true);
});

it("escaped property names and int64 arithmetic", () => {
  assert.equal(run("self.max__dash__surge < self.replicas"), true);
  assert.equal(run("self.replicas * 3074457345618258603 > 0"), "error: integer overflow");
  assert.equal(run("-9223372036854775807 - 1 < 0"), true);
  assert.equal(run("(-9223372036854775807 - 1) / -1 > 0"), "error: integer overflow");
  assert.equal(run("self.replicas / 0 == 1"), "error: division by zero");
});

it("self == oldSelf compares object values structurally", () => {
  assert.ok(env !== undefined);
  const compiled = compile("self == oldSelf", env);
  assert.ok(compiled.ok);
  const changed = celValueFromJson({ ...spec, replicas: 4 }, schema);
  assert.deepEqual(evaluate(compiled.program, { self, oldSelf: celValueFromJson(spec, schema) }).ok, true);
  const same = evaluate(compiled.program, { self, oldSelf: celValueFromJson(spec, schema) });
  assert.equal(same.ok && same.value, true);
  const different = evaluate(compiled.program, { self, oldSelf: changed });
  assert.equal(different.ok && different.value, false);
  assert.deepEqual([...compiled.program.references].sort(), ["oldSelf", "self"]);
});

it("a syntax error is a compile error with position and source line", () => {
  assert.equal(
    run("self.replicas >"),
    "compile: compilation failed: ERROR: <input>:1:16: Syntax error: Unexpected token: EOF\n | self.replicas >\n | ...............^",
  );
});

it("type errors, unknown fields, unknown variables and non-bool results are compile errors", () => {
  assert.match(
    String(run("self.replicas == 'three'")),
    /found no matching overload for '_==_' applied to '\(int, string\)'/,
  );
  assert.match(String(run("self.replicaz > 1")), /<input>:1:6: undefined field 'replicaz'/);
  assert.match(String(run("other > 1")), /undeclared reference to 'other' \(in container ''\)/);
  assert.match(String(run("self.replicas + 1")), /^compile: cel expression must evaluate to a bool$/);
  assert.match(
    String(run("[1, 'a'].size() == 2")),
    /^compile: compilation failed: .*List elements must have the same type/,
  );
  assert.match(String(run("self.containers.all(c, c.nope)")), /undefined field 'nope'/);
  const env2 = createEnvironment();
  const message = compile("'x'", env2, { resultType: "string" });
  assert.ok(message.ok);
  const bad = compile("1", env2, { resultType: "string" });
  assert.ok(!bad.ok);
  assert.equal(bad.error.message, "messageExpression must evaluate to a string");
});

it("blank and hostile input never throws", () => {
  assert.ok(env !== undefined);
  for (const expr of [
    "",
    "   ",
    "(((((",
    "'unterminated",
    "self.",
    "1 ? 2",
    "a.b.c(",
    "\u0000",
    "[".repeat(300),
  ]) {
    const compiled = compile(expr, env);
    assert.equal(compiled.ok, false, JSON.stringify(expr));
  }
});
