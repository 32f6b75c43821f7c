import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import { type FieldError, formatFieldError } from "../registry/field-error.ts";
import type { JsonObject } from "../registry/strategy.ts";
import { namespaceKind } from "./namespace.ts";

const text = (errs: FieldError[] | undefined) => (errs ?? []).map(formatFieldError);

for (const preset of ["cluster", "kubernetes"] as const) {
  const n = naming(preset);
  const kind = namespaceKind(n);
  const { strategy } = kind;
  const nameLabel = `${n.labelDomain}/metadata.name`;

  describe(`Namespace (${preset})`, () => {
    it("is cluster-scoped with status and finalize subresources and no deletecollection", () => {
      assert.equal(kind.schema.namespaced, false);
      assert.deepEqual(kind.schema.shortNames, ["ns"]);
      assert.deepEqual(kind.schema.subresources, ["status", "finalize"]);
      assert.ok(!kind.schema.verbs.includes("deletecollection"));
      assert.equal(kind.schema.allowCreateOnUpdate, false);
      assert.equal(strategy.nameRule, "dns-label");
      assert.equal(strategy.returnDeletedObject, true);
      assert.deepEqual(Object.keys(kind.subresourceStrategies ?? {}), ["status", "finalize"]);
    });

    it("starts Active with the product's finalizer and a name label", () => {
      const ns: JsonObject = {
        metadata: { name: "team-a", labels: { [nameLabel]: "spoofed", x: "y" } },
        status: { phase: "Terminating", conditions: [{ type: "X" }] },
      };
      strategy.prepareForCreate?.(ns);
      assert.deepEqual(ns.status, { phase: "Active" });
      assert.deepEqual(ns.spec, { finalizers: [n.productName] });
      assert.deepEqual((ns.metadata as JsonObject).labels, { [nameLabel]: "team-a", x: "y" });
    });

    it("appends its finalizer to the requested ones once", () => {
      const ns: JsonObject = { metadata: { name: "a" }, spec: { finalizers: ["example.com/f"] } };
      strategy.prepareForCreate?.(ns);
      assert.deepEqual(ns.spec, { finalizers: ["example.com/f", n.productName] });
      const again: JsonObject = { metadata: { name: "a" }, spec: { finalizers: [n.productName] } };
      strategy.prepareForCreate?.(again);
      assert.deepEqual(again.spec, { finalizers: [n.productName] });
    });

    it("keeps status, spec.finalizers and the name label on update", () => {
      const old: JsonObject = {
        metadata: { name: "a", labels: { [nameLabel]: "a" } },
        spec: { finalizers: [n.productName] },
        status: { phase: "Active" },
      };
      const next: JsonObject = {
        metadata: { name: "a", labels: { team: "x" } },
        spec: { finalizers: [] },
        status: { phase: "Terminating" },
      };
      strategy.prepareForUpdate?.(next, old);
      assert.deepEqual(next.spec, { finalizers: [n.productName] });
      assert.deepEqual(next.status, { phase: "Active" });
      assert.deepEqual((next.metadata as JsonObject).labels, { team: "x", [nameLabel]: "a" });
      (next.spec as { finalizers: string[] }).finalizers.push("mutated");
      assert.deepEqual(old.spec, { finalizers: [n.productName] }, "the old object is not shared");
    });

    it("checks finalizer names in spec and metadata", () => {
      const ns: JsonObject = {
        metadata: { name: "a", finalizers: ["bare"] },
        spec: { finalizers: [n.productName, "nope", "a/b/c"] },
      };
      const errs = text(strategy.validate?.(ns));
      assert.equal(
        errs[0],
        'metadata.finalizers[0]: Invalid value: "bare": name is neither a standard finalizer name nor is it fully qualified',
      );
      assert.equal(
        errs[1],
        'spec.finalizers: Invalid value: "nope": name is neither a standard finalizer name nor is it fully qualified',
      );
      assert.match(
        errs[2] ?? "",
        /^spec\.finalizers: Invalid value: "a\/b\/c": a qualified name must consist of/,
      );
      assert.equal(errs.length, 3);
      assert.deepEqual(
        strategy.validate?.({ metadata: { name: "a" }, spec: { finalizers: [n.productName] } }),
        [],
      );
    });

    it("status: keeps spec, and the phase must follow deletion", () => {
      const status = kind.subresourceStrategies?.status;
      assert.ok(status);
      const old: JsonObject = {
        metadata: { name: "a" },
        spec: { finalizers: [n.productName] },
        status: { phase: "Active" },
      };
      const next: JsonObject = {
        metadata: { name: "a" },
        spec: { finalizers: [] },
        status: { phase: "Terminating" },
      };
      status.prepareForUpdate?.(next, old);
      assert.deepEqual(next.spec, { finalizers: [n.productName] });
      assert.deepEqual(next.status, { phase: "Terminating" });
      assert.deepEqual(text(status.validateUpdate?.(next, old)), [
        "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
      ]);
      const deleting: JsonObject = {
        metadata: { name: "a", deletionTimestamp: "2024-01-01T00:00:00Z" },
        status: { phase: "Active" },
      };
      assert.deepEqual(text(status.validateUpdate?.(deleting, old)), [
        "status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty",
      ]);
      assert.deepEqual(status.validateUpdate?.({ ...deleting, status: { phase: "Terminating" } }, old), []);
    });

    it("finalize: keeps status and checks each spec finalizer", () => {
      const finalize = kind.subresourceStrategies?.finalize;
      assert.ok(finalize);
      const old: JsonObject = {
        metadata: { name: "a" },
        spec: { finalizers: [n.productName] },
        status: { phase: "Terminating" },
      };
      const next: JsonObject = {
        metadata: { name: "a" },
        spec: { finalizers: ["x.io/y", "bad"] },
        status: { phase: "Active" },
      };
      finalize.prepareForUpdate?.(next, old);
      assert.deepEqual(next.status, { phase: "Terminating" });
      assert.deepEqual(next.spec, { finalizers: ["x.io/y", "bad"] });
      assert.deepEqual(text(finalize.validateUpdate?.(next, old)), [
        'spec.finalizers[1]: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified',
      ]);
    });

    it("selects on status.phase and shows Status and Age", () => {
      const ns = {
        metadata: { name: "a", creationTimestamp: new Date(Date.now() - 3 * 3600_000).toISOString() },
        status: { phase: "Active" },
      };
      assert.deepEqual(kind.schema.selectableFields?.(ns), { "status.phase": "Active" });
      assert.deepEqual(
        kind.schema.tableColumns?.map((c) => [c.name, c.cell(ns)]),
        [
          ["Status", "Active"],
          ["Age", "3h"],
        ],
      );
    });
  });
}
