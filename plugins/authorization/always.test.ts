import assert from "node:assert/strict";
import { it } from "node:test";
import type { UserInfo } from "../../gateway/pipeline/index.ts";
import { alwaysAllow, alwaysDeny, privilegedGroups } from "./always.ts";
import type { Attributes } from "./authorizer.ts";

const as = (groups: string[]): Attributes => ({
  user: { username: "u", uid: "", groups, extra: {} } satisfies UserInfo,
  verb: "delete",
  isResourceRequest: true,
  path: "/api/v1/nodes/n1",
  namespace: "",
  apiGroup: "",
  apiVersion: "v1",
  resource: "nodes",
  subresource: "",
  name: "n1",
});

it("AlwaysAllow allows everything and lists a rule for everything", async () => {
  const a = alwaysAllow();
  assert.deepEqual(await a.authorize(as([])), { decision: "allow", reason: "" });
  const rules = await a.rulesFor?.(as([]).user, "default");
  assert.deepEqual(rules, {
    resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
    nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
    incomplete: false,
  });
});

it("AlwaysDeny has no opinion (a later mode may allow) and says everything is forbidden", async () => {
  const d = alwaysDeny();
  assert.deepEqual(await d.authorize(as(["system:masters"])), {
    decision: "noOpinion",
    reason: "Everything is forbidden.",
  });
  assert.deepEqual(await d.rulesFor?.(as([]).user, ""), {
    resourceRules: [],
    nonResourceRules: [],
    incomplete: false,
  });
});

it("the privileged-group authorizer allows system:masters only", async () => {
  const p = privilegedGroups();
  assert.deepEqual(await p.authorize(as(["devs", "system:masters"])), { decision: "allow", reason: "" });
  assert.deepEqual(await p.authorize(as(["devs", "system:authenticated"])), {
    decision: "noOpinion",
    reason: "",
  });
  assert.deepEqual(await p.authorize(as(["system:master"])), { decision: "noOpinion", reason: "" });
  const custom = privilegedGroups(["admins"]);
  assert.equal((await custom.authorize(as(["admins"]))).decision, "allow");
  assert.equal((await custom.authorize(as(["system:masters"]))).decision, "noOpinion");
  // No user at all (bad input from a caller) is no opinion, never an exception.
  const noUser = { ...as([]), user: undefined } as unknown as Attributes;
  assert.equal((await p.authorize(noUser)).decision, "noOpinion");
});
