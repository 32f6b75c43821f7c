import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { dump } from "js-yaml";
import { ApiClient } from "./api-client.ts";
import { b64, sendJson, startHttpsPeer, tempDir } from "./testing/index.ts";
import { WebhookCredentials } from "./webhook-credentials.ts";

const dir = tempDir("webhook-credentials-test-");
after(() => dir.remove());

function file(users: Record<string, Record<string, unknown>>, extra: Record<string, unknown> = {}): string {
  return dir.write(
    "admission-kubeconfig",
    dump({
      apiVersion: "v1",
      kind: "Config",
      users: Object.entries(users).map(([name, user]) => ({ name, user })),
      ...extra,
    }),
  );
}

describe("webhook credentials", () => {
  const creds = WebhookCredentials.load(
    file({
      "hook.apps.svc": { token: "svc-443" },
      "hook.apps.svc:8443": { token: "svc-8443" },
      "*.apps.svc": { token: "wild-apps" },
      "*.svc:8443": { token: "wild-svc-8443" },
      "hooks.example.com": { token: "host" },
      "hooks.example.com:9443": { username: "u", password: "p" },
      "*.example.com": { token: "wild-example" },
      "*.deep.example.com": { token: "wild-deep" },
      "*": { token: "default" },
    }),
  );

  test("services: exact name, with :port unless 443", () => {
    assert.equal(creds.forService("hook", "apps").token, "svc-443");
    assert.equal(creds.forService("hook", "apps", 443).token, "svc-443");
    assert.equal(creds.forService("hook", "apps", 8443).token, "svc-8443");
  });

  test("wildcards: the longest suffix wins, port kept; then without :443; then *", () => {
    assert.equal(creds.forService("other", "apps").token, "wild-apps");
    assert.equal(creds.forService("other", "apps", 8443).token, "wild-svc-8443");
    assert.equal(creds.forService("other", "elsewhere", 8443).token, "wild-svc-8443");
    assert.equal(creds.forService("other", "elsewhere", 9000).token, "default");
    assert.equal(creds.forUrl("https://a.b.deep.example.com/hook").token, "wild-deep");
    assert.equal(creds.forUrl("https://x.example.com/hook").token, "wild-example");
  });

  test("URLs: host, with the port when the URL has one", () => {
    assert.equal(creds.forUrl("https://hooks.example.com/validate").token, "host");
    assert.equal(creds.forUrl("https://hooks.example.com:443/validate").token, "host");
    assert.deepEqual(creds.forUrl("https://HOOKS.example.com:9443/validate"), {
      username: "u",
      password: "p",
    });
    // A port other than 443 is part of every name tried, wildcards included.
    assert.equal(creds.forUrl("https://hooks.example.com:7000/validate").token, "default");
    assert.equal(creds.forUrl("https://x.example.com:443/validate").token, "wild-example");
    assert.equal(creds.forUrl("https://10.1.2.3:8443/").token, "default");
    assert.throws(() => creds.forUrl("not a url"), /is not a URL/);
  });

  test("no match and no *: the current context's user, else anonymous", () => {
    const withContext = WebhookCredentials.load(
      file(
        { "a.svc": { token: "a" }, fallback: { token: "fallback" } },
        {
          clusters: [{ name: "c", cluster: { server: "https://unused" } }],
          contexts: [{ name: "ctx", context: { cluster: "c", user: "fallback" } }],
          "current-context": "ctx",
        },
      ),
    );
    assert.equal(withContext.forTarget("b.svc").token, "fallback");
    const bare = WebhookCredentials.load(file({ "a.svc": { token: "a" } }));
    assert.deepEqual(bare.forTarget("b.svc"), {});
    assert.deepEqual(WebhookCredentials.load(undefined).forService("x", "y"), {});
  });

  test("a webhook peer accepts the resolved client certificate or token file, and refuses others", async () => {
    const peer = await startHttpsPeer((req, res) => {
      const ok = req.clientCN === "apiserver" || req.headers.authorization === "Bearer from-file";
      sendJson(res, ok ? 200 : 403, { ok });
    });
    try {
      const cert = await peer.clientCertificate("apiserver");
      const stranger = await peer.clientCertificate("someone-else");
      dir.write("hook-token", "from-file\n");
      const resolver = WebhookCredentials.load(
        file({
          [`127.0.0.1:${peer.port}`]: {
            "client-certificate-data": b64(cert.certPem),
            "client-key-data": b64(cert.keyPem),
          },
          "token.hooks.svc:8443": { tokenFile: "hook-token" },
          "*": { "client-certificate-data": b64(stranger.certPem), "client-key-data": b64(stranger.keyPem) },
        }),
      );
      const call = async (user: ReturnType<WebhookCredentials["forTarget"]>) => {
        const c = new ApiClient({
          cluster: {
            server: `${peer.url}/validate`,
            caPem: peer.serverCa.certPem,
            insecureSkipTlsVerify: false,
            extensions: {},
          },
          user,
        });
        try {
          return (await c.call("POST", "", { kind: "AdmissionReview" })).status;
        } finally {
          await c.close();
        }
      };
      assert.equal(await call(resolver.forUrl(`${peer.url}/validate`)), 200);
      assert.equal(await call(resolver.forService("token", "hooks", 8443)), 200);
      assert.equal(await call(resolver.forService("unknown", "hooks")), 403);
      assert.equal(peer.requests.at(-1)?.clientCN, "someone-else");
    } finally {
      await peer.close();
    }
  });
});
