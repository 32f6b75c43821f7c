// Patches and applies the server refuses, over HTTPS: each gets a 4xx Status and nothing is
// written. Also the permission rule of apply: creating through it needs `create`.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type AccessTestGateway,
  startAccessGateway,
  type TestClient,
} from "../gateway/authorization/testing.ts";
import type { Authorizer } from "../plugins/authorization/index.ts";

// admin may do anything; alice may read and patch configmaps in "default", never create.
const authorizer: Authorizer = {
  name: "test",
  authorize(a) {
    if (a.user.username === "admin") return { decision: "allow", reason: "" };
    if (a.user.username === "alice" && a.resource === "configmaps" && ["get", "patch"].includes(a.verb))
      return { decision: "allow", reason: "" };
    return { decision: "noOpinion", reason: "" };
  },
};

const CM = "/api/v1/namespaces/default/configmaps";
const APPLY = { "content-type": "application/apply-patch+yaml" };
const JSON_PATCH = { "content-type": "application/json-patch+json" };
const MERGE = { "content-type": "application/merge-patch+json" };

describe("patches refused", () => {
  let gw: AccessTestGateway;
  let admin: TestClient;
  let version: string;
  before(async () => {
    gw = await startAccessGateway({ authorizer });
    admin = await gw.client("admin");
    const made = await admin.call("POST", CM, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "keep" }, data: { a: "1" } },
    });
    assert.equal(made.status, 201, made.text);
    version = (made.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  });
  after(() => gw?.stop());

  const unchanged = async () => {
    const got = await admin.call("GET", `${CM}/keep`);
    const body = got.body as { metadata: { resourceVersion: string }; data: unknown };
    assert.equal(body.metadata.resourceVersion, version, "nothing was written");
    assert.deepEqual(body.data, { a: "1" });
  };

  const cases: [string, string, Record<string, string>, string, number, RegExp][] = [
    [
      "apply without fieldManager",
      "",
      APPLY,
      '{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"2"}}',
      422,
      /PatchOptions.*fieldManager: Required value: is required for apply patch/,
    ],
    [
      "apply carrying managedFields",
      "?fieldManager=m",
      APPLY,
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"managedFields":[]},"data":{"a":"2"}}',
      400,
      /metadata.managedFields must be nil/,
    ],
    [
      "apply of another kind",
      "?fieldManager=m",
      APPLY,
      '{"apiVersion":"v1","kind":"Secret","data":{"a":"2"}}',
      400,
      /invalid object type: \/v1, Kind=Secret/,
    ],
    ["apply of bad YAML", "?fieldManager=m", APPLY, "data: [unclosed", 400, /could not be decoded/],
    [
      "force on a merge patch",
      "?force=true",
      MERGE,
      '{"data":{"a":"2"}}',
      422,
      /force: Forbidden: may not be specified for non-apply patch/,
    ],
    [
      "a fieldManager with a control character",
      "?fieldManager=a%01b",
      MERGE,
      '{"data":{"a":"2"}}',
      422,
      /invalid character U\+0001/,
    ],
    ["bad JSON in a merge patch", "", MERGE, '{"data":', 400, /could not be decoded/],
    [
      "a JSON patch removing a missing path",
      "",
      JSON_PATCH,
      '[{"op":"remove","path":"/data/nope"}]',
      422,
      /rejected our request/,
    ],
    [
      "a failing JSON patch test",
      "",
      JSON_PATCH,
      '[{"op":"replace","path":"/data/a","value":"2"},{"op":"test","path":"/data/a","value":"1"}]',
      422,
      /rejected our request/,
    ],
    [
      "a merge patch renaming the object",
      "",
      MERGE,
      '{"metadata":{"name":"other"}}',
      400,
      /does not match the name on the URL/,
    ],
    ["a merge patch changing the kind", "", MERGE, '{"kind":"Secret"}', 400, /kind/],
  ];
  for (const [name, query, headers, raw, status, message] of cases) {
    it(name, async () => {
      const res = await admin.call("PATCH", `${CM}/keep${query}`, { headers, raw });
      assert.equal(res.status, status, res.text);
      const body = res.body as { kind: string; message: string };
      assert.equal(body.kind, "Status");
      assert.match(body.message, message);
      await unchanged();
    });
  }

  it("more than 10,000 JSON patch operations", async () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: "add", path: "/data/x", value: "1" }));
    const res = await admin.call("PATCH", `${CM}/keep`, { headers: JSON_PATCH, raw: JSON.stringify(ops) });
    assert.equal(res.status, 413, res.text);
    await unchanged();
  });

  it("an apply that creates needs create permission; one that updates does not", async () => {
    const alice = await gw.client("alice");
    const config = (name: string) =>
      JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { b: "2" } });
    const denied = await alice.call("PATCH", `${CM}/new-one?fieldManager=alice`, {
      headers: APPLY,
      raw: config("new-one"),
    });
    assert.equal(denied.status, 403, denied.text);
    assert.match((denied.body as { message: string }).message, /cannot create resource "configmaps"/);
    assert.equal((await admin.call("GET", `${CM}/new-one`)).status, 404, "nothing was created");
    const allowed = await alice.call("PATCH", `${CM}/keep?fieldManager=alice`, {
      headers: APPLY,
      raw: config("keep"),
    });
    assert.equal(allowed.status, 200, allowed.text);
    const created = await admin.call("PATCH", `${CM}/new-one?fieldManager=admin`, {
      headers: APPLY,
      raw: config("new-one"),
    });
    assert.equal(created.status, 201, created.text);
  });
});
