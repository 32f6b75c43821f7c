import assert from "node:assert/strict";
import { it } from "node:test";
import { compile } from "./compile.ts";
import { ruleEnvironment } from "./environment.ts";
import { evaluate } from "./evaluate.ts";
import { STATIC_ESTIMATED_COST_LIMIT } from "./limits.ts";
import { childCardinality, estimateCost } from "./rules.ts";
import type { CelSchema } from "./schema.ts";
import { celValueFromJson } from "./values.ts";

const unboundedList: CelSchema = { type: "array", items: { type: "string" } };
const boundedList: CelSchema = { type: "array", maxItems: 100, items: { type: "string", maxLength: 64 } };
const pairwise = "self.all(x, self.exists_one(y, x == y))";

it("a quadratic rule over an unbounded list is rejected with upstream's message", () => {
  const result = estimateCost(pairwise, { schema: unboundedList });
  assert.equal(result.ok, false);
  assert.ok(!result.ok);
  assert.ok(result.cost > STATIC_ESTIMATED_COST_LIMIT * 100);
  assert.equal(
    result.message,
    "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding " +
      "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
  );
});

it("the same rule is accepted once maxItems and maxLength bound the list", () => {
  const result = estimateCost(pairwise, { schema: boundedList });
  assert.ok(result.ok, JSON.stringify(result));
  assert.ok(result.cost < STATIC_ESTIMATED_COST_LIMIT);
});

it("linear rules over unbounded data stay within the limit, as upstream's estimator allows", () => {
  for (const rule of ["self.all(x, x.size() < 64)", "self.size() <= 10", "self.exists(x, x == 'a')"]) {
    const result = estimateCost(rule, { schema: unboundedList });
    assert.ok(result.ok, `${rule}: ${JSON.stringify(result)}`);
  }
  // A regex over an unbounded string is expensive per item; with a bound it is cheap.
  assert.equal(estimateCost("self.all(x, x.matches('^[a-z]+$'))", { schema: unboundedList }).ok, false);
  assert.equal(estimateCost("self.all(x, x.matches('^[a-z]+$'))", { schema: boundedList }).ok, true);
});

it("the estimate bounds the runtime cost of the worst case the schema admits", () => {
  const env = ruleEnvironment(boundedList);
  assert.ok(env !== undefined);
  const compiled = compile(pairwise, env);
  assert.ok(compiled.ok);
  const worst = Array.from({ length: 100 }, (_, i) => String(i).padStart(64, "x"));
  const runtime = evaluate(compiled.program, { self: celValueFromJson(worst, boundedList) });
  const estimate = estimateCost(pairwise, { schema: boundedList });
  assert.ok(runtime.ok && estimate.ok);
  assert.ok(runtime.cost <= estimate.cost, `${runtime.cost} <= ${estimate.cost}`);
});

it("rules under lists are multiplied by how often they may run", () => {
  const item: CelSchema = { type: "string", maxLength: 1000 };
  const rule = "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')";
  const once = estimateCost(rule, { schema: item });
  assert.ok(once.ok);
  const parent: CelSchema = { type: "array", maxItems: 10, items: item };
  const tenTimes = estimateCost(rule, { schema: item, maxCardinality: childCardinality(1, parent, "items") });
  assert.ok(tenTimes.ok);
  assert.equal(tenTimes.cost, once.cost * 10);
  const unbounded = estimateCost(rule, {
    schema: item,
    maxCardinality: childCardinality(1, { type: "array", items: item }, "items"),
  });
  assert.equal(unbounded.ok, false);
  assert.equal(childCardinality(3, { type: "object" }, "properties"), 3);
  assert.equal(childCardinality("unbounded", parent, "items"), "unbounded");
});

it("factors between 1 and 1.5 are reported with six decimals, larger ones with one", async () => {
  const { costExceedsBudgetMessage } = await import("./limits.ts");
  assert.match(
    costExceedsBudgetMessage("estimated rule cost", 12_000_000, 10_000_000),
    /factor of 1\.200000x /,
  );
  assert.match(costExceedsBudgetMessage("estimated rule cost", 25_000_000, 10_000_000), /factor of 2\.5x /);
});

it("a rule that does not compile reports its compile error instead of a cost", () => {
  const result = estimateCost("self.all(x, x >)", { schema: unboundedList });
  assert.ok(!result.ok);
  assert.match(result.message, /^compilation failed: ERROR: <input>:1:/);
});
