// Protobuf responses end to end: what the gateway sends for `Accept: application/vnd.kubernetes.protobuf`
// is compared byte for byte with the message protobufjs builds from upstream's IDL for the same
// object, written as Go's marshallers write it (value fields with their zeros, pointers when set,
// map keys sorted). Objects, lists, Status errors, PartialObjectMetadataList, watch frames over
// chunked HTTP and WebSocket, Protobuf DeleteOptions bodies, and the negotiation around them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { load } from "js-yaml";
import type protobuf from "protobufjs";
import { Agent, request } from "undici";
import { naming } from "../backends/naming/index.ts";
import { loadIdl, skipWithoutIdl } from "../gateway/protobuf/upstream-idl.ts";
import { ApiClient } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

type Json = Record<string, unknown>;

const K8S = naming("kubernetes");
const CLUSTER = naming("cluster");
const PB = K8S.protobufMediaType;
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const META = "k8s.io.apimachinery.pkg.apis.meta.v1";
const RUNTIME = "k8s.io.apimachinery.pkg.runtime";
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

const root: protobuf.Root = loadIdl();
const type = (name: string) => root.lookupType(name);

/** A body as Go writes it: the magic, then runtime.Unknown around the message. */
function goBody(apiVersion: string, kind: string, message: string, object: Json): Buffer {
  const t = type(message);
  assert.equal(t.verify(object), null, `${message}: ${t.verify(object)}`);
  const raw = t.encode(t.fromObject(object)).finish();
  const unknown = type(`${RUNTIME}.Unknown`);
  const envelope = { typeMeta: { apiVersion, kind }, raw, contentEncoding: "", contentType: "" };
  return Buffer.concat([MAGIC, unknown.encode(unknown.fromObject(envelope)).finish()]);
}

/** The envelope of a body, read by protobufjs. */
function envelopeOf(bytes: Buffer): { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array } {
  assert.deepEqual(bytes.subarray(0, 4), MAGIC);
  return type(`${RUNTIME}.Unknown`).decode(bytes.subarray(4)) as unknown as {
    typeMeta: { apiVersion: string; kind: string };
    raw: Uint8Array;
  };
}

function goTime(value: unknown): Json {
  if (typeof value !== "string") return {};
  const ms = Date.parse(value);
  return { seconds: Math.floor(ms / 1000), nanos: 0 };
}

/** A map as Go writes it: keys in order. */
function sorted(map: unknown): Json | undefined {
  if (map === undefined || map === null) return undefined;
  const m = map as Record<string, string>;
  return Object.fromEntries(
    Object.keys(m)
      .sort()
      .map((k) => [k, m[k]]),
  );
}

/** ObjectMeta as a Go struct: strings and generation always, the rest when set. */
function goObjectMeta(m: Json): Json {
  const out: Json = {
    name: m.name ?? "",
    generateName: m.generateName ?? "",
    namespace: m.namespace ?? "",
    selfLink: "",
    uid: m.uid ?? "",
    resourceVersion: m.resourceVersion ?? "",
    generation: m.generation ?? 0,
    creationTimestamp: goTime(m.creationTimestamp),
  };
  if (m.labels) out.labels = sorted(m.labels);
  if (m.annotations) out.annotations = sorted(m.annotations);
  if (m.finalizers) out.finalizers = m.finalizers;
  if (m.managedFields) {
    out.managedFields = (m.managedFields as Json[]).map((e) => ({
      manager: e.manager ?? "",
      operation: e.operation ?? "",
      apiVersion: e.apiVersion ?? "",
      ...(e.time ? { time: goTime(e.time) } : {}),
      fieldsType: e.fieldsType ?? "",
      ...(e.fieldsV1 ? { fieldsV1: { Raw: Buffer.from(JSON.stringify(e.fieldsV1)) } } : {}),
      subresource: e.subresource ?? "",
    }));
  }
  return out;
}

function goConfigMap(cm: Json): Json {
  return {
    metadata: goObjectMeta(cm.metadata as Json),
    ...(cm.data ? { data: sorted(cm.data) } : {}),
    ...(cm.immutable !== undefined ? { immutable: cm.immutable } : {}),
  };
}

function goListMeta(m: Json): Json {
  return {
    selfLink: "",
    resourceVersion: m.resourceVersion ?? "",
    continue: m.continue ?? "",
    ...(m.remainingItemCount !== undefined ? { remainingItemCount: m.remainingItemCount } : {}),
  };
}

/** Events of a Protobuf watch over chunked HTTP: each a 4-byte length and a WatchEvent. */
async function protobufWatch(
  server: string,
  agent: Agent,
  path: string,
  accept = `${PB}, application/json`,
): Promise<{ frames: Buffer[]; close(): void }> {
  const ac = new AbortController();
  const res = await request(`${server}${path}`, {
    dispatcher: agent,
    signal: ac.signal,
    headers: { accept },
  });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers["content-type"], `${PB};stream=watch`);
  const frames: Buffer[] = [];
  let pending = Buffer.alloc(0);
  void (async () => {
    try {
      for await (const chunk of res.body) {
        pending = Buffer.concat([pending, chunk as Buffer]);
        while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
          const length = pending.readUInt32BE(0);
          frames.push(pending.subarray(0, 4 + length));
          pending = pending.subarray(4 + length);
        }
      }
    } catch {
      // aborted
    }
  })();
  return { frames, close: () => ac.abort() };
}

function goWatchFrame(eventType: string, object: Buffer, framed = true): Buffer {
  const t = type(`${META}.WatchEvent`);
  const event = Buffer.from(t.encode(t.fromObject({ type: eventType, object: { raw: object } })).finish());
  if (!framed) return event;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(event.length);
  return Buffer.concat([length, event]);
}

function agentFor(kubeconfig: string): Agent {
  const config = load(readFileSync(kubeconfig, "utf8")) as {
    clusters: { cluster: { "certificate-authority-data": string } }[];
    users: { user: { "client-certificate-data": string; "client-key-data": string } }[];
  };
  const b64 = (s: string) => Buffer.from(s, "base64").toString("utf8");
  return new Agent({
    connect: {
      ca: b64(config.clusters[0]!.cluster["certificate-authority-data"]),
      cert: b64(config.users[0]!.user["client-certificate-data"]),
      key: b64(config.users[0]!.user["client-key-data"]),
    },
  });
}

describe("Protobuf responses, byte for byte with upstream's IDL (kubernetes naming)", {
  skip: skipWithoutIdl,
}, () => {
  let gw: GatewayProcess;
  let api: ApiClient;
  let agent: Agent;
  const accept = `${PB}, application/json`;

  before(async () => {
    // WatchList: the initial-events-end BOOKMARK of a streaming list.
    gw = await startGateway(["--api-naming=kubernetes", "--feature-gates=WatchList=true"]);
    api = new ApiClient(gw.kubeconfig);
    agent = agentFor(gw.kubeconfig);
  });
  after(async () => {
    await api?.close();
    await agent?.close();
    await gw?.stop();
  });

  async function createConfigMap(name: string, data: Json): Promise<Json> {
    const made = await api.call("POST", CONFIGMAPS, {
      body: { metadata: { name, labels: { z: "1", a: "2" } }, data },
    });
    assert.equal(made.status, 201, made.text);
    return made.body as Json;
  }

  it("GET of a ConfigMap: Protobuf first, JSON second gets Protobuf, as Go writes it", async () => {
    await createConfigMap("one", { b: "2", a: "1" });
    const json = await api.call("GET", `${CONFIGMAPS}/one`);
    const pb = await api.call("GET", `${CONFIGMAPS}/one`, { accept });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers["content-type"], PB);
    const expected = goBody("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap", goConfigMap(json.body));
    assert.equal(pb.bytes.toString("hex"), expected.toString("hex"));
  });

  it("a paged LIST: the List kind with its ListMeta (continue, remainingItemCount)", async () => {
    await createConfigMap("two", { x: "y" });
    const json = await api.call("GET", `${CONFIGMAPS}?limit=1`);
    const pb = await api.call(
      "GET",
      `${CONFIGMAPS}?limit=1&resourceVersion=${json.body.metadata.resourceVersion}&resourceVersionMatch=Exact`,
      { accept },
    );
    assert.equal(pb.status, 200, pb.text);
    assert.equal(pb.headers["content-type"], PB);
    const expected = goBody("v1", "ConfigMapList", "k8s.io.api.core.v1.ConfigMapList", {
      metadata: goListMeta(json.body.metadata),
      items: (json.body.items as Json[]).map(goConfigMap),
    });
    assert.ok(json.body.metadata.continue, "a continue token");
    assert.equal(pb.bytes.toString("hex"), expected.toString("hex"));
    // The next page, from the same token, in Protobuf too: it reads back with protobufjs.
    const next = await api.call("GET", `${CONFIGMAPS}?limit=1&continue=${json.body.metadata.continue}`, {
      accept,
    });
    const list = type("k8s.io.api.core.v1.ConfigMapList").decode(envelopeOf(next.bytes).raw) as unknown as {
      items: { metadata: { name: string } }[];
    };
    assert.equal(list.items.length, 1);
  });

  it("a Status error (404) goes out in Protobuf to a client that asks for it first", async () => {
    const json = await api.call("GET", `${CONFIGMAPS}/absent`);
    const pb = await api.call("GET", `${CONFIGMAPS}/absent`, { accept });
    assert.equal(pb.status, 404);
    assert.equal(pb.headers["content-type"], PB);
    const s = json.body as Json;
    const d = s.details as Json;
    const expected = goBody("v1", "Status", `${META}.Status`, {
      metadata: goListMeta({}),
      status: s.status,
      message: s.message,
      reason: s.reason,
      details: { name: d.name, group: d.group, kind: d.kind, retryAfterSeconds: 0, uid: "" },
      code: 404,
    });
    assert.equal(pb.bytes.toString("hex"), expected.toString("hex"));
  });

  it("PartialObjectMetadataList, as client-go's metadata informers ask for it", async () => {
    const json = await api.call("GET", CONFIGMAPS);
    const rv = json.body.metadata.resourceVersion as string;
    const pb = await api.call("GET", `${CONFIGMAPS}?resourceVersion=${rv}&resourceVersionMatch=Exact`, {
      accept: `${PB};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`,
    });
    assert.equal(pb.status, 200, pb.text);
    assert.equal(pb.headers["content-type"], PB);
    const expected = goBody(
      `${K8S.group("meta")}/v1`,
      "PartialObjectMetadataList",
      `${META}.PartialObjectMetadataList`,
      {
        metadata: goListMeta(json.body.metadata),
        items: (json.body.items as Json[]).map((i) => ({ metadata: goObjectMeta(i.metadata as Json) })),
      },
    );
    assert.equal(pb.bytes.toString("hex"), expected.toString("hex"));
  });

  it("DELETE with a Protobuf DeleteOptions body (client-go 1.36, Helm 4): honoured, the Status in Protobuf", async () => {
    await createConfigMap("gone", { a: "b" });
    const options = type(`${META}.DeleteOptions`);
    const body = goBody("v1", "DeleteOptions", `${META}.DeleteOptions`, {
      preconditions: { resourceVersion: "1" },
    });
    // A precondition that does not hold: the options were read (409), nothing deleted.
    const refused = await api.call("DELETE", `${CONFIGMAPS}/gone`, { raw: body, contentType: PB, accept });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.headers["content-type"], PB);
    assert.equal((await api.call("GET", `${CONFIGMAPS}/gone`)).status, 200);
    assert.ok(options);
    const ok = goBody("v1", "DeleteOptions", `${META}.DeleteOptions`, { propagationPolicy: "Background" });
    const deleted = await api.call("DELETE", `${CONFIGMAPS}/gone`, { raw: ok, contentType: PB, accept });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.headers["content-type"], PB);
    assert.equal(envelopeOf(deleted.bytes).typeMeta.kind, "Status");
    const status = type(`${META}.Status`).decode(envelopeOf(deleted.bytes).raw) as unknown as {
      status: string;
      details: { name: string; kind: string };
    };
    assert.equal(status.status, "Success");
    assert.equal(status.details.name, "gone");
    assert.equal((await api.call("GET", `${CONFIGMAPS}/gone`)).status, 404);
  });

  it("deletecollection with a Protobuf DeleteOptions body", async () => {
    for (const name of ["sweep-a", "sweep-b"]) {
      const made = await api.call("POST", CONFIGMAPS, {
        body: { metadata: { name, labels: { sweep: "yes" } } },
      });
      assert.equal(made.status, 201);
    }
    const body = goBody("v1", "DeleteOptions", `${META}.DeleteOptions`, { propagationPolicy: "Background" });
    const swept = await api.call("DELETE", `${CONFIGMAPS}?labelSelector=sweep%3Dyes`, {
      raw: body,
      contentType: PB,
    });
    assert.equal(swept.status, 200, swept.text);
    assert.equal((await api.call("GET", `${CONFIGMAPS}?labelSelector=sweep%3Dyes`)).body.items.length, 0);
  });

  it("reviews, Scale, Eviction and TokenRequest: Protobuf bodies in, Protobuf answers out", async () => {
    const authz = `${K8S.group("authorization")}/v1`;
    const review = await api.call("POST", `/apis/${authz}/selfsubjectaccessreviews`, {
      raw: goBody(authz, "SelfSubjectAccessReview", "k8s.io.api.authorization.v1.SelfSubjectAccessReview", {
        metadata: {},
        spec: { resourceAttributes: { namespace: "default", verb: "get", resource: "pods" } },
      }),
      contentType: PB,
      accept,
    });
    assert.equal(review.status, 201, review.text);
    assert.equal(review.headers["content-type"], PB);
    assert.deepEqual(
      { ...envelopeOf(review.bytes).typeMeta },
      {
        apiVersion: authz,
        kind: "SelfSubjectAccessReview",
      },
    );
    const answer = type("k8s.io.api.authorization.v1.SelfSubjectAccessReview").decode(
      envelopeOf(review.bytes).raw,
    ) as unknown as { status: { allowed: boolean } };
    assert.equal(answer.status.allowed, true);

    // A Deployment scaled through its Scale, sent and answered in Protobuf.
    const web = await api.call("POST", "/apis/apps/v1/namespaces/default/deployments", {
      body: {
        metadata: { name: "web" },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "c", image: "nginx" }] },
          },
        },
      },
    });
    assert.equal(web.status, 201, web.text);
    const scalePath = "/apis/apps/v1/namespaces/default/deployments/web/scale";
    const scale = await api.call("PUT", scalePath, {
      raw: goBody("autoscaling/v1", "Scale", "k8s.io.api.autoscaling.v1.Scale", {
        metadata: { name: "web", namespace: "default" },
        spec: { replicas: 3 },
      }),
      contentType: PB,
      accept,
    });
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.headers["content-type"], PB);
    const scaled = type("k8s.io.api.autoscaling.v1.Scale").decode(envelopeOf(scale.bytes).raw) as unknown as {
      spec: { replicas: number };
    };
    assert.equal(scaled.spec.replicas, 3);
    assert.equal(
      (await api.call("GET", "/apis/apps/v1/namespaces/default/deployments/web")).body.spec.replicas,
      3,
    );
    // A Protobuf body of another kind is refused, and nothing changes.
    const wrongKind = await api.call("PUT", scalePath, {
      raw: goBody("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap", { metadata: { name: "web" } }),
      contentType: PB,
    });
    assert.equal(wrongKind.status, 400, wrongKind.text);
    assert.equal(
      (await api.call("GET", "/apis/apps/v1/namespaces/default/deployments/web")).body.spec.replicas,
      3,
    );

    // A token for a ServiceAccount.
    assert.equal(
      (
        await api.call("POST", "/api/v1/namespaces/default/serviceaccounts", {
          body: { metadata: { name: "robot" } },
        })
      ).status,
      201,
    );
    const authn = `${K8S.group("authentication")}/v1`;
    const token = await api.call("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", {
      raw: goBody(authn, "TokenRequest", "k8s.io.api.authentication.v1.TokenRequest", {
        metadata: {},
        spec: { expirationSeconds: 3600 },
      }),
      contentType: PB,
      accept,
    });
    assert.equal(token.status, 201, token.text);
    assert.equal(token.headers["content-type"], PB);
    const issued = type("k8s.io.api.authentication.v1.TokenRequest").decode(
      envelopeOf(token.bytes).raw,
    ) as unknown as {
      status: { token: string };
    };
    assert.match(issued.status.token, /^ey/);

    // An Eviction of a pod that is not running: deleted, the answer a Status.
    const pod = await api.call("POST", "/api/v1/namespaces/default/pods", {
      body: { metadata: { name: "evicted" }, spec: { containers: [{ name: "c", image: "nginx" }] } },
    });
    assert.equal(pod.status, 201, pod.text);
    const evicted = await api.call("POST", "/api/v1/namespaces/default/pods/evicted/eviction", {
      raw: goBody("policy/v1", "Eviction", "k8s.io.api.policy.v1.Eviction", {
        metadata: { name: "evicted", namespace: "default" },
      }),
      contentType: PB,
      accept,
    });
    assert.equal(evicted.status, 201, evicted.text);
    assert.equal(evicted.headers["content-type"], PB);
    assert.equal(envelopeOf(evicted.bytes).typeMeta.kind, "Status");
    assert.equal((await api.call("GET", "/api/v1/namespaces/default/pods/evicted")).status, 404);
  });

  it("a watch in Protobuf: length-prefixed WatchEvents holding the object's full body, BOOKMARK too", async () => {
    const list = await api.call("GET", CONFIGMAPS);
    const rv = list.body.metadata.resourceVersion as string;
    const w = await protobufWatch(
      api.server,
      agent,
      `${CONFIGMAPS}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`,
    );
    try {
      await createConfigMap("watched", { k: "v" });
      await eventually(async () => w.frames.length >= 1, 10_000, "the ADDED frame");
      const got = await api.call("GET", `${CONFIGMAPS}/watched`, { accept });
      assert.equal(w.frames[0]!.toString("hex"), goWatchFrame("ADDED", got.bytes).toString("hex"));
      assert.equal((await api.call("DELETE", `${CONFIGMAPS}/watched`)).status, 200);
      await eventually(async () => w.frames.length >= 2, 10_000, "the DELETED frame");
      const event = type(`${META}.WatchEvent`).decode(w.frames[1]!.subarray(4)) as unknown as {
        type: string;
        object: { raw: Uint8Array };
      };
      assert.equal(event.type, "DELETED");
      assert.equal(envelopeOf(Buffer.from(event.object.raw)).typeMeta.kind, "ConfigMap");
    } finally {
      w.close();
    }
    // The initial-events-end bookmark of a streaming list: a ConfigMap with only its metadata.
    const current = await api.call("GET", CONFIGMAPS);
    const s = await protobufWatch(
      api.server,
      agent,
      `${CONFIGMAPS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=`,
    );
    try {
      const items = (current.body.items as Json[]).length;
      await eventually(
        async () => s.frames.length >= items + 1,
        10_000,
        "the initial events and the bookmark",
      );
      const bookmark = s.frames[items]!;
      const event = type(`${META}.WatchEvent`).decode(bookmark.subarray(4)) as unknown as {
        type: string;
        object: { raw: Uint8Array };
      };
      assert.equal(event.type, "BOOKMARK");
      const cm = type("k8s.io.api.core.v1.ConfigMap").decode(
        envelopeOf(Buffer.from(event.object.raw)).raw,
      ) as unknown as {
        metadata: { resourceVersion: string; annotations: Record<string, string> };
      };
      const expected = goBody("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap", {
        metadata: goObjectMeta({
          resourceVersion: cm.metadata.resourceVersion,
          annotations: { [`${K8S.groupSuffix}/initial-events-end`]: "true" },
        }),
      });
      assert.equal(bookmark.toString("hex"), goWatchFrame("BOOKMARK", expected).toString("hex"));
    } finally {
      s.close();
    }
  });

  it("a WebSocket watch in Protobuf: one binary message per event, without the length", async () => {
    const list = await api.call("GET", CONFIGMAPS);
    const url = `wss://127.0.0.1:${gw.port}${CONFIGMAPS}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`;
    const ws = new WebSocket(url, {
      dispatcher: agent,
      headers: { accept: PB, origin: "https://console.example" },
    } as unknown as string[]);
    ws.binaryType = "arraybuffer";
    const messages: unknown[] = [];
    ws.addEventListener("message", (e) => messages.push(e.data));
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener("open", () => resolve());
      ws.addEventListener("error", () => reject(new Error("the WebSocket failed to open")));
    });
    try {
      await createConfigMap("over-ws", { k: "v" });
      await eventually(async () => messages.length >= 1, 10_000, "a message");
      assert.ok(messages[0] instanceof ArrayBuffer, "a binary message");
      const got = await api.call("GET", `${CONFIGMAPS}/over-ws`, { accept });
      assert.equal(
        Buffer.from(messages[0] as ArrayBuffer).toString("hex"),
        goWatchFrame("ADDED", got.bytes, false).toString("hex"),
      );
    } finally {
      ws.close();
    }
  });

  describe("negotiation", () => {
    let crPath: string;
    before(async () => {
      crPath = await createServedCrd(api, {
        apiextensions: K8S.group("apiextensions"),
        group: "stable.example.com",
        kind: "Widget",
        schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      });
      const made = await api.call("POST", crPath, {
        body: { apiVersion: "stable.example.com/v1", kind: "Widget", metadata: { name: "w" } },
      });
      assert.equal(made.status, 201, made.text);
    });

    it("a custom resource gets JSON for Protobuf-then-JSON, and 406 for Protobuf alone", async () => {
      const both = await api.call("GET", `${crPath}/w`, { accept });
      assert.equal(both.status, 200);
      assert.match(String(both.headers["content-type"]), /^application\/json/);
      assert.equal(both.body.kind, "Widget");
      const list = await api.call("GET", crPath, { accept });
      assert.match(String(list.headers["content-type"]), /^application\/json/);
      const only = await api.call("GET", `${crPath}/w`, { accept: PB });
      assert.equal(only.status, 406);
      // The 406 itself is a Status in the type the client asked for, as upstream writes errors.
      assert.equal(only.headers["content-type"], PB);
      assert.equal(envelopeOf(only.bytes).typeMeta.kind, "Status");
    });

    it("a custom resource's metadata may be Protobuf (PartialObjectMetadata)", async () => {
      const r = await api.call("GET", `${crPath}/w`, {
        accept: `${PB};as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json`,
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers["content-type"], PB);
      assert.equal(envelopeOf(r.bytes).typeMeta.kind, "PartialObjectMetadata");
    });

    it("a metadata informer's watch of a custom resource: PartialObjectMetadata in Protobuf frames", async () => {
      const metadataAccept = `${PB};as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json`;
      const w = await protobufWatch(api.server, agent, `${crPath}?watch=1&resourceVersion=0`, metadataAccept);
      try {
        await eventually(async () => w.frames.length >= 1, 10_000, "the ADDED frame");
        const got = await api.call("GET", `${crPath}/w`, { accept: metadataAccept });
        assert.equal(w.frames[0]!.toString("hex"), goWatchFrame("ADDED", got.bytes).toString("hex"));
        assert.equal(envelopeOf(got.bytes).typeMeta.kind, "PartialObjectMetadata");
      } finally {
        w.close();
      }
    });

    it("as=Table stays JSON; an Accept listing Table first gets the Table", async () => {
      const r = await api.call("GET", CONFIGMAPS, {
        accept: `application/json;as=Table;v=v1;g=meta.k8s.io,${PB}`,
      });
      assert.equal(r.status, 200);
      assert.match(String(r.headers["content-type"]), /^application\/json/);
      assert.equal(r.body.kind, "Table");
      // Protobuf;as=Table is no choice: the next clause (JSON) answers.
      const next = await api.call("GET", CONFIGMAPS, {
        accept: `${PB};as=Table;v=v1;g=meta.k8s.io,application/json`,
      });
      assert.equal(next.body.kind, "ConfigMapList");
    });

    it("q= weights and unknown parameters: the highest q wins; unknown parameters are ignored", async () => {
      const r = await api.call("GET", `${CONFIGMAPS}/one`, {
        accept: `application/json;q=0.5, ${PB};charset=utf-8;q=0.9`,
      });
      assert.equal(r.headers["content-type"], PB);
      const j = await api.call("GET", `${CONFIGMAPS}/one`, { accept: `application/json;q=0.9, ${PB};q=0.5` });
      assert.match(String(j.headers["content-type"]), /^application\/json/);
    });

    it("an Accept of 500 entries: the right choice, or a 406 when none fits", async () => {
      const noise = Array.from({ length: 499 }, (_, i) => `text/x-${i};q=0.${(i % 9) + 1}`).join(", ");
      const r = await api.call("GET", `${CONFIGMAPS}/one`, { accept: `${noise}, ${PB};q=0.05` });
      assert.equal(r.status, 200);
      assert.equal(r.headers["content-type"], PB);
      const none = await api.call("GET", `${CONFIGMAPS}/one`, { accept: `${noise}, image/png` });
      assert.equal(none.status, 406);
      assert.equal(none.body.reason, "NotAcceptable");
    });
  });
});

describe("Protobuf responses under the default naming", { skip: skipWithoutIdl }, () => {
  let gw: GatewayProcess;
  let api: ApiClient;

  before(async () => {
    gw = await startGateway([]);
    api = new ApiClient(gw.kubeconfig);
    assert.equal(
      (await api.call("POST", CONFIGMAPS, { body: { metadata: { name: "c" }, data: { a: "1" } } })).status,
      201,
    );
  });
  after(async () => {
    await api?.close();
    await gw?.stop();
  });

  it("answers in the preset's Protobuf type and in upstream's, each with the type asked for", async () => {
    const json = await api.call("GET", `${CONFIGMAPS}/c`);
    const expected = goBody("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap", goConfigMap(json.body));
    for (const mediaType of [CLUSTER.protobufMediaType, PB]) {
      const r = await api.call("GET", `${CONFIGMAPS}/c`, { accept: `${mediaType}, application/json` });
      assert.equal(r.status, 200);
      assert.equal(r.headers["content-type"], mediaType);
      assert.equal(r.bytes.toString("hex"), expected.toString("hex"));
    }
  });

  it("an RBAC object's envelope names the preset's group", async () => {
    const r = await api.call("GET", `/apis/${CLUSTER.group("rbac.authorization")}/v1/clusterroles/admin`, {
      accept: `${PB}, application/json`,
    });
    assert.equal(r.status, 200);
    assert.equal(envelopeOf(r.bytes).typeMeta.apiVersion, `${CLUSTER.group("rbac.authorization")}/v1`);
    assert.equal(envelopeOf(r.bytes).typeMeta.kind, "ClusterRole");
  });
});
