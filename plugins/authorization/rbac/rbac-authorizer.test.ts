import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { builtinKinds, builtinRbacKinds } from "../../../backends/builtin/index.ts";
import { MemoryStorage } from "../../../backends/memory/index.ts";
import { naming } from "../../../backends/naming/index.ts";
import type { Registry } from "../../../backends/registry/index.ts";
import { type ControlPlane, startControlPlane } from "../../../gateway/control-plane.ts";
import { objectAccess } from "../../../gateway/object-access.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { Attributes } from "../authorizer.ts";
import { RbacAuthorizer } from "./rbac-authorizer.ts";

const n = naming("cluster");
const RBAC = n.group("rbac.authorization");

function userOf(username: string, groups: string[] = []): UserInfo {
  return { username, uid: "", groups: [...groups, "system:authenticated"], extra: {} };
}

function ask(user: UserInfo, verb: string, resource: string, options: Partial<Attributes> = {}): Attributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: "",
    namespace: "",
    apiGroup: "",
    apiVersion: "v1",
    resource,
    subresource: "",
    name: "",
    ...options,
  };
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe("RBAC authorizer", () => {
  const storage = new MemoryStorage();
  const stop = new AbortController();
  let plane: ControlPlane;
  let rbac: RbacAuthorizer;
  const registry = (resource: string): Registry => {
    const served = plane.resources.byResource(RBAC, resource);
    assert.ok(served);
    return served.registry;
  };
  const clusterRole = (name: string, rules: unknown[]) =>
    registry("clusterroles").create(undefined, { metadata: { name }, rules });
  const clusterBinding = (name: string, role: string, subjects: unknown[]) =>
    registry("clusterrolebindings").create(undefined, {
      metadata: { name },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: role },
      subjects,
    });
  const binding = (namespace: string, name: string, kind: string, role: string, subjects: unknown[]) =>
    registry("rolebindings").create(namespace, {
      metadata: { name },
      roleRef: { apiGroup: RBAC, kind, name: role },
      subjects,
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
    await rbac.synced;
  });
  after(async () => {
    rbac.close();
    stop.abort();
    await plane.stop();
    await storage.close();
  });

  it("needs the RBAC kinds to be served", async () => {
    const bare = await startControlPlane({
      storage: new MemoryStorage(),
      naming: n,
      kinds: builtinKinds(n),
      historyWindowMs: 60_000,
      maxHistory: 10,
      watchListEnabled: false,
      onError: () => {},
    });
    const s = new AbortController();
    try {
      assert.throws(
        () =>
          new RbacAuthorizer(
            objectAccess(bare.resources, s.signal, () => {}),
            n,
          ),
        /RBAC needs/,
      );
    } finally {
      s.abort();
      await bare.stop();
    }
  });

  it("allows what a ClusterRoleBinding grants a user, with upstream's reason, and has no opinion otherwise", async () => {
    await clusterRole("pod-reader", [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }]);
    await clusterBinding("alice-reads", "pod-reader", [{ kind: "User", name: "alice" }]);
    const alice = userOf("alice");
    await until("alice's binding", () => rbac.authorize(ask(alice, "get", "pods")).decision === "allow");
    assert.deepEqual(rbac.authorize(ask(alice, "list", "pods", { namespace: "any" })), {
      decision: "allow",
      reason: 'RBAC: allowed by ClusterRoleBinding "alice-reads" of ClusterRole "pod-reader" to User "alice"',
    });
    assert.deepEqual(rbac.authorize(ask(alice, "delete", "pods", { namespace: "any" })), {
      decision: "noOpinion",
      reason: "",
    });
    assert.equal(rbac.authorize(ask(userOf("bob"), "get", "pods")).decision, "noOpinion");
    assert.equal(rbac.authorize(ask(alice, "get", "pods", { apiGroup: "apps" })).decision, "noOpinion");
  });

  it("follows group membership and non-resource URLs", async () => {
    await clusterRole("health", [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/healthz/*"] }]);
    await clusterBinding("anyone-health", "health", [{ kind: "Group", name: "system:unauthenticated" }]);
    const anonymous: UserInfo = {
      username: "system:anonymous",
      uid: "",
      groups: ["system:unauthenticated"],
      extra: {},
    };
    const health = (user: UserInfo, path: string): Attributes => ({
      ...ask(user, "get", ""),
      isResourceRequest: false,
      path,
    });
    await until("group binding", () => rbac.authorize(health(anonymous, "/healthz")).decision === "allow");
    assert.equal(
      rbac.authorize(health(anonymous, "/healthz/ping")).reason,
      'RBAC: allowed by ClusterRoleBinding "anyone-health" of ClusterRole "health" to Group "system:unauthenticated"',
    );
    assert.equal(rbac.authorize(health(anonymous, "/metrics")).decision, "noOpinion");
    assert.equal(rbac.authorize(health(userOf("carol"), "/healthz")).decision, "noOpinion");
  });

  it("grants through a RoleBinding only in its namespace, to service accounts named with or without a namespace", async () => {
    await registry("roles").create("team", {
      metadata: { name: "cm-editor" },
      rules: [{ verbs: ["*"], apiGroups: [""], resources: ["configmaps"] }],
    });
    await binding("team", "sa-edits", "Role", "cm-editor", [{ kind: "ServiceAccount", name: "builder" }]);
    await binding("team", "other-sa-edits", "Role", "cm-editor", [
      { kind: "ServiceAccount", name: "deployer", namespace: "ci" },
    ]);
    const builder = userOf("system:serviceaccount:team:builder", ["system:serviceaccounts"]);
    const deployer = userOf("system:serviceaccount:ci:deployer");
    await until(
      "role bindings",
      () => rbac.authorize(ask(deployer, "create", "configmaps", { namespace: "team" })).decision === "allow",
    );
    assert.deepEqual(rbac.authorize(ask(builder, "update", "configmaps", { namespace: "team", name: "x" })), {
      decision: "allow",
      reason:
        'RBAC: allowed by RoleBinding "sa-edits/team" of Role "cm-editor" to ServiceAccount "builder/team"',
    });
    assert.equal(
      rbac.authorize(ask(deployer, "create", "configmaps", { namespace: "team" })).reason,
      'RBAC: allowed by RoleBinding "other-sa-edits/team" of Role "cm-editor" to ServiceAccount "deployer/ci"',
    );
    // Not in another namespace, not cluster-wide, not for an account of the same name elsewhere.
    assert.equal(
      rbac.authorize(ask(builder, "get", "configmaps", { namespace: "other" })).decision,
      "noOpinion",
    );
    assert.equal(rbac.authorize(ask(builder, "list", "configmaps")).decision, "noOpinion");
    assert.equal(
      rbac.authorize(
        ask(userOf("system:serviceaccount:other:builder"), "get", "configmaps", { namespace: "team" }),
      ).decision,
      "noOpinion",
    );
  });

  it("lets a RoleBinding grant a ClusterRole's rules in its namespace only", async () => {
    await clusterRole("secret-reader", [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }]);
    await binding("dev", "dave-secrets", "ClusterRole", "secret-reader", [{ kind: "User", name: "dave" }]);
    const dave = userOf("dave");
    await until(
      "dave",
      () => rbac.authorize(ask(dave, "get", "secrets", { namespace: "dev" })).decision === "allow",
    );
    assert.equal(rbac.authorize(ask(dave, "get", "secrets", { namespace: "prod" })).decision, "noOpinion");
    assert.equal(rbac.authorize(ask(dave, "get", "secrets")).decision, "noOpinion");
  });

  it("skips bindings to missing roles and says so", async () => {
    await clusterBinding("erin-ghost", "ghost", [{ kind: "User", name: "erin" }]);
    await binding("dev", "erin-ghost-role", "Role", "ghost-role", [{ kind: "User", name: "erin" }]);
    const erin = userOf("erin");
    await until("erin", () =>
      rbac.authorize(ask(erin, "get", "pods", { namespace: "dev" })).reason.includes("ghost-role"),
    );
    assert.deepEqual(rbac.authorize(ask(erin, "get", "pods", { namespace: "dev" })), {
      decision: "noOpinion",
      reason: `RBAC: [clusterrole.${RBAC} "ghost" not found, role.${RBAC} "ghost-role" not found]`,
    });
    assert.equal(
      rbac.authorize(ask(erin, "get", "pods")).reason,
      `RBAC: clusterrole.${RBAC} "ghost" not found`,
    );
    const rules = rbac.rulesFor(erin, "dev");
    assert.deepEqual(rules.resourceRules, []);
    assert.equal(rules.incomplete, false);
    assert.equal(
      rules.evaluationError,
      `[clusterrole.${RBAC} "ghost" not found, role.${RBAC} "ghost-role" not found]`,
    );
    // Once the role exists, the binding counts.
    await clusterRole("ghost", [{ verbs: ["watch"], apiGroups: [""], resources: ["pods"] }]);
    await until("ghost role", () => rbac.authorize(ask(erin, "watch", "pods")).decision === "allow");
  });

  it("follows changes of bindings and roles", async () => {
    await clusterRole("lister", [{ verbs: ["list"], apiGroups: [""], resources: ["namespaces"] }]);
    await clusterBinding("listers", "lister", [{ kind: "User", name: "frank" }]);
    const frank = userOf("frank");
    const grace = userOf("grace");
    await until("frank", () => rbac.authorize(ask(frank, "list", "namespaces")).decision === "allow");
    await registry("clusterrolebindings").update(undefined, "listers", (current) => ({
      ...current!,
      subjects: [{ kind: "User", name: "grace" }],
    }));
    await until("grace", () => rbac.authorize(ask(grace, "list", "namespaces")).decision === "allow");
    assert.equal(rbac.authorize(ask(frank, "list", "namespaces")).decision, "noOpinion");
    await registry("clusterroles").update(undefined, "lister", (current) => ({
      ...current!,
      rules: [{ verbs: ["get"], apiGroups: [""], resources: ["namespaces"] }],
    }));
    await until(
      "role change",
      () => rbac.authorize(ask(grace, "list", "namespaces")).decision === "noOpinion",
    );
    assert.equal(rbac.authorize(ask(grace, "get", "namespaces", { name: "x" })).decision, "allow");
    await registry("clusterrolebindings").delete(undefined, "listers");
    await until(
      "deletion",
      () => rbac.authorize(ask(grace, "get", "namespaces", { name: "x" })).decision === "noOpinion",
    );
  });

  it("lists a user's rules for a namespace", async () => {
    await clusterRole("hank-cluster", [
      { verbs: ["get"], apiGroups: [""], resources: ["nodes"], resourceNames: ["n1"] },
      { verbs: ["get"], nonResourceURLs: ["/version"] },
    ]);
    await clusterBinding("hank-cluster", "hank-cluster", [{ kind: "Group", name: "hankers" }]);
    await registry("roles").create("hq", {
      metadata: { name: "hank-local" },
      rules: [{ verbs: ["create"], apiGroups: ["apps"], resources: ["deployments"] }],
    });
    await binding("hq", "hank-local", "Role", "hank-local", [{ kind: "User", name: "hank" }]);
    const hank = userOf("hank", ["hankers"]);
    await until("hank", () => rbac.rulesFor(hank, "hq").resourceRules.length === 2);
    assert.deepEqual(rbac.rulesFor(hank, "hq"), {
      resourceRules: [
        { verbs: ["get"], apiGroups: [""], resources: ["nodes"], resourceNames: ["n1"] },
        { verbs: ["create"], apiGroups: ["apps"], resources: ["deployments"] },
      ],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/version"] }],
      incomplete: false,
    });
    assert.equal(rbac.rulesFor(hank, "").resourceRules.length, 1);
    assert.equal(rbac.rulesFor(hank, "elsewhere").resourceRules.length, 1);
  });

  it("never throws on odd input", () => {
    const odd = { username: "", uid: "", groups: [], extra: {} };
    assert.equal(rbac.authorize(ask(odd, "", "")).decision, "noOpinion");
    assert.equal(
      rbac.authorize({ ...ask(odd, "get", ""), isResourceRequest: false, path: "" }).decision,
      "noOpinion",
    );
  });
});
