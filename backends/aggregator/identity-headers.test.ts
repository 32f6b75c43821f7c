import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeExtraKey, forwardedHeaders } from "./identity-headers.ts";

describe("front-proxy headers", () => {
  it("carry the effective user and nothing a client sent as identity or credentials", () => {
    const out = forwardedHeaders(
      {
        accept: "application/json",
        "content-type": "application/json",
        authorization: "Bearer secret",
        "impersonate-user": "root",
        "Impersonate-Extra-Scopes": "x",
        "x-remote-user": "mallory",
        "x-remote-group": ["system:masters"],
        "x-remote-extra-scopes": "all",
        "x-custom-user": "eve",
        "x-custom-extra-foo": "bar",
        connection: "keep-alive",
        "transfer-encoding": "chunked",
        host: "gateway",
        "content-length": "12",
      },
      {
        username: "alice",
        groups: ["devs", "system:authenticated"],
        extra: { "acme.com/team": ["a b"], scopes: [] },
      },
      { names: ["X-Custom-User"], prefixes: ["X-Custom-Extra-"] },
    );
    assert.deepEqual(out, {
      accept: "application/json",
      "content-type": "application/json",
      "x-remote-user": "alice",
      "x-remote-group": ["devs", "system:authenticated"],
      "x-remote-extra-acme.com%2Fteam": ["a b"],
    });
  });

  it("escape extra keys as upstream's client does: bytes outside token characters, and %", () => {
    assert.equal(escapeExtraKey("scopes"), "scopes");
    assert.equal(escapeExtraKey("example.org/foo-bar_baz~1"), "example.org%2Ffoo-bar_baz~1");
    assert.equal(escapeExtraKey("a%b c"), "a%25b%20c");
    assert.equal(escapeExtraKey("ключ"), "%D0%BA%D0%BB%D1%8E%D1%87");
  });
});
