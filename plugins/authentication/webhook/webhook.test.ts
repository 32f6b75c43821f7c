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
import { tokenWebhookAuthenticator } from "./webhook.ts";

const dir = tempDir("token-webhook-test-");
let peer: HttpsPeer;
let configFile: string;

/** The peer: a TokenReview service that only talks to callers with its client certificate or secret. */
before(async () => {
  peer = await startHttpsPeer((req, res) => {
    if (req.clientCN !== "apiserver" && req.headers.authorization !== "Bearer webhook-secret") {
      sendJson(res, 401, { message: "who are you" });
      return;
    }
    const review = JSON.parse(req.body);
    const token: string = review.spec.token;
    const answer = (status: unknown, apiVersion = review.apiVersion) =>
      sendJson(res, 200, { apiVersion, kind: "TokenReview", status });
    switch (token) {
      case "alice-token":
        return answer({
          authenticated: true,
          user: { username: "alice", uid: "42", groups: ["dev", "ops"], extra: { scopes: ["a", "b"] } },
        });
      case "aud-token":
        return answer({ authenticated: true, user: { username: "aud" }, audiences: ["api-a"] });
      case "no-aud-token":
        return answer({ authenticated: true, user: { username: "noaud" } });
      case "error-token":
        return answer({ authenticated: false, error: "token revoked" });
      case "plain-deny":
        return answer({ authenticated: false });
      case "wrong-version":
        return answer({ authenticated: true, user: { username: "x" } }, "authentication.cluster.io/v1alpha1");
      case "no-username":
        return answer({ authenticated: true, user: { groups: ["g"] } });
      case "bad-groups":
        return answer({ authenticated: true, user: { username: "x", groups: "g" } });
      case "http-500":
        return sendJson(res, 500, { message: "broken" });
      case "not-json":
        res.end("hello");
        return;
      case "hang":
        return; // never answers
      default:
        return answer({ authenticated: false });
    }
  });
  const cert = await peer.clientCertificate("apiserver");
  configFile = dir.write(
    "webhook.kubeconfig",
    kubeconfigYaml({
      server: `${peer.url}/authenticate`,
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
const reviews = () => peer.requests.filter((r) => r.url === "/authenticate").map((r) => JSON.parse(r.body));

describe("token webhook authenticator", () => {
  test("v1beta1 by default: the review, the user, our client certificate", async () => {
    const a = tokenWebhookAuthenticator({ configFile, naming: cluster });
    const before = peer.requests.length;
    const result = await a.authenticateToken("alice-token", []);
    assert.deepEqual(result, {
      kind: "user",
      user: { username: "alice", uid: "42", groups: ["dev", "ops"], extra: { scopes: ["a", "b"] } },
    });
    const sent = peer.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.method, "POST");
    assert.equal(sent[0]?.url, "/authenticate");
    assert.equal(sent[0]?.clientCN, "apiserver");
    assert.match(String(sent[0]?.headers["content-type"]), /^application\/json/);
    const review = JSON.parse(sent[0]?.body ?? "");
    assert.equal(review.apiVersion, "authentication.cluster.io/v1beta1");
    assert.equal(review.kind, "TokenReview");
    assert.deepEqual(review.spec, { token: "alice-token" });
    await a.close();
  });

  test("v1, and the upstream naming preset", async () => {
    const v1 = tokenWebhookAuthenticator({ configFile, naming: cluster, version: "v1" });
    assert.equal((await v1.authenticateToken("alice-token", [])).kind, "user");
    assert.equal(reviews().at(-1).apiVersion, "authentication.cluster.io/v1");
    const k8s = tokenWebhookAuthenticator({ configFile, naming: naming("kubernetes"), version: "v1" });
    assert.equal((await k8s.authenticateToken("alice-token", [])).kind, "user");
    assert.equal(reviews().at(-1).apiVersion, "authentication.k8s.io/v1");
    await Promise.all([v1.close(), k8s.close()]);
  });

  test("denials: status.error is the reason, else a generic one; the token is never in it", async () => {
    const a = tokenWebhookAuthenticator({ configFile, naming: cluster });
    assert.deepEqual(await a.authenticateToken("error-token", []), {
      kind: "rejected",
      reason: "token revoked",
    });
    const plain = await a.authenticateToken("plain-deny", []);
    assert.equal(plain.kind, "rejected");
    assert.doesNotMatch(plain.kind === "rejected" ? plain.reason : "", /plain-deny/);
    for (const token of ["wrong-version", "no-username", "bad-groups", "http-500", "not-json"]) {
      const r = await a.authenticateToken(token, []);
      assert.equal(r.kind, "rejected", token);
      assert.ok(r.kind === "rejected" && !r.reason.includes(token), `${token}: ${JSON.stringify(r)}`);
    }
    const wrong = await a.authenticateToken("wrong-version", []);
    assert.match(
      wrong.kind === "rejected" ? wrong.reason : "",
      /v1alpha1, expected authentication.cluster.io\/v1beta1/,
    );
    assert.match(((await a.authenticateToken("http-500", [])) as { reason: string }).reason, /HTTP 500/);
    assert.deepEqual(await a.authenticateToken("", []), { kind: "none" });
    await a.close();
  });

  test("audiences: sent, intersected with status.audiences, else with the server's own", async () => {
    const a = tokenWebhookAuthenticator({ configFile, naming: cluster, implicitAudiences: ["api-b"] });
    assert.deepEqual(await a.authenticateToken("aud-token", ["api-a", "api-b"]), {
      kind: "user",
      user: { username: "aud", uid: "", groups: [], extra: {} },
      audiences: ["api-a"],
    });
    assert.deepEqual(reviews().at(-1).spec, { token: "aud-token", audiences: ["api-a", "api-b"] });
    assert.deepEqual(await a.authenticateToken("aud-token", ["api-c"]), {
      kind: "rejected",
      reason: "token audiences are invalid",
    });
    // No status.audiences: valid for the server's audiences only.
    const implicit = await a.authenticateToken("no-aud-token", ["api-b", "api-x"]);
    assert.deepEqual(implicit.kind === "user" ? implicit.audiences : implicit, ["api-b"]);
    assert.equal((await a.authenticateToken("no-aud-token", ["api-x"])).kind, "rejected");
    // No audiences asked for: none sent, none checked.
    const plain = await a.authenticateToken("aud-token", []);
    assert.equal(plain.kind === "user" ? plain.audiences : "rejected", undefined);
    assert.deepEqual(reviews().at(-1).spec, { token: "aud-token" });
    await a.close();
  });

  test("answers are cached for the TTL per token and audiences; error answers and failures are not", async () => {
    let now = 1_000_000;
    const a = tokenWebhookAuthenticator({ configFile, naming: cluster, cacheTtlMs: 60_000, now: () => now });
    const count = (token: string) => reviews().filter((r) => r.spec.token === token).length;
    const base = count("alice-token");
    await a.authenticateToken("alice-token", []);
    await a.authenticateToken("alice-token", []);
    assert.equal(count("alice-token") - base, 1);
    await a.authenticateToken("alice-token", ["other"]);
    assert.equal(count("alice-token") - base, 2);
    now += 59_000;
    await a.authenticateToken("alice-token", []);
    assert.equal(count("alice-token") - base, 2);
    now += 2_000;
    await a.authenticateToken("alice-token", []);
    assert.equal(count("alice-token") - base, 3);

    const denyBase = count("plain-deny");
    await a.authenticateToken("plain-deny", []);
    await a.authenticateToken("plain-deny", []);
    assert.equal(count("plain-deny") - denyBase, 1, "a plain denial is an answer and is cached");
    for (const token of ["error-token", "http-500"]) {
      const b = count(token);
      await a.authenticateToken(token, []);
      await a.authenticateToken(token, []);
      assert.equal(count(token) - b, 2, `${token} is not cached`);
    }
    await a.close();
  });

  test("concurrent requests for one token share one review", async () => {
    const a = tokenWebhookAuthenticator({ configFile, naming: cluster });
    const base = reviews().length;
    const results = await Promise.all([1, 2, 3].map(() => a.authenticateToken("alice-token", [])));
    assert.ok(results.every((r) => r.kind === "user"));
    assert.equal(reviews().length - base, 1);
    await a.close();
  });

  test("a webhook that does not answer in time: rejected, not a hang", async () => {
    const a = tokenWebhookAuthenticator({ configFile, naming: cluster, timeoutMs: 200 });
    const r = await a.authenticateToken("hang", []);
    assert.equal(r.kind, "rejected");
    assert.match((r as { reason: string }).reason, /timed out after 200 ms/);
    await a.close();
  });

  test("an unreachable webhook: rejected", async () => {
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const file = dir.write(
      "unreachable.kubeconfig",
      kubeconfigYaml({
        server: `https://127.0.0.1:${port}/authenticate`,
        caPem: peer.serverCa.certPem,
        user: { token: "x" },
      }),
    );
    const a = tokenWebhookAuthenticator({ configFile: file, naming: cluster });
    const r = await a.authenticateToken("alice-token", []);
    assert.equal(r.kind, "rejected");
    assert.match((r as { reason: string }).reason, /webhook call failed: .*ECONNREFUSED/);
    await a.close();
  });

  test("credentials: a token the peer knows works; a wrong certificate or token is refused", async () => {
    const withToken = tokenWebhookAuthenticator({
      configFile: dir.write(
        "token.kubeconfig",
        kubeconfigYaml({
          server: `${peer.url}/authenticate`,
          caPem: peer.serverCa.certPem,
          user: { token: "webhook-secret" },
        }),
      ),
      naming: cluster,
    });
    assert.equal((await withToken.authenticateToken("alice-token", [])).kind, "user");
    const stranger = await peer.clientCertificate("intruder");
    const wrongCert = tokenWebhookAuthenticator({
      configFile: dir.write(
        "wrong-cert.kubeconfig",
        kubeconfigYaml({
          server: `${peer.url}/authenticate`,
          caPem: peer.serverCa.certPem,
          user: { "client-certificate-data": b64(stranger.certPem), "client-key-data": b64(stranger.keyPem) },
        }),
      ),
      naming: cluster,
    });
    assert.match(
      ((await wrongCert.authenticateToken("alice-token", [])) as { reason: string }).reason,
      /HTTP 401/,
    );
    const wrongToken = tokenWebhookAuthenticator({
      configFile: dir.write(
        "wrong-token.kubeconfig",
        kubeconfigYaml({
          server: `${peer.url}/authenticate`,
          caPem: peer.serverCa.certPem,
          user: { token: "guess" },
        }),
      ),
      naming: cluster,
    });
    assert.equal((await wrongToken.authenticateToken("alice-token", [])).kind, "rejected");
    await Promise.all([withToken.close(), wrongCert.close(), wrongToken.close()]);
  });

  test("a broken config file fails at start", () => {
    const file = dir.write("broken.kubeconfig", "clusters: [");
    assert.throws(() => tokenWebhookAuthenticator({ configFile: file, naming: cluster }), /not valid YAML/);
    assert.throws(
      () => tokenWebhookAuthenticator({ configFile: `${dir.path}/missing`, naming: cluster }),
      /cannot read: ENOENT/,
    );
  });
});
