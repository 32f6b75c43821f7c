import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import Fastify from "fastify";
import { naming } from "../backends/naming/index.ts";
import type { ResourceSchema } from "../backends/schema/index.ts";
import type { Authenticator } from "../plugins/authentication/index.ts";
import { type Authorizer, alwaysAllow } from "../plugins/authorization/index.ts";
import { accessGuard } from "./authorization/index.ts";
import { configMaps, namespaces, v3SupportsFieldValidation, widgets } from "./openapi/testing.ts";
import { decodeV2Document } from "./openapi/v2-proto.ts";
import { registerOpenApi } from "./openapi-routes.ts";

const V2_PB = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
type Json = Record<string, unknown>;

describe("registerOpenApi", async () => {
  let schemas: readonly ResourceSchema[] = [configMaps, namespaces];
  let calls = 0;
  const app = Fastify();
  const n = naming("kubernetes");
  registerOpenApi(app, {
    naming: n,
    guard: accessGuard({ authenticators: [], anonymousAuth: true, authorizer: alwaysAllow(), naming: n }),
    schemas: () => {
      calls++;
      return schemas;
    },
  });
  await app.ready();
  after(() => app.close());

  const index = async () => {
    const res = await app.inject({ url: "/openapi/v3" });
    return (res.json() as { paths: Record<string, { serverRelativeURL: string }> }).paths;
  };

  it("serves the v3 index as JSON with an entity tag", async () => {
    const res = await app.inject({ url: "/openapi/v3" });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["content-type"], "application/json");
    assert.match(String(res.headers.etag), /^"[0-9A-F]{128}"$/);
    assert.ok(res.headers["last-modified"]);
    assert.deepEqual(Object.keys((res.json() as { paths: Json }).paths), ["api/v1"]);
    const again = await app.inject({
      url: "/openapi/v3",
      headers: { "if-none-match": String(res.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, "");
  });

  it("serves a group version's document, immutable under its hash", async () => {
    const url = (await index())["api/v1"]!.serverRelativeURL;
    const hash = new URL(url, "https://x").searchParams.get("hash");
    const res = await app.inject({ url, headers: { accept: "application/json" } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["content-type"], "application/json");
    assert.equal(res.headers.etag, `"${hash}"`);
    assert.equal(res.headers.vary, "Accept");
    assert.equal(res.headers["cache-control"], "public, immutable");
    const expires = Date.parse(String(res.headers.expires));
    assert.ok(expires > Date.now() + 360 * 24 * 3600 * 1000);
    const doc = res.json() as Json;
    assert.equal(doc.openapi, "3.0.0");
    assert.equal(v3SupportsFieldValidation(doc, { group: "", version: "v1", kind: "ConfigMap" }), true);

    const plain = await app.inject({ url: "/openapi/v3/api/v1" });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers["cache-control"], undefined);
    const cached = await app.inject({ url, headers: { "if-none-match": `"${hash}"` } });
    assert.equal(cached.statusCode, 304);
  });

  it("redirects a stale hash to the current document", async () => {
    const res = await app.inject({ url: "/openapi/v3/api/v1?hash=ABC" });
    assert.equal(res.statusCode, 301);
    assert.equal(res.headers.location, (await index())["api/v1"]!.serverRelativeURL);
  });

  it("answers JSON when protobuf is merely preferred, 406 when only protobuf is acceptable", async () => {
    const preferred = await app.inject({
      url: "/openapi/v3/api/v1",
      headers: { accept: "application/com.github.proto-openapi.spec.v3@v1.0+protobuf, application/json" },
    });
    assert.equal(preferred.statusCode, 200);
    assert.equal(preferred.headers["content-type"], "application/json");
    const only = await app.inject({
      url: "/openapi/v3/api/v1",
      headers: { accept: "application/com.github.proto-openapi.spec.v3.v1.0+protobuf" },
    });
    assert.equal(only.statusCode, 406);
    assert.equal((only.json() as { reason: string }).reason, "NotAcceptable");
  });

  it("answers an unknown group version with 404", async () => {
    assert.equal((await app.inject({ url: "/openapi/v3/apis/foo/v1" })).statusCode, 404);
    assert.equal((await app.inject({ url: "/openapi/v3/" })).statusCode, 404);
  });

  it("serves v2 as JSON or gnostic protobuf by Accept, 406 otherwise", async () => {
    const json = await app.inject({ url: "/openapi/v2", headers: { accept: "application/json" } });
    assert.equal(json.statusCode, 200);
    assert.equal(json.headers["content-type"], "application/json");
    assert.equal(json.headers.vary, "Accept");
    assert.equal((json.json() as { swagger: string }).swagger, "2.0");

    const pb = await app.inject({ url: "/openapi/v2", headers: { accept: V2_PB } });
    assert.equal(pb.statusCode, 200);
    assert.equal(pb.headers["content-type"], "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    assert.equal(pb.headers.etag, json.headers.etag);
    const decoded = decodeV2Document(pb.rawPayload) as { swagger: string };
    assert.equal(decoded.swagger, "2.0");

    const none = await app.inject({ url: "/openapi/v2" });
    assert.equal(none.headers["content-type"], "application/json", "no Accept is */*");

    const legacy = await app.inject({ url: "/swagger-2.0.0.pb-v1" });
    assert.equal(legacy.statusCode, 200);
    assert.deepEqual(legacy.rawPayload, pb.rawPayload);

    const bad = await app.inject({ url: "/openapi/v2", headers: { accept: "text/html" } });
    assert.equal(bad.statusCode, 406);
    assert.equal((bad.json() as { kind: string }).kind, "Status");
  });

  it("rebuilds when the schema set changes", async () => {
    const before = calls;
    const first = await index();
    schemas = [configMaps, namespaces, widgets];
    const second = await index();
    assert.ok(calls > before);
    assert.equal(second["api/v1"]!.serverRelativeURL, first["api/v1"]!.serverRelativeURL);
    assert.ok(second["apis/stable.example.com/v1"]);
    const res = await app.inject({ url: second["apis/stable.example.com/v1"]!.serverRelativeURL });
    assert.equal(res.statusCode, 200);
  });
});

describe("registerOpenApi behind the access guard", async () => {
  // Bearer "alice" or "bob" names the user; other credentials are refused.
  const tokens: Authenticator = {
    name: "test",
    authenticate: (req) => {
      const auth = req.headers.authorization;
      if (typeof auth !== "string") return { kind: "none" };
      const name = auth.replace(/^Bearer /, "");
      if (name !== "alice" && name !== "bob") return { kind: "rejected", reason: "unknown token" };
      return { kind: "user", user: { username: name, uid: "", groups: [], extra: {} } };
    },
  };
  // Like RBAC's system:discovery: authenticated users may get /openapi and below.
  const discovery: Authorizer = {
    name: "test",
    authorize: (a) =>
      a.user.groups.includes("system:authenticated") &&
      a.user.username === "alice" &&
      a.verb === "get" &&
      (a.path === "/openapi" || a.path.startsWith("/openapi/") || a.path === "/swagger-2.0.0.pb-v1")
        ? { decision: "allow", reason: "" }
        : { decision: "noOpinion", reason: "" },
  };
  const n = naming("cluster");
  const app = Fastify();
  registerOpenApi(app, {
    naming: n,
    schemas: () => [configMaps],
    guard: accessGuard({ authenticators: [tokens], anonymousAuth: true, authorizer: discovery, naming: n }),
  });
  await app.ready();
  after(() => app.close());

  it("serves authorized users; 401 for a refused credential, 403 for anonymous and other users", async () => {
    for (const url of ["/openapi/v3", "/openapi/v3/api/v1", "/openapi/v2", "/swagger-2.0.0.pb-v1"]) {
      const ok = await app.inject({ url, headers: { authorization: "Bearer alice" } });
      assert.equal(ok.statusCode, 200, url);
      const bad = await app.inject({ url, headers: { authorization: "Bearer mallory" } });
      assert.equal(bad.statusCode, 401, url);
      assert.equal((bad.json() as { reason: string }).reason, "Unauthorized");
      const path = new URL(url, "https://x").pathname;
      const anonymous = await app.inject({ url });
      assert.equal(anonymous.statusCode, 403, url);
      assert.deepEqual(anonymous.json(), {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `forbidden: User "system:anonymous" cannot get path "${path}"`,
        reason: "Forbidden",
        details: {},
        code: 403,
      });
      const bob = await app.inject({ url, headers: { authorization: "Bearer bob" } });
      assert.equal(bob.statusCode, 403, url);
    }
  });
});
