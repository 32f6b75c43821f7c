import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { managerFromUserAgent, managerName, validateFieldManager } from "./manager-name.ts";

describe("manager names", () => {
  it("come from the parameter, else from the User-Agent up to its first slash", () => {
    assert.equal(managerName("mine", "kubectl/v1.27.3"), "mine");
    assert.equal(managerName(undefined, "kubectl/v1.27.3 (linux/amd64) kubernetes/abc"), "kubectl");
    assert.equal(managerName("", "kubectl-edit/v1.33"), "kubectl-edit");
    assert.equal(managerName(undefined, undefined), "");
    assert.equal(managerFromUserAgent("a\u0007b\tc/x"), "abc");
    assert.equal(managerFromUserAgent("x".repeat(300)).length, 128);
    assert.equal(
      managerFromUserAgent(`${"x".repeat(127)}é`),
      "x".repeat(127),
      "a character that would pass 128 bytes stops",
    );
  });

  it("are checked for length and printable characters", () => {
    assert.deepEqual(validateFieldManager("kubectl"), []);
    assert.deepEqual(validateFieldManager("with space"), []);
    assert.deepEqual(
      validateFieldManager("x".repeat(129)).map((e) => e.type),
      ["FieldValueTooLong"],
    );
    const bad = validateFieldManager("ab\u0001");
    assert.equal(bad.length, 1);
    assert.equal(bad[0]?.detail, "invalid character U+0001 (at position 2)");
  });
});
