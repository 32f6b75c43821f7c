import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { base64url, generateKeyPair, SignJWT } from "jose";
import type { AuthenticationResult } from "../authenticator.ts";
import { type OidcAuthenticator, type OidcOptions, oidcAuthenticator, untrustedIssuer } from "./oidc.ts";
import { startTestIssuer, type TestIssuer } from "./test-issuer.ts";

const quiet = { info() {}, error() {} };
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

function reasonOf(r: AuthenticationResult): string {
  assert.equal(r.kind, "rejected", JSON.stringify(r));
  return r.kind === "rejected" ? r.reason : "";
}

describe("untrustedIssuer", () => {
  it("reads iss from compact JWTs only", () => {
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    assert.equal(untrustedIssuer(`x.${enc({ iss: "https://a" })}.y`), "https://a");
    assert.equal(
      untrustedIssuer(`x.${enc({ iss: "accounts.google.com" })}.y`),
      "https://accounts.google.com",
    );
    for (const t of [
      "",
      "a.b",
      "a.b.c.d",
      `{"iss":"x"}`,
      `x.${enc([1])}.y`,
      `x.${enc({ iss: 1 })}.y`,
      "x.!!!.y",
      "x.e30.y",
    ]) {
      assert.equal(untrustedIssuer(t), undefined, t);
    }
  });
});

describe("oidcAuthenticator", () => {
  let issuer: TestIssuer;
  const opened: OidcAuthenticator[] = [];
  const tokens: string[] = [];

  /** An authenticator of the test issuer; waits for discovery unless told not to. */
  async function make(over: Partial<OidcOptions> = {}, wait = true): Promise<OidcAuthenticator> {
    const a = oidcAuthenticator({
      issuerUrl: issuer.url,
      clientId: "gateway",
      caPem: issuer.caPem,
      keyRefreshIntervalMs: 0,
      retryIntervalMs: 50,
      requestTimeoutMs: 2_000,
      log: quiet,
      ...over,
    });
    opened.push(a);
    if (wait) await a.ready();
    return a;
  }
  async function sign(claims: Record<string, unknown>, options?: { kid?: string; alg?: string }) {
    const t = await issuer.sign({ sub: "u1", aud: "gateway", exp: inAnHour(), ...claims }, options);
    tokens.push(t);
    return t;
  }
  const check = async (a: OidcAuthenticator, token: string) => {
    const r = await a.authenticateToken(token, []);
    if (r.kind === "rejected")
      for (const t of tokens) assert.ok(!r.reason.includes(t), "reason quotes the token");
    return r;
  };

  before(async () => {
    issuer = await startTestIssuer();
  });
  after(async () => {
    for (const a of opened) await a.close();
    await issuer.close();
  });

  it("authenticates a token of the issuer, prefixing the subject with the issuer URL", async () => {
    const a = await make();
    assert.equal(a.initialized, true);
    const r = await check(a, await sign({}));
    assert.deepEqual(r, {
      kind: "user",
      user: { username: `${issuer.url}#u1`, uid: "", groups: [], extra: {} },
    });
  });

  it("maps the email claim (no default prefix), groups with prefix, and accepts an aud list", async () => {
    const a = await make({ usernameClaim: "email", groupsClaim: "groups", groupsPrefix: "oidc:" });
    const r = await check(
      a,
      await sign({
        email: "jane@example.com",
        email_verified: true,
        groups: ["dev", "ops"],
        aud: ["other", "gateway"],
      }),
    );
    assert.deepEqual(r, {
      kind: "user",
      user: { username: "jane@example.com", uid: "", groups: ["oidc:dev", "oidc:ops"], extra: {} },
    });
    assert.equal(
      reasonOf(await check(a, await sign({ email: "jane@example.com", email_verified: false }))),
      "oidc: email not verified",
    );
  });

  it("honours an explicit prefix and - for none", async () => {
    const p = await make({ usernamePrefix: "sso:" });
    const n = await make({ usernamePrefix: "-" });
    const t = await sign({});
    assert.equal(
      (await check(p, t)).kind === "user" &&
        ((await check(p, t)) as { user: { username: string } }).user.username,
      "sso:u1",
    );
    assert.equal(((await check(n, t)) as { user: { username: string } }).user.username, "u1");
  });

  it("leaves tokens of other issuers and non-JWTs to other authenticators", async () => {
    const a = await make();
    assert.deepEqual(await check(a, await sign({ iss: "https://elsewhere.example" })), { kind: "none" });
    assert.deepEqual(await check(a, "opaque-static-token"), { kind: "none" });
    assert.deepEqual(await check(a, "a.b.c"), { kind: "none" });
  });

  it("rejects expired tokens and tokens not yet valid beyond the leeway", async () => {
    const a = await make();
    const now = Math.floor(Date.now() / 1000);
    assert.match(reasonOf(await check(a, await sign({ exp: now - 60 }))), /token is expired/);
    assert.match(reasonOf(await check(a, await sign({ exp: undefined }))), /no valid exp/);
    assert.match(reasonOf(await check(a, await sign({ nbf: now + 3600 }))), /before the nbf/);
    assert.equal((await check(a, await sign({ nbf: now + 60 }))).kind, "user", "within 5 minutes of skew");
  });

  it("rejects a token for another client", async () => {
    const a = await make();
    assert.match(
      reasonOf(await check(a, await sign({ aud: "someone-else" }))),
      /expected audience "gateway"/,
    );
    assert.match(reasonOf(await check(a, await sign({ aud: ["x", "y"] }))), /expected audience/);
    assert.match(reasonOf(await check(a, await sign({ aud: 7 }))), /malformed aud/);
  });

  it("rejects algorithms that are not allowed, including none and HMAC with the public key", async () => {
    const ecKid = await issuer.addKey({ alg: "ES256" });
    const rsOnly = await make();
    const es = await sign({}, { kid: ecKid });
    assert.match(
      reasonOf(await check(rsOnly, es)),
      /unsupported algorithm, expected \["RS256"\] got "ES256"/,
    );
    const both = await make({ signingAlgs: ["ES256", "RS256"] });
    assert.equal((await check(both, es)).kind, "user");

    const header = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const payload = header({ iss: issuer.url, sub: "u1", aud: "gateway", exp: inAnHour() });
    const unsigned = `${header({ alg: "none" })}.${payload}.`;
    assert.match(reasonOf(await check(both, unsigned)), /unsupported algorithm/);
    const hmac = await new SignJWT({ sub: "u1", aud: "gateway", exp: inAnHour(), iss: issuer.url })
      .setProtectedHeader({ alg: "HS256", kid: issuer.kids()[0] })
      .sign(new TextEncoder().encode(issuer.caPem));
    assert.match(reasonOf(await check(both, hmac)), /unsupported algorithm/);
  });

  it("rejects bad signatures and tokens signed by keys the issuer never published", async () => {
    const a = await make();
    const good = await sign({ sub: "u1" });
    const [h, , s] = good.split(".");
    const forged = `${h}.${base64url.encode(JSON.stringify({ iss: issuer.url, sub: "root", aud: "gateway", exp: inAnHour() }))}.${s}`;
    assert.match(reasonOf(await check(a, forged)), /failed to verify signature/);

    const hidden = await issuer.addKey({ publish: false });
    assert.match(reasonOf(await check(a, await sign({}, { kid: hidden }))), /no key with id "key-\d+"/);

    // A key of the issuer's algorithm but not the issuer's: signature fails.
    const { privateKey } = await generateKeyPair("RS256");
    const stranger = await new SignJWT({ iss: issuer.url, sub: "u1", aud: "gateway", exp: inAnHour() })
      .setProtectedHeader({ alg: "RS256", kid: issuer.kids()[0] })
      .sign(privateKey);
    assert.match(reasonOf(await check(a, stranger)), /failed to verify signature/);
  });

  it("follows a key rotation: a new key id makes it fetch the keys again", async () => {
    const a = await make();
    assert.equal((await check(a, await sign({}))).kind, "user");
    const before = issuer.hits.jwks;
    const rotated = await issuer.addKey();
    assert.equal((await check(a, await sign({}, { kid: rotated }))).kind, "user");
    assert.equal(issuer.hits.jwks, before + 1);
    // The known key is served from memory.
    assert.equal((await check(a, await sign({}, { kid: rotated }))).kind, "user");
    assert.equal(issuer.hits.jwks, before + 1);
  });

  it("spaces out key fetches caused by unknown key ids", async () => {
    const a = await make({ keyRefreshIntervalMs: 3_600_000 });
    assert.equal((await check(a, await sign({}))).kind, "user");
    const before = issuer.hits.jwks;
    const hidden = await issuer.addKey({ publish: false });
    for (let i = 0; i < 5; i++)
      assert.equal((await check(a, await sign({}, { kid: hidden }))).kind, "rejected");
    assert.equal(issuer.hits.jwks, before, "no fetch within the interval after the first load");
  });

  it("checks required claims and the groups claim's type", async () => {
    const a = await make({ requiredClaims: ["hd=example.com"], groupsClaim: "groups" });
    assert.equal((await check(a, await sign({ hd: "example.com", groups: "solo" }))).kind, "user");
    assert.equal(reasonOf(await check(a, await sign({}))), "oidc: required claim hd not present in ID token");
    assert.match(reasonOf(await check(a, await sign({ hd: "evil.com" }))), /value does not match/);
    assert.match(
      reasonOf(await check(a, await sign({ hd: "example.com", groups: 42 }))),
      /parse groups claim "groups"/,
    );
    assert.match(
      reasonOf(await check(a, await sign({ hd: "example.com", groups: { a: 1 } }))),
      /parse groups claim/,
    );
  });

  it("refuses a discovery document naming another issuer", async () => {
    issuer.discovery = { issuer: "https://impostor.example" };
    try {
      const a = await make({}, false);
      assert.equal(reasonOf(await check(a, await sign({}))), "oidc: authenticator not initialized");
      assert.equal(a.initialized, false);
    } finally {
      issuer.discovery = {};
    }
  });

  it("rejects while the issuer is down and recovers when it is back", async () => {
    issuer.failWith = 503;
    let a: OidcAuthenticator;
    try {
      a = await make({}, false);
      assert.equal(reasonOf(await check(a, await sign({}))), "oidc: authenticator not initialized");
    } finally {
      issuer.failWith = undefined;
    }
    await a.ready();
    assert.equal((await check(a, await sign({}))).kind, "user");
  });

  it("does not trust the issuer without its CA", async () => {
    const a = await make({ caPem: undefined }, false);
    assert.equal(reasonOf(await check(a, await sign({}))), "oidc: authenticator not initialized");
  });

  it("answers within its request timeout when the issuer accepts connections but never answers", async () => {
    const sockets: Socket[] = [];
    const silent: Server = createTcpServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const a = await make({ issuerUrl: url, requestTimeoutMs: 200, retryIntervalMs: 60_000 }, false);
      const token = await new SignJWT({ iss: url, sub: "u", aud: "gateway", exp: inAnHour() })
        .setProtectedHeader({ alg: "RS256" })
        .sign((await generateKeyPair("RS256")).privateKey);
      assert.equal(reasonOf(await a.authenticateToken(token, [])), "oidc: authenticator not initialized");
      assert.equal(reasonOf(await a.authenticateToken(token, [])), "oidc: authenticator not initialized");
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it("refuses bad configuration", () => {
    assert.throws(() => oidcAuthenticator({ issuerUrl: "http://idp", clientId: "c" }), /https/);
    assert.throws(() => oidcAuthenticator({ issuerUrl: "https://idp", clientId: "" }), /client id/);
    assert.throws(
      () => oidcAuthenticator({ issuerUrl: "https://idp", clientId: "c", signingAlgs: ["HS256"] }),
      /unsupported signing alg/,
    );
    assert.throws(
      () => oidcAuthenticator({ issuerUrl: "https://idp", clientId: "c", requiredClaims: ["nope"] }),
      /not key=value/,
    );
  });

  it("never throws on junk that claims to come from the issuer", async () => {
    const a = await make();
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const body = enc({ iss: issuer.url });
    for (const t of [
      `.${body}.`,
      `e30.${body}.e30`,
      `!!.${body}.!!`,
      `${enc({ alg: "RS256" })}.${body}.AAAA`,
      `${enc("x")}.${body}.x`,
    ]) {
      const r = await a.authenticateToken(t, []);
      assert.equal(r.kind, "rejected", t);
    }
    await delay(0);
  });
});
