import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parentManagedFields, replicasPath, scaleManagedFields } from "./scale-fields.ts";

const T = "2026-01-01T00:00:00Z";
const served = (av: string) => av === "apps/v1";
const replicas = replicasPath(".spec.replicas");

const entry = (
  manager: string,
  operation: string,
  fieldsV1: unknown,
  extra: Record<string, unknown> = {},
) => ({
  manager,
  operation,
  apiVersion: "apps/v1",
  time: T,
  fieldsType: "FieldsV1",
  fieldsV1,
  ...extra,
});

const parent = [
  entry("kubectl", "Apply", { "f:spec": { "f:replicas": {}, "f:selector": {} } }),
  entry("editor", "Update", { "f:metadata": { "f:labels": { "f:a": {} } } }),
  entry("old", "Update", { "f:spec": { "f:replicas": {} } }, { apiVersion: "apps/v1beta1" }),
];

describe("scale managedFields", () => {
  it("shows the owners of the parent's replicas as owners of the Scale's", () => {
    assert.deepEqual(scaleManagedFields(parent, replicas, served), [
      {
        manager: "kubectl",
        operation: "Apply",
        apiVersion: "autoscaling/v1",
        time: T,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:replicas": {} } },
      },
    ]);
    assert.equal(scaleManagedFields(undefined, replicas, served), undefined);
    assert.equal(scaleManagedFields("garbage", replicas, served), undefined);
  });

  it("moves the replicas to the Scale's writers and keeps the rest of the parent's", () => {
    // After a forced apply by "scaler": kubectl lost the replicas on the Scale.
    const scale = [
      {
        manager: "scaler",
        operation: "Apply",
        apiVersion: "autoscaling/v1",
        time: T,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:replicas": {} } },
        subresource: "scale",
      },
    ];
    const out = parentManagedFields(parent, scale, replicas, "apps/v1", served) as Record<string, unknown>[];
    assert.deepEqual(
      out.map((e) => [e.manager, e.operation, e.apiVersion, e.subresource, e.fieldsV1]),
      [
        ["kubectl", "Apply", "apps/v1", undefined, { "f:spec": { "f:selector": {} } }],
        ["scaler", "Apply", "apps/v1", "scale", { "f:spec": { "f:replicas": {} } }],
        ["editor", "Update", "apps/v1", undefined, { "f:metadata": { "f:labels": { "f:a": {} } } }],
      ],
    );
    // A writer still on the Scale keeps its parent entry as it was.
    const kept = parentManagedFields(
      parent,
      scaleManagedFields(parent, replicas, served),
      replicas,
      "apps/v1",
      served,
    );
    assert.deepEqual(
      (kept as Record<string, unknown>[]).map((e) => [e.manager, e.fieldsV1]),
      [
        ["kubectl", { "f:spec": { "f:replicas": {}, "f:selector": {} } }],
        ["editor", { "f:metadata": { "f:labels": { "f:a": {} } } }],
      ],
    );
  });

  it("follows a custom resource's replicas path", () => {
    const path = replicasPath(".spec.size");
    const cr = [
      entry("kubectl-create", "Update", { "f:spec": { "f:size": {} } }, { apiVersion: "example.com/v1" }),
    ];
    const isServed = (av: string) => av === "example.com/v1";
    const scale = scaleManagedFields(cr, path, isServed) as Record<string, unknown>[];
    assert.deepEqual(scale[0]?.fieldsV1, { "f:spec": { "f:replicas": {} } });
    const taken = [{ ...scale[0], manager: "scaler", operation: "Apply", subresource: "scale" }];
    const out = parentManagedFields(cr, taken, path, "example.com/v1", isServed) as Record<string, unknown>[];
    assert.deepEqual(
      out.map((e) => [e.manager, e.apiVersion, e.fieldsV1]),
      [["scaler", "example.com/v1", { "f:spec": { "f:size": {} } }]],
    );
  });
});
