import assert from "node:assert/strict";
import { it } from "node:test";
import { PER_CALL_LIMIT } from "./limits.ts";
import {
  compileRule,
  evaluateRule,
  evaluateRules,
  OUT_OF_BUDGET_MESSAGE,
  type SchemaContext,
} from "./rules.ts";
import type { CelSchema } from "./schema.ts";

const schema: CelSchema = {
  type: "object",
  properties: {
    min: { type: "integer" },
    max: { type: "integer" },
    name: { type: "string" },
    items: { type: "array", items: { type: "integer" } },
  },
};

it("a passing rule is ok; a failing one reports its message or `failed rule: <rule>`", () => {
  assert.deepEqual(evaluateRule({ rule: "self.min <= self.max" }, { min: 1, max: 2 }, undefined, schema), {
    ok: true,
  });
  assert.deepEqual(evaluateRule({ rule: "self.min <= self.max" }, { min: 3, max: 2 }, undefined, schema), {
    ok: false,
    message: "failed rule: self.min <= self.max",
  });
  assert.deepEqual(
    evaluateRule(
      { rule: "self.min <= self.max", message: "  min must not exceed max " },
      { min: 3, max: 2 },
      undefined,
      schema,
    ),
    { ok: false, message: "min must not exceed max" },
  );
});

it("messageExpression builds the message from the object", () => {
  const rule = {
    rule: "self.min <= self.max",
    messageExpression: "'min (' + string(self.min) + ') exceeds max (' + string(self.max) + ')'",
  };
  assert.deepEqual(evaluateRule(rule, { min: 3, max: 2 }, undefined, schema), {
    ok: false,
    message: "min (3) exceeds max (2)",
  });
});

it("a messageExpression that fails, is empty or has a line break falls back to the rule's message", () => {
  const base = { rule: "self.min <= self.max", message: "static" };
  for (const messageExpression of ["string(self.min / 0)", "'  '", "'two\\nlines'", "self.name"]) {
    assert.deepEqual(
      evaluateRule({ ...base, messageExpression }, { min: 3, max: 2 }, undefined, schema),
      { ok: false, message: "static" },
      messageExpression,
    );
  }
  assert.deepEqual(
    evaluateRule(
      { rule: "self.min <= self.max", messageExpression: "'x' * 2" },
      { min: 3, max: 2 },
      undefined,
      schema,
    ),
    {
      ok: false,
      message: "failed rule: self.min <= self.max",
    },
  );
});

it("a messageExpression must be a string expression", () => {
  const compiled = compileRule({ rule: "self.min <= self.max", messageExpression: "self.min" }, { schema });
  assert.equal(compiled.messageExpressionError?.message, "messageExpression must evaluate to a string");
  const syntax = compileRule({ rule: "self.min <= self.max", messageExpression: "'abc" }, { schema });
  assert.match(
    syntax.messageExpressionError?.message ?? "",
    /^messageExpression compilation failed: ERROR: <input>:1:1/,
  );
});

it("transition rules run only with an old value", () => {
  const rule = { rule: "self.name == oldSelf.name", message: "name is immutable" };
  assert.equal(compileRule(rule, { schema }).usesOldSelf, true);
  assert.deepEqual(evaluateRule(rule, { name: "a" }, undefined, schema), { ok: true });
  assert.deepEqual(evaluateRule(rule, { name: "a" }, { name: "a" }, schema), { ok: true });
  assert.deepEqual(evaluateRule(rule, { name: "b" }, { name: "a" }, schema), {
    ok: false,
    message: "name is immutable",
  });
});

it("runtime errors and compile errors are reported in upstream's words", () => {
  assert.deepEqual(evaluateRule({ rule: "self.name == 'x'" }, { min: 1 }, undefined, schema), {
    ok: false,
    message: "no such key: name evaluating rule: self.name == 'x'",
  });
  const compileError = evaluateRule({ rule: "self.nope == 1" }, { min: 1 }, undefined, schema);
  assert.ok(!compileError.ok);
  assert.match(
    compileError.message,
    /^rule compile error: compilation failed: ERROR: <input>:1:6: undefined field 'nope'/,
  );
});

it("a runaway rule stops the object's validation with the per-call message", () => {
  const ctx: SchemaContext = { schema };
  const rules = [
    compileRule({ rule: "self.items.all(x, self.items.all(y, x != y || x == y))" }, ctx),
    compileRule({ rule: "self.min <= self.max" }, ctx),
  ];
  const items = Array.from({ length: 2000 }, (_, i) => i);
  const outcome = evaluateRules(rules, { min: 3, max: 2, items }, undefined, ctx);
  assert.equal(outcome.failures.length, 1, "no further rules run");
  assert.deepEqual(outcome.failures[0], {
    index: 0,
    message:
      "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call " +
      "cost exceeds limit for rule: self.items.all(x, self.items.all(y, x != y || x == y))",
    stop: true,
  });
  assert.equal(outcome.remainingBudget, -1);
});

it("the total budget is shared by the rules of an object", () => {
  const ctx: SchemaContext = { schema };
  const rules = [
    compileRule({ rule: "self.items.all(x, x >= 0)" }, ctx),
    compileRule({ rule: "self.min <= self.max" }, ctx),
  ];
  const object = { min: 1, max: 2, items: Array.from({ length: 1000 }, (_, i) => i) };
  const enough = evaluateRules(rules, object, undefined, ctx, PER_CALL_LIMIT);
  assert.deepEqual(enough.failures, []);
  assert.ok(enough.remainingBudget > 0 && enough.remainingBudget < PER_CALL_LIMIT);
  const tooLittle = evaluateRules(rules, object, undefined, ctx, 100);
  assert.deepEqual(tooLittle.failures, [{ index: 0, message: OUT_OF_BUDGET_MESSAGE, stop: true }]);
  const none = evaluateRules(rules, object, undefined, ctx, 0);
  assert.deepEqual(none.failures, [{ index: 0, message: OUT_OF_BUDGET_MESSAGE, stop: true }]);
});

it("rules on a schema CEL cannot see are compile errors", () => {
  const compiled = compileRule({ rule: "true" }, { schema: { type: "array", items: {} } });
  assert.equal(
    compiled.error?.message,
    "rule declared on schema that does not support validation rules type: 'array' x-kubernetes-preserve-unknown-fields: 'false'",
  );
});
