// The kinds of rbac.authorization, authentication and authorization: round trips in the JSON a Go
// client would send (nil slices and pointers without omitempty as null, ExtraValue maps), both
// naming presets' spellings of each group in the envelope, and bodies produced by protobufjs from
// upstream's IDL read by our decoder.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import protobuf from "protobufjs";
import { type Naming, naming } from "../../backends/naming/index.ts";
import {
  decodeProtobuf,
  decodeProtobufObject,
  encodeProtobufMessage,
  encodeProtobufObject,
  hasProtobufForm,
  PROTOBUF_MAGIC,
  ProtobufDecodeError,
  ProtobufEncodeError,
} from "./codec.ts";
import { KINDS, kindDescriptor } from "./descriptors.ts";
import { loadIdl, skipWithoutIdl } from "./upstream-idl.ts";

type Json = Record<string, unknown>;

const PRESETS: readonly Naming[] = [naming("cluster"), naming("kubernetes")];

/** A fully populated object of each group kind, in the exact JSON form the decoder gives back. */
function fullSamples(n: Naming): Json[] {
  const rbac = `${n.group("rbac.authorization")}/v1`;
  const authn = n.group("authentication");
  const authz = `${n.group("authorization")}/v1`;
  const meta = (name: string, namespace?: string): Json => ({
    name,
    ...(namespace ? { namespace } : {}),
    uid: "6f1e2d3c-0000-4000-8000-000000000001",
    resourceVersion: "42",
    creationTimestamp: "2024-05-06T07:08:09Z",
    labels: { [n.label("bootstrapping")]: "rbac-defaults" },
    annotations: { [n.label("autoupdate", "rbac.authorization")]: "true" },
  });
  const userInfo: Json = {
    username: "system:serviceaccount:default:builder",
    uid: "u-sa",
    groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
    extra: {
      [n.label("pod-name", "authentication")]: ["web-0"],
      [n.label("pod-uid", "authentication")]: ["u-pod"],
      "scopes.example.com": ["read", "write"],
      zz: [],
    },
  };
  const tokenReview = (version: string): Json => ({
    kind: "TokenReview",
    apiVersion: `${authn}/${version}`,
    metadata: { creationTimestamp: null },
    spec: { token: "opaque-token-value", audiences: ["api", "vault"] },
    status: {
      authenticated: true,
      user: userInfo,
      audiences: ["api"],
      error: "partial: one authenticator failed",
    },
  });
  const selfSubjectReview = (version: string): Json => ({
    kind: "SelfSubjectReview",
    apiVersion: `${authn}/${version}`,
    metadata: { creationTimestamp: null },
    status: { userInfo },
  });
  const rule = {
    verbs: ["get", "list", "watch"],
    apiGroups: ["", "apps"],
    resources: ["pods", "deployments/scale"],
  };
  return [
    {
      kind: "Role",
      apiVersion: rbac,
      metadata: meta("pod-reader", "default"),
      rules: [
        rule,
        { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["settings"] },
      ],
    },
    {
      kind: "RoleList",
      apiVersion: rbac,
      metadata: { resourceVersion: "7", continue: "eyJ2IjoxfQ" },
      items: [
        { metadata: { name: "a", namespace: "ns", creationTimestamp: null }, rules: [rule] },
        { metadata: { name: "b", namespace: "ns", creationTimestamp: null }, rules: null },
      ],
    },
    {
      kind: "ClusterRole",
      apiVersion: rbac,
      metadata: meta("monitoring"),
      rules: [{ verbs: ["get"], nonResourceURLs: ["/metrics", "/healthz/*"] }],
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { [n.label("aggregate-to-monitoring", "rbac.authorization")]: "true" } },
          {
            matchExpressions: [
              { key: "tier", operator: "In", values: ["a", "b"] },
              { key: "legacy", operator: "DoesNotExist" },
            ],
          },
          {},
        ],
      },
    },
    { kind: "ClusterRoleList", apiVersion: rbac, metadata: {}, items: [] },
    {
      kind: "RoleBinding",
      apiVersion: rbac,
      metadata: meta("read-pods", "default"),
      subjects: [
        { kind: "User", apiGroup: n.group("rbac.authorization"), name: "jane" },
        { kind: "ServiceAccount", name: "builder", namespace: "ci" },
      ],
      roleRef: { apiGroup: n.group("rbac.authorization"), kind: "Role", name: "pod-reader" },
    },
    {
      kind: "RoleBindingList",
      apiVersion: rbac,
      metadata: { resourceVersion: "9", remainingItemCount: 3 },
      items: [
        {
          metadata: { name: "b", namespace: "ns", creationTimestamp: null },
          roleRef: { apiGroup: "", kind: "", name: "" },
        },
      ],
    },
    {
      kind: "ClusterRoleBinding",
      apiVersion: rbac,
      metadata: meta("admins"),
      subjects: [{ kind: "Group", apiGroup: n.group("rbac.authorization"), name: "system:masters" }],
      roleRef: { apiGroup: n.group("rbac.authorization"), kind: "ClusterRole", name: "cluster-admin" },
    },
    {
      kind: "ClusterRoleBindingList",
      apiVersion: rbac,
      metadata: {},
      items: [
        {
          metadata: { name: "x", creationTimestamp: null },
          subjects: [{ kind: "", name: "" }],
          roleRef: { apiGroup: "", kind: "ClusterRole", name: "view" },
        },
      ],
    },
    {
      kind: "TokenRequest",
      apiVersion: `${authn}/v1`,
      metadata: { name: "builder", namespace: "ci", creationTimestamp: null },
      spec: {
        audiences: ["api", "vault"],
        expirationSeconds: 3600,
        boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "web-0", uid: "u-pod" },
      },
      status: { token: "header.payload.signature", expirationTimestamp: "2024-05-06T08:08:09Z" },
    },
    tokenReview("v1"),
    tokenReview("v1beta1"),
    selfSubjectReview("v1"),
    selfSubjectReview("v1beta1"),
    selfSubjectReview("v1alpha1"),
    {
      kind: "SubjectAccessReview",
      apiVersion: authz,
      metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: {
          namespace: "default",
          verb: "update",
          group: "apps",
          version: "v1",
          resource: "deployments",
          subresource: "scale",
          name: "web",
        },
        user: "jane",
        groups: ["dev", "system:authenticated"],
        extra: { empty: [], "scopes.example.com": ["a", "b"] },
        uid: "u-jane",
      },
      status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "edit/default"' },
    },
    {
      kind: "LocalSubjectAccessReview",
      apiVersion: authz,
      metadata: { namespace: "team-a", creationTimestamp: null },
      spec: { resourceAttributes: { namespace: "team-a", verb: "list", resource: "secrets" }, user: "bob" },
      status: {
        allowed: false,
        denied: true,
        reason: "denied by policy",
        evaluationError: "webhook: timeout",
      },
    },
    {
      kind: "SelfSubjectAccessReview",
      apiVersion: authz,
      metadata: { creationTimestamp: null },
      spec: { nonResourceAttributes: { path: "/healthz", verb: "get" } },
      status: { allowed: true },
    },
    {
      kind: "SelfSubjectRulesReview",
      apiVersion: authz,
      metadata: { creationTimestamp: null },
      spec: { namespace: "default" },
      status: {
        resourceRules: [
          { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"], resourceNames: ["web-0"] },
          {
            verbs: ["create"],
            apiGroups: [n.group("authorization")],
            resources: ["selfsubjectaccessreviews"],
          },
        ],
        nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/api", "/api/*"] }],
        incomplete: true,
        evaluationError: "webhook authorizer does not support rules",
      },
    },
  ];
}

/** Inputs and the JSON a Go client would send for them: the omitempty and nil facts. */
function minimalSamples(n: Naming): [string, Json, Json][] {
  const rbac = `${n.group("rbac.authorization")}/v1`;
  const authn = n.group("authentication");
  const authz = `${n.group("authorization")}/v1`;
  const meta = { creationTimestamp: null };
  return [
    [
      "Role: no rules is null, a rule's empty verbs too",
      { kind: "Role", apiVersion: rbac, metadata: { name: "r" }, rules: [] },
      { kind: "Role", apiVersion: rbac, metadata: { name: "r", creationTimestamp: null }, rules: null },
    ],
    [
      "Role: a rule keeps only verbs when the rest is empty",
      { kind: "Role", apiVersion: rbac, rules: [{ verbs: [], apiGroups: [], resources: [] }, {}] },
      { kind: "Role", apiVersion: rbac, metadata: meta, rules: [{ verbs: null }, { verbs: null }] },
    ],
    [
      "ClusterRole: no aggregation rule is left out; an empty one is kept",
      { kind: "ClusterRole", apiVersion: rbac, aggregationRule: {} },
      { kind: "ClusterRole", apiVersion: rbac, metadata: meta, rules: null, aggregationRule: {} },
    ],
    [
      "ClusterRole: a null aggregation rule is absent",
      { kind: "ClusterRole", apiVersion: rbac, aggregationRule: null, rules: null },
      { kind: "ClusterRole", apiVersion: rbac, metadata: meta, rules: null },
    ],
    [
      "RoleBinding: empty subjects are left out, roleRef is always there",
      { kind: "RoleBinding", apiVersion: rbac, subjects: [] },
      {
        kind: "RoleBinding",
        apiVersion: rbac,
        metadata: meta,
        roleRef: { apiGroup: "", kind: "", name: "" },
      },
    ],
    [
      "RoleList: items are an array even when empty",
      { kind: "RoleList", apiVersion: rbac },
      { kind: "RoleList", apiVersion: rbac, metadata: {}, items: [] },
    ],
    [
      "TokenRequest: the spec's unset fields are null, as kubectl sends them",
      { kind: "TokenRequest", apiVersion: `${authn}/v1` },
      {
        kind: "TokenRequest",
        apiVersion: `${authn}/v1`,
        metadata: meta,
        spec: { audiences: null, expirationSeconds: null, boundObjectRef: null },
        status: { token: "", expirationTimestamp: null },
      },
    ],
    [
      "TokenRequest: a zero expiration and an empty bound object are kept",
      { kind: "TokenRequest", apiVersion: `${authn}/v1`, spec: { expirationSeconds: 0, boundObjectRef: {} } },
      {
        kind: "TokenRequest",
        apiVersion: `${authn}/v1`,
        metadata: meta,
        spec: { audiences: null, expirationSeconds: 0, boundObjectRef: {} },
        status: { token: "", expirationTimestamp: null },
      },
    ],
    [
      "TokenReview: empty spec, status with an empty user",
      { kind: "TokenReview", apiVersion: `${authn}/v1`, spec: { token: "", audiences: [] } },
      { kind: "TokenReview", apiVersion: `${authn}/v1`, metadata: meta, spec: {}, status: { user: {} } },
    ],
    [
      "TokenReview: an extra value of null or [] reads as []",
      {
        kind: "TokenReview",
        apiVersion: `${authn}/v1beta1`,
        status: { authenticated: false, user: { extra: { a: null, b: [] } } },
      },
      {
        kind: "TokenReview",
        apiVersion: `${authn}/v1beta1`,
        metadata: meta,
        spec: {},
        status: { user: { extra: { a: [], b: [] } } },
      },
    ],
    [
      "SelfSubjectReview: status and userInfo are always there",
      { kind: "SelfSubjectReview", apiVersion: `${authn}/v1alpha1` },
      {
        kind: "SelfSubjectReview",
        apiVersion: `${authn}/v1alpha1`,
        metadata: meta,
        status: { userInfo: {} },
      },
    ],
    [
      "SubjectAccessReview: allowed is always there, empty attributes only when set",
      { kind: "SubjectAccessReview", apiVersion: authz, spec: { extra: {} } },
      {
        kind: "SubjectAccessReview",
        apiVersion: authz,
        metadata: meta,
        spec: {},
        status: { allowed: false },
      },
    ],
    [
      "SelfSubjectAccessReview: empty resource attributes are kept",
      { kind: "SelfSubjectAccessReview", apiVersion: authz, spec: { resourceAttributes: {} } },
      {
        kind: "SelfSubjectAccessReview",
        apiVersion: authz,
        metadata: meta,
        spec: { resourceAttributes: {} },
        status: { allowed: false },
      },
    ],
    [
      "SelfSubjectRulesReview: rules are null when empty, incomplete is always there",
      {
        kind: "SelfSubjectRulesReview",
        apiVersion: authz,
        status: { resourceRules: [], nonResourceRules: [{}] },
      },
      {
        kind: "SelfSubjectRulesReview",
        apiVersion: authz,
        metadata: meta,
        spec: {},
        status: { resourceRules: null, nonResourceRules: [{ verbs: null }], incomplete: false },
      },
    ],
  ];
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

/** A body around raw message bytes. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).ldelim();
  w.uint32(0x12).bytes(raw);
  return Buffer.concat([PROTOBUF_MAGIC, w.finish()]);
}

// The groups sampled by hand here; catalog-descriptors.test.ts round-trips a full sample of every kind.
const SAMPLED_GROUPS = ["rbac.authorization", "authentication", "authorization"];
const groupKinds = KINDS.filter((k) => SAMPLED_GROUPS.includes(k.group));

describe("group kinds: round trips", () => {
  it("covers every kind of the RBAC, authentication and authorization groups, in every version", () => {
    const samples = fullSamples(naming("kubernetes"));
    for (const k of groupKinds) {
      assert.ok(
        samples.some((s) => s.kind === k.kind && (s.apiVersion as string).endsWith(`/${k.version}`)),
        `no full sample of ${k.kind} ${k.version}`,
      );
    }
  });

  for (const n of PRESETS) {
    for (const object of fullSamples(n)) {
      it(`${object.apiVersion} ${object.kind}: full object`, () => {
        const body = encodeProtobufObject(object);
        const decoded = decodeProtobuf(body);
        assert.deepEqual(decoded.object, object);
        assert.equal(JSON.stringify(decoded.object), JSON.stringify(object));
        assert.equal(decoded.apiVersion, object.apiVersion);
        assert.deepEqual(decoded.unknownFields, []);
        assert.equal(hex(encodeProtobufObject(decoded.object)), hex(body));
      });
    }
  }

  for (const [name, input, expected] of minimalSamples(naming("cluster"))) {
    it(`Go's JSON: ${name}`, () => {
      const decoded = decodeProtobufObject(encodeProtobufObject(input));
      assert.deepEqual(decoded, expected);
      assert.equal(JSON.stringify(decoded), JSON.stringify(expected));
    });
  }
});

describe("group kinds: Go's wire rules", () => {
  const authz = `${naming("cluster").group("authorization")}/v1`;

  it("an ExtraValue entry is written with its value even when empty, in key order", () => {
    const raw = encodeProtobufMessage({
      kind: "SubjectAccessReview",
      apiVersion: authz,
      spec: { extra: { b: [], a: ["x"] } },
    });
    const spec = protobuf.Reader.create(raw);
    // metadata (1), then spec (2): read the spec's fields.
    let specBytes: Uint8Array | undefined;
    while (spec.pos < spec.len) {
      const t = spec.uint32();
      if (t >>> 3 === 2) specBytes = spec.bytes();
      else spec.skipType(t & 7);
    }
    assert.ok(specBytes);
    // user "" (3), extra a (5), extra b (5), uid "" (6).
    assert.equal(
      hex(specBytes),
      "1a00" + "2a08" + "0a0161" + "1203" + "0a0178" + "2a05" + "0a0162" + "1200" + "3200",
    );
  });

  it("an ExtraValue entry without a value, or without a key, reads as empty", () => {
    const spec = protobuf.Writer.create();
    spec.uint32(0x2a).fork().uint32(0x0a).string("only-key").ldelim();
    spec.uint32(0x2a).fork().uint32(0x12).fork().uint32(0x0a).string("v").ldelim().ldelim();
    const raw = protobuf.Writer.create().uint32(0x12).bytes(spec.finish()).finish();
    assert.deepEqual(decodeProtobufObject(envelope(authz, "SubjectAccessReview", raw)).spec, {
      extra: { "": ["v"], "only-key": [] },
    });
  });

  it("a repeated field sent twice in pieces is appended, the last scalar wins", () => {
    const rule = (verb: string) => protobuf.Writer.create().uint32(0x0a).string(verb).finish();
    const raw = protobuf.Writer.create()
      .uint32(0x12)
      .bytes(rule("get"))
      .uint32(0x12)
      .bytes(rule("list"))
      .finish();
    const rbac = `${naming("kubernetes").group("rbac.authorization")}/v1`;
    assert.deepEqual(decodeProtobufObject(envelope(rbac, "Role", raw)).rules, [
      { verbs: ["get"] },
      { verbs: ["list"] },
    ]);
  });

  it("unknown fields of newer clients are skipped and reported (ResourceAttributes.fieldSelector)", () => {
    const attributes = protobuf.Writer.create()
      .uint32(0x12)
      .string("list")
      .uint32((8 << 3) | 2)
      .fork()
      .uint32(0x0a)
      .string("spec.nodeName=n1")
      .ldelim()
      .finish();
    const spec = protobuf.Writer.create().uint32(0x0a).bytes(attributes).finish();
    const result = decodeProtobuf(
      envelope(authz, "SelfSubjectAccessReview", protobuf.Writer.create().uint32(0x12).bytes(spec).finish()),
    );
    assert.deepEqual(result.object.spec, { resourceAttributes: { verb: "list" } });
    assert.deepEqual(result.unknownFields, [{ path: "spec.resourceAttributes", number: 8, wireType: 2 }]);
  });

  it("values of the wrong JSON type are encode errors with their path", () => {
    const authn = `${naming("cluster").group("authentication")}/v1`;
    assert.throws(
      () =>
        encodeProtobufObject({
          kind: "TokenReview",
          apiVersion: authn,
          status: { user: { extra: { a: "x" } } },
        }),
      (err: unknown) =>
        err instanceof ProtobufEncodeError && /status\.user\.extra\.a: expected an array/.test(err.message),
    );
    assert.throws(
      () =>
        encodeProtobufObject({
          kind: "TokenReview",
          apiVersion: authn,
          status: { user: { extra: { a: [1] } } },
        }),
      /status\.user\.extra\.a\[0\]: expected a string, got number/,
    );
    assert.throws(
      () =>
        encodeProtobufObject({ kind: "TokenRequest", apiVersion: authn, spec: { expirationSeconds: "1h" } }),
      /spec\.expirationSeconds: expected an integer/,
    );
  });

  it("a truncated ExtraValue is a decode error", () => {
    const spec = protobuf.Writer.create()
      .uint32(0x2a)
      .fork()
      .uint32(0x12)
      .bytes(Uint8Array.of(0x0a, 0x05))
      .ldelim();
    const raw = protobuf.Writer.create().uint32(0x12).bytes(spec.finish()).finish();
    assert.throws(
      () => decodeProtobuf(envelope(authz, "SubjectAccessReview", raw)),
      (err: unknown) =>
        err instanceof ProtobufDecodeError && /runs past the end.*spec\.extra\[""\]/.test(err.message),
    );
  });
});

describe("group kinds: the envelope", () => {
  it("either preset's spelling of the group decodes, and the encoder writes the spelling it was given", () => {
    for (const n of PRESETS) {
      for (const [prefix, version, kind] of [
        ["rbac.authorization", "v1", "ClusterRoleBinding"],
        ["authentication", "v1", "TokenRequest"],
        ["authentication", "v1beta1", "SelfSubjectReview"],
        ["authorization", "v1", "LocalSubjectAccessReview"],
      ] as const) {
        const apiVersion = `${n.group(prefix)}/${version}`;
        const body = encodeProtobufObject({ apiVersion, kind });
        // Read back by protobufjs: the envelope's typeMeta holds exactly what the object said.
        const typeMeta = protobuf.Reader.create(protobuf.Reader.create(body.subarray(4)).skip(1).bytes());
        typeMeta.uint32();
        assert.equal(typeMeta.string(), apiVersion);
        typeMeta.uint32();
        assert.equal(typeMeta.string(), kind);
        const result = decodeProtobuf(body);
        assert.equal(result.apiVersion, apiVersion);
        assert.equal(result.object.apiVersion, apiVersion);
        assert.equal(result.kind, kind);
      }
    }
  });

  it("the route's spelling fills in an empty envelope; another spelling is returned for the route to check", () => {
    const cluster = `${naming("cluster").group("rbac.authorization")}/v1`;
    const k8s = `${naming("kubernetes").group("rbac.authorization")}/v1`;
    const empty = Buffer.concat([PROTOBUF_MAGIC, Uint8Array.of(0x0a, 0x00, 0x12, 0x00)]);
    assert.deepEqual(decodeProtobufObject(empty, { apiVersion: cluster, kind: "Role" }), {
      kind: "Role",
      apiVersion: cluster,
      metadata: { creationTimestamp: null },
      rules: null,
    });
    const other = decodeProtobuf(encodeProtobufObject({ apiVersion: k8s, kind: "Role" }), {
      apiVersion: cluster,
      kind: "Role",
    });
    assert.equal(other.apiVersion, k8s);
  });

  it("a version or group the kind is not served in has no Protobuf form", () => {
    const authn = naming("kubernetes").group("authentication");
    for (const [apiVersion, kind] of [
      [`${authn}/v1beta1`, "TokenRequest"],
      [`${authn}/v1alpha1`, "TokenReview"],
      [`${naming("kubernetes").group("authorization")}/v1beta1`, "SubjectAccessReview"],
      ["rbac.authorization.example.com/v1", "Role"],
      ["rbac.authorization/v1", "Role"],
    ]) {
      assert.equal(hasProtobufForm(apiVersion!, kind!), false, `${apiVersion} ${kind}`);
      assert.equal(kindDescriptor(apiVersion!, kind!), undefined);
      assert.throws(
        () => decodeProtobuf(envelope(apiVersion!, kind!, new Uint8Array())),
        (err: unknown) =>
          err instanceof ProtobufDecodeError &&
          err.message.includes(`kind "${kind}" of version "${apiVersion}" has no Protobuf form`),
      );
      assert.throws(() => encodeProtobufObject({ apiVersion, kind }), ProtobufEncodeError);
    }
    assert.equal(hasProtobufForm(`${authn}/v1`, "TokenRequest"), true);
  });
});

describe("group kinds: bodies written by protobufjs from the upstream IDL", { skip: skipWithoutIdl }, () => {
  const root = loadIdl();
  const message = (kind: string, apiVersion: string) => {
    const found = kindDescriptor(apiVersion, kind);
    assert.ok(found);
    return root.lookupType(found.message);
  };

  // protobufjs writes only the fields it is given, in declaration (not number) order: a body
  // unlike Go's that must still read the same.
  for (const object of fullSamples(naming("kubernetes"))) {
    it(`${object.apiVersion} ${object.kind}: our bytes, re-encoded by protobufjs, read back the same`, () => {
      const type = message(object.kind as string, object.apiVersion as string);
      const theirs = type.toObject(type.decode(encodeProtobufMessage(object)), {
        longs: Number,
        defaults: false,
      });
      const reencoded = type.encode(type.fromObject(theirs)).finish();
      assert.deepEqual(
        decodeProtobufObject(envelope(object.apiVersion as string, object.kind as string, reencoded)),
        object,
      );
    });
  }

  it("hand-built ClusterRole, TokenReview and SelfSubjectRulesReview bodies", () => {
    const k8s = naming("kubernetes");
    const rbac = `${k8s.group("rbac.authorization")}/v1`;
    const role = message("ClusterRole", rbac);
    const roleBytes = role
      .encode(
        role.fromObject({
          metadata: { name: "agg" },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: "y" } }] },
        }),
      )
      .finish();
    assert.deepEqual(decodeProtobufObject(envelope(rbac, "ClusterRole", roleBytes)), {
      kind: "ClusterRole",
      apiVersion: rbac,
      metadata: { name: "agg", creationTimestamp: null },
      rules: null,
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: "y" } }] },
    });

    const authn = `${k8s.group("authentication")}/v1`;
    const review = message("TokenReview", authn);
    const reviewBytes = review
      .encode(
        review.fromObject({
          spec: { token: "t", audiences: ["a"] },
          status: {
            authenticated: true,
            user: { username: "u", extra: { k: { items: ["1", "2"] }, e: {} } },
            audiences: ["a"],
          },
        }),
      )
      .finish();
    assert.deepEqual(decodeProtobufObject(envelope(authn, "TokenReview", reviewBytes)), {
      kind: "TokenReview",
      apiVersion: authn,
      metadata: { creationTimestamp: null },
      spec: { token: "t", audiences: ["a"] },
      status: {
        authenticated: true,
        user: { username: "u", extra: { e: [], k: ["1", "2"] } },
        audiences: ["a"],
      },
    });

    const request = message("TokenRequest", authn);
    const requestBytes = request
      .encode(
        request.fromObject({
          spec: { expirationSeconds: 600, boundObjectRef: { kind: "Secret", uID: "u9" } },
          status: { expirationTimestamp: { seconds: 1714979289, nanos: 5 } },
        }),
      )
      .finish();
    assert.deepEqual(decodeProtobufObject(envelope(authn, "TokenRequest", requestBytes)), {
      kind: "TokenRequest",
      apiVersion: authn,
      metadata: { creationTimestamp: null },
      spec: { audiences: null, expirationSeconds: 600, boundObjectRef: { kind: "Secret", uid: "u9" } },
      status: { token: "", expirationTimestamp: "2024-05-06T07:08:09Z" },
    });

    const authz = `${k8s.group("authorization")}/v1`;
    const rules = message("SelfSubjectRulesReview", authz);
    const rulesBytes = rules
      .encode(
        rules.fromObject({
          spec: { namespace: "ns" },
          status: { resourceRules: [{ verbs: ["get"], resources: ["pods"] }], incomplete: false },
        }),
      )
      .finish();
    assert.deepEqual(decodeProtobufObject(envelope(authz, "SelfSubjectRulesReview", rulesBytes)), {
      kind: "SelfSubjectRulesReview",
      apiVersion: authz,
      metadata: { creationTimestamp: null },
      spec: { namespace: "ns" },
      status: {
        resourceRules: [{ verbs: ["get"], resources: ["pods"] }],
        nonResourceRules: null,
        incomplete: false,
      },
    });
  });
});
