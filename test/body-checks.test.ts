// Request bodies over real HTTPS that the gateway must report or refuse without ever failing
// after a write: unknown field names in any script in the Warning header (create, update, apply,
// dry runs, and the retry's 409), a body's namespace that is not the URL's, metadata values of
// the wrong JSON type and malformed times, and an output a write cannot be answered in.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiClient, type ApiResponse } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { type GatewayProcess, kubectlRun, kubectlVersions, startGateway } from "./support/gateway-process.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const GROUP = "bodies.example.com";
const CRS = `/apis/${GROUP}/v1/namespaces/default/widgets`;

let gw: GatewayProcess;
let api: ApiClient;

before(async () => {
  gw = await startGateway(["--api-naming=kubernetes"]);
  api = new ApiClient(gw.kubeconfig);
  await createServedCrd(api, {
    apiextensions: "apiextensions.k8s.io",
    group: GROUP,
    kind: "Widget",
    schema: {
      type: "object",
      properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
    },
  });
});

after(async () => {
  await api?.close();
  await gw?.stop();
});

/** Warning header values as the bytes on the wire read as UTF-8 (undici hands them over as Latin-1). */
function warnings(res: ApiResponse): string[] {
  const h = res.headers.warning;
  const values = h === undefined ? [] : Array.isArray(h) ? h : [h];
  return values.map((v) => Buffer.from(v, "latin1").toString("utf8"));
}

function resourceVersion(res: ApiResponse): string {
  return res.body.metadata.resourceVersion as string;
}

describe("unknown field names in Warning headers", () => {
  // Unknown fields in several scripts, control characters, quotes, invalid UTF-8 (raw bytes, a
  // lone surrogate escape): each JSON member as sent, and the Warning value upstream sends for it.
  const FIELDS: [Buffer, string][] = [
    [Buffer.from('"名前":1'), String.raw`299 - "unknown field \"名前\""`],
    [Buffer.from('"имя":1'), String.raw`299 - "unknown field \"имя\""`],
    [Buffer.from('"اسم":1'), String.raw`299 - "unknown field \"اسم\""`],
    [Buffer.from('"😀":1'), String.raw`299 - "unknown field \"😀\""`],
    [Buffer.from(String.raw`"a\u0001b":1`), String.raw`299 - "unknown field \"a\\x01b\""`],
    [Buffer.from(String.raw`"tab\there":1`), String.raw`299 - "unknown field \"tab\\there\""`],
    [Buffer.from(String.raw`"\u0085":1`), String.raw`299 - "unknown field \"\\u0085\""`],
    [Buffer.from(String.raw`"q\"uote":1`), String.raw`299 - "unknown field \"q\\\"uote\""`],
    [Buffer.from(String.raw`"back\\slash":1`), String.raw`299 - "unknown field \"back\\\\slash\""`],
    [Buffer.from([0x22, 0x78, 0xff, 0x79, 0x22, 0x3a, 0x31]), '299 - "unknown field \\"x\uFFFDy\\""'],
    [Buffer.from(String.raw`"\ud800z":1`), '299 - "unknown field \\"\uFFFDz\\""'],
  ];
  const expected = FIELDS.map(([, w]) => w).sort();

  /** A ConfigMap body with every unknown field above. */
  function body(name: string, data: string): Buffer {
    const head = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"${data}"}`;
    const parts: Buffer[] = [Buffer.from(head)];
    for (const [field] of FIELDS) parts.push(Buffer.from(","), field);
    parts.push(Buffer.from("}"));
    return Buffer.concat(parts);
  }

  it("create: 201 with every warning, stored once; the retry is a 409 with the same warnings", async () => {
    const made = await api.call("POST", CM, { raw: body("w-create", "1") });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(warnings(made).sort(), expected);
    const got = await api.call("GET", `${CM}/w-create`);
    assert.equal(got.status, 200);
    assert.equal(resourceVersion(got), resourceVersion(made));
    assert.deepEqual(got.body.data, { a: "1" });
    const again = await api.call("POST", CM, { raw: body("w-create", "1") });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.reason, "AlreadyExists");
    assert.deepEqual(warnings(again).sort(), expected);
  });

  it("dry-run create: 201 with every warning, nothing stored", async () => {
    const made = await api.call("POST", `${CM}?dryRun=All`, { raw: body("w-dry", "1") });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(warnings(made).sort(), expected);
    assert.equal((await api.call("GET", `${CM}/w-dry`)).status, 404);
  });

  it("update and dry-run update: 200 with every warning; only the real one is stored", async () => {
    const made = await api.call("POST", CM, { body: { metadata: { name: "w-update" }, data: { a: "1" } } });
    assert.equal(made.status, 201, made.text);
    const dry = await api.call("PUT", `${CM}/w-update?dryRun=All`, { raw: body("w-update", "2") });
    assert.equal(dry.status, 200, dry.text);
    assert.deepEqual(warnings(dry).sort(), expected);
    assert.equal(resourceVersion(await api.call("GET", `${CM}/w-update`)), resourceVersion(made));
    const put = await api.call("PUT", `${CM}/w-update`, { raw: body("w-update", "3") });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(warnings(put).sort(), expected);
    const got = await api.call("GET", `${CM}/w-update`);
    assert.equal(resourceVersion(got), resourceVersion(put));
    assert.deepEqual(got.body.data, { a: "3" });
  });

  it("apply patch and dry-run apply: 201/200 with every warning", async () => {
    const path = `${CM}/w-apply?fieldManager=t`;
    const APPLY = "application/apply-patch+yaml";
    const dry = await api.call("PATCH", `${path}&dryRun=All`, {
      raw: body("w-apply", "1"),
      contentType: APPLY,
    });
    assert.equal(dry.status, 201, dry.text);
    assert.deepEqual(warnings(dry).sort(), expected);
    assert.equal((await api.call("GET", `${CM}/w-apply`)).status, 404);
    const made = await api.call("PATCH", path, { raw: body("w-apply", "1"), contentType: APPLY });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(warnings(made).sort(), expected);
    const changed = await api.call("PATCH", path, { raw: body("w-apply", "2"), contentType: APPLY });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(warnings(changed).sort(), expected);
    assert.deepEqual((await api.call("GET", `${CM}/w-apply`)).body.data, { a: "2" });
  });

  it("Strict: one 400 naming every field as Go quotes it", async () => {
    const res = await api.call("POST", `${CM}?fieldValidation=Strict`, { raw: body("w-strict", "1") });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.message, /^strict decoding error: /);
    assert.ok(res.body.message.includes(String.raw`unknown field "a\x01b"`), res.body.message);
    assert.ok(res.body.message.includes('unknown field "名前"'), res.body.message);
    assert.equal((await api.call("GET", `${CM}/w-strict`)).status, 404);
  });

  it("thousands of unknown fields: the write succeeds and the warnings are cut short", async () => {
    const fields = Array.from({ length: 3000 }, (_, i) => `"unknown-field-with-a-long-name-${i}":1`);
    const raw = `{"metadata":{"name":"w-many"},${fields.join(",")}}`;
    const made = await api.call("POST", CM, { raw });
    assert.equal(made.status, 201, made.text);
    const values = warnings(made);
    assert.ok(values.length > 0 && values.length < 200, `${values.length} warnings`);
    assert.equal(values[0], String.raw`299 - "unknown field \"unknown-field-with-a-long-name-0\""`);
  });
});

describe("a body's namespace against the URL's", () => {
  const MISMATCH = "the namespace of the provided object does not match the namespace sent on the request";
  let stored: string;
  before(async () => {
    const made = await api.call("POST", CM, { body: { metadata: { name: "ns-keep" }, data: { a: "1" } } });
    assert.equal(made.status, 201, made.text);
    stored = resourceVersion(made);
  });

  const unchanged = async () => {
    const got = await api.call("GET", `${CM}/ns-keep`);
    assert.equal(resourceVersion(got), stored, "nothing was written");
    assert.equal(got.body.metadata.namespace, "default");
  };

  const cases: [string, string, string, unknown][] = [
    ["create", "POST", "application/json", { metadata: { name: "ns-new", namespace: "other" } }],
    [
      "update",
      "PUT",
      "application/json",
      { metadata: { name: "ns-keep", namespace: "other" }, data: { a: "2" } },
    ],
    ["merge patch", "PATCH", "application/merge-patch+json", { metadata: { namespace: "other" } }],
    [
      "strategic merge patch",
      "PATCH",
      "application/strategic-merge-patch+json",
      { metadata: { namespace: "other" } },
    ],
    [
      "JSON patch",
      "PATCH",
      "application/json-patch+json",
      [{ op: "replace", path: "/metadata/namespace", value: "other" }],
    ],
    [
      "apply",
      "PATCH",
      "application/apply-patch+yaml",
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ns-keep", namespace: "other" } },
    ],
  ];
  for (const [what, method, contentType, body] of cases) {
    it(`${what}: 400, nothing written`, async () => {
      const path = method === "POST" ? CM : `${CM}/ns-keep?fieldManager=t`;
      for (const dry of ["", "&dryRun=All"]) {
        const url = method === "POST" ? `${path}${dry.replace("&", "?")}` : `${path}${dry}`;
        const res = await api.call(method, url, { body, contentType });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.reason, "BadRequest");
        assert.equal(res.body.message, MISMATCH);
      }
      await unchanged();
      assert.equal((await api.call("GET", `${CM}/ns-new`)).status, 404);
    });
  }

  it("a custom resource's update and patch: 400", async () => {
    const made = await api.call("POST", CRS, {
      body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } },
    });
    assert.equal(made.status, 201, made.text);
    const put = await api.call("PUT", `${CRS}/w`, {
      body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w", namespace: "other" } },
    });
    assert.equal(put.status, 400, put.text);
    assert.equal(put.body.message, MISMATCH);
    const patch = await api.call("PATCH", `${CRS}/w`, {
      body: { metadata: { namespace: "other" } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(patch.status, 400, patch.text);
    assert.equal(resourceVersion(await api.call("GET", `${CRS}/w`)), resourceVersion(made));
  });

  it("an empty namespace takes the URL's", async () => {
    const res = await api.call("PUT", `${CM}/ns-keep`, {
      body: { metadata: { name: "ns-keep", namespace: "" }, data: { a: "1" } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.metadata.namespace, "default");
    stored = resourceVersion(res);
  });

  it("kubectl patch: the server's 400", async (t) => {
    const binary = kubectlVersions().at(-1);
    if (!binary) return t.skip("no kubectl");
    const run = await kubectlRun(binary, gw.kubeconfig, [
      "patch",
      "-n",
      "default",
      "configmap",
      "ns-keep",
      "--type=merge",
      "-p",
      '{"metadata":{"namespace":"other"}}',
    ]);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, new RegExp(`Error from server \\(BadRequest\\): ${MISMATCH}`));
    await unchanged();
  });
});

describe("metadata values of the wrong type", () => {
  const HANDLED = 'ConfigMap in version "v1" cannot be handled as a ConfigMap: ';
  // The fields the server owns and used to overwrite, as upstream's decoder words each refusal.
  const cases: [string, unknown, string | RegExp][] = [
    ["creationTimestamp", 5, `${HANDLED}json: cannot unmarshal number into Go value of type string`],
    ["deletionTimestamp", true, `${HANDLED}json: cannot unmarshal bool into Go value of type string`],
    [
      "creationTimestamp",
      { seconds: 1 },
      `${HANDLED}json: cannot unmarshal object into Go value of type string`,
    ],
    [
      "creationTimestamp",
      "yesterday",
      `${HANDLED}parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`,
    ],
    [
      "deletionTimestamp",
      "2024-02-30T00:00:00Z",
      `${HANDLED}parsing time "2024-02-30T00:00:00Z": day out of range`,
    ],
    [
      "uid",
      5,
      /^ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta\.metadata\.uid of type /,
    ],
    [
      "selfLink",
      5,
      /json: cannot unmarshal number into Go struct field ObjectMeta\.metadata\.selfLink of type string$/,
    ],
    [
      "generation",
      "1",
      /json: cannot unmarshal string into Go struct field ObjectMeta\.metadata\.generation of type int64$/,
    ],
    [
      "deletionGracePeriodSeconds",
      "30",
      /json: cannot unmarshal string into Go struct field ObjectMeta\.metadata\.deletionGracePeriodSeconds of type int64$/,
    ],
  ];
  let stored: string;
  before(async () => {
    const made = await api.call("POST", CM, { body: { metadata: { name: "types-keep" } } });
    assert.equal(made.status, 201, made.text);
    stored = resourceVersion(made);
  });

  for (const [field, value, message] of cases) {
    it(`${field}: ${JSON.stringify(value)} is a 400 on create, update and patch`, async () => {
      const sent = [
        ["POST", CM, "application/json", { metadata: { name: "types-new", [field]: value } }],
        ["PUT", `${CM}/types-keep`, "application/json", { metadata: { name: "types-keep", [field]: value } }],
        ["PATCH", `${CM}/types-keep`, "application/merge-patch+json", { metadata: { [field]: value } }],
      ] as const;
      for (const [method, path, contentType, body] of sent) {
        const res = await api.call(method, path, { body, contentType });
        assert.equal(res.status, 400, `${method}: ${res.text}`);
        assert.equal(res.body.reason, "BadRequest");
        if (typeof message === "string") assert.equal(res.body.message, message);
        else assert.match(res.body.message, message);
      }
      assert.equal(resourceVersion(await api.call("GET", `${CM}/types-keep`)), stored);
      assert.equal((await api.call("GET", `${CM}/types-new`)).status, 404);
    });
  }

  it("a custom resource's times: 400", async () => {
    for (const value of [5, "yesterday"]) {
      const res = await api.call("POST", CRS, {
        body: {
          apiVersion: `${GROUP}/v1`,
          kind: "Widget",
          metadata: { name: "t", creationTimestamp: value },
        },
      });
      assert.equal(res.status, 400, res.text);
      assert.match(
        res.body.message,
        /^Widget in version "v1" cannot be handled as a Widget: (json|parsing time)/,
      );
    }
    assert.equal((await api.call("GET", `${CRS}/t`)).status, 404);
  });

  it("null and RFC 3339 times with a fraction and an offset are accepted (and replaced)", async () => {
    for (const [name, value] of [
      ["types-null", null],
      ["types-offset", "2024-01-01T00:00:00.123+01:00"],
    ] as const) {
      const res = await api.call("POST", CM, { body: { metadata: { name, creationTimestamp: value } } });
      assert.equal(res.status, 201, res.text);
      assert.notEqual(res.body.metadata.creationTimestamp, value);
    }
  });
});

describe("an output a write cannot be answered in", () => {
  const LIST_META = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

  it("PartialObjectMetadataList of a create: 406 before anything is written", async () => {
    const res = await api.call("POST", CM, { body: { metadata: { name: "pom-new" } }, accept: LIST_META });
    assert.equal(res.status, 406, res.text);
    assert.equal(
      res.body.message,
      "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.ConfigMap)",
    );
    assert.equal((await api.call("GET", `${CM}/pom-new`)).status, 404);
  });

  it("PartialObjectMetadataList of an update or patch: 406, nothing written", async () => {
    const made = await api.call("POST", CM, { body: { metadata: { name: "pom-keep" }, data: { a: "1" } } });
    assert.equal(made.status, 201, made.text);
    const put = await api.call("PUT", `${CM}/pom-keep`, {
      body: { metadata: { name: "pom-keep" }, data: { a: "2" } },
      accept: LIST_META,
    });
    assert.equal(put.status, 406, put.text);
    const patch = await api.call("PATCH", `${CM}/pom-keep`, {
      body: { data: { a: "3" } },
      contentType: "application/merge-patch+json",
      accept: LIST_META,
    });
    assert.equal(patch.status, 406, patch.text);
    const got = await api.call("GET", `${CM}/pom-keep`);
    assert.equal(resourceVersion(got), resourceVersion(made));
  });

  it("PartialObjectMetadata of a write and PartialObjectMetadataList of a list still work", async () => {
    const made = await api.call("POST", CM, {
      body: { metadata: { name: "pom-ok" } },
      accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.kind, "PartialObjectMetadata");
    const list = await api.call("GET", CM, { accept: LIST_META });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.kind, "PartialObjectMetadataList");
  });
});
