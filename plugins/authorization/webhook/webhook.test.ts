import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import {
  b64,
  type HttpsPeer,
  kubeconfigYaml,
  sendJson,
  startHttpsPeer,
  tempDir,
} from "../../client/testing/index.ts";
import type { Attributes } from "../authorizer.ts";
import { webhookAuthorizer } from "./webhook.ts";

const dir = tempDir("authz-webhook-test-");
let peer: HttpsPeer;
let configFile: string;

/**
 * The peer decides by verb: get → allowed, delete → denied, patch → both (a contradiction),
 * list → no opinion, hang → no answer, fail → HTTP 500, other-kind → a wrong kind.
 */
before(async () => {
  peer = await startHttpsPeer((req, res) => {
    if (req.clientCN !== "apiserver" && req.headers.authorization !== "Bearer authz-secret") {
      sendJson(res, 403, { message: "who are you" });
      return;
    }
    const review = JSON.parse(req.body);
    const spec = review.spec;
    const verb = spec.resourceAttributes?.verb ?? spec.nonResourceAttributes?.verb;
    const answer = (status: unknown, kind = "SubjectAccessReview") =>
      sendJson(res, 200, { apiVersion: review.apiVersion, kind, status });
    switch (verb) {
      case "get":
        return answer({ allowed: true, reason: "friends may read" });
      case "delete":
        return answer({ allowed: false, denied: true, reason: "never delete" });
      case "patch":
        return answer({ allowed: true, denied: true, reason: "both" });
      case "hang":
        return;
      case "fail":
        return sendJson(res, 500, { message: "broken" });
      case "other-kind":
        return answer({ allowed: true }, "TokenReview");
      default:
        return answer({ allowed: false, reason: "no rule" });
    }
  });
  const cert = await peer.clientCertificate("apiserver");
  configFile = dir.write(
    "authz.kubeconfig",
    kubeconfigYaml({
      server: `${peer.url}/authorize`,
      caPem: peer.serverCa.certPem,
      user: { "client-certificate-data": b64(cert.certPem), "client-key-data": b64(cert.keyPem) },
    }),
  );
});

after(async () => {
  await peer.close();
  dir.remove();
});

const cluster = naming("cluster");
const reviews = () => peer.requests.filter((r) => r.url === "/authorize").map((r) => JSON.parse(r.body));

function attrs(overrides: Partial<Attributes> = {}): Attributes {
  return {
    user: { username: "jane", uid: "u-1", groups: ["dev", "system:authenticated"], extra: { scopes: ["x"] } },
    verb: "get",
    isResourceRequest: true,
    path: "/apis/apps/v1/namespaces/team/deployments/web",
    namespace: "team",
    apiGroup: "apps",
    apiVersion: "v1",
    resource: "deployments",
    subresource: "",
    name: "web",
    ...overrides,
  };
}

describe("webhook authorizer", () => {
  test("v1beta1 by default: resourceAttributes, user, `group`, extra, uid; allowed", async () => {
    const a = webhookAuthorizer({ configFile, naming: cluster });
    assert.deepEqual(await a.authorize(attrs()), { decision: "allow", reason: "friends may read" });
    const review = reviews().at(-1);
    assert.equal(peer.requests.at(-1)?.clientCN, "apiserver");
    assert.equal(review.apiVersion, "authorization.cluster.io/v1beta1");
    assert.equal(review.kind, "SubjectAccessReview");
    assert.deepEqual(review.spec, {
      resourceAttributes: {
        namespace: "team",
        verb: "get",
        group: "apps",
        version: "v1",
        resource: "deployments",
        name: "web",
      },
      user: "jane",
      group: ["dev", "system:authenticated"],
      extra: { scopes: ["x"] },
      uid: "u-1",
    });
    await a.close();
  });

  test("v1 spells it `groups`; non-resource requests send path and verb", async () => {
    const a = webhookAuthorizer({ configFile, naming: naming("kubernetes"), version: "v1" });
    await a.authorize(
      attrs({
        isResourceRequest: false,
        path: "/healthz",
        namespace: "",
        apiGroup: "",
        apiVersion: "",
        resource: "",
        name: "",
      }),
    );
    const review = reviews().at(-1);
    assert.equal(review.apiVersion, "authorization.k8s.io/v1");
    assert.deepEqual(review.spec, {
      nonResourceAttributes: { path: "/healthz", verb: "get" },
      user: "jane",
      groups: ["dev", "system:authenticated"],
      extra: { scopes: ["x"] },
      uid: "u-1",
    });
    await a.close();
  });

  test("denied → deny, neither → noOpinion, both → deny", async () => {
    const a = webhookAuthorizer({ configFile, naming: cluster });
    assert.deepEqual(await a.authorize(attrs({ verb: "delete" })), {
      decision: "deny",
      reason: "never delete",
    });
    assert.deepEqual(await a.authorize(attrs({ verb: "list", name: "" })), {
      decision: "noOpinion",
      reason: "no rule",
    });
    assert.deepEqual(await a.authorize(attrs({ verb: "patch" })), { decision: "deny", reason: "both" });
    await a.close();
  });

  test("allowed answers are kept for the authorized TTL, others for the unauthorized TTL", async () => {
    let now = 5_000_000;
    const a = webhookAuthorizer({
      configFile,
      naming: cluster,
      authorizedTtlMs: 300_000,
      unauthorizedTtlMs: 30_000,
      now: () => now,
    });
    const count = (verb: string, name: string) =>
      reviews().filter(
        (r) => r.spec.resourceAttributes?.verb === verb && r.spec.resourceAttributes?.name === name,
      ).length;
    const allow = attrs({ name: "cached-allow" });
    const deny = attrs({ verb: "delete", name: "cached-deny" });
    const none = attrs({ verb: "list", name: "cached-none" });
    for (const x of [allow, deny, none, allow, deny, none]) await a.authorize(x);
    assert.deepEqual(
      [count("get", "cached-allow"), count("delete", "cached-deny"), count("list", "cached-none")],
      [1, 1, 1],
    );
    now += 31_000;
    for (const x of [allow, deny, none]) await a.authorize(x);
    assert.deepEqual(
      [count("get", "cached-allow"), count("delete", "cached-deny"), count("list", "cached-none")],
      [1, 2, 2],
    );
    now += 270_000;
    assert.deepEqual(await a.authorize(allow), { decision: "allow", reason: "friends may read" });
    assert.equal(count("get", "cached-allow"), 2);
    // Another user is another question.
    await a.authorize({ ...allow, user: { ...allow.user, username: "joe" } });
    assert.equal(count("get", "cached-allow"), 3);
    await a.close();
  });

  test("failures have no opinion, carry the error and are not cached", async () => {
    const a = webhookAuthorizer({ configFile, naming: cluster, timeoutMs: 200 });
    for (const verb of ["fail", "other-kind"]) {
      const before = reviews().length;
      const r1 = await a.authorize(attrs({ verb }));
      const r2 = await a.authorize(attrs({ verb }));
      assert.equal(r1.decision, "noOpinion");
      assert.deepEqual(r1, r2);
      assert.equal(reviews().length - before, 2, `${verb} is not cached`);
    }
    assert.match((await a.authorize(attrs({ verb: "fail" }))).reason, /HTTP 500/);
    assert.match((await a.authorize(attrs({ verb: "other-kind" }))).reason, /kind "TokenReview"/);
    const hung = await a.authorize(attrs({ verb: "hang" }));
    assert.equal(hung.decision, "noOpinion");
    assert.match(hung.reason, /timed out after 200 ms/);
    await a.close();
  });

  test("unreachable webhook and wrong credentials: no opinion", async () => {
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const unreachable = webhookAuthorizer({
      configFile: dir.write(
        "unreachable.kubeconfig",
        kubeconfigYaml({ server: `https://127.0.0.1:${port}/authorize`, caPem: peer.serverCa.certPem }),
      ),
      naming: cluster,
    });
    const r = await unreachable.authorize(attrs());
    assert.equal(r.decision, "noOpinion");
    assert.match(r.reason, /ECONNREFUSED/);
    const withToken = (token: string) =>
      webhookAuthorizer({
        configFile: dir.write(
          `token-${token}.kubeconfig`,
          kubeconfigYaml({ server: `${peer.url}/authorize`, caPem: peer.serverCa.certPem, user: { token } }),
        ),
        naming: cluster,
      });
    const good = withToken("authz-secret");
    assert.equal((await good.authorize(attrs())).decision, "allow");
    const bad = withToken("guess");
    const refused = await bad.authorize(attrs());
    assert.equal(refused.decision, "noOpinion");
    assert.match(refused.reason, /HTTP 403/);
    await Promise.all([unreachable.close(), good.close(), bad.close()]);
  });

  test("rules cannot be listed", async () => {
    const a = webhookAuthorizer({ configFile, naming: cluster });
    const rules = await a.rulesFor?.(attrs().user, "team");
    assert.deepEqual(rules, {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: "webhook authorizer does not support user rule resolution",
    });
    await a.close();
  });
});
