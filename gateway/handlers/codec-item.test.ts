// A GET's answer from a cached item: compact JSON goes out as bytes kept with the item, made once
// per object version; other representations are made per request as before.
import assert from "node:assert/strict";
import { it } from "node:test";
import type { CachedItem } from "../../backends/cacher/index.ts";
import { naming } from "../../backends/naming/index.ts";
import { negotiateOutput } from "../negotiation/index.ts";
import type { RequestContext } from "../pipeline/index.ts";
import type { Resource } from "../routing/resources.ts";
import { Codec } from "./codec.ts";

const cluster = naming("cluster");
const codec = new Codec(cluster);
const served = {
  schema: {
    group: "",
    kind: "ConfigMap",
    listKind: "ConfigMapList",
    versions: [{ name: "v1", storage: true }],
  },
  registry: {},
} as unknown as Resource;

/** A request for v1 whose reply records what it was given to send. */
function request(): { ctx: RequestContext; sent: unknown[] } {
  const sent: unknown[] = [];
  const reply = {
    raw: {},
    code: () => reply,
    header: () => reply,
    send: (body: unknown) => sent.push(body),
  };
  const ctx = { reply, info: { apiVersion: "v1" }, warnings: [], done: false } as unknown as RequestContext;
  return { ctx, sent };
}

const item = (rv: number): CachedItem => ({
  key: "/core/configmaps/default/a",
  json: JSON.stringify({
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: { name: "a", resourceVersion: String(rv) },
  }),
  revision: rv,
  labels: undefined,
  fields: { "metadata.name": "a", "metadata.namespace": "default" },
});

const choice = (accept: string) =>
  negotiateOutput(accept, { naming: cluster, tableSupported: true, protobufSupported: false });

it("sends compact JSON as one set of bytes per object version", async () => {
  const v1 = item(1);
  const [a, b, c] = [request(), request(), request()];
  await codec.sendItem(a.ctx, v1, choice("application/json"), served);
  await codec.sendItem(b.ctx, v1, choice("application/json"), served);
  assert.ok(Buffer.isBuffer(a.sent[0]));
  assert.equal(a.sent[0], b.sent[0], "the same bytes for the same cached item");
  assert.equal((a.sent[0] as Buffer).toString("utf8"), `${v1.json}\n`);
  const v2 = item(2);
  await codec.sendItem(c.ctx, v2, choice("application/json"), served);
  assert.equal((c.sent[0] as Buffer).toString("utf8"), `${v2.json}\n`);
});

it("makes pretty JSON per request", async () => {
  const r = request();
  await codec.sendItem(r.ctx, item(3), choice("application/json;pretty=1"), served);
  assert.equal(typeof r.sent[0], "string");
  assert.match(r.sent[0] as string, /^{\n {2}"kind": "ConfigMap"/);
});
