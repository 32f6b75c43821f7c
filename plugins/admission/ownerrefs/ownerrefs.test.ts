import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { Authorizer } from "../../authorization/index.ts";
import type { AdmissionPlugin, JsonObject } from "../contract.ts";
import { AdmissionError } from "../errors.ts";
import { registration } from "./index.ts";

// The harness serves no RBAC kinds, so a fixed rule list stands in for RBAC: "verb resource[/sub]".
function rulesAuthorizer(rules: readonly string[]): Authorizer {
  return {
    name: "rules",
    authorize(a) {
      const what = `${a.verb} ${a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource}${a.subresource ? `/${a.subresource}` : ""}`;
      return rules.includes(what)
        ? { decision: "allow", reason: "" }
        : { decision: "noOpinion", reason: `no rule allows ${what}` };
    },
  };
}

const USER: UserInfo = { username: "u", uid: "", groups: [], extra: {} };

describe("OwnerReferencesPermissionEnforcement", () => {
  let t: AdmissionTest;
  before(async () => {
    t = await startAdmissionTest();
  });
  after(async () => t?.stop());

  const cm = (owners: JsonObject[]): JsonObject => ({
    metadata: { name: "c", namespace: "ns", ownerReferences: owners },
  });
  const owner = (block: boolean, uid = "u1"): JsonObject => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: "d",
    uid,
    blockOwnerDeletion: block,
  });

  const cases: [string, string[], "CREATE" | "UPDATE", JsonObject, JsonObject | undefined, RegExp | null][] =
    [
      ["no owner refs need nothing", [], "CREATE", cm([]), undefined, null],
      ["unchanged refs need nothing", [], "UPDATE", cm([owner(true)]), cm([owner(true)]), null],
      [
        "owner ref needs delete",
        [],
        "CREATE",
        cm([owner(false)]),
        undefined,
        /cannot set an ownerRef on a resource you can't delete: no rule allows delete configmaps/,
      ],
      [
        "delete suffices without blocking",
        ["delete configmaps"],
        "CREATE",
        cm([owner(false)]),
        undefined,
        null,
      ],
      [
        "blocking needs finalizers",
        ["delete configmaps"],
        "CREATE",
        cm([owner(true)]),
        undefined,
        /can't set finalizers on: no rule allows update deployments.apps\/finalizers/,
      ],
      [
        "blocking with finalizers",
        ["delete configmaps", "update deployments.apps/finalizers"],
        "CREATE",
        cm([owner(true)]),
        undefined,
        null,
      ],
      [
        "already blocking is not re-checked",
        ["delete configmaps"],
        "UPDATE",
        cm([owner(true), owner(false, "u2")]),
        cm([owner(true)]),
        null,
      ],
      [
        "newly blocking on update",
        ["delete configmaps"],
        "UPDATE",
        cm([owner(true)]),
        cm([owner(false)]),
        /can't set finalizers on/,
      ],
    ];
  for (const [name, rules, operation, object, oldObject, want] of cases)
    it(name, async () => {
      const plugin: AdmissionPlugin = await registration.factory(
        t.env({ authorizer: rulesAuthorizer(rules) }),
      );
      const a = t.attributes({
        operation,
        resource: "configmaps",
        namespace: "ns",
        name: "c",
        object,
        oldObject,
        user: USER,
      });
      const run = async () => plugin.validate?.(a);
      if (!want) return run();
      await assert.rejects(run(), (e: unknown) => {
        assert.ok(e instanceof AdmissionError);
        assert.equal(e.code, 403);
        assert.match(e.message, want);
        return true;
      });
    });

  it("refuses an owner kind nobody serves", async () => {
    const plugin = await registration.factory(t.env({ authorizer: rulesAuthorizer(["delete configmaps"]) }));
    const ref = { apiVersion: "example.com/v1", kind: "Nope", name: "x", uid: "u", blockOwnerDeletion: true };
    const a = t.attributes({
      operation: "CREATE",
      resource: "configmaps",
      namespace: "ns",
      object: cm([ref]),
      user: USER,
    });
    await assert.rejects(
      async () => plugin.validate?.(a),
      /cannot find RESTMapping for APIVersion example.com\/v1 Kind Nope/,
    );
  });
});
