// Health, version, OpenAPI and unknown paths over real HTTPS: the same authentication,
// impersonation and authorization as the API.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Attributes, Authorizer } from "../../plugins/authorization/index.ts";
import { type AccessTestGateway, startAccessGateway } from "./testing.ts";

// Like RBAC's default roles: system:public-info-viewer for everyone (health and version),
// system:discovery for authenticated users (OpenAPI too); "ops" may read everything.
const PUBLIC = new Set(["/healthz", "/livez", "/readyz", "/version", "/version/"]);
const seen: Attributes[] = [];
const policy: Authorizer = {
  name: "policy",
  authorize(a) {
    seen.push(a);
    if (a.isResourceRequest) return { decision: "noOpinion", reason: "" };
    if (a.user.groups.includes("ops")) return { decision: "allow", reason: "" };
    if (a.verb !== "get") return { decision: "noOpinion", reason: "" };
    if (PUBLIC.has(a.path)) return { decision: "allow", reason: "" };
    const discovery = a.path === "/openapi" || a.path.startsWith("/openapi/");
    if (discovery && a.user.groups.includes("system:authenticated")) return { decision: "allow", reason: "" };
    return { decision: "noOpinion", reason: "" };
  },
};

describe("non-API paths behind authentication and authorization", () => {
  let gw: AccessTestGateway;
  before(async () => {
    gw = await startAccessGateway({ authorizer: policy });
  });
  after(() => gw?.stop());

  it("anonymous callers read health and version only as the authorizer allows", async () => {
    const anonymous = gw.anonymous();
    for (const path of ["/healthz", "/livez", "/readyz", "/readyz?verbose"]) {
      const res = await anonymous.call("GET", path);
      assert.equal(res.status, 200, path);
      assert.match(res.text, /ok/);
    }
    const version = await anonymous.call("GET", "/version");
    assert.equal(version.status, 200);
    assert.equal(typeof version.body.gitVersion, "string");

    // A single check is not public (system:monitoring grants it upstream).
    const check = await anonymous.call("GET", "/readyz/ping");
    assert.equal(check.status, 403);
    assert.deepEqual(check.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'forbidden: User "system:anonymous" cannot get path "/readyz/ping"',
      reason: "Forbidden",
      details: {},
      code: 403,
    });
    const ops = await gw.client("olga", ["ops"]);
    assert.equal((await ops.call("GET", "/readyz/ping")).status, 200);
  });

  it("non-resource verbs are the lowercased method", async () => {
    const anonymous = gw.anonymous();
    const head = await anonymous.call("HEAD", "/healthz");
    assert.equal(head.status, 403);
    const post = await anonymous.call("POST", "/version", { body: {} });
    assert.equal(post.status, 403);
    assert.equal(post.body.message, 'forbidden: User "system:anonymous" cannot post path "/version"');
    assert.ok(seen.some((a) => a.verb === "head" && a.path === "/healthz" && !a.isResourceRequest));
  });

  it("OpenAPI is for authenticated callers", async () => {
    const anonymous = gw.anonymous();
    const denied = await anonymous.call("GET", "/openapi/v2");
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, 'forbidden: User "system:anonymous" cannot get path "/openapi/v2"');
    const v3 = await anonymous.call("GET", "/openapi/v3/api/v1");
    assert.equal(v3.status, 403);
    const alice = await gw.client("alice");
    const ok = await alice.call("GET", "/openapi/v2", { headers: { accept: "application/json" } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.swagger, "2.0");
    assert.equal((await alice.call("GET", "/openapi/v3")).status, 200);
  });

  it("a path nothing serves: 403 before 404, so callers learn nothing they may not see", async () => {
    const anonymous = gw.anonymous();
    const denied = await anonymous.call("GET", "/foo");
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, 'forbidden: User "system:anonymous" cannot get path "/foo"');
    const ops = await gw.client("olga", ["ops"]);
    const missing = await ops.call("GET", "/foo");
    assert.equal(missing.status, 404);
    assert.equal(missing.text, "404 page not found\n");
  });

  it("a certificate the server does not trust is 401, even where anonymous callers may read", async () => {
    const stranger = await gw.foreign("alice");
    for (const path of ["/healthz", "/version", "/openapi/v2", "/foo", "/api/v1/namespaces"]) {
      const res = await stranger.call("GET", path);
      assert.equal(res.status, 401, path);
      assert.deepEqual(res.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        code: 401,
      });
    }
  });

  it("impersonation applies here too", async () => {
    const ops = await gw.client("olga", ["ops"]);
    // olga may do anything non-resource but impersonating is a resource check the policy refuses.
    const res = await ops.call("GET", "/version", { headers: { "impersonate-user": "bob" } });
    assert.equal(res.status, 403);
    assert.equal(
      res.body.message,
      'users "bob" is forbidden: User "olga" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });
});

describe("non-API paths without anonymous access", () => {
  let gw: AccessTestGateway;
  before(async () => {
    gw = await startAccessGateway({ authorizer: policy, anonymousAuth: false });
  });
  after(() => gw?.stop());

  it("callers without credentials get 401 everywhere", async () => {
    const anonymous = gw.anonymous();
    for (const path of ["/healthz", "/livez", "/readyz", "/version", "/openapi/v3", "/foo"]) {
      const res = await anonymous.call("GET", path);
      assert.equal(res.status, 401, path);
      assert.equal(res.body.reason, "Unauthorized");
    }
    const alice = await gw.client("alice");
    assert.equal((await alice.call("GET", "/healthz")).status, 200);
  });
});
