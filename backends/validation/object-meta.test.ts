import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import { type FieldError, formatFieldError } from "../registry/field-error.ts";
import {
  carryOverMetadata,
  validateAnnotations,
  validateFieldManager,
  validateFinalizers,
  validateLabels,
  validateManagedFields,
  validateMetadataFinalizerNames,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
} from "./object-meta.ts";

const text = (errs: FieldError[]) => errs.map(formatFieldError);
const SUBDOMAIN_REGEX = "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'";
const QNAME = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`;

describe("labels", () => {
  it("names the map, not the key, with the offending key or value", () => {
    assert.deepEqual(text(validateLabels({ ok: "fine", "-bad": "x", k: "bad value" }, "metadata.labels")), [
      `metadata.labels: Invalid value: "-bad": ${QNAME}`,
      `metadata.labels: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]);
  });
  it("accepts empty values and prefixed keys", () => {
    assert.deepEqual(validateLabels({ "example.com/x": "", a: "b" }, "metadata.labels"), []);
  });
});

describe("annotations", () => {
  it("checks keys case-insensitively and reports the original key", () => {
    assert.deepEqual(validateAnnotations({ "Example.COM/Key": "v" }, "metadata.annotations"), []);
    assert.deepEqual(text(validateAnnotations({ "a b": "v" }, "metadata.annotations")), [
      `metadata.annotations: Invalid value: "a b": ${QNAME}`,
    ]);
  });
  it("limits the total size to 256 KiB", () => {
    assert.deepEqual(text(validateAnnotations({ big: "x".repeat(256 * 1024) }, "metadata.annotations")), [
      "metadata.annotations: Too long: must have at most 262144 bytes",
    ]);
  });
});

describe("ownerReferences", () => {
  const ref = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u1" };
  it("accepts a complete reference", () => {
    assert.deepEqual(validateOwnerReferences([ref], "metadata.ownerReferences"), []);
  });
  it("requires each part", () => {
    assert.deepEqual(text(validateOwnerReferences([{ apiVersion: "apps/" }], "metadata.ownerReferences")), [
      'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
  });
  it("refuses core events as owners", () => {
    const event = { apiVersion: "v1", kind: "Event", name: "e", uid: "u" };
    const errs = validateOwnerReferences([event], "metadata.ownerReferences");
    assert.equal(errs.length, 1);
    assert.equal(errs[0]?.field, "metadata.ownerReferences");
    assert.equal(errs[0]?.detail, "/v1, Kind=Event is disallowed from being an owner");
  });
  it("allows one controller", () => {
    const refs = [
      { ...ref, controller: true },
      { ...ref, kind: "Job", name: "j", uid: "u2", controller: true },
    ];
    const errs = validateOwnerReferences(refs, "metadata.ownerReferences");
    assert.equal(errs.length, 1);
    assert.equal(
      errs[0]?.detail,
      'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/rs and Job/j',
    );
  });
});

describe("finalizers", () => {
  it("are qualified names; orphan and foregroundDeletion exclude each other", () => {
    assert.deepEqual(validateFinalizers(["example.com/x", "orphan"], "metadata.finalizers"), []);
    assert.deepEqual(text(validateFinalizers(["a/b/c"], "metadata.finalizers")).length, 1);
    assert.deepEqual(text(validateFinalizers(["orphan", "foregroundDeletion"], "metadata.finalizers")), [
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
  });
  it("core kinds also need a domain unless the name is a standard one", () => {
    for (const preset of ["cluster", "kubernetes"] as const) {
      const n = naming(preset);
      const meta = { finalizers: [n.productName, "orphan", "foregroundDeletion", "x.io/y", "custom"] };
      assert.deepEqual(text(validateMetadataFinalizerNames(meta, n)), [
        'metadata.finalizers[4]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
      ]);
    }
    assert.equal(validateMetadataFinalizerNames({ finalizers: ["kubernetes"] }, naming("cluster")).length, 1);
  });
});

describe("managedFields", () => {
  it("checks operation, fieldsType, manager and subresource", () => {
    const entries = [
      { manager: "kubectl", operation: "Apply", fieldsType: "FieldsV1" },
      { manager: "m", operation: "Patch", fieldsType: "FieldsV2", subresource: "s".repeat(257) },
    ];
    assert.deepEqual(text(validateManagedFields(entries, "metadata.managedFields")), [
      'metadata.managedFields[1].operation: Invalid value: "Patch": must be `Apply` or `Update`',
      'metadata.managedFields[1].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      "metadata.managedFields[1].subresource: Too long: must have at most 256 bytes",
    ]);
  });
  it("managers are short and printable", () => {
    assert.deepEqual(text(validateFieldManager("a\u0007b", "fieldManager")), [
      'fieldManager: Invalid value: "a\\u0007b": invalid character U+0007 (at position 1)',
    ]);
    assert.deepEqual(text(validateFieldManager("x".repeat(129), "fieldManager")), [
      "fieldManager: Too long: must have at most 128 bytes",
    ]);
    assert.deepEqual(validateFieldManager("kubectl-client-side-apply é", "fieldManager"), []);
  });
});

describe("validateObjectMeta", () => {
  const namespaced = { namespaced: true, nameRule: "dns-subdomain" } as const;
  it("accepts a plain namespaced object", () => {
    assert.deepEqual(validateObjectMeta({ name: "a", namespace: "default" }, namespaced), []);
  });
  it("requires a name and, when namespaced, a namespace", () => {
    assert.deepEqual(text(validateObjectMeta({}, namespaced)), [
      "metadata.name: Required value: name or generateName is required",
      "metadata.namespace: Required value",
    ]);
  });
  it("checks name, generateName and namespace by their rules", () => {
    assert.deepEqual(
      text(validateObjectMeta({ name: "A", generateName: "Bad-", namespace: "a.b" }, namespaced)),
      [
        `metadata.generateName: Invalid value: "Bad-": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is ${SUBDOMAIN_REGEX})`,
        `metadata.name: Invalid value: "A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is ${SUBDOMAIN_REGEX})`,
        'metadata.namespace: Invalid value: "a.b": must not contain dots',
      ],
    );
  });
  it("forbids a namespace on cluster-scoped objects", () => {
    assert.deepEqual(
      text(validateObjectMeta({ name: "a", namespace: "x" }, { namespaced: false, nameRule: "dns-label" })),
      ["metadata.namespace: Forbidden: not allowed on this type"],
    );
  });
  it("refuses a negative generation", () => {
    assert.deepEqual(text(validateObjectMeta({ name: "a", namespace: "n", generation: -1 }, namespaced)), [
      "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
    ]);
  });
});

describe("carryOverMetadata", () => {
  it("keeps the system fields an update may not change", () => {
    const old = {
      name: "a",
      uid: "u",
      generation: 3,
      creationTimestamp: "2024-01-01T00:00:00Z",
      deletionTimestamp: "2024-02-01T00:00:00Z",
      deletionGracePeriodSeconds: 30,
    };
    const meta: Record<string, unknown> = {
      name: "a",
      generation: 9,
      creationTimestamp: "2030-01-01T00:00:00Z",
    };
    carryOverMetadata(meta, old);
    assert.deepEqual(meta, old);
    assert.deepEqual(validateObjectMetaUpdate({ ...meta, resourceVersion: "1" }, old), []);
  });
  it("leaves a given uid (for the check to refuse) and an unset generation", () => {
    const meta: Record<string, unknown> = { uid: "other", generation: 2 };
    carryOverMetadata(meta, { uid: "u" });
    assert.deepEqual(meta, { uid: "other" });
  });
});

describe("validateObjectMetaUpdate", () => {
  const old = {
    name: "a",
    namespace: "n",
    uid: "u",
    resourceVersion: "5",
    creationTimestamp: "2024-01-01T00:00:00Z",
  };
  it("accepts label changes", () => {
    assert.deepEqual(validateObjectMetaUpdate({ ...old, labels: { a: "b" } }, old), []);
  });
  it("keeps identity fields", () => {
    assert.deepEqual(
      text(validateObjectMetaUpdate({ ...old, name: "b", uid: "v", creationTimestamp: null }, old)),
      [
        'metadata.name: Invalid value: "b": field is immutable',
        'metadata.uid: Invalid value: "v": field is immutable',
        "metadata.creationTimestamp: Invalid value: null: field is immutable",
      ],
    );
  });
  it("needs a resourceVersion unless told otherwise", () => {
    const { resourceVersion: _, ...noVersion } = old;
    assert.deepEqual(text(validateObjectMetaUpdate(noVersion, old)), [
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    ]);
    assert.deepEqual(validateObjectMetaUpdate(noVersion, old, { requireResourceVersion: false }), []);
  });
  it("adds no finalizers once deletion started", () => {
    const deleting = { ...old, deletionTimestamp: "2024-02-01T00:00:00Z", finalizers: ["a.io/x"] };
    assert.deepEqual(
      text(validateObjectMetaUpdate({ ...deleting, finalizers: ["b.io/y", "a.io/x", "a.io/z"] }, deleting)),
      [
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/z", "b.io/y"}',
      ],
    );
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting), []);
  });
  it("refuses a lower generation", () => {
    assert.deepEqual(text(validateObjectMetaUpdate({ ...old, generation: 1 }, { ...old, generation: 2 })), [
      "metadata.generation: Invalid value: 1: must not be decremented",
    ]);
  });
});
