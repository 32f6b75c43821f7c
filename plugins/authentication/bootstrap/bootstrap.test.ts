import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AuthenticationResult, TokenAuthenticator } from "../authenticator.ts";
import { startTestPlane, type TestPlane } from "../serviceaccount/testing.ts";
import { bootstrapTokenAuthenticator } from "./bootstrap.ts";
import { bootstrapTokenExpiration } from "./secret.ts";

let plane: TestPlane;
let auth: TokenAuthenticator;

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** Creates `bootstrap-token-<id>` in the system namespace with the given (plain) data. */
async function tokenSecret(id: string, data: Record<string, string>, extra: Record<string, unknown> = {}) {
  await plane.create("secrets", plane.naming.systemNamespace, {
    metadata: { name: `bootstrap-token-${id}` },
    type: "bootstrap.cluster.io/token",
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
    ...extra,
  });
}

function valid(id: string, secret: string, more: Record<string, string> = {}) {
  return { "token-id": id, "token-secret": secret, "usage-bootstrap-authentication": "true", ...more };
}

function expectRejected(result: AuthenticationResult, pattern: RegExp, token: string) {
  assert.equal(result.kind, "rejected");
  if (result.kind !== "rejected") return;
  assert.match(result.reason, pattern);
  assert.ok(!result.reason.includes(token.split(".")[1] as string), "the reason never shows the secret");
}

before(async () => {
  plane = await startTestPlane("cluster");
  auth = bootstrapTokenAuthenticator({ naming: plane.naming, access: plane.access });
});
after(async () => {
  await plane.stop();
});

describe("bootstrap tokens", () => {
  it("authenticate as system:bootstrap:<id> in system:bootstrappers plus the extra groups", async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");
    await tokenSecret(
      "abcdef",
      valid("abcdef", "0123456789abcdef", {
        expiration: future,
        "auth-extra-groups": "system:bootstrappers:worker,system:bootstrappers:kubeadm:default-node-token",
        description: "join",
      }),
    );
    const result = await auth.authenticateToken("abcdef.0123456789abcdef", []);
    assert.deepEqual(result, {
      kind: "user",
      user: {
        username: "system:bootstrap:abcdef",
        uid: "",
        groups: [
          "system:bootstrappers",
          "system:bootstrappers:kubeadm:default-node-token",
          "system:bootstrappers:worker",
        ],
        extra: {},
      },
    });
  });

  it("leave other strings, and ids without a Secret, to other authenticators", async () => {
    for (const token of [
      "",
      "abcdef",
      "abcdef.0123456789abcde",
      "ABCDEF.0123456789abcdef",
      "abcdef.0123456789abcdef ",
      "abcdef:0123456789abcdef",
      "eyJhbGciOiJSUzI1NiJ9.e30.sig",
      "zzzzzz.0123456789abcdef",
    ]) {
      assert.deepEqual(await auth.authenticateToken(token, []), { kind: "none" }, token);
    }
  });

  it("reject a wrong secret, a mismatched id, a wrong type, and a Secret being deleted", async () => {
    await tokenSecret("aaaaaa", valid("aaaaaa", "0123456789abcdef"));
    const wrong = "aaaaaa.fedcba9876543210";
    expectRejected(await auth.authenticateToken(wrong, []), /does not match the token/, wrong);

    await tokenSecret("bbbbbb", valid("cccccc", "0123456789abcdef"));
    expectRejected(
      await auth.authenticateToken("bbbbbb.0123456789abcdef", []),
      /invalid value for key token-id/,
      "bbbbbb.0123456789abcdef",
    );

    await plane.create("secrets", plane.naming.systemNamespace, {
      metadata: { name: "bootstrap-token-dddddd" },
      type: "Opaque",
      data: { "token-id": b64("dddddd"), "token-secret": b64("0123456789abcdef") },
    });
    expectRejected(
      await auth.authenticateToken("dddddd.0123456789abcdef", []),
      /invalid type, expected bootstrap\.cluster\.io\/token/,
      "dddddd.0123456789abcdef",
    );

    await tokenSecret("eeeeee", valid("eeeeee", "0123456789abcdef"), {});
    await plane.registry("secrets").update(plane.naming.systemNamespace, "bootstrap-token-eeeeee", (cur) => ({
      ...(cur ?? {}),
      metadata: { ...((cur?.metadata as object) ?? {}), finalizers: ["example.com/hold"] },
    }));
    await plane.remove("secrets", plane.naming.systemNamespace, "bootstrap-token-eeeeee");
    expectRejected(
      await auth.authenticateToken("eeeeee.0123456789abcdef", []),
      /deleted and awaiting removal/,
      "eeeeee.0123456789abcdef",
    );

    // A token in another namespace is not a bootstrap token.
    await plane.create("secrets", "default", {
      metadata: { name: "bootstrap-token-ffffff" },
      type: "bootstrap.cluster.io/token",
      data: { "token-id": b64("ffffff"), "token-secret": b64("0123456789abcdef") },
    });
    assert.deepEqual(await auth.authenticateToken("ffffff.0123456789abcdef", []), { kind: "none" });
  });

  it("reject expired tokens, including unparseable expirations", async () => {
    await tokenSecret("gggggg", valid("gggggg", "0123456789abcdef", { expiration: "2000-01-01T00:00:00Z" }));
    expectRejected(
      await auth.authenticateToken("gggggg.0123456789abcdef", []),
      /has expired/,
      "gggggg.0123456789abcdef",
    );
    await tokenSecret("hhhhhh", valid("hhhhhh", "0123456789abcdef", { expiration: "tomorrow" }));
    expectRejected(
      await auth.authenticateToken("hhhhhh.0123456789abcdef", []),
      /has expired/,
      "hhhhhh.0123456789abcdef",
    );
    // The same token is good before its expiry on a moved clock.
    const early = bootstrapTokenAuthenticator({
      naming: plane.naming,
      access: plane.access,
      now: () => Date.parse("1999-12-31T00:00:00Z"),
    });
    assert.equal((await early.authenticateToken("gggggg.0123456789abcdef", [])).kind, "user");
  });

  it("reject tokens not marked for authentication", async () => {
    await tokenSecret("iiiiii", { "token-id": "iiiiii", "token-secret": "0123456789abcdef" });
    expectRejected(
      await auth.authenticateToken("iiiiii.0123456789abcdef", []),
      /not marked usage-bootstrap-authentication=true/,
      "iiiiii.0123456789abcdef",
    );
    await tokenSecret(
      "jjjjjj",
      valid("jjjjjj", "0123456789abcdef", { "usage-bootstrap-authentication": "yes" }),
    );
    expectRejected(
      await auth.authenticateToken("jjjjjj.0123456789abcdef", []),
      /not marked/,
      "jjjjjj.0123456789abcdef",
    );
  });

  it("reject extra groups outside system:bootstrappers:", async () => {
    for (const [id, groups] of [
      ["kkkkkk", "system:masters"],
      ["llllll", "system:bootstrappers:ok,system:masters"],
      ["mmmmmm", "system:bootstrappers:"],
      ["nnnnnn", "system:bootstrappers:Upper"],
      ["oooooo", "system:bootstrappers:a,"],
    ] as const) {
      await tokenSecret(id, valid(id, "0123456789abcdef", { "auth-extra-groups": groups }));
      const token = `${id}.0123456789abcdef`;
      expectRejected(await auth.authenticateToken(token, []), /auth-extra-groups/, token);
    }
  });
});

describe("bootstrap token expiration", () => {
  const secret = (expiration?: string) => ({
    metadata: { name: "bootstrap-token-abcdef" },
    data: expiration === undefined ? {} : { expiration: b64(expiration) },
  });
  it("reads RFC 3339 times with offsets and fractions; none never expires", () => {
    const at = Date.parse("2030-01-01T00:00:00Z");
    assert.deepEqual(bootstrapTokenExpiration(secret(), at), { expired: false });
    assert.deepEqual(bootstrapTokenExpiration(secret("2030-01-01T01:00:00+01:00"), at - 1), {
      expired: false,
      expiresAt: at,
    });
    assert.deepEqual(bootstrapTokenExpiration(secret("2030-01-01T00:00:00.5Z"), at), {
      expired: false,
      expiresAt: at + 500,
    });
    assert.deepEqual(bootstrapTokenExpiration(secret("2030-01-01T00:00:00Z"), at), { expired: true });
    assert.deepEqual(bootstrapTokenExpiration(secret("2030-01-01"), 0), { expired: true });
    assert.deepEqual(bootstrapTokenExpiration({ metadata: { name: "x" } }, 0), { expired: false });
  });
});
