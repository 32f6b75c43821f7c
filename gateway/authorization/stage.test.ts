// The authorization stage over real HTTPS: what the authorizer is asked, the 403 bodies clients
// print, and the audit record of the decision.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Attributes, Authorizer } from "../../plugins/authorization/index.ts";
import { type AccessTestGateway, startAccessGateway } from "./testing.ts";

const asked: Attributes[] = [];
// alice may list and create configmaps in "default"; "blocked" is denied outright with a reason;
// "broken" makes the authorizer throw.
const authorizer: Authorizer = {
  name: "test",
  authorize(a) {
    asked.push(a);
    if (a.user.username === "broken") throw new Error("backend unreachable");
    if (a.user.username === "blocked") return { decision: "deny", reason: "account suspended" };
    if (
      a.user.username === "alice" &&
      a.isResourceRequest &&
      a.resource === "configmaps" &&
      a.namespace === "default" &&
      (a.verb === "list" || a.verb === "create")
    )
      return { decision: "allow", reason: "alice edits configmaps" };
    return { decision: "noOpinion", reason: "" };
  },
};

describe("authorization stage", () => {
  let gw: AccessTestGateway;
  before(async () => {
    gw = await startAccessGateway({ authorizer });
  });
  after(() => gw?.stop());

  it("asks with the request's attributes and lets allowed requests through", async () => {
    const alice = await gw.client("alice", ["devs"]);
    asked.length = 0;
    const created = await alice.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } },
    });
    assert.equal(created.status, 201, created.text);
    const list = await alice.call("GET", "/api/v1/namespaces/default/configmaps?limit=5");
    assert.equal(list.status, 200);
    assert.equal(list.body.items.length, 1);
    assert.deepEqual(asked[0], {
      user: { username: "alice", uid: "", groups: ["devs", "system:authenticated"], extra: {} },
      verb: "create",
      isResourceRequest: true,
      path: "/api/v1/namespaces/default/configmaps",
      namespace: "default",
      apiGroup: "",
      apiVersion: "v1",
      resource: "configmaps",
      subresource: "",
      name: "",
    });
    assert.equal(asked[1]?.verb, "list");
  });

  it("denials are 403 Status bodies in upstream's words", async () => {
    const alice = await gw.client("alice");
    const cases: [string, string, string, Record<string, string>][] = [
      [
        "GET",
        "/api/v1/namespaces/default/configmaps/a",
        'configmaps "a" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "default"',
        { name: "a", kind: "configmaps" },
      ],
      [
        "GET",
        "/api/v1/namespaces/other/configmaps?watch=1",
        'configmaps is forbidden: User "alice" cannot watch resource "configmaps" in API group "" in the namespace "other"',
        { kind: "configmaps" },
      ],
      [
        "GET",
        "/api/v1/namespaces",
        'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope',
        { kind: "namespaces" },
      ],
      [
        "DELETE",
        "/apis/apps/v1/namespaces/default/deployments",
        'deployments.apps is forbidden: User "alice" cannot deletecollection resource "deployments" in API group "apps" in the namespace "default"',
        { group: "apps", kind: "deployments" },
      ],
      [
        "POST",
        "/api/v1/namespaces/default/pods/x/exec",
        'pods "x" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "default"',
        { name: "x", kind: "pods" },
      ],
      ["GET", "/apis", 'forbidden: User "alice" cannot get path "/apis"', {}],
    ];
    for (const [method, path, message, details] of cases) {
      const res = await alice.call(method, path, method === "POST" ? { body: {} } : {});
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.deepEqual(
        res.body,
        {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message,
          reason: "Forbidden",
          details,
          code: 403,
        },
        `${method} ${path}`,
      );
    }
  });

  it("an explicit deny carries the authorizer's reason; a throwing authorizer denies, never 500", async () => {
    const blocked = await gw.client("blocked");
    const res = await blocked.call("GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(res.status, 403);
    assert.equal(
      res.body.message,
      'configmaps is forbidden: User "blocked" cannot list resource "configmaps" in API group "" in the namespace "default": account suspended',
    );
    const broken = await gw.client("broken");
    const failed = await broken.call("GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(failed.status, 403);
    assert.doesNotMatch(failed.text, /unreachable/);
  });

  it("anonymous callers are authorized as system:anonymous", async () => {
    const res = await gw.anonymous().call("GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(res.status, 403);
    assert.match(res.body.message, /User "system:anonymous" cannot list resource "configmaps"/);
    assert.deepEqual(asked.at(-1)?.user.groups, ["system:unauthenticated"]);
  });

  it("audit events record the decision and its reason", async () => {
    const alice = await gw.client("alice");
    const ok = await alice.call("GET", "/api/v1/namespaces/default/configmaps");
    const denied = await alice.call("GET", "/api/v1/namespaces/default/secrets");
    const event = async (id: unknown) => {
      for (let i = 0; i < 100; i++) {
        const found = gw.audit.find((e) => e.auditID === id);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.fail(`no audit event ${String(id)}`);
    };
    const group = gw.naming.group("authorization");
    assert.deepEqual((await event(ok.headers["audit-id"])).annotations, {
      [`${group}/decision`]: "allow",
      [`${group}/reason`]: "alice edits configmaps",
    });
    const deniedEvent = await event(denied.headers["audit-id"]);
    assert.deepEqual(deniedEvent.annotations, { [`${group}/decision`]: "forbid", [`${group}/reason`]: "" });
    // A Status answer's bounded fields are recorded at Metadata, as upstream.
    assert.deepEqual(deniedEvent.responseStatus, {
      metadata: {},
      status: "Failure",
      message:
        'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default"',
      reason: "Forbidden",
      details: { kind: "secrets" },
      code: 403,
    });
  });
});
