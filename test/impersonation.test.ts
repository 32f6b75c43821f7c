// Impersonation over real HTTPS (`kubectl --as`, `--as-group`, `--as-uid`, extras): every value
// is authorized with the `impersonate` verb and resourceNames limits; the request then runs as
// the impersonated user, and audit records both.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { naming } from "../backends/naming/index.ts";
import { type AccessTestGateway, startAccessGateway } from "../gateway/authorization/testing.ts";
import type { UserInfo } from "../gateway/pipeline/index.ts";
import {
  type Attributes,
  type Authorizer,
  privilegedGroups,
  unionAuthorizer,
} from "../plugins/authorization/index.ts";

interface Rule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  /** `resource` or `resource/subresource`. */
  readonly resources: readonly string[];
  readonly resourceNames?: readonly string[];
  /** Absent: any namespace (a cluster role binding); present: only there. */
  readonly namespace?: string;
}

/** RBAC's matching in small: rules bound to users (`user:x`) and groups (`group:x`). */
function rulesAuthorizer(
  bindings: Readonly<Record<string, readonly Rule[]>>,
  seen: Attributes[],
): Authorizer {
  const matches = (r: Rule, a: Attributes) => {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return (
      r.verbs.includes(a.verb) &&
      r.apiGroups.includes(a.apiGroup) &&
      r.resources.includes(resource) &&
      (r.resourceNames === undefined || r.resourceNames.includes(a.name)) &&
      (r.namespace === undefined || r.namespace === a.namespace)
    );
  };
  return {
    name: "rules",
    authorize(a) {
      seen.push(a);
      const subjects = [`user:${a.user.username}`, ...a.user.groups.map((g) => `group:${g}`)];
      for (const s of subjects) {
        if ((bindings[s] ?? []).some((r) => matches(r, a))) return { decision: "allow", reason: "" };
      }
      return { decision: "noOpinion", reason: "" };
    },
  };
}

describe("impersonation", () => {
  let gw: AccessTestGateway;
  const seen: Attributes[] = [];
  const auth = naming("cluster").group("authentication");
  const CM = "/api/v1/namespaces/default/configmaps";

  before(async () => {
    const impersonate = (
      resources: string[],
      resourceNames: string[],
      apiGroups = [""],
      namespace?: string,
    ) => ({
      verbs: ["impersonate"],
      apiGroups,
      resources,
      resourceNames,
      ...(namespace ? { namespace } : {}),
    });
    const readConfigMaps = {
      verbs: ["list"],
      apiGroups: [""],
      resources: ["configmaps"],
      namespace: "default",
    };
    const rules = rulesAuthorizer(
      {
        "user:alice": [
          impersonate(["users"], ["bob", "system:anonymous"]),
          impersonate(["groups"], ["qa", "testers"]),
          impersonate(["serviceaccounts"], ["robot"], [""], "default"),
          impersonate(["uids"], ["u-1"], [auth]),
          impersonate(["userextras/scopes"], ["view"], [auth]),
        ],
        // What the impersonated identities may do.
        "user:bob": [readConfigMaps],
        "group:qa": [{ ...readConfigMaps, verbs: ["list", "create"] }],
        "group:system:serviceaccounts:default": [
          { verbs: ["list"], apiGroups: [""], resources: ["secrets"] },
        ],
        "group:system:unauthenticated": [readConfigMaps],
      },
      seen,
    );
    gw = await startAccessGateway({ authorizer: unionAuthorizer([privilegedGroups(), rules]) });
  });
  after(() => gw?.stop());

  /** The user the last resource request ran as, by what the authorizer was asked. */
  const effectiveUser = (): UserInfo | undefined => seen.filter((a) => a.verb !== "impersonate").at(-1)?.user;

  const auditOf = async (id: unknown) => {
    for (let i = 0; i < 100; i++) {
      const found = gw.audit.find((e) => e.auditID === id);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.fail(`no audit event ${String(id)}`);
  };

  it("acts as the user, adding system:authenticated; audit records caller and impersonated user", async () => {
    const alice = await gw.client("alice", ["devs"]);
    const res = await alice.call("GET", CM, { headers: { "impersonate-user": "bob" } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(effectiveUser(), {
      username: "bob",
      uid: "",
      groups: ["system:authenticated"],
      extra: {},
    });
    assert.ok(
      seen.some(
        (a) =>
          a.verb === "impersonate" &&
          a.resource === "users" &&
          a.name === "bob" &&
          a.apiGroup === "" &&
          a.namespace === "" &&
          a.isResourceRequest &&
          a.user.username === "alice",
      ),
    );
    const event = await auditOf(res.headers["audit-id"]);
    assert.deepEqual(event.user, { username: "alice", groups: ["devs", "system:authenticated"] });
    assert.deepEqual(event.impersonatedUser, { username: "bob", groups: ["system:authenticated"] });

    const plain = await alice.call("GET", CM);
    assert.equal(plain.status, 403, "alice herself may not list configmaps");
    assert.equal((await auditOf(plain.headers["audit-id"])).impersonatedUser, undefined);
  });

  it("the impersonated user is then authorized as itself", async () => {
    const alice = await gw.client("alice");
    const res = await alice.call("GET", "/api/v1/namespaces/default/secrets", {
      headers: { "impersonate-user": "bob" },
    });
    assert.equal(res.status, 403);
    assert.equal(
      res.body.message,
      'secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
  });

  it("refuses a user outside resourceNames with upstream's message", async () => {
    const alice = await gw.client("alice");
    const res = await alice.call("GET", CM, { headers: { "impersonate-user": "carol" } });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
      reason: "Forbidden",
      details: { name: "carol", kind: "users" },
      code: 403,
    });
    const bob = await gw.client("bob");
    const self = await bob.call("GET", CM, { headers: { "impersonate-user": "bob" } });
    assert.equal(self.status, 403, "impersonating needs the verb even for oneself");
    assert.match(self.body.message, /^users "bob" is forbidden: User "bob" cannot impersonate/);
    const anonymous = await gw.anonymous().call("GET", CM, { headers: { "impersonate-user": "bob" } });
    assert.equal(anonymous.status, 403);
    assert.match(anonymous.body.message, /User "system:anonymous" cannot impersonate resource "users"/);
  });

  it("groups: each repeated header is one group, each checked; given groups replace the defaults", async () => {
    const alice = await gw.client("alice");
    const ok = await alice.call("POST", CM, {
      headers: { "impersonate-user": "bob", "impersonate-group": ["qa", "testers"] },
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "by-qa" } },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(effectiveUser()?.groups, ["qa", "testers", "system:authenticated"]);
    const explicit = await alice.call("GET", CM, {
      headers: { "impersonate-user": "bob", "impersonate-group": "qa" },
    });
    assert.equal(explicit.status, 200);
    const denied = await alice.call("GET", CM, {
      headers: { "impersonate-user": "bob", "impersonate-group": ["qa", "admins"] },
    });
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      'groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
  });

  it("uid: checked as `uids` in the authentication group", async () => {
    const alice = await gw.client("alice");
    const ok = await alice.call("GET", CM, {
      headers: { "impersonate-user": "bob", "impersonate-uid": "u-1" },
    });
    assert.equal(ok.status, 200);
    assert.equal(effectiveUser()?.uid, "u-1");
    const denied = await alice.call("GET", CM, {
      headers: { "impersonate-user": "bob", "impersonate-uid": "u-2" },
    });
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      `uids.${auth} "u-2" is forbidden: User "alice" cannot impersonate resource "uids" in API group "${auth}" at the cluster scope`,
    );
    assert.deepEqual(denied.body.details, { name: "u-2", group: auth, kind: "uids" });
  });

  it("extras: `userextras/<key>` per value, the key lowercased and percent-decoded", async () => {
    const alice = await gw.client("alice");
    const ok = await alice.call("GET", CM, {
      headers: { "impersonate-user": "bob", "Impersonate-Extra-Scopes": "view" },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(effectiveUser()?.extra, { scopes: ["view"] });
    const event = await auditOf(ok.headers["audit-id"]);
    assert.deepEqual(event.impersonatedUser, {
      username: "bob",
      groups: ["system:authenticated"],
      extra: { scopes: ["view"] },
    });
    const value = await alice.call("GET", CM, {
      headers: { "impersonate-user": "bob", "impersonate-extra-scopes": ["view", "edit"] },
    });
    assert.equal(value.status, 403);
    assert.equal(
      value.body.message,
      `userextras.${auth} "edit" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "${auth}" at the cluster scope`,
    );
    const encoded = await alice.call("GET", CM, {
      headers: { "impersonate-user": "bob", "impersonate-extra-Example.com%2Fteam": "a" },
    });
    assert.equal(encoded.status, 403);
    assert.match(encoded.body.message, /cannot impersonate resource "userextras\/example.com\/team"/);
    // A malformed escape is not refused by itself: the key is checked as sent.
    const malformed = await alice.call("GET", CM, {
      headers: { "impersonate-user": "bob", "impersonate-extra-a%zz": "v" },
    });
    assert.equal(malformed.status, 403);
    assert.match(malformed.body.message, /cannot impersonate resource "userextras\/a%zz"/);
  });

  it("service accounts: checked as `serviceaccounts` in their namespace, with their groups", async () => {
    const alice = await gw.client("alice");
    const sa = "system:serviceaccount:default:robot";
    const ok = await alice.call("GET", "/api/v1/namespaces/default/secrets", {
      headers: { "impersonate-user": sa },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(effectiveUser(), {
      username: sa,
      uid: "",
      groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
      extra: {},
    });
    const withGroups = await alice.call("GET", CM, {
      headers: { "impersonate-user": sa, "impersonate-group": "qa" },
    });
    assert.equal(withGroups.status, 200);
    assert.deepEqual(
      effectiveUser()?.groups,
      ["qa", "system:authenticated"],
      "given groups are the whole list",
    );
    const other = await alice.call("GET", CM, {
      headers: { "impersonate-user": "system:serviceaccount:default:other" },
    });
    assert.equal(other.status, 403);
    assert.equal(
      other.body.message,
      'serviceaccounts "other" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "default"',
    );
    const elsewhere = await alice.call("GET", CM, {
      headers: { "impersonate-user": "system:serviceaccount:kube-x:robot" },
    });
    assert.equal(elsewhere.status, 403);
    assert.match(elsewhere.body.message, /in the namespace "kube-x"$/);
  });

  it("system:anonymous gets system:unauthenticated instead of system:authenticated", async () => {
    const alice = await gw.client("alice");
    const res = await alice.call("GET", CM, { headers: { "impersonate-user": "system:anonymous" } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(effectiveUser()?.groups, ["system:unauthenticated"]);
  });

  it("groups, uid or extras without Impersonate-User are a 400", async () => {
    const alice = await gw.client("alice");
    const cases: Record<string, string>[] = [
      { "impersonate-group": "qa" },
      { "impersonate-uid": "u-1" },
      { "impersonate-extra-scopes": "view" },
      { "impersonate-user": "", "impersonate-group": "qa" },
    ];
    for (const headers of cases) {
      const res = await alice.call("GET", CM, { headers });
      assert.equal(res.status, 400, JSON.stringify(headers));
      assert.equal(res.body.kind, "Status");
      assert.equal(res.body.reason, "BadRequest");
      assert.match(res.body.message, /without impersonating a user$/);
    }
  });

  it("system:masters may impersonate anyone", async () => {
    const admin = await gw.client("admin", ["system:masters"]);
    const res = await admin.call("GET", CM, {
      headers: { "impersonate-user": "dave", "impersonate-group": "ops", "impersonate-uid": "x" },
    });
    assert.equal(res.status, 403, "dave himself may not list");
    assert.equal(
      res.body.message,
      'configmaps is forbidden: User "dave" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    assert.deepEqual(effectiveUser(), {
      username: "dave",
      uid: "x",
      groups: ["ops", "system:authenticated"],
      extra: {},
    });
  });

  it("an authorizer that fails while checking impersonation refuses, never 500", async () => {
    const failing = await startAccessGateway({
      authorizer: {
        name: "failing",
        authorize(a) {
          if (a.verb === "impersonate") throw new Error("store offline");
          return { decision: "allow", reason: "" };
        },
      },
    });
    try {
      const alice = await failing.client("alice");
      const res = await alice.call("GET", CM, { headers: { "impersonate-user": "bob" } });
      assert.equal(res.status, 403);
      assert.doesNotMatch(res.text, /offline/);
      assert.equal((await alice.call("GET", CM)).status, 200);
    } finally {
      await failing.stop();
    }
  });
});
