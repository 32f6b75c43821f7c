import assert from "node:assert/strict";
import { Socket } from "node:net";
import { after, describe, it } from "node:test";
import { TLSSocket } from "node:tls";
import { clientNames } from "../../backends/naming/index.ts";
import type { AuthenticationResult, TokenAuthenticator } from "./authenticator.ts";
import {
  audienceAgnostic,
  bearerAuthenticator,
  INVALID_BEARER_TOKEN,
  tokenUnion,
  webSocketProtocolAuthenticator,
} from "./bearer.ts";

// The bearer authenticator never looks at the connection; an unconnected socket stands in.
const socket = new TLSSocket(new Socket());
after(() => socket.destroy());

/** A token authenticator over a fixed table, as the static token file is. */
function table(name: string, tokens: Record<string, string>): TokenAuthenticator & { seen: string[][] } {
  const seen: string[][] = [];
  return {
    name,
    seen,
    authenticateToken(token, audiences) {
      seen.push([...audiences]);
      const username = tokens[token];
      return username
        ? { kind: "user", user: { username, uid: "", groups: [], extra: {} } }
        : { kind: "none" };
    },
  };
}

const rejecting: TokenAuthenticator = {
  name: "strict",
  authenticateToken: (token) =>
    token.startsWith("bad") ? { kind: "rejected", reason: "signature invalid" } : { kind: "none" },
};

const throwing: TokenAuthenticator = {
  name: "broken",
  authenticateToken(token) {
    throw new Error(`cannot parse ${token}`);
  },
};

const auth = (a: ReturnType<typeof bearerAuthenticator>, authorization?: string | string[]) =>
  a.authenticate({ headers: { authorization }, socket });

const username = (r: AuthenticationResult) => (r.kind === "user" ? r.user.username : r.kind);

describe("bearerAuthenticator", () => {
  const bearer = bearerAuthenticator([table("file", { t1: "alice" }), rejecting], ["api"]);

  it("reads the token after a case-insensitive Bearer", async () => {
    assert.equal(username(await auth(bearer, "Bearer t1")), "alice");
    assert.equal(username(await auth(bearer, "bearer t1")), "alice");
    assert.equal(username(await auth(bearer, "BEARER t1")), "alice");
    assert.equal(username(await auth(bearer, "  Bearer t1  ")), "alice");
    // Upstream takes the second space-separated part and ignores the rest.
    assert.equal(username(await auth(bearer, "Bearer t1 trailing")), "alice");
  });

  it("answers none without a header, with another scheme or with an empty token", async () => {
    for (const h of [
      undefined,
      "",
      "   ",
      "Basic dDE=",
      "Bearer",
      "Bearer ",
      "Bearer  t1",
      "Bearert1",
      "t1",
    ]) {
      assert.deepEqual(await auth(bearer, h), { kind: "none" }, JSON.stringify(h));
    }
  });

  it("takes the first of repeated headers", async () => {
    assert.equal(username(await auth(bearer, ["Bearer t1", "Bearer nope"])), "alice");
    assert.equal(username(await auth(bearer, ["Bearer nope", "Bearer t1"])), "rejected");
  });

  it("rejects a token nobody knows with upstream's message, and keeps other rejections' reasons", async () => {
    assert.deepEqual(await auth(bearer, "Bearer unknown"), {
      kind: "rejected",
      reason: INVALID_BEARER_TOKEN,
    });
    assert.deepEqual(await auth(bearer, "Bearer bad1"), {
      kind: "rejected",
      reason: "strict: signature invalid",
    });
  });

  it("asks the token authenticators for the server's audiences", async () => {
    const t = table("file", { t1: "alice" });
    await auth(bearerAuthenticator([t], ["api", "other"]), "Bearer t1");
    assert.deepEqual(t.seen, [["api", "other"]]);
  });

  it("refuses a user whose token is good only for other audiences", async () => {
    const foreign: TokenAuthenticator = {
      name: "sa",
      authenticateToken: () => ({
        kind: "user",
        user: { username: "x", uid: "", groups: [], extra: {} },
        audiences: ["elsewhere"],
      }),
    };
    assert.equal((await auth(bearerAuthenticator([foreign], ["api"]), "Bearer t")).kind, "rejected");
    assert.equal((await auth(bearerAuthenticator([foreign], []), "Bearer t")).kind, "user");
  });

  it("turns a throwing token authenticator into a rejection that does not quote the token", async () => {
    const r = await auth(bearerAuthenticator([throwing], []), "Bearer s3cr3t");
    assert.equal(r.kind, "rejected");
    assert.ok(r.kind === "rejected" && !r.reason.includes("s3cr3t"));
    assert.equal(
      username(
        await auth(bearerAuthenticator([throwing, table("f", { s3cr3t: "bob" })], []), "Bearer s3cr3t"),
      ),
      "bob",
    );
  });
});

describe("tokenUnion", () => {
  it("lets the first user win, even after a rejection", async () => {
    const u = tokenUnion([rejecting, table("a", { bad1: "alice" }), table("b", { bad1: "bob" })]);
    assert.equal(username(await u.authenticateToken("bad1", [])), "alice");
  });

  it("answers none when nobody knows the token and joins rejections otherwise", async () => {
    const u = tokenUnion([table("a", {}), rejecting, throwing]);
    assert.deepEqual(await tokenUnion([table("a", {})]).authenticateToken("x", []), { kind: "none" });
    const r = await u.authenticateToken("bad2", []);
    assert.equal(r.kind, "rejected");
    assert.match(
      r.kind === "rejected" ? r.reason : "",
      /^strict: signature invalid; broken: internal error \(Error\)$/,
    );
  });
});

describe("audienceAgnostic", () => {
  const inner = table("file", { t1: "alice" });
  const wrapped = audienceAgnostic(inner, ["api", "api2"]);

  it("passes through when no audiences are asked for", async () => {
    assert.deepEqual(await wrapped.authenticateToken("t1", []), await inner.authenticateToken("t1", []));
  });

  it("answers with the shared audiences when some of the server's are asked for", async () => {
    const r = await wrapped.authenticateToken("t1", ["api2", "x"]);
    assert.equal(r.kind, "user");
    assert.deepEqual(r.kind === "user" ? r.audiences : undefined, ["api2"]);
  });

  it("does not claim tokens for other audiences, nor unknown tokens", async () => {
    assert.deepEqual(await wrapped.authenticateToken("t1", ["elsewhere"]), { kind: "none" });
    assert.deepEqual(await wrapped.authenticateToken("nope", ["api"]), { kind: "none" });
  });
});

describe("webSocketProtocolAuthenticator", () => {
  const ws = webSocketProtocolAuthenticator([table("file", { t1: "alice", tök: "bob" }), rejecting], ["api"]);
  const upgrade = { connection: "Upgrade", upgrade: "websocket" };
  const entry = (token: string) =>
    `${clientNames.webSocketBearerProtocolPrefix}${Buffer.from(token).toString("base64url")}`;
  const reason = (r: AuthenticationResult) => (r.kind === "rejected" ? r.reason : r.kind);
  const authWs = (headers: Record<string, string | string[] | undefined>) =>
    ws.authenticate({ headers, socket });

  it("reads the token from its subprotocol entry beside another, in any header line", async () => {
    const one = await authWs({ ...upgrade, "sec-websocket-protocol": `${entry("t1")}, watch` });
    assert.equal(username(one), "alice");
    const lines = await authWs({ ...upgrade, "sec-websocket-protocol": ["watch", entry("tök")] });
    assert.equal(username(lines), "bob");
  });

  it("answers none for other requests and handshakes without the entry", async () => {
    const protocol = { "sec-websocket-protocol": `${entry("t1")}, watch` };
    assert.equal(username(await authWs({ ...protocol })), "none");
    assert.equal(
      username(await authWs({ ...protocol, connection: "keep-alive", upgrade: "websocket" })),
      "none",
    );
    assert.equal(username(await authWs({ ...upgrade, "sec-websocket-protocol": "watch" })), "none");
  });

  it("rejects with upstream's reasons", async () => {
    const cases: [string, string][] = [
      [`${entry("t1")}, ${entry("t1")}, x`, "multiple base64.bearer.authorization tokens specified"],
      [
        `${clientNames.webSocketBearerProtocolPrefix}dDE=, x`,
        "invalid base64.bearer.authorization token encoding",
      ],
      [
        `${clientNames.webSocketBearerProtocolPrefix}A, x`,
        "invalid base64.bearer.authorization token encoding",
      ],
      [`${clientNames.webSocketBearerProtocolPrefix}_w, x`, "invalid base64.bearer.authorization token"],
      [entry("t1"), "missing additional subprotocol"],
      [`${entry("unknown")}, x`, INVALID_BEARER_TOKEN],
      [`${entry("bad")}, x`, "strict: signature invalid"],
    ];
    for (const [header, expected] of cases) {
      assert.equal(reason(await authWs({ ...upgrade, "sec-websocket-protocol": header })), expected, header);
    }
  });
});
