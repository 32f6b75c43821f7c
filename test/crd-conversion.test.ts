// CRD conversion webhooks: a real HTTPS webhook peer (its own CA) that converts Widgets between
// v1 (`spec.size`, stored) and v2 (`spec.count`), called by the converter directly and by the real
// gateway for every read, list, watch and write at v2, through a URL and through a Service; peers
// that fail, answer garbage, the wrong uid or number of objects, or rename the object give
// upstream's messages as a 500 Status and store nothing; and the definition's validation of
// webhook conversion (422).
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { after, before, describe, it } from "node:test";
import { ConversionError, WebhookConverter } from "../backends/crd/index.ts";
import { naming as namingPreset } from "../backends/naming/naming.ts";
import { DispatcherPool, type ServiceDirectory } from "../backends/services/index.ts";
import {
  type HttpsPeer,
  type PeerRequest,
  sendJson,
  startHttpsPeer,
} from "../plugins/client/testing/index.ts";
import { ApiClient } from "./support/api-client.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually, nextWithin } from "./support/watch.ts";

type Obj = Record<string, unknown>;
const GROUP = "conv.example.com";

/** Peer behaviour by the last path segment of the webhook URL. */
type Mode =
  | "convert"
  | "fail"
  | "garbage"
  | "uid"
  | "count"
  | "rename"
  | "finalizer"
  | "badlabel"
  | "http422"
  | "status500"
  | "huge"
  | "hang";

function renamed(object: Obj, desired: string): Obj {
  const out = structuredClone(object);
  const spec = (out.spec ?? {}) as Obj;
  if (desired.endsWith("/v2") && "size" in spec) {
    spec.count = spec.size;
    delete spec.size;
  } else if (desired.endsWith("/v1") && "count" in spec) {
    spec.size = spec.count;
    delete spec.count;
  }
  out.apiVersion = desired;
  const meta = (out.metadata ?? {}) as Obj;
  meta.labels = { ...((meta.labels as Obj | undefined) ?? {}), converted: "yes" };
  out.metadata = meta;
  return out;
}

function answer(req: PeerRequest, res: ServerResponse): void {
  const mode = (new URL(req.url, "https://peer").pathname.split("/").pop() ?? "convert") as Mode;
  const review = JSON.parse(req.body) as {
    apiVersion: string;
    request: { uid: string; desiredAPIVersion: string; objects: Obj[] };
  };
  const { uid, desiredAPIVersion, objects } = review.request;
  let converted = objects.map((o) => renamed(o, desiredAPIVersion));
  const result = { status: "Success" } as Obj;
  let responseUid = uid;
  switch (mode) {
    case "fail":
      result.status = "Failure";
      result.message = "custom webhook conversion error";
      break;
    case "garbage":
      res.writeHead(200, { "content-type": "application/json" });
      res.end("garbage");
      return;
    case "http422":
      res.writeHead(422, { "content-type": "text/plain; charset=utf-8" });
      res.end("Cannot handle v1 ConversionReview");
      return;
    case "status500":
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("boom");
      return;
    case "huge":
      // Past the 16 MiB bound, whatever follows.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"x":"${"a".repeat(17 * 1024 * 1024)}"}`);
      return;
    case "hang":
      return;
    case "uid":
      responseUid = "not-the-request-uid";
      break;
    case "count":
      converted = [];
      break;
    case "rename":
      for (const o of converted) (o.metadata as Obj).name = "someone-else";
      break;
    case "finalizer":
      for (const o of converted) (o.metadata as Obj).finalizers = ["sneaky"];
      break;
    case "badlabel":
      for (const o of converted) (o.metadata as Obj).labels = { "bad key!": "x" };
      break;
  }
  sendJson(res, 200, {
    apiVersion: review.apiVersion,
    kind: "ConversionReview",
    response: { uid: responseUid, convertedObjects: converted, result },
  });
}

function schemaWith(field: string): Obj {
  return {
    type: "object",
    properties: {
      spec: { type: "object", properties: { [field]: { type: "integer" } } },
    },
  };
}

function crd(
  apiextensions: string,
  plural: string,
  clientConfig: Obj,
  reviewVersions = ["v1", "v1beta1"],
): Obj {
  const kind = `${plural.charAt(0).toUpperCase()}${plural.slice(1, -1)}`;
  return {
    apiVersion: `${apiextensions}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: [
        { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schemaWith("size") } },
        { name: "v2", served: true, storage: false, schema: { openAPIV3Schema: schemaWith("count") } },
      ],
      conversion: {
        strategy: "Webhook",
        webhook: { clientConfig, conversionReviewVersions: reviewVersions },
      },
    },
  };
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

async function served(api: ApiClient, apiextensions: string, body: Obj): Promise<void> {
  const made = await api.call("POST", `/apis/${apiextensions}/v1/customresourcedefinitions`, { body });
  assert.equal(made.status, 201, made.text.slice(0, 500));
  const plural = ((body.spec as Obj).names as Obj).plural as string;
  for (const v of ["v1", "v2"])
    await eventually(
      async () => (await api.call("GET", `/apis/${GROUP}/${v}/namespaces/default/${plural}`)).status !== 404,
      30_000,
      `${plural} ${v} served`,
    );
}

let peer: HttpsPeer;
before(async () => {
  peer = await startHttpsPeer(answer, { altNames: ["conv-hook.default.svc"] });
});
after(async () => {
  await peer?.close();
});

const reviewsSent = () =>
  peer.requests.map((r) => JSON.parse(r.body) as { apiVersion: string; request: Obj });

describe("conversion webhook caller", () => {
  const cluster = namingPreset("cluster");
  const pool = new DispatcherPool();
  const noServices: ServiceDirectory = { service: async () => undefined, endpointSlices: async () => [] };
  after(() => pool.close());
  const converter = (
    mode: Mode,
    extra: { reviewVersions?: string[]; timeoutMs?: number; ca?: string } = {},
  ) =>
    new WebhookConverter(
      crd(
        "apiextensions.cluster.io",
        "widgets",
        {
          url: `${peer.url}/convert/${mode}`,
          caBundle: b64(extra.ca ?? peer.serverCa.certPem),
        },
        extra.reviewVersions,
      ),
      cluster,
      {
        directory: noServices,
        dispatchers: pool,
        ...(extra.timeoutMs ? { timeoutMs: extra.timeoutMs } : {}),
      },
    );
  const w = (name: string, size: number, apiVersion = `${GROUP}/v1`): Obj => ({
    apiVersion,
    kind: "Widget",
    metadata: { name, namespace: "default", uid: `uid-${name}`, labels: { a: "b" }, finalizers: ["f"] },
    spec: { size },
  });
  const fails = async (p: Promise<unknown>, message: string | RegExp) =>
    assert.rejects(p, (err: unknown) => {
      assert.ok(err instanceof ConversionError, String(err));
      if (typeof message === "string") assert.equal(err.message, message);
      else assert.match(err.message, message);
      return true;
    });

  it("sends one review of the objects not yet at the version, and keeps their order", async () => {
    const before = peer.requests.length;
    const out = await converter("convert").convert(
      [w("a", 1), w("b", 2, `${GROUP}/v2`), w("c", 3)],
      "v2",
      "WidgetList",
    );
    assert.equal(peer.requests.length, before + 1);
    const sent = reviewsSent().at(-1)!;
    assert.equal(sent.apiVersion, "apiextensions.cluster.io/v1");
    assert.equal((sent.request.objects as Obj[]).length, 2);
    assert.equal(sent.request.desiredAPIVersion, `${GROUP}/v2`);
    assert.match(peer.requests.at(-1)!.url, /\/convert\/convert\?timeout=30s$/);
    assert.deepEqual(
      out.map((o) => [(o.metadata as Obj).name, (o.spec as Obj).count ?? (o.spec as Obj).size, o.apiVersion]),
      [
        ["a", 1, `${GROUP}/v2`],
        ["b", 2, `${GROUP}/v2`],
        ["c", 3, `${GROUP}/v2`],
      ],
    );
    // Labels may change; everything else in metadata stays the original's.
    assert.deepEqual((out[0]!.metadata as Obj).labels, { a: "b", converted: "yes" });
    assert.deepEqual((out[0]!.metadata as Obj).finalizers, ["f"]);
  });

  it("uses the first review version it knows (v1beta1: the uid is not checked, as upstream)", async () => {
    await converter("uid", { reviewVersions: ["v9", "v1beta1", "v1"] }).convert([w("a", 1)], "v2");
    assert.equal(reviewsSent().at(-1)?.apiVersion, "apiextensions.cluster.io/v1beta1");
    await fails(
      converter("uid").convert([w("a", 1)], "v2"),
      /^conversion webhook for conv\.example\.com\/v1, Kind=Widget failed: expected response\.uid="[0-9a-f-]{36}", got "not-the-request-uid"$/,
    );
  });

  it("refuses answers as upstream does, with its messages", async () => {
    const gvk = `conversion webhook for ${GROUP}/v1, Kind=Widget`;
    await fails(
      converter("fail").convert([w("a", 1)], "v2"),
      `${gvk} failed: custom webhook conversion error`,
    );
    await fails(
      converter("garbage").convert([w("a", 1)], "v2"),
      `${gvk} failed: couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value`,
    );
    await fails(converter("count").convert([w("a", 1)], "v2"), `${gvk} returned 0 objects, expected 1`);
    await fails(
      converter("rename").convert([w("a", 1)], "v2"),
      `${gvk} returned invalid object: must have the same name: a != someone-else`,
    );
    await fails(
      converter("rename").convert([w("a", 1), w("b", 2)], "v2", "WidgetList"),
      `conversion webhook for ${GROUP}/v2, Kind=WidgetList returned invalid converted object at index 1: must have the same name: a != someone-else`,
    );
    await fails(
      converter("badlabel").convert([w("a", 1)], "v2"),
      /^conversion webhook for conv\.example\.com\/v1, Kind=Widget returned invalid metadata: metadata\.labels: Invalid value: "bad key!": name part must consist of/,
    );
    await fails(
      converter("http422").convert([w("a", 1)], "v2"),
      `${gvk} failed: the server rejected our request due to an error in our request`,
    );
    await fails(
      converter("status500").convert([w("a", 1)], "v2"),
      `${gvk} failed: an error on the server ("boom") has prevented the request from succeeding`,
    );
    await fails(
      converter("convert").convert([w("a", 1)], "v3"),
      `request to convert CR to an invalid group/version: ${GROUP}/v3`,
    );
  });

  it("restores metadata other than labels and annotations", async () => {
    const [out] = await converter("finalizer").convert([w("a", 1)], "v2");
    assert.deepEqual((out!.metadata as Obj).finalizers, ["f"]);
  });

  it("bounds the answer's size and the call's time, and checks the serving certificate", async () => {
    await fails(
      converter("huge").convert([w("a", 1)], "v2"),
      /failed: Post ".*": the answer is larger than 16777216 bytes$/,
    );
    await fails(
      converter("hang", { timeoutMs: 300 }).convert([w("a", 1)], "v2"),
      /failed: Post ".*\?timeout=0\.3s": context deadline exceeded/,
    );
    await fails(
      converter("convert", { ca: peer.clientCa.certPem }).convert([w("a", 1)], "v2"),
      /failed: Post ".*": .*(certificate|self.signed|issuer)/i,
    );
  });

  it("converts an object of nothing but apiVersion and kind without a call", async () => {
    const before = peer.requests.length;
    const [out] = await converter("fail").convert([{ apiVersion: `${GROUP}/v1`, kind: "Widget" }], "v2");
    assert.deepEqual(out, { apiVersion: `${GROUP}/v2`, kind: "Widget" });
    assert.equal(peer.requests.length, before);
  });
});

for (const preset of ["cluster", "kubernetes"] as const) {
  describe(`conversion webhooks through the gateway (${preset} naming)`, () => {
    const naming = namingPreset(preset);
    const apiextensions = naming.group("apiextensions");
    let gw: GatewayProcess;
    let api: ApiClient;
    const widgets = `/apis/${GROUP}`;
    const at = (v: string, plural = "widgets", name = "") =>
      `${widgets}/${v}/namespaces/default/${plural}${name ? `/${name}` : ""}`;

    before(async () => {
      gw = await startGateway(preset === "kubernetes" ? ["--api-naming=kubernetes"] : []);
      api = new ApiClient(gw.kubeconfig);
      await served(
        api,
        apiextensions,
        crd(apiextensions, "widgets", {
          url: `${peer.url}/convert/convert`,
          caBundle: b64(peer.serverCa.certPem),
        }),
      );
    });
    after(async () => {
      await api?.close();
      if (process.env.CONVERSION_DEBUG) process.stderr.write(gw?.output() ?? "");
      await gw?.stop();
      if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    });

    it("serves objects created at v1 at v2 (get, list, watch) and writes at v2 stored at v1", async () => {
      const created = await api.call("POST", at("v1"), {
        body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w1" }, spec: { size: 3 } },
      });
      assert.equal(created.status, 201, created.text);
      const got = await api.call("GET", at("v2", "widgets", "w1"));
      assert.equal(got.status, 200, got.text);
      assert.equal(got.body.apiVersion, `${GROUP}/v2`);
      assert.deepEqual(got.body.spec, { count: 3 });
      assert.equal(got.body.metadata.labels.converted, "yes");
      const review = reviewsSent().at(-1)!;
      assert.equal(review.apiVersion, `${apiextensions}/v1`);
      assert.equal(review.request.desiredAPIVersion, `${GROUP}/v2`);

      await api.call("POST", at("v1"), {
        body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w2" }, spec: { size: 4 } },
      });
      const before = peer.requests.length;
      const list = await api.call("GET", at("v2"));
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.apiVersion, `${GROUP}/v2`);
      assert.deepEqual(
        list.body.items.map((i: Obj) => [i.apiVersion, (i.spec as Obj).count]),
        [
          [`${GROUP}/v2`, 3],
          [`${GROUP}/v2`, 4],
        ],
      );
      assert.equal(peer.requests.length, before + 1, "one review for the list");

      const watch = await api.watch(
        `${at("v2")}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`,
      );
      const put = await api.call("PUT", at("v2", "widgets", "w1"), {
        body: { ...got.body, spec: { count: 5 } },
      });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(put.body.spec, { count: 5 });
      const next = await nextWithin(watch.events, 10_000);
      watch.close();
      assert.equal(next?.value?.type, "MODIFIED");
      assert.equal(next?.value?.object.apiVersion, `${GROUP}/v2`);
      assert.deepEqual(next?.value?.object.spec, { count: 5 });

      const stored = await api.call("GET", at("v1", "widgets", "w1"));
      assert.equal(stored.body.apiVersion, `${GROUP}/v1`);
      assert.deepEqual(stored.body.spec, { size: 5 });
      // The field manager recorded the write at v2.
      assert.ok(
        stored.body.metadata.managedFields.some(
          (m: Obj) => m.apiVersion === `${GROUP}/v2` && m.operation === "Update",
        ),
      );

      const patched = await api.call("PATCH", at("v2", "widgets", "w2"), {
        raw: JSON.stringify({ spec: { count: 7 } }),
        contentType: "application/merge-patch+json",
      });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.body.spec, { count: 7 });
      assert.deepEqual((await api.call("GET", at("v1", "widgets", "w2"))).body.spec, { size: 7 });

      const applied = await api.call("PATCH", `${at("v2", "widgets", "w3")}?fieldManager=tester`, {
        raw: JSON.stringify({
          apiVersion: `${GROUP}/v2`,
          kind: "Widget",
          metadata: { name: "w3" },
          spec: { count: 9 },
        }),
        contentType: "application/apply-patch+yaml",
      });
      assert.equal(applied.status, 201, applied.text);
      assert.deepEqual((await api.call("GET", at("v1", "widgets", "w3"))).body.spec, { size: 9 });

      const deleted = await api.call("DELETE", at("v2", "widgets", "w3"));
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal((await api.call("GET", at("v1", "widgets", "w3"))).status, 404);
    });

    if (preset !== "cluster") return;

    it("fails reads and writes at v2 with upstream's message as a 500, storing nothing", async () => {
      const body = crd(apiextensions, "gadgets", {
        url: `${peer.url}/convert/fail`,
        caBundle: b64(peer.serverCa.certPem),
      });
      await served(api, apiextensions, body);
      const made = await api.call("POST", at("v1", "gadgets"), {
        body: { apiVersion: `${GROUP}/v1`, kind: "Gadget", metadata: { name: "g1" }, spec: { size: 1 } },
      });
      assert.equal(made.status, 201, made.text);
      const refused = (r: { status: number; body: Obj }, message: string) => {
        assert.equal(r.status, 500);
        assert.equal(r.body.kind, "Status");
        assert.equal(r.body.message, message);
        assert.ok(!r.body.reason, "no reason, as upstream's");
      };
      const failed = "failed: custom webhook conversion error";
      refused(
        await api.call("GET", at("v2", "gadgets", "g1")),
        `conversion webhook for ${GROUP}/v1, Kind=Gadget ${failed}`,
      );
      refused(
        await api.call("GET", at("v2", "gadgets")),
        `conversion webhook for ${GROUP}/v2, Kind=GadgetList ${failed}`,
      );
      refused(
        await api.call("POST", at("v2", "gadgets"), {
          body: { apiVersion: `${GROUP}/v2`, kind: "Gadget", metadata: { name: "g2" }, spec: { count: 2 } },
        }),
        `conversion webhook for ${GROUP}/v2, Kind=Gadget ${failed}`,
      );
      assert.equal((await api.call("GET", at("v1", "gadgets", "g2"))).status, 404, "nothing stored");
      refused(
        await api.call("PATCH", at("v2", "gadgets", "g1"), {
          raw: JSON.stringify({ spec: { count: 8 } }),
          contentType: "application/merge-patch+json",
        }),
        `conversion webhook for ${GROUP}/v1, Kind=Gadget ${failed}`,
      );
      assert.deepEqual(
        (await api.call("GET", at("v1", "gadgets", "g1"))).body.spec,
        { size: 1 },
        "unchanged",
      );
      // A watch whose objects cannot be converted ends, as upstream's does.
      const watch = await api.watch(`${at("v2", "gadgets")}?watch=true`);
      const first = await nextWithin(watch.events, 10_000);
      watch.close();
      assert.equal(first?.done, true);
      // The server is fine.
      assert.equal((await api.call("GET", at("v1", "gadgets", "g1"))).status, 200);
    });

    it("reaches a webhook named by a Service, its certificate checked as <name>.<namespace>.svc", async () => {
      // EndpointSlices may not name loopback addresses, so the Service is an ExternalName one.
      const service = await api.call("POST", "/api/v1/namespaces/default/services", {
        body: {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "conv-hook" },
          spec: { type: "ExternalName", externalName: "127.0.0.1" },
        },
      });
      assert.equal(service.status, 201, service.text);
      await served(
        api,
        apiextensions,
        crd(apiextensions, "gizmos", {
          service: { namespace: "default", name: "conv-hook", path: "/convert/convert", port: peer.port },
          caBundle: b64(peer.serverCa.certPem),
        }),
      );
      await api.call("POST", at("v1", "gizmos"), {
        body: { apiVersion: `${GROUP}/v1`, kind: "Gizmo", metadata: { name: "z1" }, spec: { size: 6 } },
      });
      const got = await api.call("GET", at("v2", "gizmos", "z1"));
      assert.equal(got.status, 200, got.text);
      assert.deepEqual(got.body.spec, { count: 6 });
      // Another Service name at the same address: the certificate does not name it.
      await api.call("POST", "/api/v1/namespaces/default/services", {
        body: {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "other-hook" },
          spec: { type: "ExternalName", externalName: "127.0.0.1" },
        },
      });
      await served(
        api,
        apiextensions,
        crd(apiextensions, "sprockets", {
          service: { namespace: "default", name: "other-hook", path: "/convert/convert", port: peer.port },
          caBundle: b64(peer.serverCa.certPem),
        }),
      );
      await api.call("POST", at("v1", "sprockets"), {
        body: { apiVersion: `${GROUP}/v1`, kind: "Sprocket", metadata: { name: "s1" }, spec: { size: 6 } },
      });
      const refused = await api.call("GET", at("v2", "sprockets", "s1"));
      assert.equal(refused.status, 500, refused.text);
      assert.match(
        refused.body.message,
        /^conversion webhook for .* failed: Post ".*": .*other-hook\.default\.svc/,
      );
    });

    it("refuses webhook conversion a definition cannot have (422)", async () => {
      const refused = async (mutate: (spec: Obj) => void, messages: string[]) => {
        const body = crd(apiextensions, "doodads", { url: `${peer.url}/convert/convert` });
        mutate(body.spec as Obj);
        const r = await api.call("POST", `/apis/${apiextensions}/v1/customresourcedefinitions`, { body });
        assert.equal(r.status, 422, r.text);
        for (const m of messages) assert.ok(r.body.message.includes(m), `${r.body.message}\nlacks ${m}`);
      };
      const webhook = (spec: Obj) => (spec.conversion as Obj).webhook as Obj;
      await refused(
        (spec) => {
          spec.preserveUnknownFields = true;
        },
        [
          'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true',
        ],
      );
      await refused(
        (spec) => {
          (webhook(spec).clientConfig as Obj).url = "http://user@example.com/x?q=1#f";
        },
        [
          `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
          'spec.conversion.webhookClientConfig.url: Invalid value: "user": user information is not permitted in the URL',
          'spec.conversion.webhookClientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
          'spec.conversion.webhookClientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
        ],
      );
      await refused(
        (spec) => {
          webhook(spec).clientConfig = { url: "https://h", service: { namespace: "default", name: "x" } };
        },
        ["spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"],
      );
      await refused(
        (spec) => {
          webhook(spec).clientConfig = { service: { name: "x" } };
        },
        [
          "spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required",
        ],
      );
      await refused(
        (spec) => {
          delete webhook(spec).conversionReviewVersions;
        },
        ["spec.conversion.conversionReviewVersions: Required value"],
      );
      await refused(
        (spec) => {
          webhook(spec).conversionReviewVersions = ["v7"];
        },
        [
          'spec.conversion.conversionReviewVersions: Invalid value: ["v7"]: must include at least one of v1, v1beta1',
        ],
      );
      await refused(
        (spec) => {
          (spec.conversion as Obj).strategy = "None";
        },
        [
          "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
          "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook",
        ],
      );
      await refused(
        (spec) => {
          delete (spec.conversion as Obj).webhook;
        },
        ["spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook"],
      );
      assert.equal(
        (await api.call("GET", `/apis/${apiextensions}/v1/customresourcedefinitions/doodads.${GROUP}`))
          .status,
        404,
      );
    });
  });
}
