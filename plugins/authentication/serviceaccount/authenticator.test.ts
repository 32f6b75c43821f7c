import assert from "node:assert/strict";
import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { decodeJwt, SignJWT } from "jose";
import type { AuthenticationResult, TokenAuthenticator } from "../authenticator.ts";
import { serviceAccountTokenAuthenticator } from "./authenticator.ts";
import { legacyTokenClaims } from "./claims.ts";
import { parseVerificationKeys } from "./keys.ts";
import { ServiceAccountTokenSigner } from "./signer.ts";
import { startTestPlane, type TestPlane } from "./testing.ts";
import { createTokenRequest, type TokenRequestSettings } from "./token-request.ts";

const ISSUER = "https://issuer.example";
const OLD_ISSUER = "https://old-issuer.example";
const API = "https://api.example";

function rsa() {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  });
}
function ec() {
  return generateKeyPairSync("ec", {
    namedCurve: "P-384",
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "sec1", format: "pem" },
  });
}

const current = rsa();
const previous = ec();
const stranger = rsa();
const signer = ServiceAccountTokenSigner.fromPem(current.privateKey);
const previousSigner = ServiceAccountTokenSigner.fromPem(previous.privateKey);
const strangerSigner = ServiceAccountTokenSigner.fromPem(stranger.privateKey);

let plane: TestPlane;
let clock = 0;
const now = () => Date.now() + clock;

function authenticator(overrides: { lookup?: boolean; apiAudiences?: string[] } = {}): TokenAuthenticator {
  return serviceAccountTokenAuthenticator({
    naming: plane.naming,
    keys: [
      ...parseVerificationKeys(current.publicKey, "current"),
      ...parseVerificationKeys(previous.privateKey, "previous"),
    ],
    issuers: [ISSUER, OLD_ISSUER],
    apiAudiences: overrides.apiAudiences ?? [API],
    lookup: overrides.lookup ?? true,
    access: plane.access,
    now,
  });
}

function settings(): TokenRequestSettings {
  return { naming: plane.naming, issuer: ISSUER, apiAudiences: [API], maxExpirationMs: 0, now };
}

async function tokenFor(
  namespace: string,
  name: string,
  spec: Record<string, unknown> = {},
  using = signer,
): Promise<string> {
  const { tokenRequest } = await createTokenRequest(plane.access, using, settings(), namespace, name, {
    spec,
  });
  return (tokenRequest.status as { token: string }).token;
}

function expectUser(result: AuthenticationResult, username: string) {
  assert.equal(result.kind, "user", result.kind === "rejected" ? result.reason : "not mine");
  if (result.kind !== "user") return undefined;
  assert.equal(result.user.username, username);
  return result;
}

function expectRejected(result: AuthenticationResult, pattern: RegExp) {
  assert.equal(result.kind, "rejected");
  if (result.kind === "rejected") assert.match(result.reason, pattern);
}

before(async () => {
  plane = await startTestPlane("kubernetes");
});
after(async () => {
  await plane.stop();
});

describe("bound tokens", () => {
  it("authenticate as the account with its uid, groups and granted audiences", async () => {
    const sa = await plane.create("serviceaccounts", "team", { metadata: { name: "builder" } });
    const token = await tokenFor("team", "builder");
    const result = expectUser(
      await authenticator().authenticateToken(token, []),
      "system:serviceaccount:team:builder",
    );
    assert.deepEqual(result?.user, {
      username: "system:serviceaccount:team:builder",
      uid: sa.metadata.uid,
      groups: ["system:serviceaccounts", "system:serviceaccounts:team"],
      extra: {},
    });
    assert.deepEqual(result?.audiences, [API]);
    // The server's audiences named explicitly, as the bearer stage passes them.
    expectUser(await authenticator().authenticateToken(token, [API]), "system:serviceaccount:team:builder");
    // The private claim is spelled with the label domain of the preset.
    const claims = decodeJwt(token) as Record<string, unknown>;
    assert.deepEqual(claims["kubernetes.io"], {
      namespace: "team",
      serviceaccount: { name: "builder", uid: sa.metadata.uid },
    });
    assert.equal(claims.sub, "system:serviceaccount:team:builder");
  });

  it("are accepted from every configured issuer and every configured key", async () => {
    await plane.create("serviceaccounts", "team", { metadata: { name: "rotated" } });
    const oldToken = await previousSigner.sign({
      ...decodeJwt(await tokenFor("team", "rotated")),
      iss: OLD_ISSUER,
    });
    expectUser(await authenticator().authenticateToken(oldToken, []), "system:serviceaccount:team:rotated");
    // A token without a kid header is tried against every key.
    const payload = decodeJwt(await tokenFor("team", "rotated"));
    const noKid = await new SignJWT(payload)
      .setProtectedHeader({ alg: "ES384" })
      .sign(createPrivateKey(previous.privateKey));
    expectUser(await authenticator().authenticateToken(noKid, []), "system:serviceaccount:team:rotated");
    const strangerNoKid = await new SignJWT(payload)
      .setProtectedHeader({ alg: "RS256" })
      .sign(createPrivateKey(stranger.privateKey));
    expectRejected(await authenticator().authenticateToken(strangerNoKid, []), /^invalid signature$/);
  });

  it("serve the audiences a review asks for, and no others", async () => {
    await plane.create("serviceaccounts", "team", { metadata: { name: "scoped" } });
    const token = await tokenFor("team", "scoped", { audiences: ["vault", "other"] });
    const ok = expectUser(
      await authenticator().authenticateToken(token, ["vault"]),
      "system:serviceaccount:team:scoped",
    );
    assert.deepEqual(ok?.audiences, ["vault"]);
    expectRejected(
      await authenticator().authenticateToken(token, []),
      /token audiences \["vault" "other"\] is invalid for the target audiences \["https:\/\/api\.example"\]/,
    );
    expectRejected(await authenticator().authenticateToken(token, ["elsewhere"]), /audiences/);
  });

  it("are rejected when signed by a key the server does not trust", async () => {
    await plane.create("serviceaccounts", "team", { metadata: { name: "victim" } });
    const forged = await tokenFor("team", "victim", {}, strangerSigner);
    expectRejected(await authenticator().authenticateToken(forged, []), /invalid signature, no keys found/);
    // The same forgery claiming a trusted key id still fails the signature check.
    const [, payload, signature] = forged.split(".");
    const header = Buffer.from(JSON.stringify({ alg: "RS256", kid: signer.keyId })).toString("base64url");
    expectRejected(
      await authenticator().authenticateToken(`${header}.${payload}.${signature}`, []),
      /invalid signature/,
    );
    // An algorithm the key cannot have (HMAC with the public key as secret) is refused.
    const hs = `${Buffer.from(JSON.stringify({ alg: "HS256", kid: signer.keyId })).toString("base64url")}.${payload}.${signature}`;
    expectRejected(await authenticator().authenticateToken(hs, []), /invalid signature/);
  });

  it("are not ours when another issuer made them, and strings that are no JWT are not ours", async () => {
    await plane.create("serviceaccounts", "team", { metadata: { name: "foreign" } });
    const base = decodeJwt(await tokenFor("team", "foreign"));
    const foreign = await signer.sign({ ...base, iss: "https://someone-else.example" });
    assert.deepEqual(await authenticator().authenticateToken(foreign, []), { kind: "none" });
    for (const junk of [
      "",
      "abc",
      "a.b",
      "a.b.c.d",
      "abcdef.0123456789abcdef",
      '{"iss":"x"}',
      "....",
      "a.!!!.c",
    ]) {
      assert.deepEqual(await authenticator().authenticateToken(junk, []), { kind: "none" }, junk);
    }
    // Our issuer but a broken token: ours, and invalid.
    const payload = Buffer.from(JSON.stringify({ iss: ISSUER })).toString("base64url");
    expectRejected(await authenticator().authenticateToken(`%%%.${payload}.sig`, []), /malformed/);
    const header = Buffer.from(JSON.stringify({ alg: "RS256", kid: signer.keyId })).toString("base64url");
    expectRejected(
      await authenticator().authenticateToken(`${header}.${payload}.c2ln`, []),
      /invalid signature/,
    );
  });

  it("expire, allowing upstream's minute of leeway, and are not valid before nbf", async () => {
    await plane.create("serviceaccounts", "team", { metadata: { name: "short" } });
    const token = await tokenFor("team", "short", { expirationSeconds: 600 });
    clock = 630_000;
    try {
      expectUser(await authenticator().authenticateToken(token, []), "system:serviceaccount:team:short");
      clock = 700_000;
      expectRejected(await authenticator().authenticateToken(token, []), /service account token has expired/);
      clock = -120_000;
      expectRejected(await authenticator().authenticateToken(token, []), /not valid yet/);
    } finally {
      clock = 0;
    }
  });

  it("die with their account: deleted, recreated with a new uid, or deleted more than a minute ago", async () => {
    await plane.create("serviceaccounts", "team", { metadata: { name: "gone" } });
    const token = await tokenFor("team", "gone");
    expectUser(await authenticator().authenticateToken(token, []), "system:serviceaccount:team:gone");
    await plane.remove("serviceaccounts", "team", "gone");
    expectRejected(await authenticator().authenticateToken(token, []), /serviceaccounts "gone" not found/);
    const again = await plane.create("serviceaccounts", "team", { metadata: { name: "gone" } });
    expectRejected(
      await authenticator().authenticateToken(token, []),
      new RegExp(`service account UID \\(${again.metadata.uid}\\) does not match claim`),
    );
    // Bound-token checks do not depend on --service-account-lookup (upstream always checks).
    expectRejected(
      await authenticator({ lookup: false }).authenticateToken(token, []),
      /does not match claim/,
    );

    await plane.create("serviceaccounts", "team", {
      metadata: { name: "held", finalizers: ["example.com/hold"] },
    });
    const held = await tokenFor("team", "held");
    await plane.remove("serviceaccounts", "team", "held");
    expectUser(await authenticator().authenticateToken(held, []), "system:serviceaccount:team:held");
    clock = 120_000;
    try {
      expectRejected(
        await authenticator().authenticateToken(held, []),
        /service account team\/held has been deleted/,
      );
    } finally {
      clock = 0;
    }
  });

  it("bound to a Secret die with the Secret, and are not revived by a new one of the same name", async () => {
    await plane.create("serviceaccounts", "team", { metadata: { name: "bound" } });
    const secret = await plane.create("secrets", "team", { metadata: { name: "anchor" }, data: {} });
    const token = await tokenFor("team", "bound", {
      boundObjectRef: { kind: "Secret", apiVersion: "v1", name: "anchor", uid: secret.metadata.uid },
    });
    const claims = decodeJwt(token) as Record<string, { secret?: unknown }>;
    assert.deepEqual(claims["kubernetes.io"]?.secret, { name: "anchor", uid: secret.metadata.uid });
    const ok = expectUser(
      await authenticator().authenticateToken(token, []),
      "system:serviceaccount:team:bound",
    );
    assert.deepEqual(ok?.user.extra, {}, "only pod bindings show in extra");
    await plane.remove("secrets", "team", "anchor");
    expectRejected(
      await authenticator().authenticateToken(token, []),
      /service account token has been invalidated/,
    );
    const replaced = await plane.create("secrets", "team", { metadata: { name: "anchor" }, data: {} });
    expectRejected(
      await authenticator().authenticateToken(token, []),
      new RegExp(`secret UID \\(${replaced.metadata.uid}\\) does not match`),
    );
  });

  it("bound to a Pod carry the pod in extra and die with it", async () => {
    await plane.create("serviceaccounts", "team", { metadata: { name: "runner" } });
    const pod = await plane.create("pods", "team", {
      metadata: { name: "web" },
      spec: { serviceAccountName: "runner", containers: [{ name: "c", image: "busybox" }] },
    });
    const token = await tokenFor("team", "runner", {
      boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "web" },
    });
    const ok = expectUser(
      await authenticator().authenticateToken(token, []),
      "system:serviceaccount:team:runner",
    );
    assert.deepEqual(ok?.user.extra, {
      "authentication.kubernetes.io/pod-name": ["web"],
      "authentication.kubernetes.io/pod-uid": [pod.metadata.uid],
    });
    await plane.registry("pods").delete("team", "web");
    await plane.settle("pods", "team", "web", (o) => o === undefined);
    expectRejected(await authenticator().authenticateToken(token, []), /invalidated/);
  });

  it("without a binding claim are rejected", async () => {
    const token = await signer.sign({
      iss: ISSUER,
      aud: [API],
      sub: "system:serviceaccount:team:x",
      exp: Math.floor(now() / 1000) + 600,
    });
    expectRejected(await authenticator().authenticateToken(token, []), /no binding claim/);
  });
});

describe("legacy Secret tokens", () => {
  async function legacySetup(account: string, secretName: string) {
    const sa = await plane.create("serviceaccounts", "legacy", { metadata: { name: account } });
    const token = await signer.sign(
      legacyTokenClaims(
        plane.naming,
        { namespace: "legacy", name: account, uid: sa.metadata.uid ?? "" },
        secretName,
      ),
    );
    await plane.create("secrets", "legacy", {
      metadata: { name: secretName, annotations: { "kubernetes.io/service-account.name": account } },
      type: "kubernetes.io/service-account-token",
      data: { token: Buffer.from(token).toString("base64") },
    });
    return token;
  }

  it("authenticate while their Secret holds them and the account is the same", async () => {
    const token = await legacySetup("old", "old-token");
    const claims = decodeJwt(token);
    assert.equal(claims.iss, "kubernetes/serviceaccount");
    assert.equal(claims.exp, undefined, "legacy tokens never expire");
    const ok = expectUser(
      await authenticator().authenticateToken(token, []),
      "system:serviceaccount:legacy:old",
    );
    assert.deepEqual(ok?.audiences, [API]);
    expectRejected(await authenticator().authenticateToken(token, ["vault"]), /audiences/);
  });

  it("die when their Secret is deleted or changed, or the account is recreated; lookup off skips the checks", async () => {
    const token = await legacySetup("revoked", "revoked-token");
    await plane.registry("secrets").update("legacy", "revoked-token", (cur) => ({
      ...(cur ?? {}),
      data: { token: Buffer.from("something else").toString("base64") },
    }));
    await plane.settle("secrets", "legacy", "revoked-token", (o) =>
      Boolean(
        o && (o.data as Record<string, string>).token === Buffer.from("something else").toString("base64"),
      ),
    );
    expectRejected(await authenticator().authenticateToken(token, []), /Token does not match server's copy/);
    await plane.remove("secrets", "legacy", "revoked-token");
    expectRejected(await authenticator().authenticateToken(token, []), /Token has been invalidated/);
    expectUser(
      await authenticator({ lookup: false }).authenticateToken(token, []),
      "system:serviceaccount:legacy:revoked",
    );

    const second = await legacySetup("recreated", "recreated-token");
    await plane.remove("serviceaccounts", "legacy", "recreated");
    expectRejected(
      await authenticator().authenticateToken(second, []),
      /serviceaccounts "recreated" not found/,
    );
    await plane.create("serviceaccounts", "legacy", { metadata: { name: "recreated" } });
    expectRejected(
      await authenticator().authenticateToken(second, []),
      /ServiceAccount UID .* does not match claim/,
    );
  });

  it("with inconsistent claims are rejected", async () => {
    const token = await signer.sign({
      ...legacyTokenClaims(plane.naming, { namespace: "legacy", name: "a", uid: "u" }, "s"),
      sub: "system:serviceaccount:other:a",
    });
    expectRejected(await authenticator().authenticateToken(token, []), /sub claim is invalid/);
    const missing = await signer.sign({
      iss: "kubernetes/serviceaccount",
      sub: "system:serviceaccount:legacy:a",
    });
    expectRejected(await authenticator().authenticateToken(missing, []), /namespace claim is missing/);
  });
});
