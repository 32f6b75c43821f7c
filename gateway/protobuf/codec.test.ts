// The Protobuf codec: round trips of every kind in the JSON a Go client would send, Go's zero
// value and pointer rules on the wire, unknown-field skipping, and decode errors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import protobuf from "protobufjs";
import { MAX_BODY_DEPTH } from "../../backends/registry/index.ts";
import {
  decodeProtobuf,
  decodeProtobufObject,
  encodeProtobufMessage,
  encodeProtobufObject,
  isProtobufBody,
  PROTOBUF_MAGIC,
  ProtobufDecodeError,
  ProtobufEncodeError,
  ProtobufUnsupportedKindError,
} from "./codec.ts";
import { KINDS } from "./descriptors.ts";

type Json = Record<string, unknown>;

const FULL_META: Json = {
  name: "web",
  generateName: "web-",
  namespace: "default",
  selfLink: "/api/v1/namespaces/default/things/web",
  uid: "6f1e2d3c-0000-4000-8000-000000000001",
  resourceVersion: "42",
  generation: 3,
  creationTimestamp: "2024-05-06T07:08:09Z",
  deletionTimestamp: "2024-05-07T00:00:00Z",
  deletionGracePeriodSeconds: 0,
  labels: { "app.kubernetes.io/name": "web", tier: "front" },
  annotations: { note: 'quotes " and unicode ✓' },
  ownerReferences: [
    {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      name: "web-5d4",
      uid: "6f1e2d3c-0000-4000-8000-000000000002",
      controller: true,
      blockOwnerDeletion: false,
    },
    { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "u3" },
  ],
  finalizers: ["example.com/cleanup", "kubernetes"],
  managedFields: [
    {
      manager: "kubectl-client-side-apply",
      operation: "Update",
      apiVersion: "v1",
      time: "2024-05-06T07:08:09Z",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:tier": {} } } },
    },
    {
      manager: "controller",
      operation: "Update",
      fieldsType: "FieldsV1",
      fieldsV1: {},
      subresource: "status",
    },
  ],
};

const OBJECT_REFERENCE: Json = {
  kind: "Pod",
  namespace: "default",
  name: "web-0",
  uid: "u-pod",
  apiVersion: "v1",
  resourceVersion: "17",
  fieldPath: "spec.containers{web}",
};

/** A fully populated object of each kind, in the exact JSON form the decoder gives back. */
const FULL: Record<string, Json> = {
  Namespace: {
    kind: "Namespace",
    apiVersion: "v1",
    metadata: Object.fromEntries(Object.entries(FULL_META).filter(([k]) => k !== "namespace")),
    spec: { finalizers: ["kubernetes"] },
    status: {
      phase: "Terminating",
      conditions: [
        {
          type: "NamespaceDeletionContentFailure",
          status: "False",
          lastTransitionTime: "2024-05-06T07:08:09Z",
          reason: "ContentDeleted",
          message: "All content successfully deleted",
        },
        { type: "NamespaceContentRemaining", status: "", lastTransitionTime: null },
      ],
    },
  },
  ConfigMap: {
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: FULL_META,
    immutable: false,
    data: { "a.txt": "one\ntwo", empty: "" },
    binaryData: { "bin.dat": "AP/+IGJpbmFyeQ==", none: "" },
  },
  Secret: {
    kind: "Secret",
    apiVersion: "v1",
    metadata: FULL_META,
    immutable: true,
    data: { password: "cDRzcw==", token: "" },
    stringData: { extra: "plain" },
    type: "kubernetes.io/basic-auth",
  },
  ServiceAccount: {
    kind: "ServiceAccount",
    apiVersion: "v1",
    metadata: FULL_META,
    secrets: [OBJECT_REFERENCE, { name: "token-abc" }],
    imagePullSecrets: [{ name: "registry" }, {}],
    automountServiceAccountToken: false,
  },
  Event: {
    kind: "Event",
    apiVersion: "v1",
    metadata: FULL_META,
    involvedObject: OBJECT_REFERENCE,
    reason: "Pulled",
    message: "Container image pulled",
    source: { component: "kubelet", host: "node-1" },
    firstTimestamp: "1969-12-31T23:59:59Z",
    lastTimestamp: "2024-05-06T07:08:09Z",
    count: 2147483647,
    type: "Normal",
    eventTime: "2024-05-06T07:08:09.123456Z",
    series: { count: 3, lastObservedTime: "2024-05-06T07:08:10.000001Z" },
    action: "Pull",
    related: { kind: "Node", name: "node-1" },
    reportingComponent: "kubelet",
    reportingInstance: "node-1",
  },
  NamespaceList: {
    kind: "NamespaceList",
    apiVersion: "v1",
    metadata: {
      selfLink: "/api/v1/namespaces",
      resourceVersion: "99",
      continue: "eyJ2IjoxfQ",
      remainingItemCount: 0,
    },
    items: [
      { metadata: { name: "a", creationTimestamp: null }, spec: {}, status: { phase: "Active" } },
      { metadata: { name: "b", creationTimestamp: null }, spec: {}, status: {} },
    ],
  },
  ConfigMapList: {
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: "5", remainingItemCount: 9007199254740991 },
    items: [{ metadata: { name: "c", creationTimestamp: null }, data: { a: "b" } }],
  },
  SecretList: { kind: "SecretList", apiVersion: "v1", metadata: {}, items: [] },
  ServiceAccountList: {
    kind: "ServiceAccountList",
    apiVersion: "v1",
    metadata: {},
    items: [{ metadata: { name: "default", namespace: "ns", creationTimestamp: null } }],
  },
  EventList: {
    kind: "EventList",
    apiVersion: "v1",
    metadata: { resourceVersion: "1" },
    items: [
      {
        metadata: { name: "e", creationTimestamp: null },
        involvedObject: {},
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        eventTime: null,
        reportingComponent: "",
        reportingInstance: "",
      },
    ],
  },
  DeleteOptions: {
    kind: "DeleteOptions",
    apiVersion: "meta.k8s.io/v1",
    gracePeriodSeconds: 0,
    preconditions: { uid: "", resourceVersion: "12" },
    orphanDependents: false,
    propagationPolicy: "Foreground",
    dryRun: ["All"],
  },
  Status: {
    kind: "Status",
    apiVersion: "v1",
    metadata: { resourceVersion: "3" },
    status: "Failure",
    message: 'ConfigMap "c" is invalid: data[a b]: Invalid value',
    reason: "Invalid",
    details: {
      name: "c",
      kind: "ConfigMap",
      uid: "u",
      causes: [
        { reason: "FieldValueInvalid", message: "Invalid value", field: "data[a b]" },
        { reason: "FieldValueRequired" },
      ],
      retryAfterSeconds: 1,
    },
    code: 422,
  },
};

/** A minimal object of each kind and the JSON a Go client would send for it. */
const MINIMAL: Record<string, [Json, Json]> = {
  Namespace: [
    { kind: "Namespace", apiVersion: "v1", metadata: { name: "x" } },
    {
      kind: "Namespace",
      apiVersion: "v1",
      metadata: { name: "x", creationTimestamp: null },
      spec: {},
      status: {},
    },
  ],
  ConfigMap: [
    { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "c" }, data: {}, binaryData: null },
    { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "c", creationTimestamp: null } },
  ],
  Secret: [
    { kind: "Secret", apiVersion: "v1", metadata: { name: "s", labels: {}, finalizers: [] }, type: "" },
    { kind: "Secret", apiVersion: "v1", metadata: { name: "s", creationTimestamp: null } },
  ],
  ServiceAccount: [
    { kind: "ServiceAccount", apiVersion: "v1" },
    { kind: "ServiceAccount", apiVersion: "v1", metadata: { creationTimestamp: null } },
  ],
  Event: [
    { kind: "Event", apiVersion: "v1", metadata: { name: "e", namespace: "default" }, count: 0 },
    {
      kind: "Event",
      apiVersion: "v1",
      metadata: { name: "e", namespace: "default", creationTimestamp: null },
      involvedObject: {},
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: "",
      reportingInstance: "",
    },
  ],
  NamespaceList: [
    { kind: "NamespaceList", apiVersion: "v1" },
    { kind: "NamespaceList", apiVersion: "v1", metadata: {}, items: [] },
  ],
  DeleteOptions: [
    { kind: "DeleteOptions", apiVersion: "v1" },
    { kind: "DeleteOptions", apiVersion: "v1" },
  ],
  Status: [
    { kind: "Status", apiVersion: "v1", status: "Success" },
    { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" },
  ],
};

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

/** A body around hand-written raw bytes. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).ldelim();
  w.uint32(0x12).bytes(raw);
  return Buffer.concat([PROTOBUF_MAGIC, w.finish()]);
}

function decodeError(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ProtobufDecodeError, `not a ProtobufDecodeError: ${String(err)}`);
    assert.match(err.message, pattern);
    return true;
  });
}

describe("round trips", () => {
  it("covers the meta kinds and the core kinds sampled here (catalog-descriptors.test.ts: every kind)", () => {
    const sampled = ["Namespace", "ConfigMap", "Secret", "ServiceAccount", "Event"].flatMap((k) => [
      k,
      `${k}List`,
    ]);
    for (const k of KINDS.filter((k) => k.group === "*" || (k.group === "" && sampled.includes(k.kind)))) {
      assert.ok(FULL[k.kind], `no full sample of ${k.kind}`);
    }
  });

  for (const [kind, object] of Object.entries(FULL)) {
    it(`${kind}: full object`, () => {
      const body = encodeProtobufObject(object);
      assert.ok(isProtobufBody(body));
      const decoded = decodeProtobuf(body);
      assert.deepEqual(decoded.object, object);
      assert.equal(decoded.kind, kind);
      assert.deepEqual(decoded.unknownFields, []);
      // JSON key order is Go's: kind, apiVersion, then fields in struct order.
      assert.deepEqual(Object.keys(decoded.object), Object.keys(object));
      // Encoding what we decoded gives the same bytes.
      assert.equal(hex(encodeProtobufObject(decoded.object)), hex(body));
    });
  }

  for (const [kind, [input, expected]] of Object.entries(MINIMAL)) {
    it(`${kind}: minimal object comes back in Go's JSON form`, () => {
      const decoded = decodeProtobufObject(encodeProtobufObject(input));
      assert.deepEqual(decoded, expected);
      assert.equal(JSON.stringify(decoded), JSON.stringify(expected));
    });
  }
});

describe("Go's wire rules", () => {
  it("value fields are always written, pointers only when set", () => {
    // ConfigMap{metadata: {}}: metadata with every value field, no immutable.
    assert.equal(
      hex(encodeProtobufMessage({ apiVersion: "v1", kind: "ConfigMap" })),
      "0a10" + "0a00" + "1200" + "1a00" + "2200" + "2a00" + "3200" + "3800" + "4200",
    );
    // A pointer set to its zero value is written, and read back as present.
    const raw = encodeProtobufMessage({ apiVersion: "v1", kind: "ConfigMap", immutable: false });
    assert.ok(hex(raw).endsWith("2000"));
    assert.equal(decodeProtobufObject(envelope("v1", "ConfigMap", raw)).immutable, false);
  });

  it("fields go out in number order and map entries in key order", () => {
    const raw = encodeProtobufMessage({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
      immutable: true,
      type: "Opaque",
      stringData: { z: "1", a: "2" },
      data: { b: "", a: "YQ==" },
    });
    const numbers: number[] = [];
    const reader = protobuf.Reader.create(raw);
    while (reader.pos < reader.len) {
      const t = reader.uint32();
      numbers.push(t >>> 3);
      reader.skipType(t & 7);
    }
    assert.deepEqual(numbers, [1, 2, 2, 3, 4, 4, 5]);
    const decoded = decodeProtobufObject(envelope("v1", "Secret", raw));
    assert.deepEqual(Object.keys(decoded.data as Json), ["a", "b"]);
    assert.deepEqual(Object.keys(decoded.stringData as Json), ["a", "z"]);
  });

  it("times: whole seconds for Time, microseconds for MicroTime, zero as null, offsets to UTC", () => {
    const decoded = decodeProtobufObject(
      encodeProtobufObject({
        apiVersion: "v1",
        kind: "Event",
        metadata: { creationTimestamp: "2024-05-06T09:08:09.999+02:00" },
        firstTimestamp: "0001-01-01T00:00:00Z",
        lastTimestamp: "0099-03-04T05:06:07Z",
        eventTime: "2024-05-06T07:08:09.123456789Z",
        series: { lastObservedTime: "2024-05-06T07:08:09-00:30" },
      }),
    );
    assert.equal((decoded.metadata as Json).creationTimestamp, "2024-05-06T07:08:09Z");
    assert.equal(decoded.firstTimestamp, null);
    assert.equal(decoded.lastTimestamp, "0099-03-04T05:06:07Z");
    assert.equal(decoded.eventTime, "2024-05-06T07:08:09.123456Z");
    assert.deepEqual(decoded.series, { lastObservedTime: "2024-05-06T07:38:09.000000Z" });
  });

  it("Time keeps whole seconds of what it is sent; nanos beyond a second carry over", () => {
    const time = protobuf.Writer.create()
      .uint32(0x08)
      .int64(1714979289)
      .uint32(0x10)
      .int32(1_999_999_999)
      .finish();
    const raw = protobuf.Writer.create().uint32(0x32).bytes(time).uint32(0x52).bytes(time).finish();
    const decoded = decodeProtobufObject(envelope("v1", "Event", raw));
    assert.equal(decoded.firstTimestamp, "2024-05-06T07:08:10Z");
    assert.equal(decoded.eventTime, "2024-05-06T07:08:10.999999Z");
  });

  it("negative and large integers", () => {
    const object = {
      apiVersion: "v1",
      kind: "Status",
      metadata: { remainingItemCount: -2 },
      code: -1,
      details: { retryAfterSeconds: -2147483648 },
    };
    const decoded = decodeProtobufObject(encodeProtobufObject(object));
    assert.deepEqual(decoded, object);
    const big = { apiVersion: "v1", kind: "Namespace", metadata: { generation: 2 ** 53 - 1 } };
    assert.equal((decodeProtobufObject(encodeProtobufObject(big)).metadata as Json).generation, 2 ** 53 - 1);
  });

  it("a singular message sent twice is merged", () => {
    const meta1 = protobuf.Writer.create().uint32(0x0a).string("x").uint32(0x5a).fork();
    meta1.uint32(0x0a).string("a").uint32(0x12).string("1").ldelim();
    const meta2 = protobuf.Writer.create().uint32(0x1a).string("ns").uint32(0x5a).fork();
    meta2.uint32(0x0a).string("b").uint32(0x12).string("2").ldelim();
    const raw = protobuf.Writer.create()
      .uint32(0x0a)
      .bytes(meta1.finish())
      .uint32(0x0a)
      .bytes(meta2.finish())
      .finish();
    assert.deepEqual(decodeProtobufObject(envelope("v1", "ConfigMap", raw)).metadata, {
      name: "x",
      namespace: "ns",
      creationTimestamp: null,
      labels: { a: "1", b: "2" },
    });
  });

  it("map entries with a missing key or value read as empty", () => {
    const raw = protobuf.Writer.create();
    raw.uint32(0x12).fork().uint32(0x0a).string("only-key").ldelim();
    raw.uint32(0x1a).fork().uint32(0x12).bytes(Uint8Array.of(1)).ldelim();
    assert.deepEqual(decodeProtobufObject(envelope("v1", "ConfigMap", raw.finish())), {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { creationTimestamp: null },
      data: { "only-key": "" },
      binaryData: { "": "AQ==" },
    });
  });

  it("invalid UTF-8 in strings becomes U+FFFD, as Go's JSON encoder writes it", () => {
    const meta = protobuf.Writer.create().uint32(0x0a).bytes(Uint8Array.of(0x61, 0xff)).finish();
    const raw = protobuf.Writer.create().uint32(0x0a).bytes(meta).finish();
    assert.equal((decodeProtobufObject(envelope("v1", "Namespace", raw)).metadata as Json).name, "a\ufffd");
  });
});

describe("envelope", () => {
  it("the expected kind fills in what the envelope leaves empty", () => {
    const body = Buffer.concat([PROTOBUF_MAGIC, Uint8Array.of(0x0a, 0x00, 0x12, 0x00)]);
    decodeError(() => decodeProtobuf(body), /Kind' is missing/);
    assert.deepEqual(decodeProtobufObject(body, { apiVersion: "v1", kind: "ServiceAccount" }), {
      kind: "ServiceAccount",
      apiVersion: "v1",
      metadata: { creationTimestamp: null },
    });
  });

  it("another kind in the envelope is returned as it is, for the caller to check", () => {
    const body = encodeProtobufObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } });
    const result = decodeProtobuf(body, { apiVersion: "v1", kind: "Secret" });
    assert.equal(result.kind, "ConfigMap");
    assert.equal(result.object.kind, "ConfigMap");
  });

  it("DeleteOptions and Status in meta.k8s.io/v1, v1 or another group version", () => {
    for (const apiVersion of ["meta.k8s.io/v1", "v1", "apps/v1"]) {
      const object = { kind: "DeleteOptions", apiVersion, propagationPolicy: "Orphan" };
      assert.deepEqual(decodeProtobufObject(encodeProtobufObject(object)), object);
    }
  });

  it("contentType and contentEncoding are read and ignored", () => {
    const w = protobuf.Writer.create();
    w.uint32(0x0a).fork().uint32(0x0a).string("v1").uint32(0x12).string("Namespace").ldelim();
    w.uint32(0x12).bytes(Uint8Array.of());
    w.uint32(0x1a).string("gzip").uint32(0x22).string("application/vnd.kubernetes.protobuf");
    const result = decodeProtobuf(Buffer.concat([PROTOBUF_MAGIC, w.finish()]));
    assert.equal(result.contentEncoding, "gzip");
    assert.equal(result.contentType, "application/vnd.kubernetes.protobuf");
    assert.equal(result.kind, "Namespace");
  });

  it("the encoder writes upstream's envelope", () => {
    assert.equal(
      hex(encodeProtobufObject({ apiVersion: "v1", kind: "SecretList" })),
      `6b387300` +
        `0a10` +
        `0a027631` +
        `120a${Buffer.from("SecretList").toString("hex")}` +
        "1208" +
        "0a06" +
        "0a00" +
        "1200" +
        "1a00" +
        "1a00" +
        "2200",
    );
  });
});

describe("unknown fields", () => {
  it("are skipped whatever their wire type, and reported with their path", () => {
    const group = protobuf.Writer.create()
      .uint32((50 << 3) | 3)
      .uint32(0x08)
      .uint32(1)
      .uint32((50 << 3) | 4);
    const meta = protobuf.Writer.create()
      .uint32(0x0a)
      .string("x")
      .uint32((99 << 3) | 0)
      .uint64(12345678901)
      .uint32((100 << 3) | 1)
      .fixed64(1)
      .uint32((101 << 3) | 5)
      .fixed32(1)
      .uint32((102 << 3) | 2)
      .string("later field")
      .finish();
    const owner = protobuf.Writer.create()
      .uint32(0x1a)
      .string("o")
      .uint32((9 << 3) | 2)
      .string("?")
      .finish();
    const raw = protobuf.Writer.create()
      .uint32(0x0a)
      .bytes(Buffer.concat([meta, protobuf.Writer.create().uint32(0x6a).bytes(owner).finish()]))
      .uint32((7 << 3) | 2)
      .bytes(Uint8Array.of(1, 2, 3))
      .finish();
    const result = decodeProtobuf(envelope("v1", "Namespace", Buffer.concat([raw, group.finish()])));
    assert.deepEqual(result.object, {
      kind: "Namespace",
      apiVersion: "v1",
      metadata: {
        name: "x",
        creationTimestamp: null,
        ownerReferences: [{ apiVersion: "", kind: "", name: "o", uid: "" }],
      },
      spec: {},
      status: {},
    });
    assert.deepEqual(result.unknownFields, [
      { path: "", number: 7, wireType: 2 },
      { path: "", number: 50, wireType: 3 },
      { path: "metadata", number: 99, wireType: 0 },
      { path: "metadata", number: 100, wireType: 1 },
      { path: "metadata", number: 101, wireType: 5 },
      { path: "metadata", number: 102, wireType: 2 },
      { path: "metadata.ownerReferences[0]", number: 9, wireType: 2 },
    ]);
  });
});

describe("decode errors", () => {
  it("empty, wrong magic, magic only", () => {
    decodeError(() => decodeProtobuf(new Uint8Array()), /^empty data$/);
    decodeError(
      () => decodeProtobuf(Buffer.from('{"kind":"Namespace"}')),
      /does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/,
    );
    decodeError(() => decodeProtobuf(Uint8Array.of(0x6b, 0x38)), /does not appear to be a protobuf message/);
    decodeError(() => decodeProtobuf(PROTOBUF_MAGIC), /^empty body$/);
  });

  it("unknown kinds and versions name the kind and version that have no Protobuf form", () => {
    decodeError(
      () => decodeProtobuf(envelope("apps/v1beta1", "Deployment", new Uint8Array())),
      /^kind "Deployment" of version "apps\/v1beta1" has no Protobuf form on this server; send the body as JSON or YAML$/,
    );
    decodeError(
      () => decodeProtobuf(envelope("v2", "Namespace", new Uint8Array())),
      /kind "Namespace" of version "v2" has no Protobuf form/,
    );
    decodeError(
      () => decodeProtobuf(envelope("events.k8s.io/v1beta1", "Event", new Uint8Array())),
      /kind "Event" of version "events.k8s.io\/v1beta1" has no Protobuf form/,
    );
    assert.throws(
      () => decodeProtobuf(envelope("stable.example.com/v1", "CronTab", new Uint8Array())),
      (err: unknown) =>
        err instanceof ProtobufUnsupportedKindError &&
        err.kind === "CronTab" &&
        err.apiVersion === "stable.example.com/v1" &&
        !err.expected,
    );
  });

  it("a route whose kind has no Protobuf form is refused before the body is read", () => {
    // As upstream's media type negotiation does for resources without a Protobuf serializer
    // (custom resources).
    for (const body of [new Uint8Array(), Buffer.from("{}"), encodeProtobufObject(FULL.ConfigMap!)]) {
      assert.throws(
        () => decodeProtobuf(body, { apiVersion: "stable.example.com/v1", kind: "CronTab" }),
        (err: unknown) =>
          err instanceof ProtobufUnsupportedKindError &&
          err instanceof ProtobufDecodeError &&
          err.expected &&
          err.kind === "CronTab" &&
          err.message ===
            'kind "CronTab" of version "stable.example.com/v1" has no Protobuf form on this server; send it as JSON or YAML',
      );
    }
  });

  it("wrong wire types", () => {
    const raw = protobuf.Writer.create().uint32(0x08).uint32(1).finish(); // metadata as a varint
    decodeError(
      () => decodeProtobuf(envelope("v1", "Namespace", raw)),
      /wrong wire type varint for field Namespace\.metadata \(1\), expected length-delimited/,
    );
    const meta = protobuf.Writer.create().uint32(0x3a).string("7").finish(); // generation as bytes
    decodeError(
      () =>
        decodeProtobuf(
          envelope("v1", "Namespace", protobuf.Writer.create().uint32(0x0a).bytes(meta).finish()),
        ),
      /ObjectMeta\.generation \(7\).*\(in metadata\)/,
    );
    const time = protobuf.Writer.create().uint32(0x0a).string("x").finish(); // seconds as bytes
    decodeError(
      () =>
        decodeProtobuf(envelope("v1", "Event", protobuf.Writer.create().uint32(0x32).bytes(time).finish())),
      /wrong wire type length-delimited for field seconds/,
    );
    decodeError(() => decodeProtobuf(envelope("v1", "Event", Uint8Array.of(0x00))), /illegal tag 0/);
    // Field 99 (unknown) with wire types 4 and 6.
    decodeError(
      () => decodeProtobuf(envelope("v1", "Event", Uint8Array.of(0x9c, 0x06))),
      /unexpected end-group/,
    );
    decodeError(
      () => decodeProtobuf(envelope("v1", "Event", Uint8Array.of(0x9e, 0x06))),
      /illegal wire type 6/,
    );
  });

  it("truncated bodies", () => {
    decodeError(
      () => decodeProtobuf(envelope("v1", "Namespace", Uint8Array.of(0x0a, 0x05, 0x0a))),
      /runs past the end/,
    );
    decodeError(
      () => decodeProtobuf(envelope("v1", "Namespace", Uint8Array.of(0x80))),
      /end of data in a varint/,
    );
    const overlong = Uint8Array.of(...new Array<number>(10).fill(0xff), 0x01);
    decodeError(() => decodeProtobuf(envelope("v1", "Namespace", overlong)), /varint overflows 64 bits/);
  });

  it("invalid JSON in FieldsV1", () => {
    const fields = protobuf.Writer.create().uint32(0x0a).string("{nope").finish();
    const entry = protobuf.Writer.create().uint32(0x3a).bytes(fields).finish();
    const meta = protobuf.Writer.create()
      .uint32((17 << 3) | 2)
      .bytes(entry)
      .finish(); // field 17
    decodeError(
      () =>
        decodeProtobuf(
          envelope("v1", "Namespace", protobuf.Writer.create().uint32(0x0a).bytes(meta).finish()),
        ),
      /metadata\.managedFields\[0\]\.fieldsV1 does not hold valid JSON/,
    );
  });

  it("every truncation and many corruptions of a full body throw only ProtobufDecodeError", () => {
    const body = encodeProtobufObject(FULL.Event!);
    for (let n = 0; n < body.length; n++) {
      try {
        decodeProtobuf(body.subarray(0, n));
      } catch (err) {
        assert.ok(err instanceof ProtobufDecodeError, `prefix ${n}: ${String(err)}`);
      }
    }
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let round = 0; round < 3000; round++) {
      const copy = Buffer.from(body);
      for (let k = 0; k < 3; k++) copy[4 + (random() % (copy.length - 4))] = random() % 256;
      try {
        decodeProtobuf(copy);
      } catch (err) {
        assert.ok(err instanceof ProtobufDecodeError, `round ${round}: ${String(err)}`);
      }
    }
  });
});

describe("encode errors", () => {
  it("unknown kinds and values of the wrong JSON type", () => {
    assert.throws(
      () => encodeProtobufObject({ apiVersion: "stable.example.com/v1", kind: "CronTab" }),
      (err: unknown) =>
        err instanceof ProtobufEncodeError &&
        /kind "CronTab" of version "stable.example.com\/v1" has no Protobuf form/.test(err.message),
    );
    assert.throws(() => encodeProtobufObject({ kind: "Namespace" }), ProtobufEncodeError);
    assert.throws(
      () => encodeProtobufObject({ apiVersion: "v1", kind: "Namespace", metadata: { name: 1 } }),
      /metadata\.name: expected a string, got number/,
    );
    assert.throws(
      () => encodeProtobufObject({ apiVersion: "v1", kind: "ConfigMap", data: { a: 1 } }),
      /data\.a: expected a string/,
    );
    assert.throws(
      () => encodeProtobufObject({ apiVersion: "v1", kind: "Event", count: 1.5 }),
      /count: expected an integer/,
    );
    assert.throws(
      () => encodeProtobufObject({ apiVersion: "v1", kind: "Event", eventTime: "yesterday" }),
      /eventTime: "yesterday" is not an RFC 3339 time/,
    );
    assert.throws(
      () => encodeProtobufObject({ apiVersion: "v1", kind: "Event", eventTime: "2024-02-30T00:00:00Z" }),
      /is not a valid time/,
    );
  });
});

describe("nesting", () => {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    for (; n > 127; n = Math.floor(n / 128)) out.push((n % 128) | 128);
    out.push(n);
    return out;
  };
  /**
   * A CustomResourceDefinition's raw bytes whose schema nests `levels` array schemas through
   * `items` (JSONSchemaProps.items 24 -> JSONSchemaPropsOrArray.schema 1), written inside out in
   * one pass so that any depth is cheap to build.
   */
  function deepCrd(levels: number): Uint8Array {
    const headers: number[][] = [];
    let inner = Uint8Array.of(0x2a, 6, ...Buffer.from("string")); // type (5): "string"
    let length = inner.length;
    const arrayType = [0x2a, 5, ...Buffer.from("array")];
    for (let i = 0; i < levels; i++) {
      const orArray = [0x0a, ...varint(length)]; // schema (1)
      length += orArray.length;
      const props = [...arrayType, 0xc2, 0x01, ...varint(length)]; // type, items (24)
      length += props.length;
      headers.push(orArray, props);
    }
    // spec (2) > versions (7) > schema (4) > openAPIV3Schema (1)
    for (const tag of [0x0a, 0x22, 0x3a, 0x12]) {
      const header = [tag, ...varint(length)];
      length += header.length;
      headers.push(header);
    }
    const out = new Uint8Array(length);
    let at = 0;
    for (const header of headers.reverse()) {
      out.set(header, at);
      at += header.length;
    }
    out.set(inner, at);
    inner = out;
    return envelope("apiextensions.k8s.io/v1", "CustomResourceDefinition", inner);
  }
  const limit = new RegExp(`may not nest more than ${MAX_BODY_DEPTH} levels of objects and arrays`);

  it("a schema nesting within the limit decodes", () => {
    // CRD, spec, versions, [0], schema, openAPIV3Schema, then the items.
    const levels = MAX_BODY_DEPTH - 6;
    let schema: unknown = { type: "string" };
    for (let i = 0; i < levels; i++) schema = { type: "array", items: schema };
    const spec = decodeProtobufObject(deepCrd(levels)).spec as { versions: { schema: unknown }[] };
    assert.deepEqual(spec.versions[0]?.schema, { openAPIV3Schema: schema });
  });

  it("one level deeper is refused naming the limit", () => {
    decodeError(() => decodeProtobuf(deepCrd(MAX_BODY_DEPTH - 5)), limit);
  });

  it("far deeper is refused the same way, before the decoder's recursion runs out of stack", () => {
    decodeError(() => decodeProtobuf(deepCrd(50_000)), limit);
  });
});
