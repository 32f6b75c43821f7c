import assert from "node:assert/strict";
import { it } from "node:test";
import type { UserInfo } from "../../gateway/pipeline/index.ts";
import type { Attributes, AuthorizationResult, Authorizer } from "./authorizer.ts";
import { unionAuthorizer } from "./union.ts";

const user: UserInfo = { username: "alice", uid: "", groups: ["system:authenticated"], extra: {} };
const attributes: Attributes = {
  user,
  verb: "get",
  isResourceRequest: true,
  path: "/api/v1/namespaces/default/pods/x",
  namespace: "default",
  apiGroup: "",
  apiVersion: "v1",
  resource: "pods",
  subresource: "",
  name: "x",
};

/** An authorizer that always answers `result` and counts how often it was asked. */
function fixed(name: string, result: AuthorizationResult): Authorizer & { asked: number } {
  const a = {
    name,
    asked: 0,
    authorize() {
      a.asked++;
      return result;
    },
  };
  return a;
}

it("the first allow or deny decides; later authorizers are not asked", async () => {
  const none = fixed("none", { decision: "noOpinion", reason: "not mine" });
  const allow = fixed("allow", { decision: "allow", reason: "granted by x" });
  const deny = fixed("deny", { decision: "deny", reason: "blocked" });
  assert.deepEqual(await unionAuthorizer([none, allow, deny]).authorize(attributes), {
    decision: "allow",
    reason: "granted by x",
  });
  assert.equal(deny.asked, 0);
  assert.deepEqual(await unionAuthorizer([none, deny, allow]).authorize(attributes), {
    decision: "deny",
    reason: "blocked",
  });
  assert.equal(allow.asked, 1, "allow was asked only in the first union");
  assert.equal(none.asked, 2);
});

it("all without opinion: no opinion, with the non-empty reasons joined by newlines", async () => {
  const result = await unionAuthorizer([
    fixed("a", { decision: "noOpinion", reason: "first" }),
    fixed("b", { decision: "noOpinion", reason: "" }),
    { name: "c", authorize: async () => ({ decision: "noOpinion", reason: "third" }) },
  ]).authorize(attributes);
  assert.deepEqual(result, { decision: "noOpinion", reason: "first\nthird" });
  assert.deepEqual(await unionAuthorizer([]).authorize(attributes), { decision: "noOpinion", reason: "" });
});

it("an authorizer that throws or rejects counts as no opinion, is reported, and the next is asked", async () => {
  const reported: string[] = [];
  const union = unionAuthorizer(
    [
      {
        name: "broken",
        authorize() {
          throw new Error("lookup failed");
        },
      },
      { name: "rejecting", authorize: () => Promise.reject(new Error("timed out")) },
      fixed("allow", { decision: "allow", reason: "" }),
    ],
    { onError: (err, name) => reported.push(`${name}: ${(err as Error).message}`) },
  );
  assert.deepEqual(await union.authorize(attributes), { decision: "allow", reason: "" });
  assert.deepEqual(reported, ["broken: lookup failed", "rejecting: timed out"]);

  const failing = unionAuthorizer([
    {
      name: "broken",
      authorize() {
        throw new Error("lookup failed");
      },
    },
  ]);
  const result = await failing.authorize(attributes);
  assert.equal(result.decision, "noOpinion", "an error never allows");
  assert.equal(result.reason, "broken authorizer error: lookup failed");
});

it("keeps its members in order for rule listing", () => {
  const a = fixed("a", { decision: "noOpinion", reason: "" });
  const b = fixed("b", { decision: "noOpinion", reason: "" });
  assert.deepEqual(
    unionAuthorizer([a, b]).authorizers.map((x) => x.name),
    ["a", "b"],
  );
});
