import assert from "node:assert/strict";
import { test } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import type { JsonObject } from "../../backends/registry/index.ts";
import type { TokenAuthenticator } from "../../plugins/authentication/index.ts";
import type { Attributes, Authorizer } from "../../plugins/authorization/index.ts";
import type { RequestContext, UserInfo } from "../pipeline/index.ts";
import type { ApiError } from "../request/api-error.ts";
import type { VirtualResource } from "../routing/resources.ts";
import { accessReviews, mergedRules, selfSubjectReviews, tokenReviews } from "./index.ts";

const n = naming("kubernetes");
const alice: UserInfo = { username: "alice", uid: "u1", groups: ["devs", "system:authenticated"], extra: {} };

function ctxFor(user: UserInfo | undefined): RequestContext {
  // Only `user` is read by review handlers.
  return { user } as unknown as RequestContext;
}

function create(r: VirtualResource, body: JsonObject, user = alice, namespace?: string) {
  return r.create(ctxFor(user), body, "v1", namespace, undefined);
}

// A rule-following authorizer: alice may get pods in "default"; "blocked" is denied outright.
const asked: Attributes[] = [];
const authorizer: Authorizer = {
  name: "test",
  authorize(a) {
    asked.push(a);
    if (a.user.username === "blocked") return { decision: "deny", reason: "blocked user" };
    if (a.user.username === "alice" && a.verb === "get" && a.resource === "pods" && a.namespace === "default")
      return { decision: "allow", reason: "alice reads pods" };
    if (a.user.groups.includes("ops") && !a.isResourceRequest && a.path === "/metrics")
      return { decision: "allow", reason: "" };
    return { decision: "noOpinion", reason: "" };
  },
  rulesFor(user, namespace) {
    return {
      resourceRules:
        user.username === "alice" && namespace === "default"
          ? [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]
          : [],
      nonResourceRules: [],
      incomplete: false,
    };
  },
};

const [sar, lsar, ssar, ssrr] = accessReviews({
  naming: n,
  authorizer,
  rulesFor: mergedRules([authorizer]),
}) as [VirtualResource, VirtualResource, VirtualResource, VirtualResource];

test("review schemas: create-only, in the naming preset's groups", () => {
  assert.equal(sar.schema.group, "authorization.k8s.io");
  assert.deepEqual(sar.schema.verbs, ["create"]);
  assert.equal(sar.schema.plural, "subjectaccessreviews");
  assert.equal(lsar.schema.namespaced, true);
  assert.equal(ssrr.schema.plural, "selfsubjectrulesreviews");
  assert.equal(
    tokenReviews(naming("cluster"), { name: "x", authenticateToken: () => ({ kind: "none" }) }, []).schema
      .group,
    "authentication.cluster.io",
  );
});

test("SubjectAccessReview asks the authorizer for the named user", async () => {
  const allowed = await create(sar, {
    spec: {
      user: "alice",
      groups: ["devs"],
      resourceAttributes: { namespace: "default", verb: "get", resource: "pods" },
    },
  });
  assert.deepEqual(allowed.status, { allowed: true, reason: "alice reads pods" });
  assert.deepEqual((allowed.metadata as JsonObject).creationTimestamp, null);
  const other = await create(sar, {
    spec: { user: "bob", resourceAttributes: { namespace: "default", verb: "get", resource: "pods" } },
  });
  assert.deepEqual(other.status, { allowed: false });
  const denied = await create(sar, {
    spec: { user: "blocked", resourceAttributes: { verb: "get", resource: "pods" } },
  });
  assert.deepEqual(denied.status, { allowed: false, denied: true, reason: "blocked user" });
  const nonResource = await create(sar, {
    spec: { groups: ["ops"], nonResourceAttributes: { path: "/metrics", verb: "get" } },
  });
  assert.equal((nonResource.status as JsonObject).allowed, true);
  assert.equal(asked.at(-1)?.isResourceRequest, false);
});

test("SubjectAccessReview validation mirrors upstream's messages", async () => {
  await assert.rejects(
    create(sar, { spec: { resourceAttributes: { verb: "get" } } }),
    (err: ApiError) =>
      err.code === 422 &&
      /spec.user: Invalid value: "": at least one of user or group must be specified/.test(err.message),
  );
  await assert.rejects(
    create(sar, { spec: { user: "a" } }),
    (err: ApiError) =>
      err.code === 422 && /exactly one of nonResourceAttributes or resourceAttributes/.test(err.message),
  );
  await assert.rejects(
    create(sar, { spec: { user: "a", resourceAttributes: {}, nonResourceAttributes: {} } }),
    (err: ApiError) =>
      err.code === 422 && /cannot be specified in combination with resourceAttributes/.test(err.message),
  );
});

test("LocalSubjectAccessReview is tied to its namespace", async () => {
  const ok = await create(
    lsar,
    { spec: { user: "alice", resourceAttributes: { namespace: "default", verb: "get", resource: "pods" } } },
    alice,
    "default",
  );
  assert.equal((ok.status as JsonObject).allowed, true);
  assert.equal((ok.metadata as JsonObject).namespace, "default");
  await assert.rejects(
    create(
      lsar,
      { spec: { user: "alice", resourceAttributes: { namespace: "other", verb: "get" } } },
      alice,
      "default",
    ),
    (err: ApiError) => err.code === 422 && /spec.resourceAttributes.namespace/.test(err.message),
  );
  await assert.rejects(
    create(
      lsar,
      { spec: { user: "alice", nonResourceAttributes: { path: "/x", verb: "get" } } },
      alice,
      "default",
    ),
    (err: ApiError) => err.code === 422 && /disallowed on this kind of request/.test(err.message),
  );
});

test("self reviews use the caller", async () => {
  const r = await create(ssar, {
    spec: { resourceAttributes: { namespace: "default", verb: "get", resource: "pods" } },
  });
  assert.equal((r.status as JsonObject).allowed, true);
  const bob = { ...alice, username: "bob" };
  const r2 = await create(
    ssar,
    { spec: { resourceAttributes: { namespace: "default", verb: "get", resource: "pods" } } },
    bob,
  );
  assert.equal((r2.status as JsonObject).allowed, false);
  const rules = await create(ssrr, { spec: { namespace: "default" } });
  assert.deepEqual(rules.status, {
    resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    nonResourceRules: [],
    incomplete: false,
  });
  const who = await create(selfSubjectReviews(n), {
    apiVersion: "authentication.k8s.io/v1",
    kind: "SelfSubjectReview",
  });
  assert.deepEqual(who.status, {
    userInfo: { username: "alice", uid: "u1", groups: ["devs", "system:authenticated"] },
  });
});

test("rules from authorizers that cannot list them make the answer incomplete", async () => {
  const opaque: Authorizer = { name: "opaque", authorize: () => ({ decision: "noOpinion", reason: "" }) };
  const broken: Authorizer = {
    name: "broken",
    authorize: () => ({ decision: "noOpinion", reason: "" }),
    rulesFor() {
      throw new Error("index not ready");
    },
  };
  const merged = await mergedRules([authorizer, opaque, broken])(alice, "default");
  assert.equal(merged.incomplete, true);
  assert.equal(merged.evaluationError, "index not ready");
  assert.equal(merged.resourceRules.length, 1);
});

test("TokenReview authenticates the token for the requested or the server's audiences", async () => {
  const seen: (readonly string[])[] = [];
  const tokens: TokenAuthenticator = {
    name: "t",
    authenticateToken(token, audiences) {
      seen.push(audiences);
      if (token === "good")
        return { kind: "user", user: { username: "svc", uid: "", groups: ["g"], extra: {} } };
      if (token === "scoped")
        return {
          kind: "user",
          user: { username: "s", uid: "", groups: [], extra: {} },
          audiences: ["other"],
        };
      if (token === "bad") return { kind: "rejected", reason: "token expired" };
      return { kind: "none" };
    },
  };
  const review = tokenReviews(n, tokens, ["api"]);
  const good = await create(review, { spec: { token: "good" } });
  assert.deepEqual(good.status, {
    authenticated: true,
    user: { username: "svc", groups: ["g", "system:authenticated"] },
    audiences: ["api"],
  });
  assert.deepEqual(seen.at(-1), ["api"]);
  await create(review, { spec: { token: "good", audiences: ["x", "y"] } });
  assert.deepEqual(seen.at(-1), ["x", "y"]);
  assert.deepEqual((await create(review, { spec: { token: "bad" } })).status, {
    authenticated: false,
    user: {},
    error: "token expired",
  });
  assert.deepEqual((await create(review, { spec: { token: "unknown" } })).status, {
    authenticated: false,
    user: {},
  });
  assert.equal(
    ((await create(review, { spec: { token: "scoped" } })).status as JsonObject).authenticated,
    false,
  );
  await assert.rejects(create(review, { spec: {} }), (err: ApiError) => err.code === 400);
});
