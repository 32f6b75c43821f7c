import assert from "node:assert/strict";
import { it } from "node:test";
import { compile, type Program } from "./compile.ts";
import { createEnvironment } from "./environment.ts";
import { CelCostLimitError, CelInterruptedError, CelRuntimeError } from "./errors.ts";
import { type EvaluateOptions, evaluate } from "./evaluate.ts";
import { PER_CALL_LIMIT } from "./limits.ts";
import { DYN } from "./schema.ts";
import { dynValue } from "./values.ts";

const env = createEnvironment({ variables: { l: DYN, s: DYN } });
const list = dynValue(Array.from({ length: 3000 }, (_, i) => i));
const text = "a".repeat(100_000);

function program(expr: string): Program {
  const compiled = compile(expr, env);
  if (!compiled.ok) throw compiled.error;
  return compiled.program;
}

function run(expr: string, options?: EvaluateOptions) {
  return evaluate(program(expr), { l: list, s: text }, options);
}

it("costs are deterministic units: reads and comparisons 1, list literals 40, iterations 1", () => {
  assert.equal(run("s == 'a'").cost, 2);
  assert.equal(run("[1, 2, 3].size() == 3").cost, 42);
  assert.equal(run("[1, 2, 3].all(x, x > 0)").cost, 50);
  const twice = [run("l.exists(x, x == 2999)").cost, run("l.exists(x, x == 2999)").cost];
  assert.equal(twice[0], twice[1]);
  // Regex cost: traversal of the input times a quarter of the pattern's length, before running it.
  assert.equal(run("s.matches('^a+$')").cost, 1 + Math.ceil(100_001 * 0.1) * Math.ceil(4 * 0.25));
});

it("nested comprehensions over a large list stop at the per-call limit", () => {
  for (const expr of [
    "l.all(x, l.all(y, x != y || x == y))",
    "l.map(x, l.map(y, y)).size() > 0",
    "l.exists(x, l.exists(y, l.exists(z, false)))",
    "l.filter(x, l.filter(y, true).size() > 0).size() > 0",
  ]) {
    const result = run(expr);
    assert.equal(result.ok, false, expr);
    assert.ok(!result.ok && result.error instanceof CelCostLimitError, expr);
    assert.equal(!result.ok && result.error.message, "operation cancelled: actual cost limit exceeded");
    assert.ok(result.cost > PER_CALL_LIMIT && result.cost < PER_CALL_LIMIT * 2, expr);
  }
});

it("growing strings and lists are charged by size before they are built", () => {
  for (const expr of [
    "s.replace('a', s).size() > 0",
    "s.replace('', s).size() > 0",
    "l.map(x, s + s).size() > 0",
    "l.map(x, l + l + l).size() > 0",
    "l.all(x, (s + s + s).size() > 0)",
    "l.map(x, string(x)).join(s).size() > 0",
  ]) {
    const result = run(expr);
    assert.ok(!result.ok && result.error instanceof CelCostLimitError, expr);
  }
});

it("a regex over a long input is refused by its cost before it runs", () => {
  const pattern = `^(${"a?".repeat(40)})+$`;
  const result = evaluate(program(`s.matches('${pattern}')`), { l: list, s: "a".repeat(3_000_000) });
  assert.ok(!result.ok && result.error instanceof CelCostLimitError);
  const many = run("l.all(x, s.find('a+b') == '')");
  assert.ok(!many.ok && many.error instanceof CelCostLimitError);
});

it("a spent budget is not swallowed by ||, && or quantifiers", () => {
  for (const expr of [
    "l.all(x, l.all(y, true)) || true",
    "l.exists(x, l.all(y, y >= 0) && false) || true",
    "true || l.all(x, l.all(y, true))",
  ]) {
    const result = run(expr);
    if (expr.startsWith("true ||")) {
      assert.ok(result.ok && result.value === true, "short-circuited work is not charged");
      continue;
    }
    assert.ok(!result.ok && result.error instanceof CelCostLimitError, expr);
  }
});

it("the budget is a parameter; a cost equal to the budget is within it", () => {
  const full = run("l.map(x, x).size() == 3000", { costBudget: Number.POSITIVE_INFINITY });
  assert.ok(full.ok && full.value === true);
  assert.equal(full.cost, 1 + 1 + 3000 * 2 + 1 + 1);
  assert.ok(run("l.map(x, x).size() == 3000", { costBudget: full.cost }).ok);
  const small = run("l.map(x, x).size() == 3000", { costBudget: full.cost - 1 });
  assert.ok(!small.ok && small.error.kind === "cost");
});

it("the wall-clock guard interrupts what the budget would allow", () => {
  const result = run("l.all(x, l.all(y, l.all(z, true)))", {
    costBudget: Number.POSITIVE_INFINITY,
    timeoutMs: 1,
  });
  assert.ok(!result.ok && result.error instanceof CelInterruptedError);
  assert.equal(!result.ok && result.error.message, "operation interrupted");
});

it("runtime errors are typed with upstream's wording", () => {
  const cases: Array<[string, string, string]> = [
    ["l[5000] == 1", "index_out_of_bounds", "index out of bounds, index 5000 >= size 3000"],
    ["l.foo == 1", "no_such_key", "no such key: foo"],
    ["l.size() + 9223372036854775807 > 0", "numeric_overflow", "integer overflow"],
    ["l.size() % 0 == 1", "modulo_by_zero", "modulo by zero"],
    ["l[0] + 'a' == 'b'", "no_such_overload", "no such overload: int + string"],
  ];
  for (const [expr, code, message] of cases) {
    const result = run(expr);
    assert.ok(!result.ok && result.error instanceof CelRuntimeError, expr);
    assert.equal(result.error.code, code, expr);
    assert.equal(result.error.message, message, expr);
  }
});

it("environments take custom functions with their own cost", () => {
  const custom = createEnvironment({
    variables: { object: DYN },
    functions: [
      { signature: "string.shout(): string", handler: (s: string) => `${s.toUpperCase()}!`, cost: () => 7 },
      { signature: "twice(int): int", handler: (n: bigint) => n * 2n },
    ],
  });
  const compiled = compile(
    "object.metadata.name.shout() == 'WEB!' && twice(object.spec.replicas) == 6",
    custom,
  );
  assert.ok(compiled.ok);
  const result = evaluate(compiled.program, {
    object: dynValue({ metadata: { name: "web" }, spec: { replicas: 3 } }),
  });
  assert.ok(result.ok && result.value === true);
  // object 1, .metadata 1, .name 1, shout 7, == 1; object 1, .spec 1, .replicas 1, twice 1, == 1.
  assert.equal(result.cost, 16);
  const undeclared = compile("object.shout2() == ''", custom);
  assert.ok(!undeclared.ok && /undeclared reference to 'shout2'/.test(undeclared.error.message));
});
