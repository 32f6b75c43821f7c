import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { kindSchema } from "../../backends/builtin/typed.ts";
import { builtinCatalog } from "../../backends/catalog/index.ts";
import { ERROR_LIMITS } from "../../backends/registry/index.ts";
import { ApplyConflictError } from "./errors.ts";
import { FieldManager, type VersionView } from "./field-manager.ts";

type Obj = Record<string, unknown>;
const schema = kindSchema(builtinCatalog(), "core/v1.ConfigMap");
const configMaps: VersionView = {
  kind: "ConfigMap",
  hasStatus: false,
  apiVersion: (v) => v,
  versionOf: (av) => (av === "v1" ? "v1" : undefined),
  schema: () => schema,
  convert: (o) => o,
};
const manager = () =>
  new FieldManager({
    view: configMaps,
    version: "v1",
    subresource: "",
    lastAppliedAnnotation: "example.com/last-applied",
    now: () => new Date(0),
  });

const configMap = (data: Record<string, string>): Obj => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "c", namespace: "default" },
  data,
});

/** A ConfigMap with `n` keys written by "owner", and an apply by "applier" changing every one. */
async function conflictingApply(n: number, key = (i: number) => `key${i}`): Promise<() => Promise<unknown>> {
  const mine: Record<string, string> = {};
  const theirs: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    mine[key(i)] = "a";
    theirs[key(i)] = "b";
  }
  const live = configMap(mine);
  await manager().update(undefined, live, undefined, "owner");
  return () => manager().apply(live, configMap(theirs), "applier", false);
}

async function conflictOf(run: () => Promise<unknown>): Promise<ApplyConflictError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof ApplyConflictError) return err;
    throw err;
  }
  assert.fail("the apply did not conflict");
}

/** Array elements visited through iteration (for-of, spread) while `run` runs. */
async function iterationSteps(run: () => Promise<unknown>): Promise<number> {
  const original = Array.prototype[Symbol.iterator];
  let steps = 0;
  Array.prototype[Symbol.iterator] = function (this: unknown[]) {
    const inner = original.call(this);
    const counting: IterableIterator<unknown> = {
      next() {
        steps++;
        return inner.next();
      },
      [Symbol.iterator]() {
        return counting;
      },
    };
    return counting as ArrayIterator<unknown>;
  };
  try {
    await run();
  } finally {
    Array.prototype[Symbol.iterator] = original;
  }
  return steps;
}

describe("apply conflicts", () => {
  it("cost work in proportion to their number (array steps counted, no clock)", async () => {
    const small = await conflictingApply(2000);
    const large = await conflictingApply(8000);
    const a = await iterationSteps(() => conflictOf(small));
    const b = await iterationSteps(() => conflictOf(large));
    // Linear work grows 4x with 4x the conflicts; regrouping paths by copying (quadratic) grew 16x.
    assert.ok(b <= a * 5, `steps for 2000 conflicts: ${a}, for 8000: ${b}`);
  });

  it("list at most ERROR_LIMITS.causes conflicts, and say how many more there were", async () => {
    const n = ERROR_LIMITS.causes + 50;
    const err = await conflictOf(await conflictingApply(n));
    assert.equal(err.conflicts.length, n);
    assert.match(
      err.message,
      new RegExp(`^Apply failed with ${n} conflicts: conflicts with "owner" using v1:\\n`),
    );
    assert.equal(err.message.split("\n- .data.").length - 1, ERROR_LIMITS.causes);
    assert.ok(err.message.endsWith("\n... (50 more conflicts)"), err.message.slice(-80));
    const causes = err.causes();
    assert.equal(causes.length, ERROR_LIMITS.causes);
    assert.deepEqual(causes[0], {
      reason: "FieldManagerConflict",
      message: 'conflict with "owner" using v1',
      field: ".data.key0",
    });
  });

  it("cut a path longer than ERROR_LIMITS.textChars", async () => {
    const long = "k".repeat(1_000_000);
    const err = await conflictOf(await conflictingApply(3, (i) => `${long}${i}`));
    const causes = err.causes();
    assert.equal(causes.length, 3);
    for (const c of causes) assert.equal(c.field, `.data.${long.slice(0, ERROR_LIMITS.textChars - 6)}...`);
    assert.ok(err.message.length < 4 * ERROR_LIMITS.textChars, `message of ${err.message.length}`);
  });
});
