// Cross-checks the hand-written descriptors against upstream's Protobuf IDL (the shared reference
// data, read by tests only): every field's number, name, type, repeated/map label and position,
// and that no field of a described message is missing. The IDL is parsed with protobufjs, which
// also decodes our encoder's output independently of our decoder.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { encodeProtobufMessage } from "./codec.ts";
import {
  CORE_V1,
  type FieldDescriptor,
  type FieldType,
  KINDS,
  kindDescriptor,
  MESSAGES,
  META_V1,
  type MessageDescriptor,
  RUNTIME,
} from "./descriptors.ts";

const UPSTREAM = fileURLToPath(new URL("../../../shared/upstream/kubernetes-1.27/", import.meta.url));
const IDL_FILES = [
  "api/core/v1/generated.proto",
  "apimachinery/pkg/apis/meta/v1/generated.proto",
  "apimachinery/pkg/runtime/generated.proto",
];
const available = IDL_FILES.every((f) => existsSync(`${UPSTREAM}${f}`));
const skip = available ? false : `no IDL at ${UPSTREAM}`;

function loadIdl(): protobuf.Root {
  const root = new protobuf.Root();
  for (const file of IDL_FILES)
    protobuf.parse(readFileSync(`${UPSTREAM}${file}`, "utf8"), root, { keepCase: true });
  return root;
}

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
      return `map<string,${type.value}>`;
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
      if (ours.name !== idlField.name) problems.push(`${where}: descriptor names it ${ours.name}`);
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
    const ourOrder = descriptor.fields.map((f) => f.name).join(",");
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
      `${RUNTIME}.Unknown`,
      `${RUNTIME}.TypeMeta`,
    ];
    for (const name of required) assert.ok(MESSAGES.has(name), `${name} has no descriptor`);
  });

  it("every field matches the IDL in number, name, type and label, and none is missing", () => {
    assert.deepEqual(compareWithIdl(MESSAGES.values(), root), []);
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
  });
});

describe("kind lookup", () => {
  it("core kinds only in v1, meta kinds in any group version", () => {
    assert.equal(kindDescriptor("v1", "Namespace")?.message, `${CORE_V1}.Namespace`);
    assert.equal(kindDescriptor("v2", "Namespace"), undefined);
    assert.equal(kindDescriptor("events.k8s.io/v1", "Event"), undefined);
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
});
