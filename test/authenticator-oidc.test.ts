// OpenID Connect ID tokens behind `Authorization: Bearer`, against a real issuer started here,
// under the conformance suite.
import assert from "node:assert/strict";
import { audienceAgnostic, bearerAuthenticator, oidcAuthenticator } from "../plugins/authentication/index.ts";
import { startTestIssuer } from "../plugins/authentication/oidc/test-issuer.ts";
import { authenticatorConformance } from "./authenticator-conformance.ts";

authenticatorConformance("oidc via bearer", async () => {
  const issuer = await startTestIssuer();
  const oidc = oidcAuthenticator({
    issuerUrl: issuer.url,
    clientId: "gateway",
    caPem: issuer.caPem,
    usernameClaim: "email",
    groupsClaim: "groups",
    groupsPrefix: "oidc:",
    log: { info() {}, error() {} },
  });
  await oidc.ready();
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const valid = await issuer.sign({
    sub: "1",
    email: "jane@example.com",
    aud: "gateway",
    exp,
    groups: ["dev"],
  });
  const expired = await issuer.sign({ sub: "1", email: "jane@example.com", aud: "gateway", exp: exp - 7200 });
  const wrongAud = await issuer.sign({ sub: "1", email: "jane@example.com", aud: "other", exp });
  const [h, p] = valid.split(".");
  const badSignature = `${h}.${p}.${"A".repeat(342)}`;
  return {
    authenticator: bearerAuthenticator([audienceAgnostic(oidc, ["api"])], ["api"]),
    valid: { headers: { authorization: `Bearer ${valid}` } },
    invalid: [
      { name: "expired", credential: { headers: { authorization: `Bearer ${expired}` } } },
      { name: "another audience", credential: { headers: { authorization: `Bearer ${wrongAud}` } } },
      { name: "bad signature", credential: { headers: { authorization: `Bearer ${badSignature}` } } },
    ],
    malformed: [{ name: "token as a header of its own", credential: { headers: { "x-id-token": valid } } }],
    secrets: [valid, expired, wrongAud, badSignature, `${h}.${p}`],
    checkUser(user) {
      assert.equal(user.username, "jane@example.com");
      assert.deepEqual(user.groups, ["oidc:dev"]);
    },
    async teardown() {
      await oidc.close();
      await issuer.close();
    },
  };
});
