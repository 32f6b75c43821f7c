// How deeply objects may nest, over HTTPS against the real server: at the limit every verb works
// (create, get, list, watch, update, each patch type, apply, delete) for a custom resource's
// free-form value, for a definition with a deep schema, and for hand-written managedFields; one
// level past it every write path is a 422 (or, for a body past the decoding limit, a 400) naming
// the limit, and nothing is stored. Objects an older version stored deeper than the limit can
// still be deleted, finalizers and all; a definition it stored with a too-deep schema reports
// NonStructuralSchema instead of being retried in a loop, and can be deleted too.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { openEmbeddedStorage } from "../backends/embedded/index.ts";
import { embeddedStoreDir } from "../backends/factory.ts";
import { naming } from "../backends/naming/index.ts";
import { MAX_BODY_DEPTH, MAX_OBJECT_DEPTH, objectDepth } from "../backends/registry/index.ts";
import { encodeProtobufObject } from "../gateway/protobuf/codec.ts";
import { ApiClient, type ApiResponse } from "./support/api-client.ts";
import { crdBody as crdOf } from "./support/custom-resources.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";

type Obj = Record<string, unknown>;

const names = naming();
const CRD_GROUP = names.group("apiextensions");
const CRDS = `/apis/${CRD_GROUP}/v1/customresourcedefinitions`;
const LIMIT_TEXT = `may not nest more than ${MAX_OBJECT_DEPTH} levels of objects and arrays`;
const BODY_LIMIT_TEXT = `may not nest more than ${MAX_BODY_DEPTH} levels of objects and arrays`;
const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";

/** `levels` objects one inside the other, `{"a":{"a":...{"a":"x"}}}`. */
function chain(levels: number): unknown {
  let v: unknown = "x";
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/** `levels` arrays one inside the other. */
function arrays(levels: number): unknown {
  let v: unknown = "x";
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

/**
 * JSON text for values too deep for JSON.stringify in a test's own stack: `deep` stands for the
 * placeholder string `"@deep"` in `shallow`.
 */
function withDeep(shallow: unknown, deep: string): string {
  return JSON.stringify(shallow).replace('"@deep"', deep);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function conditionOf(crd: ApiResponse, type: string): Obj | undefined {
  const conditions = (crd.body?.status?.conditions ?? []) as Obj[];
  return conditions.find((c) => c.type === type);
}

function crdBody(group: string, kind: string, specSchema: unknown): Obj {
  return crdOf({
    apiextensions: CRD_GROUP,
    group,
    kind,
    schema: { type: "object", properties: { spec: specSchema } },
  });
}

let gw: GatewayProcess;
let api: ApiClient;

async function establish(crd: Obj): Promise<string> {
  const made = await api.call("POST", CRDS, { body: crd });
  assert.equal(made.status, 201, made.text);
  const name = (crd.metadata as Obj).name as string;
  await eventually(`${name} established`, async () => {
    const got = await api.call("GET", `${CRDS}/${name}`);
    return conditionOf(got, "Established")?.status === "True" ? true : undefined;
  });
  const spec = crd.spec as { group: string; names: { plural: string } };
  const base = `/apis/${spec.group}/v1/namespaces/default/${spec.names.plural}`;
  await eventually(`${base} served`, async () =>
    (await api.call("GET", base)).status === 200 ? true : undefined,
  );
  return base;
}

async function deleteCrd(name: string): Promise<void> {
  const deleted = await api.call("DELETE", `${CRDS}/${name}`);
  assert.equal(deleted.status, 200, deleted.text);
  await eventually(`${name} gone`, async () =>
    (await api.call("GET", `${CRDS}/${name}`)).status === 404 ? true : undefined,
  );
}

function assertRefused(res: ApiResponse, code: 400 | 422, text: string): void {
  assert.equal(res.status, code, res.text);
  assert.equal(res.body?.kind, "Status", res.text);
  assert.equal(res.body?.reason, code === 400 ? "BadRequest" : "Invalid", res.text);
  assert.ok(String(res.body?.message).includes(text), res.text);
}

/** Every verb on an object of `base` whose spec is `spec`, at the limit. */
async function everyVerb(base: string, kind: string, group: string, spec: unknown): Promise<void> {
  const object = { apiVersion: `${group}/v1`, kind, metadata: { name: "deep" }, spec };
  const watch = await api.watch(`${base}?watch=1`);
  try {
    const created = await api.call("POST", base, { body: object });
    assert.equal(created.status, 201, created.text);
    const event = await watch.events.next();
    assert.equal(event.value?.type, "ADDED");
    assert.deepEqual(event.value?.object.spec, spec);
  } finally {
    watch.close();
  }
  const got = await api.call("GET", `${base}/deep`);
  assert.equal(got.status, 200, got.text);
  assert.deepEqual(got.body.spec, spec);
  const listed = await api.call("GET", base);
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.items[0].spec, spec);
  const table = await api.call("GET", `${base}/deep`, {
    accept: `application/json;as=Table;v=v1;g=${names.group("meta")}`,
  });
  assert.equal(table.status, 200, table.text);

  // A PUT of what GET returned (managedFields and all), then each patch type and an apply.
  got.body.metadata.labels = { put: "1" };
  const put = await api.call("PUT", `${base}/deep`, { body: got.body });
  assert.equal(put.status, 200, put.text);
  const merged = await api.call("PATCH", `${base}/deep`, {
    raw: JSON.stringify({ metadata: { labels: { merge: "1" } } }),
    contentType: MERGE,
  });
  assert.equal(merged.status, 200, merged.text);
  const patched = await api.call("PATCH", `${base}/deep`, {
    raw: JSON.stringify([{ op: "add", path: "/metadata/labels/json", value: "1" }]),
    contentType: JSON_PATCH,
  });
  assert.equal(patched.status, 200, patched.text);
  const applied = await api.call("PATCH", `${base}/deep?fieldManager=depth-test`, {
    raw: JSON.stringify({ ...object, metadata: { name: "deep", labels: { apply: "1" } } }),
    contentType: APPLY,
  });
  assert.equal(applied.status, 200, applied.text);
  assert.deepEqual(applied.body.spec, spec);
  assert.deepEqual(applied.body.metadata.labels, { put: "1", merge: "1", json: "1", apply: "1" });

  const deleted = await api.call("DELETE", `${base}/deep`);
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal((await api.call("GET", `${base}/deep`)).status, 404);
}

before(async () => {
  gw = await startGateway();
  api = new ApiClient(gw.kubeconfig);
});

after(async () => {
  await api?.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

describe(`objects nest at most ${MAX_OBJECT_DEPTH} levels`, () => {
  const group = "free.depth.example.com";
  let base: string;
  before(async () => {
    base = await establish(
      crdBody(group, "Free", { type: "object", "x-kubernetes-preserve-unknown-fields": true }),
    );
  });

  it("a custom resource with a free-form value at the limit takes every verb", async () => {
    // The object itself is level 1, so spec holds the rest.
    assert.equal(objectDepth({ spec: chain(MAX_OBJECT_DEPTH - 1) }).depth, MAX_OBJECT_DEPTH);
    await everyVerb(base, "Free", group, chain(MAX_OBJECT_DEPTH - 1));
    await everyVerb(base, "Free", group, { a: arrays(MAX_OBJECT_DEPTH - 2) });
  });

  it("one level more is refused naming the limit on every write path, and nothing is stored", async () => {
    const tooDeep = {
      apiVersion: `${group}/v1`,
      kind: "Free",
      metadata: { name: "over" },
      spec: chain(MAX_OBJECT_DEPTH),
    };
    assertRefused(await api.call("POST", base, { body: tooDeep }), 422, `spec: Too long: ${LIMIT_TEXT}`);
    assertRefused(
      await api.call("PATCH", `${base}/over?fieldManager=depth-test`, {
        raw: JSON.stringify(tooDeep),
        contentType: APPLY,
      }),
      422,
      LIMIT_TEXT,
    );
    assert.equal((await api.call("GET", `${base}/over`)).status, 404, "nothing was stored");

    const kept = {
      apiVersion: `${group}/v1`,
      kind: "Free",
      metadata: { name: "kept" },
      spec: chain(MAX_OBJECT_DEPTH - 1),
    };
    const made = await api.call("POST", base, { body: kept });
    assert.equal(made.status, 201, made.text);
    const version = made.body.metadata.resourceVersion;
    const deeper = (await api.call("GET", `${base}/kept`)).body;
    deeper.spec = chain(MAX_OBJECT_DEPTH);
    assertRefused(await api.call("PUT", `${base}/kept`, { body: deeper }), 422, LIMIT_TEXT);
    assertRefused(
      await api.call("PATCH", `${base}/kept`, {
        raw: JSON.stringify({ spec: chain(MAX_OBJECT_DEPTH) }),
        contentType: MERGE,
      }),
      422,
      LIMIT_TEXT,
    );
    // A copy of spec into itself nests it one level more (repeated copies would double it).
    assertRefused(
      await api.call("PATCH", `${base}/kept`, {
        raw: JSON.stringify([{ op: "copy", from: "/spec", path: "/spec/b" }]),
        contentType: JSON_PATCH,
      }),
      422,
      LIMIT_TEXT,
    );
    assertRefused(
      await api.call("PATCH", `${base}/kept?fieldManager=depth-test&force=true`, {
        raw: JSON.stringify({ ...kept, spec: chain(MAX_OBJECT_DEPTH) }),
        contentType: APPLY,
      }),
      422,
      LIMIT_TEXT,
    );
    const after = await api.call("GET", `${base}/kept`);
    assert.equal(after.body.metadata.resourceVersion, version, "nothing was written");
  });

  it("a body past the decoding limit is a 400 naming it, in JSON and in YAML", async () => {
    const body = withDeep(
      { apiVersion: `${group}/v1`, kind: "Free", metadata: { name: "body" }, spec: "@deep" },
      JSON.stringify(chain(MAX_BODY_DEPTH)),
    );
    assertRefused(await api.call("POST", base, { raw: body }), 400, BODY_LIMIT_TEXT);
    assertRefused(
      await api.call("POST", base, { raw: body, contentType: "application/yaml" }),
      400,
      BODY_LIMIT_TEXT,
    );
    // Far deeper: still a clean 400, not a 500.
    const huge = withDeep(
      { apiVersion: `${group}/v1`, kind: "Free", metadata: { name: "body" }, spec: "@deep" },
      `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`,
    );
    assertRefused(await api.call("POST", base, { raw: huge }), 400, BODY_LIMIT_TEXT);
    assert.equal((await api.call("GET", `${base}/body`)).status, 404, "nothing was stored");
  });

  it("hand-written managedFields at the limit are kept and stay writable; deeper is a 422", async () => {
    // An entry's field set may nest 5 levels more than objects: it sits that far down.
    const fieldsV1 = (levels: number) => {
      let v: Obj = {};
      for (let i = 2; i < levels; i++) v = { "f:a": v };
      return { "f:data": v };
    };
    const entry = (levels: number) => ({
      manager: "deep-writer",
      operation: "Update",
      apiVersion: "v1",
      fieldsType: "FieldsV1",
      fieldsV1: fieldsV1(levels),
    });
    const cm = "/api/v1/namespaces/default/configmaps";
    const made = await api.call("POST", cm, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fields" }, data: { a: "1" } },
    });
    assert.equal(made.status, 201, made.text);
    const atLimit = made.body;
    atLimit.metadata.managedFields = [entry(MAX_OBJECT_DEPTH + 1)];
    assert.equal(objectDepth(atLimit).depth, MAX_OBJECT_DEPTH);
    const put = await api.call("PUT", `${cm}/fields`, { body: atLimit });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.metadata.managedFields[0].fieldsV1, fieldsV1(MAX_OBJECT_DEPTH + 1));
    const got = await api.call("GET", `${cm}/fields`);
    got.body.data = { a: "2" };
    const again = await api.call("PUT", `${cm}/fields`, { body: got.body });
    assert.equal(again.status, 200, again.text);
    const merged = await api.call("PATCH", `${cm}/fields`, {
      raw: JSON.stringify({ data: { b: "3" } }),
      contentType: STRATEGIC,
    });
    assert.equal(merged.status, 200, merged.text);
    const version = merged.body.metadata.resourceVersion;

    merged.body.metadata.managedFields = [entry(MAX_OBJECT_DEPTH + 2)];
    assertRefused(
      await api.call("PUT", `${cm}/fields`, { body: merged.body }),
      422,
      `metadata.managedFields: Too long: ${LIMIT_TEXT}`,
    );
    assert.equal((await api.call("GET", `${cm}/fields`)).body.metadata.resourceVersion, version);
    const deleted = await api.call("DELETE", `${cm}/fields`);
    assert.equal(deleted.status, 200, deleted.text);
  });
});

describe("definitions with deep schemas", () => {
  /** The largest n whose definition nests exactly at the limit. */
  function atLimit(make: (n: number) => Obj): { n: number; crd: Obj } {
    let n = 1;
    while (objectDepth(make(n + 1)).depth <= MAX_OBJECT_DEPTH) n++;
    const crd = make(n);
    assert.equal(objectDepth(crd).depth, MAX_OBJECT_DEPTH);
    return { n, crd };
  }

  // A chain of properties, a default at the bottom and a CEL rule on the deepest object.
  const propsGroup = "props.depth.example.com";
  const propsSchema = (n: number): unknown => {
    let s: Obj = {
      type: "object",
      "x-kubernetes-validations": [{ rule: "self.a != 'forbidden'" }],
      properties: { a: { type: "string", default: "filled" } },
    };
    for (let i = 1; i < n; i++) s = { type: "object", properties: { a: s } };
    return s;
  };
  // A chain of list items, with a CEL rule on the innermost string.
  const itemsGroup = "items.depth.example.com";
  const itemsSchema = (n: number): unknown => {
    let s: Obj = { type: "string", "x-kubernetes-validations": [{ rule: "self != 'forbidden'" }] };
    for (let i = 0; i < n; i++) s = { type: "array", items: s };
    return s;
  };

  it("a definition at the limit (a chain of properties) is established, served and deletable", async () => {
    const { n, crd } = atLimit((k) => crdBody(propsGroup, "Props", propsSchema(k)));
    const base = await establish(crd);
    // The deepest object is left empty: the default fills it in.
    let spec: unknown = {};
    for (let i = 1; i < n; i++) spec = { a: spec };
    let filled: unknown = { a: "filled" };
    for (let i = 1; i < n; i++) filled = { a: filled };
    const made = await api.call("POST", base, {
      body: { apiVersion: `${propsGroup}/v1`, kind: "Props", metadata: { name: "defaulted" }, spec },
    });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body.spec, filled);
    let forbidden: unknown = { a: "forbidden" };
    for (let i = 1; i < n; i++) forbidden = { a: forbidden };
    const refused = await api.call("POST", base, {
      body: { apiVersion: `${propsGroup}/v1`, kind: "Props", metadata: { name: "refused" }, spec: forbidden },
    });
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.body.message, /failed rule: self\.a != 'forbidden'/);
    await everyVerb(base, "Props", propsGroup, filled);
    await publishes(propsGroup);
    await deleteCrd((crd.metadata as Obj).name as string);
  });

  it("a definition at the limit (a chain of list items) is established, served and deletable", async () => {
    const { n, crd } = atLimit((k) => crdBody(itemsGroup, "Items", itemsSchema(k)));
    const base = await establish(crd);
    await everyVerb(base, "Items", itemsGroup, arrays(n));
    await publishes(itemsGroup);
    // Strategic merge applies to definitions, which are a built-in kind.
    const name = (crd.metadata as Obj).name as string;
    const labelled = await api.call("PATCH", `${CRDS}/${name}`, {
      raw: JSON.stringify({ metadata: { labels: { smp: "1" } } }),
      contentType: STRATEGIC,
    });
    assert.equal(labelled.status, 200, labelled.text);
    await deleteCrd(name);
  });

  it("a definition one level deeper is refused naming the limit, however it is sent", async () => {
    const { n } = atLimit((k) => crdBody(itemsGroup, "Over", itemsSchema(k)));
    const over = crdBody(itemsGroup, "Over", itemsSchema(n + 1));
    const name = (over.metadata as Obj).name as string;
    assertRefused(await api.call("POST", CRDS, { body: over }), 422, `spec: Too long: ${LIMIT_TEXT}`);
    const protobuf = (crd: Obj) => ({
      raw: Buffer.from(encodeProtobufObject(crd)),
      contentType: names.protobufMediaType,
    });
    assertRefused(await api.call("POST", CRDS, protobuf(over)), 422, `spec: Too long: ${LIMIT_TEXT}`);
    // Past the decoding limit, the Protobuf decoder refuses it.
    const farOver = crdBody(itemsGroup, "Over", itemsSchema(n + MAX_BODY_DEPTH - MAX_OBJECT_DEPTH + 1));
    assertRefused(await api.call("POST", CRDS, protobuf(farOver)), 400, BODY_LIMIT_TEXT);
    assert.equal((await api.call("GET", `${CRDS}/${name}`)).status, 404, "nothing was stored");

    // Deepening a stored definition by a strategic merge patch is refused too.
    const { crd } = atLimit((k) => crdBody(itemsGroup, "Over", itemsSchema(k)));
    const made = await api.call("POST", CRDS, { body: crd });
    assert.equal(made.status, 201, made.text);
    const versions = (over.spec as Obj).versions;
    assertRefused(
      await api.call("PATCH", `${CRDS}/${name}`, {
        raw: JSON.stringify({ spec: { versions } }),
        contentType: STRATEGIC,
      }),
      422,
      LIMIT_TEXT,
    );
    await deleteCrd(name);
  });
});

/** OpenAPI v3 for the group, and v2 in JSON and protobuf, all serve with the deep schema. */
async function publishes(group: string): Promise<void> {
  const v3 = await api.call("GET", `/openapi/v3/apis/${group}/v1`);
  assert.equal(v3.status, 200, v3.text.slice(0, 500));
  const v2 = await api.call("GET", "/openapi/v2");
  assert.equal(v2.status, 200, v2.text.slice(0, 500));
  const v2proto = await api.call("GET", "/openapi/v2", {
    accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
  });
  assert.equal(v2proto.status, 200, v2proto.text.slice(0, 500));
}

describe("objects an older version stored deeper than the limit", () => {
  const group = "legacy.depth.example.com";
  const deepGroup = "schema.depth.example.com";
  const deepCrdName = `deeps.${deepGroup}`;
  const base = `/apis/${group}/v1/namespaces/default/olds`;
  // As the issue found them: a definition whose schema nests 1,000 objects, free-form values
  // nesting 1,000 and 2,000 levels.
  const SCHEMA_LEVELS = 1000;

  before(async () => {
    await establish(crdBody(group, "Old", { type: "object", "x-kubernetes-preserve-unknown-fields": true }));
    await gw.stop();
    const storage = await openEmbeddedStorage({ dir: embeddedStoreDir(gw.dataDir) });
    try {
      const old = (name: string, levels: number, finalizers: string[]) =>
        withDeep(
          {
            apiVersion: `${group}/v1`,
            kind: "Old",
            metadata: {
              name,
              namespace: "default",
              uid: `uid-${name}`,
              creationTimestamp: "2024-01-01T00:00:00Z",
              finalizers,
            },
            spec: "@deep",
          },
          `${'{"a":'.repeat(levels)}"x"${"}".repeat(levels)}`,
        );
      await storage.create(`/${group}/olds/default/held`, old("held", 1000, ["example.com/hold"]));
      await storage.create(`/${group}/olds/default/deeper`, old("deeper", 2000, []));
      const schema = `${'{"type":"object","properties":{"a":'.repeat(SCHEMA_LEVELS)}{"type":"string"}${"}}".repeat(SCHEMA_LEVELS)}`;
      const crd = crdBody(deepGroup, "Deep", "@deep");
      (crd.metadata as Obj).uid = "uid-deep-crd";
      (crd.metadata as Obj).creationTimestamp = "2024-01-01T00:00:00Z";
      (crd.metadata as Obj).finalizers = [`customresourcecleanup.${CRD_GROUP}`];
      await storage.create(`/${CRD_GROUP}/customresourcedefinitions/_/${deepCrdName}`, withDeep(crd, schema));
      // One of its objects, stored while it was (briefly) served by the older version.
      await storage.create(
        `/${deepGroup}/deeps/default/one`,
        JSON.stringify({
          apiVersion: `${deepGroup}/v1`,
          kind: "Deep",
          metadata: {
            name: "one",
            namespace: "default",
            uid: "uid-one",
            creationTimestamp: "2024-01-01T00:00:00Z",
          },
          spec: { a: { a: "x" } },
        }),
      );
    } finally {
      await storage.close();
    }
    gw = await startGateway([], { dataDir: gw.dataDir, port: gw.port });
    await api.close();
    api = new ApiClient(gw.kubeconfig);
  });

  it("one with a finalizer is deleted, and a merge patch removes the finalizer", async () => {
    const got = await api.call("GET", `${base}/held`);
    assert.equal(got.status, 200, got.text.slice(0, 300));
    const deleted = await api.call("DELETE", `${base}/held`);
    assert.equal(deleted.status, 200, deleted.text.slice(0, 300));
    assert.ok(deleted.body.metadata.deletionTimestamp);
    const released = await api.call("PATCH", `${base}/held`, {
      raw: JSON.stringify({ metadata: { finalizers: null } }),
      contentType: MERGE,
    });
    assert.equal(released.status, 200, released.text.slice(0, 300));
    assert.equal((await api.call("GET", `${base}/held`)).status, 404);
  });

  it("one nesting 2,000 levels is deleted", async () => {
    const deleted = await api.call("DELETE", `${base}/deeper`);
    assert.equal(deleted.status, 200, deleted.text.slice(0, 300));
    assert.equal((await api.call("GET", `${base}/deeper`)).status, 404);
  });

  it("a definition whose schema nests 1,000 objects reports NonStructuralSchema, is not served, and is deletable", async () => {
    const condition = await eventually("NonStructuralSchema", async () =>
      conditionOf(await api.call("GET", `${CRDS}/${deepCrdName}`), "NonStructuralSchema"),
    );
    assert.equal(condition.status, "True");
    assert.equal(condition.reason, "Violations");
    assert.equal(condition.message, `spec: Too long: ${LIMIT_TEXT}`);
    assert.equal((await api.call("GET", `/apis/${deepGroup}/v1/namespaces/default/deeps`)).status, 404);
    // Reported, not retried in a loop: the registrar logged no failure for it.
    assert.doesNotMatch(
      gw.output(),
      new RegExp(`customresourcedefinition ${deepCrdName.replaceAll(".", "\\.")}`),
    );
    await deleteCrd(deepCrdName);
    assert.doesNotMatch(gw.output(), /RangeError/);
    // Its object went with it: defined again, the resource is empty.
    const again = await establish(
      crdBody(deepGroup, "Deep", { type: "object", "x-kubernetes-preserve-unknown-fields": true }),
    );
    const listed = await api.call("GET", again);
    assert.deepEqual(listed.body.items, []);
  });
});
