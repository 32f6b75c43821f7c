import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readV3Document, readV3Index } from "./remote.ts";

describe("readV3Index", () => {
  const index = JSON.stringify({
    paths: {
      "apis/ext.example.com/v1": { serverRelativeURL: "/openapi/v3/apis/ext.example.com/v1?hash=ABC" },
      "api/v1": { serverRelativeURL: "/openapi/v3/api/v1?hash=DEF" },
    },
  });

  it("gives the group version's server-relative URL, or none when it is not listed", () => {
    assert.equal(
      readV3Index(index, "apis/ext.example.com/v1"),
      "/openapi/v3/apis/ext.example.com/v1?hash=ABC",
    );
    assert.equal(readV3Index(index, "apis/ext.example.com/v2"), undefined);
  });

  it("refuses what is not an index, and URLs that are not server-relative", () => {
    assert.throws(() => readV3Index("garbage", "apis/a/v1"), SyntaxError);
    assert.throws(() => readV3Index(JSON.stringify({ paths: [] }), "apis/a/v1"), /has no paths/);
    assert.throws(
      () =>
        readV3Index(
          JSON.stringify({ paths: { "apis/a/v1": { serverRelativeURL: "https://elsewhere/x" } } }),
          "apis/a/v1",
        ),
      /no server-relative URL/,
    );
    assert.throws(
      () => readV3Index(JSON.stringify({ paths: { "apis/a/v1": "x" } }), "apis/a/v1"),
      /no server-relative URL/,
    );
  });
});

describe("readV3Document", () => {
  it("keeps an OpenAPI document's bytes as sent", () => {
    const body = '{"openapi":"3.0.0","paths":{},"components":{"schemas":{}}}';
    assert.equal(readV3Document(body).toString(), body);
  });

  it("refuses anything else", () => {
    assert.throws(() => readV3Document("<html>"), SyntaxError);
    assert.throws(() => readV3Document('{"swagger":"2.0","paths":{}}'), /not an OpenAPI object/);
    assert.throws(() => readV3Document('{"openapi":"3.0.0","paths":[]}'), /not an OpenAPI object/);
  });
});
