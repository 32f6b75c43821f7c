import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ClaimRules, parseRequiredClaims, resolveUsernamePrefix, userFromClaims } from "./claims.ts";

const ISS = "https://idp.example";
const rules = (over: Partial<ClaimRules> = {}): ClaimRules => ({
  usernameClaim: "sub",
  usernamePrefix: "",
  groupsPrefix: "",
  requiredClaims: new Map(),
  ...over,
});
const errorOf = (r: ReturnType<typeof userFromClaims>) => ("error" in r ? r.error : undefined);

describe("resolveUsernamePrefix", () => {
  it("defaults to <issuer># unless the claim is email; - turns prefixing off", () => {
    assert.equal(resolveUsernamePrefix(ISS, "sub", undefined), `${ISS}#`);
    assert.equal(resolveUsernamePrefix(ISS, "sub", ""), `${ISS}#`);
    assert.equal(resolveUsernamePrefix(ISS, "email", undefined), "");
    assert.equal(resolveUsernamePrefix(ISS, "email", "oidc:"), "oidc:");
    assert.equal(resolveUsernamePrefix(ISS, "sub", "-"), "");
    assert.equal(resolveUsernamePrefix(ISS, "email", "-"), "");
  });
});

describe("parseRequiredClaims", () => {
  it("splits at the first =", () => {
    assert.deepEqual(
      [...parseRequiredClaims(["hd=example.com", "x=a=b", "y="])],
      [
        ["hd", "example.com"],
        ["x", "a=b"],
        ["y", ""],
      ],
    );
    assert.throws(() => parseRequiredClaims(["novalue"]), /not key=value/);
    assert.throws(() => parseRequiredClaims(["=v"]), /not key=value/);
  });
});

describe("userFromClaims", () => {
  it("prefixes the user name and groups", () => {
    const r = userFromClaims(
      { sub: "u1", roles: ["a", "b"] },
      rules({ usernamePrefix: `${ISS}#`, groupsClaim: "roles", groupsPrefix: "oidc:" }),
    );
    assert.deepEqual(r, {
      user: { username: `${ISS}#u1`, uid: "", groups: ["oidc:a", "oidc:b"], extra: {} },
    });
  });

  it("refuses a missing, non-string or empty user name claim", () => {
    assert.match(
      errorOf(userFromClaims({}, rules())) ?? "",
      /parse username claims "sub": claim not present/,
    );
    assert.match(errorOf(userFromClaims({ sub: 5 }, rules())) ?? "", /not a string/);
    assert.match(errorOf(userFromClaims({ sub: "" }, rules())) ?? "", /empty/);
  });

  it("with the email claim, refuses email_verified false or not a boolean", () => {
    const email = rules({ usernameClaim: "email" });
    assert.ok("user" in userFromClaims({ email: "a@b.c" }, email));
    assert.ok("user" in userFromClaims({ email: "a@b.c", email_verified: true }, email));
    assert.equal(
      errorOf(userFromClaims({ email: "a@b.c", email_verified: false }, email)),
      "oidc: email not verified",
    );
    assert.match(
      errorOf(userFromClaims({ email: "a@b.c", email_verified: "true" }, email)) ?? "",
      /email_verified/,
    );
    // Other claims do not look at email_verified.
    assert.ok("user" in userFromClaims({ sub: "x", email_verified: false }, rules()));
  });

  it("accepts a single string as one group and no claim as none; refuses other shapes", () => {
    const g = rules({ groupsClaim: "groups" });
    const groupsOf = (claims: Record<string, unknown>) => {
      const r = userFromClaims(claims, g);
      return "user" in r ? r.user.groups : r.error;
    };
    assert.deepEqual(groupsOf({ sub: "x", groups: "admins" }), ["admins"]);
    assert.deepEqual(groupsOf({ sub: "x" }), []);
    assert.deepEqual(groupsOf({ sub: "x", groups: null }), []);
    for (const bad of [5, { a: 1 }, ["a", 2], true]) {
      assert.match(
        errorOf(userFromClaims({ sub: "x", groups: bad }, g)) ?? "",
        /parse groups claim "groups"/,
        JSON.stringify(bad),
      );
    }
  });

  it("checks required claims: present, a string, equal", () => {
    const req = rules({ requiredClaims: new Map([["hd", "example.com"]]) });
    assert.ok("user" in userFromClaims({ sub: "x", hd: "example.com" }, req));
    assert.equal(
      errorOf(userFromClaims({ sub: "x" }, req)),
      "oidc: required claim hd not present in ID token",
    );
    assert.match(errorOf(userFromClaims({ sub: "x", hd: ["example.com"] }, req)) ?? "", /parse claim hd/);
    assert.match(errorOf(userFromClaims({ sub: "x", hd: "evil.com" }, req)) ?? "", /value does not match/);
  });
});
