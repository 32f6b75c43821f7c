import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { outgoingHeaders, returnedHeaders, rewriteLocation } from "./forward.ts";

const target = { protocol: "http:" as const, host: "10.0.0.1:8080" };
const prefix = "/api/v1/namespaces/ns/services/web/proxy";

describe("proxy forwarding", () => {
  it("moves redirects on the target's or the gateway's host under the proxy path", () => {
    const rewrite = (location: string) => rewriteLocation(location, target, "gw.example:6443", prefix);
    assert.equal(rewrite("/login?next=/x"), `${prefix}/login?next=/x`);
    assert.equal(rewrite("/dir/"), `${prefix}/dir/`);
    assert.equal(rewrite("http://10.0.0.1:8080/a#top"), `${prefix}/a#top`);
    // The gateway's own origin stays, its path moved.
    assert.equal(rewrite("https://gw.example:6443/a"), `https://gw.example:6443${prefix}/a`);
    // Already under the proxy path, relative, or elsewhere: left alone.
    assert.equal(rewrite(`${prefix}/b`), `${prefix}/b`);
    assert.equal(rewrite("next/page"), "next/page");
    assert.equal(rewrite("https://other.example/a"), "https://other.example/a");
    assert.equal(rewrite("//other.example/a"), "//other.example/a");
    assert.equal(rewrite("http://10.0.0.1:8080"), "http://10.0.0.1:8080");
  });

  it("sends no credentials, hop-by-hop headers or stale length on", () => {
    const out = outgoingHeaders(
      {
        authorization: "Bearer secret",
        "impersonate-user": "someone",
        "impersonate-group": ["a", "b"],
        connection: "keep-alive, X-Hop",
        "x-hop": "1",
        "keep-alive": "timeout=5",
        "proxy-authorization": "Basic x",
        te: "trailers, deflate",
        upgrade: "websocket",
        "content-length": "12",
        "content-type": "text/plain",
        cookie: "a=b",
        "x-forwarded-for": "10.9.9.9",
      },
      "192.0.2.7",
      `${prefix}/x`,
    );
    assert.deepEqual(out, {
      "content-type": "text/plain",
      cookie: "a=b",
      te: "trailers",
      "x-forwarded-for": "10.9.9.9, 192.0.2.7",
      "x-forwarded-uri": `${prefix}/x`,
    });
  });

  it("returns the answer's headers without hop-by-hop or CORS ones", () => {
    const back = returnedHeaders(
      {
        "content-type": "text/html",
        "transfer-encoding": "chunked",
        connection: "close",
        "access-control-allow-origin": "*",
        "access-control-allow-credentials": "true",
        "set-cookie": ["a=1", "b=2"],
        location: "/next",
      },
      (l) => `${prefix}${l}`,
    );
    assert.deepEqual(back, {
      "content-type": "text/html",
      "set-cookie": ["a=1", "b=2"],
      location: `${prefix}/next`,
    });
  });
});
