import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { builtinKinds, builtinRbacKinds } from "../../../backends/builtin/index.ts";
import { MemoryStorage } from "../../../backends/memory/index.ts";
import { naming } from "../../../backends/naming/index.ts";
import { type ControlPlane, startControlPlane } from "../../../gateway/control-plane.ts";
import { objectAccess } from "../../../gateway/object-access.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { Attributes } from "../authorizer.ts";
import { type EscalationCheck, type EscalationRequest, escalationCheck } from "./escalation.ts";
import { RbacAuthorizer } from "./rbac-authorizer.ts";

const n = naming("kubernetes");
const RBAC = n.group("rbac.authorization");

const userOf = (username: string, groups: string[] = []): UserInfo => ({
  username,
  uid: "",
  groups: [...groups, "system:authenticated"],
  extra: {},
});

const podRule = (verbs: string[]) => ({ verbs, apiGroups: [""], resources: ["pods"] });

describe("escalation prevention", () => {
  const storage = new MemoryStorage();
  const stop = new AbortController();
  let plane: ControlPlane;
  let rbac: RbacAuthorizer;
  let check: EscalationCheck;
  const asked: Attributes[] = [];

  const create = async (resource: string, namespace: string | undefined, object: Record<string, unknown>) => {
    const served = plane.resources.byResource(RBAC, resource);
    assert.ok(served);
    await served.registry.create(namespace, object);
  };

  const roleWrite = (
    user: UserInfo,
    namespace: string,
    rules: unknown[],
    extra: Partial<EscalationRequest> = {},
  ) =>
    check({
      user,
      namespace,
      verb: "create",
      resource: namespace === "" ? "clusterroles" : "roles",
      apiVersion: "v1",
      object: { metadata: { name: "new-role", ...(namespace ? { namespace } : {}) }, rules },
      ...extra,
    });

  const bindingWrite = (user: UserInfo, namespace: string, kind: string, role: string) =>
    check({
      user,
      namespace,
      verb: "create",
      resource: namespace === "" ? "clusterrolebindings" : "rolebindings",
      apiVersion: "v1",
      object: {
        metadata: { name: "new-binding" },
        roleRef: { apiGroup: RBAC, kind, name: role },
        subjects: [{ kind: "User", name: "someone", apiGroup: RBAC }],
      },
    });

  before(async () => {
    plane = await startControlPlane({
      storage,
      naming: n,
      kinds: [...builtinKinds(n), ...builtinRbacKinds(n)],
      historyWindowMs: 60_000,
      maxHistory: 1000,
      watchListEnabled: false,
      onError: (err) => assert.fail(String(err)),
    });
    rbac = new RbacAuthorizer(
      objectAccess(plane.resources, stop.signal, (err) => assert.fail(String(err))),
      n,
    );
    check = escalationCheck({
      rbac,
      naming: n,
      authorize: (attributes) => {
        asked.push(attributes);
        if (attributes.user.username === "broken") throw new Error("authorizer down");
        return rbac.authorize(attributes);
      },
    });
    await create("clusterroles", undefined, {
      metadata: { name: "pod-reader" },
      rules: [podRule(["get", "list"])],
    });
    await create("clusterroles", undefined, {
      metadata: { name: "pod-admin" },
      rules: [podRule(["get", "list", "delete"])],
    });
    await create("clusterroles", undefined, {
      metadata: { name: "everything" },
      rules: [
        { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
        { verbs: ["*"], nonResourceURLs: ["*"] },
      ],
    });
    await create("clusterroles", undefined, {
      metadata: { name: "role-escalator" },
      rules: [{ verbs: ["escalate"], apiGroups: [RBAC], resources: ["roles"] }],
    });
    await create("clusterroles", undefined, {
      metadata: { name: "admin-binder" },
      rules: [
        { verbs: ["bind"], apiGroups: [RBAC], resources: ["clusterroles"], resourceNames: ["pod-admin"] },
      ],
    });
    const bind = (name: string, role: string, user: string) =>
      create("clusterrolebindings", undefined, {
        metadata: { name },
        roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: role },
        subjects: [{ kind: "User", name: user }],
      });
    await bind("bob-reads", "pod-reader", "bob");
    await bind("eve-escalates", "role-escalator", "eve");
    await bind("eve-reads", "pod-reader", "eve");
    await bind("bea-binds", "admin-binder", "bea");
    await bind("root-everything", "everything", "root");
    await create("rolebindings", "team", {
      metadata: { name: "tina-admin" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "pod-admin" },
      subjects: [{ kind: "User", name: "tina" }],
    });
    await rbac.synced;
    for (let i = 0; i < 500 && rbac.bindingCount < 6; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(rbac.bindingCount, 6);
  });
  after(async () => {
    rbac.close();
    stop.abort();
    await plane.stop();
    await storage.close();
  });

  it("lets a user grant rules they hold", async () => {
    assert.equal(await roleWrite(userOf("bob"), "team", [podRule(["get"])]), undefined);
    assert.equal(await roleWrite(userOf("bob"), "", [podRule(["list", "get"])]), undefined);
  });

  it("refuses granting more, with upstream's message", async () => {
    assert.deepEqual(
      await roleWrite(userOf("bob", ["devs"]), "team", [
        podRule(["get", "delete"]),
        { verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["s"] },
      ]),
      {
        reason: "Forbidden",
        message:
          'user "bob" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
          '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n' +
          '{APIGroups:[""], Resources:["secrets"], ResourceNames:["s"], Verbs:["get"]}',
      },
    );
    assert.equal(
      (await roleWrite(userOf("nobody"), "", [{ verbs: ["get"], nonResourceURLs: ["/metrics"] }]))?.reason,
      "Forbidden",
    );
  });

  it("counts rules bound in the namespace only there", async () => {
    const tina = userOf("tina");
    assert.equal(await roleWrite(tina, "team", [podRule(["delete"])]), undefined);
    const elsewhere = await roleWrite(tina, "other", [podRule(["delete"])]);
    assert.equal(elsewhere?.reason, "Forbidden");
    assert.equal(await bindingWrite(tina, "team", "ClusterRole", "pod-admin"), undefined);
    assert.equal((await bindingWrite(tina, "other", "ClusterRole", "pod-admin"))?.reason, "Forbidden");
  });

  it("lets a user with the escalate verb write any role of that resource", async () => {
    asked.length = 0;
    assert.equal(
      await roleWrite(userOf("eve"), "team", [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]),
      undefined,
    );
    assert.deepEqual(
      asked.map((a) => [a.verb, a.apiGroup, a.resource, a.namespace, a.name]),
      [["escalate", RBAC, "roles", "team", "new-role"]],
    );
    // Escalate on roles says nothing about clusterroles.
    assert.equal((await roleWrite(userOf("eve"), "", [podRule(["delete"])]))?.reason, "Forbidden");
  });

  it("lets a user bind a role they may bind, or whose rules they hold", async () => {
    asked.length = 0;
    assert.equal(await bindingWrite(userOf("bea"), "team", "ClusterRole", "pod-admin"), undefined);
    assert.deepEqual(
      asked.map((a) => [a.verb, a.apiGroup, a.resource, a.namespace, a.name]),
      [["bind", RBAC, "clusterroles", "team", "pod-admin"]],
    );
    assert.equal(await bindingWrite(userOf("bea"), "", "ClusterRole", "pod-admin"), undefined);
    const other = await bindingWrite(userOf("bea"), "team", "ClusterRole", "everything");
    assert.equal(other?.reason, "Forbidden");
    assert.match(
      other?.reason === "Forbidden" ? other.message : "",
      /^user "bea" .* is attempting to grant RBAC permissions not currently held:\n/,
    );
    // bob holds everything pod-reader grants, so he may bind it without the bind verb.
    assert.equal(await bindingWrite(userOf("bob"), "team", "ClusterRole", "pod-reader"), undefined);
    assert.equal(
      (await bindingWrite(userOf("bob"), "team", "ClusterRole", "pod-admin"))?.reason,
      "Forbidden",
    );
  });

  it("answers a binding to a missing role with that role's NotFound", async () => {
    assert.deepEqual(await bindingWrite(userOf("bob"), "team", "Role", "missing"), {
      reason: "NotFound",
      resource: "roles",
      name: "missing",
    });
    assert.deepEqual(await bindingWrite(userOf("bob"), "", "ClusterRole", "missing"), {
      reason: "NotFound",
      resource: "clusterroles",
      name: "missing",
    });
    // A reference validation refuses is left to validation.
    assert.equal(await bindingWrite(userOf("bob"), "team", "Robot", "x"), undefined);
  });

  it("lets system:masters grant anything", async () => {
    asked.length = 0;
    const master = userOf("admin", ["system:masters"]);
    assert.equal(await roleWrite(master, "", [{ verbs: ["*"], nonResourceURLs: ["*"] }]), undefined);
    assert.equal(await bindingWrite(master, "", "ClusterRole", "missing-too"), undefined);
    assert.equal(asked.length, 0);
  });

  it("needs every permission for an aggregationRule", async () => {
    const aggregated = { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: "y" } }] } };
    const request = (user: UserInfo): EscalationRequest => ({
      user,
      namespace: "",
      verb: "create",
      resource: "clusterroles",
      apiVersion: "v1",
      object: { metadata: { name: "agg" }, ...aggregated },
    });
    assert.deepEqual(await check(request(userOf("bob"))), {
      reason: "Forbidden",
      message: "must have cluster-admin privileges to use the aggregationRule",
    });
    assert.equal(await check(request(userOf("root"))), undefined);
    // Dropping the aggregationRule of an aggregated role needs it too.
    const dropping: EscalationRequest = {
      ...request(userOf("bob")),
      verb: "update",
      object: { metadata: { name: "agg" }, rules: [] },
      old: { metadata: { name: "agg" }, ...aggregated, rules: [] },
    };
    assert.equal((await check(dropping))?.reason, "Forbidden");
  });

  it("lets updates that touch only garbage-collection fields through", async () => {
    const old = {
      metadata: { name: "big", resourceVersion: "5" },
      rules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
    };
    const request: EscalationRequest = {
      user: userOf("nobody"),
      namespace: "",
      verb: "update",
      resource: "clusterroles",
      apiVersion: "v1",
      object: { ...old, metadata: { ...old.metadata, finalizers: ["example.com/f"], ownerReferences: [] } },
      old,
    };
    assert.equal(await check(request), undefined);
    assert.equal(
      (await check({ ...request, object: { ...old, metadata: { ...old.metadata, labels: { a: "b" } } } }))
        ?.reason,
      "Forbidden",
    );
  });

  it("treats a failing authorizer as no permission and leaves other resources alone", async () => {
    assert.equal((await roleWrite(userOf("broken"), "team", [podRule(["get"])]))?.reason, "Forbidden");
    assert.equal(
      await check({
        user: userOf("nobody"),
        namespace: "team",
        verb: "create",
        resource: "configmaps",
        apiVersion: "v1",
        object: { metadata: { name: "c" } },
      }),
      undefined,
    );
  });
});
