// Cross-checks the hand-written descriptors against upstream's Protobuf IDL (the shared reference
// data, read by tests only): every field's number, name, type, repeated/map label and position,
// and that no field of a described message is missing. The IDL is parsed with protobufjs, which
// also decodes our encoder's output independently of our decoder.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import protobuf from "protobufjs";
import { naming } from "../../backends/naming/index.ts";
import { encodeProtobufMessage } from "./codec.ts";
import {
  AUTHENTICATION_V1,
  AUTHENTICATION_V1ALPHA1,
  AUTHENTICATION_V1BETA1,
  AUTHORIZATION_V1,
  CORE_V1,
  type FieldDescriptor,
  type FieldType,
  groupSpellings,
  KINDS,
  kindDescriptor,
  MESSAGES,
  META_V1,
  type MessageDescriptor,
  RBAC_V1,
  RUNTIME,
} from "./descriptors.ts";
import {
  idlAvailable as available,
  LATER_MESSAGES,
  loadIdl,
  skipWithoutIdl as skip,
} from "./upstream-idl.ts";

/** The IDL's spelling of a descriptor field's type: a scalar, `bytes`, a full message name or `map<string,V>`. */
function descriptorType(type: FieldType): string {
  switch (type.kind) {
    case "scalar":
      return type.scalar;
    case "bytes":
      return "bytes";
    case "message":
      return type.message;
    case "map":
      return `map<string,${type.value === "message" ? type.message : type.value}>`;
  }
}

function idlType(field: protobuf.Field, pkg: string): string {
  const qualify = (t: string) => (t.includes(".") || /^[a-z]/.test(t) ? t : `${pkg}.${t}`);
  if (field instanceof protobuf.MapField) return `map<${field.keyType},${qualify(field.type)}>`;
  return qualify(field.type);
}

/** Every difference between the descriptors and the IDL, as readable lines (empty when they agree). */
function compareWithIdl(descriptors: Iterable<MessageDescriptor>, root: protobuf.Root): string[] {
  const problems: string[] = [];
  for (const descriptor of descriptors) {
    const found = root.lookup(descriptor.name);
    if (!(found instanceof protobuf.Type)) {
      problems.push(`${descriptor.name}: no such message in the IDL`);
      continue;
    }
    const pkg = descriptor.name.slice(0, descriptor.name.lastIndexOf("."));
    const byNumber = new Map<number, FieldDescriptor>(descriptor.fields.map((f) => [f.number, f]));
    for (const idlField of found.fieldsArray) {
      const ours = byNumber.get(idlField.id);
      const where = `${descriptor.name}.${idlField.name} (${idlField.id})`;
      if (!ours) {
        problems.push(`${where}: missing from the descriptor`);
        continue;
      }
      byNumber.delete(idlField.id);
      const ourName = ours.protoName ?? ours.name;
      if (ourName !== idlField.name) problems.push(`${where}: descriptor names it ${ourName}`);
      const theirs = idlType(idlField, pkg);
      if (descriptorType(ours.type) !== theirs) {
        problems.push(`${where}: descriptor type ${descriptorType(ours.type)}, IDL type ${theirs}`);
      }
      const repeated = idlField.repeated && !(idlField instanceof protobuf.MapField);
      if (ours.repeated !== repeated)
        problems.push(`${where}: descriptor repeated=${ours.repeated}, IDL ${repeated}`);
    }
    for (const extra of byNumber.values()) {
      problems.push(`${descriptor.name}.${extra.name} (${extra.number}): not in the IDL`);
    }
    // The IDL lists fields in Go struct order, which is the JSON key order we emit.
    const idlOrder = found.fieldsArray.map((f) => f.name).join(",");
    const ourOrder = descriptor.fields.map((f) => f.protoName ?? f.name).join(",");
    if (idlOrder !== ourOrder && problems.length === 0) {
      problems.push(`${descriptor.name}: field order ${ourOrder}, IDL order ${idlOrder}`);
    }
  }
  return problems;
}

describe("descriptors against the upstream IDL", { skip }, () => {
  const root = available ? loadIdl() : new protobuf.Root();

  it("covers the requested messages", () => {
    const required = [
      ...[
        "Namespace",
        "NamespaceSpec",
        "NamespaceStatus",
        "NamespaceCondition",
        "ConfigMap",
        "Secret",
        "ServiceAccount",
        "ObjectReference",
        "LocalObjectReference",
        "Event",
        "EventSource",
        "EventSeries",
      ].map((m) => `${CORE_V1}.${m}`),
      ...[
        "ObjectMeta",
        "OwnerReference",
        "ManagedFieldsEntry",
        "FieldsV1",
        "Time",
        "MicroTime",
        "DeleteOptions",
        "Preconditions",
        "Status",
        "StatusDetails",
        "StatusCause",
        "ListMeta",
      ].map((m) => `${META_V1}.${m}`),
      `${META_V1}.LabelSelector`,
      `${META_V1}.LabelSelectorRequirement`,
      `${RUNTIME}.Unknown`,
      `${RUNTIME}.TypeMeta`,
      ...[
        "Role",
        "RoleList",
        "ClusterRole",
        "ClusterRoleList",
        "AggregationRule",
        "RoleBinding",
        "RoleBindingList",
        "ClusterRoleBinding",
        "ClusterRoleBindingList",
        "PolicyRule",
        "Subject",
        "RoleRef",
      ].map((m) => `${RBAC_V1}.${m}`),
      ...[
        "TokenRequest",
        "TokenRequestSpec",
        "TokenRequestStatus",
        "BoundObjectReference",
        "TokenReview",
        "TokenReviewSpec",
        "TokenReviewStatus",
        "UserInfo",
        "ExtraValue",
        "SelfSubjectReview",
        "SelfSubjectReviewStatus",
      ].map((m) => `${AUTHENTICATION_V1}.${m}`),
      ...[
        "TokenReview",
        "TokenReviewSpec",
        "TokenReviewStatus",
        "UserInfo",
        "ExtraValue",
        "SelfSubjectReview",
        "SelfSubjectReviewStatus",
      ].map((m) => `${AUTHENTICATION_V1BETA1}.${m}`),
      `${AUTHENTICATION_V1ALPHA1}.SelfSubjectReview`,
      `${AUTHENTICATION_V1ALPHA1}.SelfSubjectReviewStatus`,
      ...[
        "SubjectAccessReview",
        "LocalSubjectAccessReview",
        "SelfSubjectAccessReview",
        "SelfSubjectRulesReview",
        "SubjectAccessReviewSpec",
        "SelfSubjectAccessReviewSpec",
        "SelfSubjectRulesReviewSpec",
        "SubjectAccessReviewStatus",
        "SubjectRulesReviewStatus",
        "ResourceAttributes",
        "NonResourceAttributes",
        "ResourceRule",
        "NonResourceRule",
        "ExtraValue",
      ].map((m) => `${AUTHORIZATION_V1}.${m}`),
    ];
    for (const name of required) assert.ok(MESSAGES.has(name), `${name} has no descriptor`);
  });

  it("every field matches the IDL in number, name, type and label, and none is missing", () => {
    assert.deepEqual(compareWithIdl(MESSAGES.values(), root), []);
  });

  it("every message but the later ones is in the reference IDL itself", () => {
    const reference = loadIdl({ later: false });
    for (const name of MESSAGES.keys()) {
      if (LATER_MESSAGES.includes(name))
        assert.equal(reference.lookup(name), null, `${name} is in the IDL now`);
      else assert.ok(reference.lookup(name) instanceof protobuf.Type, `${name} is not in the IDL`);
    }
  });

  it("SelfSubjectReview in v1 (newer than the reference IDL) has exactly v1beta1's fields", () => {
    // The status is the package's own; the UserInfo inside is v1's in both.
    const own = (pkg: string, message: string) => message.replace(`${pkg}.SelfSubjectReviewStatus`, "(own)");
    const shape = (pkg: string, name: string) =>
      MESSAGES.get(`${pkg}.${name}`)!.fields.map((f) => ({
        ...f,
        type: f.type.kind === "message" ? { ...f.type, message: own(pkg, f.type.message) } : f.type,
      }));
    for (const name of ["SelfSubjectReview", "SelfSubjectReviewStatus"]) {
      assert.deepEqual(shape(AUTHENTICATION_V1, name), shape(AUTHENTICATION_V1BETA1, name), name);
    }
  });

  it("JSON names differ from the IDL's only where Go's JSON tag says so", () => {
    const renamed = [...MESSAGES.values()].flatMap((m) =>
      m.fields.filter((f) => f.protoName !== undefined).map((f) => `${m.name}.${f.protoName}->${f.name}`),
    );
    const crd = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";
    assert.deepEqual(
      renamed.sort(),
      [
        `${AUTHENTICATION_V1}.BoundObjectReference.uID->uid`,
        "k8s.io.api.networking.v1.IngressClassParametersReference.aPIGroup->apiGroup",
        "k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration.Webhooks->webhooks",
        "k8s.io.api.admissionregistration.v1.ValidatingWebhookConfiguration.Webhooks->webhooks",
        "k8s.io.api.admissionregistration.v1alpha1.Validation.Expression->expression",
        `${crd}.schema->$schema`,
        `${crd}.ref->$ref`,
        `${crd}.xKubernetesPreserveUnknownFields->x-kubernetes-preserve-unknown-fields`,
        `${crd}.xKubernetesEmbeddedResource->x-kubernetes-embedded-resource`,
        `${crd}.xKubernetesIntOrString->x-kubernetes-int-or-string`,
        `${crd}.xKubernetesListMapKeys->x-kubernetes-list-map-keys`,
        `${crd}.xKubernetesListType->x-kubernetes-list-type`,
        `${crd}.xKubernetesMapType->x-kubernetes-map-type`,
        `${crd}.xKubernetesValidations->x-kubernetes-validations`,
      ].sort(),
    );
  });

  it("every message a field refers to is described, and every kind's message too", () => {
    for (const descriptor of MESSAGES.values()) {
      for (const f of descriptor.fields) {
        if (f.type.kind === "message") {
          assert.ok(MESSAGES.has(f.type.message), `${descriptor.name}.${f.name}: ${f.type.message}`);
        }
      }
    }
    for (const k of KINDS) assert.ok(MESSAGES.has(k.message), `${k.kind}: ${k.message}`);
  });

  it("field numbers are unique within each message", () => {
    for (const descriptor of MESSAGES.values()) {
      const numbers = descriptor.fields.map((f) => f.number);
      assert.equal(new Set(numbers).size, numbers.length, descriptor.name);
    }
  });

  it("the comparison reports each kind of mismatch", () => {
    const secret = MESSAGES.get(`${CORE_V1}.Secret`)!;
    const mutate = (change: (fields: FieldDescriptor[]) => FieldDescriptor[]): string[] =>
      compareWithIdl([{ ...secret, fields: change([...secret.fields]) }], root);
    const replace = (name: string, patch: Partial<FieldDescriptor>) => (fields: FieldDescriptor[]) =>
      fields.map((f) => (f.name === name ? { ...f, ...patch } : f));

    assert.match(mutate(replace("type", { number: 9 })).join("\n"), /Secret\.type \(3\): missing/);
    assert.match(mutate(replace("type", { number: 9 })).join("\n"), /Secret\.type \(9\): not in the IDL/);
    assert.match(
      mutate(replace("type", { name: "kind" })).join("\n"),
      /Secret\.type \(3\): descriptor names it kind/,
    );
    assert.match(
      mutate(replace("immutable", { type: { kind: "scalar", scalar: "string" } })).join("\n"),
      /descriptor type string, IDL type bool/,
    );
    assert.match(
      mutate(replace("data", { type: { kind: "map", value: "string" } })).join("\n"),
      /map<string,string>, IDL type map<string,bytes>/,
    );
    assert.match(mutate(replace("type", { repeated: true })).join("\n"), /repeated=true, IDL false/);
    assert.match(
      mutate((fields) => fields.filter((f) => f.name !== "stringData")).join("\n"),
      /stringData \(4\): missing/,
    );
    assert.match(mutate((fields) => fields.reverse()).join("\n"), /field order/);
    assert.match(
      compareWithIdl([{ name: `${CORE_V1}.Nope`, fields: [] }], root).join("\n"),
      /no such message/,
    );

    const userInfo = MESSAGES.get(`${AUTHENTICATION_V1}.UserInfo`)!;
    const extraOf = (message: string) =>
      compareWithIdl(
        [
          {
            ...userInfo,
            fields: userInfo.fields.map((f) =>
              f.name === "extra" ? { ...f, type: { kind: "map", value: "message", message } as const } : f,
            ),
          },
        ],
        root,
      ).join("\n");
    assert.equal(extraOf(`${AUTHENTICATION_V1}.ExtraValue`), "");
    assert.match(
      extraOf(`${AUTHORIZATION_V1}.ExtraValue`),
      /IDL type map<string,k8s\.io\.api\.authentication\.v1\.ExtraValue>/,
    );
    const bound = MESSAGES.get(`${AUTHENTICATION_V1}.BoundObjectReference`)!;
    assert.match(
      compareWithIdl(
        [{ ...bound, fields: bound.fields.map((f) => ({ ...f, protoName: undefined })) }],
        root,
      ).join("\n"),
      /BoundObjectReference\.uID \(4\): descriptor names it uid/,
    );
  });
});

describe("kind lookup", () => {
  const k8s = naming("kubernetes");
  const cluster = naming("cluster");

  it("group kinds in every naming preset's spelling of their group, and only in their versions", () => {
    for (const n of [k8s, cluster]) {
      const rbac = `${n.group("rbac.authorization")}/v1`;
      assert.equal(kindDescriptor(rbac, "Role")?.message, `${RBAC_V1}.Role`);
      assert.equal(
        kindDescriptor(rbac, "ClusterRoleBindingList")?.message,
        `${RBAC_V1}.ClusterRoleBindingList`,
      );
      assert.equal(kindDescriptor(`${n.group("rbac.authorization")}/v1beta1`, "Role"), undefined);
      const authn = n.group("authentication");
      assert.equal(
        kindDescriptor(`${authn}/v1`, "TokenRequest")?.message,
        `${AUTHENTICATION_V1}.TokenRequest`,
      );
      assert.equal(kindDescriptor(`${authn}/v1beta1`, "TokenRequest"), undefined);
      assert.equal(
        kindDescriptor(`${authn}/v1beta1`, "TokenReview")?.message,
        `${AUTHENTICATION_V1BETA1}.TokenReview`,
      );
      assert.equal(
        kindDescriptor(`${authn}/v1alpha1`, "SelfSubjectReview")?.message,
        `${AUTHENTICATION_V1ALPHA1}.SelfSubjectReview`,
      );
      assert.equal(kindDescriptor(`${authn}/v1alpha1`, "TokenReview"), undefined);
      assert.equal(
        kindDescriptor(`${n.group("authorization")}/v1`, "SelfSubjectRulesReview")?.message,
        `${AUTHORIZATION_V1}.SelfSubjectRulesReview`,
      );
      // A kind is found only in its own group.
      assert.equal(kindDescriptor(`${n.group("authorization")}/v1`, "Role"), undefined);
      assert.equal(kindDescriptor(`${n.group("authentication")}/v1`, "SubjectAccessReview"), undefined);
    }
    // Not a preset's spelling: the bare prefix, another suffix, a group that only ends alike.
    assert.equal(kindDescriptor("rbac.authorization/v1", "Role"), undefined);
    assert.equal(kindDescriptor("rbac.authorization.example.com/v1", "Role"), undefined);
    assert.equal(kindDescriptor(`x${k8s.group("rbac.authorization")}/v1`, "Role"), undefined);
    assert.equal(kindDescriptor("v1", "Role"), undefined);
    assert.equal(kindDescriptor(`${k8s.group("rbac.authorization")}/v1`, "Namespace"), undefined);
  });

  it("groupSpellings gives one spelling per preset", () => {
    assert.deepEqual(groupSpellings("rbac.authorization"), [
      cluster.group("rbac.authorization"),
      k8s.group("rbac.authorization"),
    ]);
    assert.deepEqual(groupSpellings(""), [""]);
  });

  it("core kinds only in v1, meta kinds in any group version", () => {
    assert.equal(kindDescriptor("v1", "Namespace")?.message, `${CORE_V1}.Namespace`);
    assert.equal(kindDescriptor("v2", "Namespace"), undefined);
    // The events group's Event is its own message.
    assert.equal(kindDescriptor("events.k8s.io/v1", "Event")?.message, "k8s.io.api.events.v1.Event");
    assert.equal(kindDescriptor("events.k8s.io/v1beta1", "Event"), undefined);
    assert.equal(kindDescriptor("meta.k8s.io/v1", "DeleteOptions")?.message, `${META_V1}.DeleteOptions`);
    assert.equal(kindDescriptor("v1", "DeleteOptions")?.message, `${META_V1}.DeleteOptions`);
    assert.equal(kindDescriptor("v1", "Status")?.message, `${META_V1}.Status`);
  });
});

describe("our encoding read by protobufjs from the upstream IDL", { skip }, () => {
  const root = available ? loadIdl() : new protobuf.Root();
  const read = (object: Record<string, unknown>, message: string) =>
    root.lookupType(message).toObject(root.lookupType(message).decode(encodeProtobufMessage(object)), {
      longs: Number,
      bytes: String,
      defaults: false,
    });

  it("Event", () => {
    const event = read(
      {
        apiVersion: "v1",
        kind: "Event",
        metadata: {
          name: "web.17a",
          namespace: "default",
          generation: 2 ** 40,
          deletionGracePeriodSeconds: -1,
          labels: { b: "2", a: "1" },
          creationTimestamp: "2024-05-06T07:08:09Z",
          ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "web", uid: "u1", controller: false }],
          managedFields: [{ manager: "m", fieldsType: "FieldsV1", fieldsV1: { "f:reason": {} } }],
        },
        involvedObject: { kind: "Pod", namespace: "default", name: "web" },
        reason: "Started",
        source: { component: "kubelet" },
        count: -3,
        eventTime: "2024-05-06T07:08:09.123456Z",
        series: { count: 4, lastObservedTime: "2024-05-06T07:08:10.000001Z" },
        reportingComponent: "kubelet",
      },
      `${CORE_V1}.Event`,
    );
    const metadata = event.metadata as Record<string, unknown>;
    assert.equal(metadata.name, "web.17a");
    assert.equal(metadata.generation, 2 ** 40);
    assert.equal(metadata.deletionGracePeriodSeconds, -1);
    assert.deepEqual(metadata.labels, { a: "1", b: "2" });
    assert.deepEqual(metadata.creationTimestamp, { seconds: 1714979289, nanos: 0 });
    assert.deepEqual(metadata.ownerReferences, [
      { apiVersion: "v1", kind: "Pod", name: "web", uid: "u1", controller: false },
    ]);
    const managed = (metadata.managedFields as Record<string, unknown>[])[0]!;
    assert.equal(
      Buffer.from(String((managed.fieldsV1 as { Raw: string }).Raw), "base64").toString(),
      '{"f:reason":{}}',
    );
    assert.deepEqual(event.involvedObject, {
      kind: "Pod",
      namespace: "default",
      name: "web",
      uid: "",
      apiVersion: "",
      resourceVersion: "",
      fieldPath: "",
    });
    assert.equal(event.count, -3);
    assert.deepEqual(event.eventTime, { seconds: 1714979289, nanos: 123456000 });
    assert.deepEqual(event.series, { count: 4, lastObservedTime: { seconds: 1714979290, nanos: 1000 } });
    assert.equal(event.reportingComponent, "kubelet");
    assert.equal(event.reportingInstance, "");
    assert.deepEqual(event.firstTimestamp, {}); // zero Time: an empty message
    assert.equal(event.related, undefined); // nil pointer: not on the wire
  });

  it("Secret and DeleteOptions", () => {
    const secret = read(
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "s" },
        immutable: false,
        data: { k: "AP/+" },
        stringData: { plain: "text" },
        type: "Opaque",
      },
      `${CORE_V1}.Secret`,
    );
    assert.equal(secret.immutable, false);
    assert.deepEqual(secret.data, { k: "AP/+" });
    assert.deepEqual(secret.stringData, { plain: "text" });
    assert.equal(secret.type, "Opaque");

    const options = read(
      {
        apiVersion: "meta.k8s.io/v1",
        kind: "DeleteOptions",
        gracePeriodSeconds: 0,
        preconditions: { resourceVersion: "7" },
        propagationPolicy: "Foreground",
        dryRun: ["All"],
      },
      `${META_V1}.DeleteOptions`,
    );
    assert.deepEqual(options, {
      gracePeriodSeconds: 0,
      preconditions: { resourceVersion: "7" },
      propagationPolicy: "Foreground",
      dryRun: ["All"],
    });
  });

  it("ClusterRole with an aggregation rule", () => {
    const role = read(
      {
        apiVersion: `${naming("cluster").group("rbac.authorization")}/v1`,
        kind: "ClusterRole",
        metadata: { name: "view" },
        rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }, { verbs: [] }],
        aggregationRule: {
          clusterRoleSelectors: [
            { matchLabels: { "aggregate-to-view": "true" } },
            { matchExpressions: [{ key: "tier", operator: "In", values: ["a"] }] },
          ],
        },
      },
      `${RBAC_V1}.ClusterRole`,
    );
    assert.deepEqual(role.rules, [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }, {}]);
    assert.deepEqual(role.aggregationRule, {
      clusterRoleSelectors: [
        { matchLabels: { "aggregate-to-view": "true" } },
        { matchExpressions: [{ key: "tier", operator: "In", values: ["a"] }] },
      ],
    });
  });

  it("RoleBinding: the value struct roleRef and the subjects' zero values are on the wire", () => {
    const binding = read(
      {
        apiVersion: `${naming("kubernetes").group("rbac.authorization")}/v1`,
        kind: "RoleBinding",
        metadata: { name: "b", namespace: "ns" },
        subjects: [{ kind: "User", name: "jane" }],
      },
      `${RBAC_V1}.RoleBinding`,
    );
    assert.deepEqual(binding.subjects, [{ kind: "User", apiGroup: "", name: "jane", namespace: "" }]);
    assert.deepEqual(binding.roleRef, { apiGroup: "", kind: "", name: "" });
  });

  it("TokenRequest: pointers only when set, uid as the IDL's uID", () => {
    const apiVersion = `${naming("kubernetes").group("authentication")}/v1`;
    const empty = read({ apiVersion, kind: "TokenRequest" }, `${AUTHENTICATION_V1}.TokenRequest`);
    assert.deepEqual(empty.spec, {});
    assert.deepEqual(empty.status, { token: "", expirationTimestamp: {} });
    const full = read(
      {
        apiVersion,
        kind: "TokenRequest",
        spec: {
          audiences: ["api"],
          expirationSeconds: 0,
          boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "web", uid: "u1" },
        },
        status: { token: "opaque", expirationTimestamp: "2024-05-06T07:08:09Z" },
      },
      `${AUTHENTICATION_V1}.TokenRequest`,
    );
    assert.deepEqual(full.spec, {
      audiences: ["api"],
      expirationSeconds: 0,
      boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "web", uID: "u1" },
    });
    assert.deepEqual(full.status, {
      token: "opaque",
      expirationTimestamp: { seconds: 1714979289, nanos: 0 },
    });
  });

  it("TokenReview and SubjectAccessReview: extra as a map of ExtraValue messages", () => {
    const review = read(
      {
        apiVersion: `${naming("cluster").group("authentication")}/v1beta1`,
        kind: "TokenReview",
        spec: { token: "t" },
        status: { authenticated: true, user: { username: "u", extra: { b: ["2", "3"], a: [] } } },
      },
      `${AUTHENTICATION_V1BETA1}.TokenReview`,
    );
    const status = review.status as Record<string, unknown>;
    assert.equal(status.authenticated, true);
    assert.deepEqual(status.user, { username: "u", uid: "", extra: { a: {}, b: { items: ["2", "3"] } } });
    const access = read(
      {
        apiVersion: `${naming("cluster").group("authorization")}/v1`,
        kind: "SubjectAccessReview",
        spec: { resourceAttributes: { verb: "get" }, user: "u", extra: { scopes: ["x"] } },
      },
      `${AUTHORIZATION_V1}.SubjectAccessReview`,
    );
    const spec = access.spec as Record<string, unknown>;
    assert.equal((spec.resourceAttributes as Record<string, unknown>).verb, "get");
    assert.equal(spec.nonResourceAttributes, undefined);
    assert.deepEqual(spec.extra, { scopes: { items: ["x"] } });
    assert.deepEqual(access.status, { allowed: false, denied: false, reason: "", evaluationError: "" });
  });

  it("SelfSubjectRulesReview and SelfSubjectReview", () => {
    const rules = read(
      {
        apiVersion: `${naming("kubernetes").group("authorization")}/v1`,
        kind: "SelfSubjectRulesReview",
        spec: { namespace: "ns" },
        status: {
          resourceRules: [{ verbs: ["get"], resources: ["pods"] }],
          nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/api"] }],
          incomplete: true,
        },
      },
      `${AUTHORIZATION_V1}.SelfSubjectRulesReview`,
    );
    assert.deepEqual(rules.spec, { namespace: "ns" });
    assert.deepEqual(rules.status, {
      resourceRules: [{ verbs: ["get"], resources: ["pods"] }],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/api"] }],
      incomplete: true,
      evaluationError: "",
    });
    for (const [version, pkg] of [
      ["v1", AUTHENTICATION_V1],
      ["v1beta1", AUTHENTICATION_V1BETA1],
      ["v1alpha1", AUTHENTICATION_V1ALPHA1],
    ] as const) {
      const self = read(
        {
          apiVersion: `${naming("cluster").group("authentication")}/${version}`,
          kind: "SelfSubjectReview",
          status: { userInfo: { username: "jane", groups: ["dev"] } },
        },
        `${pkg}.SelfSubjectReview`,
      );
      assert.deepEqual(self.status, { userInfo: { username: "jane", uid: "", groups: ["dev"] } }, version);
    }
  });
});
