import assert from "node:assert/strict";
import { Socket } from "node:net";
import { after, describe, it } from "node:test";
import { TLSSocket } from "node:tls";
import type { AuthenticationResult, Authenticator } from "./authenticator.ts";
import { ANONYMOUS, authenticate } from "./union.ts";

// These authenticators never look at the connection; an unconnected socket stands in.
const socket = new TLSSocket(new Socket());
after(() => socket.destroy());
const req = { headers: { authorization: "Bearer s3cr3t" }, socket };

const answering = (name: string, result: AuthenticationResult): Authenticator => ({
  name,
  authenticate: () => result,
});
const user = (username: string, groups: string[] = []): AuthenticationResult => ({
  kind: "user",
  user: { username, uid: "", groups, extra: {} },
});

describe("authenticate (union)", () => {
  it("lets the first user win and adds system:authenticated once", async () => {
    const r = await authenticate(
      [
        answering("a", { kind: "none" }),
        answering("b", { kind: "rejected", reason: "bad" }),
        answering("c", user("carol", ["system:authenticated", "x"])),
        answering("d", user("dave")),
      ],
      req,
      false,
    );
    assert.deepEqual(r, {
      user: { username: "carol", uid: "", groups: ["system:authenticated", "x"], extra: {} },
    });
    const r2 = await authenticate([answering("d", user("dave", ["g"]))], req, false);
    assert.deepEqual("user" in r2 && r2.user.groups, ["g", "system:authenticated"]);
  });

  it("hands out one user per cached answer, leaving the answer's own groups alone", async () => {
    const cached = answering("cache", user("erin", ["g"]));
    const first = await authenticate([cached], req, false);
    const second = await authenticate([cached], req, false);
    assert.ok("user" in first && "user" in second);
    assert.equal(first.user, second.user);
    assert.deepEqual(first.user.groups, ["g", "system:authenticated"]);
    assert.deepEqual((await cached.authenticate(req)) as unknown, user("erin", ["g"]));
  });

  it("rejects an invalid credential even when anonymous access is on", async () => {
    const r = await authenticate([answering("a", { kind: "rejected", reason: "expired" })], req, true);
    assert.deepEqual(r, { rejected: "a: expired" });
  });

  it("falls back to anonymous only without any credential", async () => {
    assert.deepEqual(await authenticate([answering("a", { kind: "none" })], req, true), { user: ANONYMOUS });
    assert.deepEqual(await authenticate([answering("a", { kind: "none" })], req, false), {
      rejected: "no credentials",
    });
  });

  it("turns a throwing authenticator (sync or async) into a rejection without its message", async () => {
    const syncThrow: Authenticator = {
      name: "sync",
      authenticate(r) {
        throw new TypeError(`bad header ${String(r.headers.authorization)}`);
      },
    };
    const asyncThrow: Authenticator = {
      name: "async",
      async authenticate(r) {
        throw new Error(`bad header ${String(r.headers.authorization)}`);
      },
    };
    const r = await authenticate([syncThrow, asyncThrow], req, true);
    assert.deepEqual(r, { rejected: "sync: internal error (TypeError); async: internal error (Error)" });
    const r2 = await authenticate([syncThrow, answering("ok", user("alice"))], req, false);
    assert.ok("user" in r2 && r2.user.username === "alice");
  });
});
