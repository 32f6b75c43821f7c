import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import { ensuredObject, isDanglingBootstrapObject, parseBool } from "./ensure.ts";
import { autoUpdateAnnotation, bootstrapConfiguration } from "./flowcontrol-bootstrap.ts";

const key = autoUpdateAnnotation(naming("kubernetes"));

/** The write asked for; fails when there is none. */
function written(w: ReturnType<typeof ensuredObject>): { spec: unknown; annotations: unknown } {
  assert.ok(w, "a write");
  assert.equal(w.create, false);
  return { spec: w.object.spec, annotations: (w.object.metadata as { annotations: unknown }).annotations };
}
const bootstrap = {
  metadata: { name: "global-default", annotations: { [key]: "true" } },
  spec: { type: "Limited", limited: { nominalConcurrencyShares: 20 } },
};
const current = (annotation: string | undefined, shares: number, generation = 1) => ({
  metadata: {
    name: "global-default",
    generation,
    annotations: annotation === undefined ? { other: "x" } : { other: "x", [key]: annotation },
  },
  spec: { limited: { nominalConcurrencyShares: shares }, type: "Limited" },
});

describe("the flow-control configuration's keeping rules", () => {
  it("spells the annotation through the naming preset", () => {
    assert.equal(key, "apf.kubernetes.io/autoupdate-spec");
    assert.equal(autoUpdateAnnotation(naming("cluster")), "apf.cluster.io/autoupdate-spec");
  });

  it("creates a missing object", () => {
    assert.deepEqual(ensuredObject(undefined, bootstrap, false, key), { create: true, object: bootstrap });
  });

  it("leaves an object as it should be alone, whatever the key order", () => {
    assert.equal(ensuredObject(current("true", 20), bootstrap, false, key), undefined);
    assert.equal(ensuredObject(current("True", 20), bootstrap, true, key), undefined);
  });

  it("always restores a mandatory object's spec and annotation", () => {
    const w = written(ensuredObject(current("false", 99, 4), bootstrap, true, key));
    assert.deepEqual(w.spec, bootstrap.spec);
    assert.deepEqual(w.annotations, { other: "x", [key]: "true" });
  });

  it("restores a suggested object only while it says true, or is unannotated and unchanged", () => {
    assert.deepEqual(
      written(ensuredObject(current("true", 99, 2), bootstrap, false, key)).spec,
      bootstrap.spec,
    );
    assert.equal(ensuredObject(current("false", 99, 2), bootstrap, false, key), undefined);
    const unchanged = written(ensuredObject(current(undefined, 20, 1), bootstrap, false, key));
    assert.deepEqual(unchanged.annotations, { other: "x", [key]: "true" });
    const edited = written(ensuredObject(current("maybe", 99, 2), bootstrap, false, key));
    assert.deepEqual(edited.spec, current("maybe", 99, 2).spec);
    assert.deepEqual(edited.annotations, { other: "x", [key]: "false" });
  });

  it("deletes only foreign objects that claim the annotation as true", () => {
    const names = new Set(["global-default"]);
    const obj = (name: string, value?: string) => ({
      metadata: { name, ...(value === undefined ? {} : { annotations: { [key]: value } }) },
    });
    assert.equal(isDanglingBootstrapObject(obj("mine", "true"), names, key), true);
    assert.equal(isDanglingBootstrapObject(obj("mine", "1"), names, key), true);
    assert.equal(isDanglingBootstrapObject(obj("mine", "false"), names, key), false);
    assert.equal(isDanglingBootstrapObject(obj("mine", "yes"), names, key), false);
    assert.equal(isDanglingBootstrapObject(obj("mine"), names, key), false);
    assert.equal(isDanglingBootstrapObject(obj("global-default", "true"), names, key), false);
  });

  it("parses booleans as Go does", () => {
    for (const t of ["1", "t", "T", "TRUE", "true", "True"]) assert.equal(parseBool(t), true);
    for (const f of ["0", "f", "F", "FALSE", "false", "False"]) assert.equal(parseBool(f), false);
    for (const x of ["yes", "", "tRUE", undefined]) assert.equal(parseBool(x), undefined);
  });

  it("has upstream's objects, every one marked for auto-update", () => {
    const c = bootstrapConfiguration(naming("cluster"));
    assert.equal(c.mandatoryFlowSchemas.length + c.suggestedFlowSchemas.length, 13);
    assert.equal(c.mandatoryPriorityLevels.length + c.suggestedPriorityLevels.length, 8);
    for (const o of [...c.mandatoryFlowSchemas, ...c.suggestedFlowSchemas, ...c.mandatoryPriorityLevels])
      assert.equal(
        (o.metadata as { annotations: Record<string, string> }).annotations["apf.cluster.io/autoupdate-spec"],
        "true",
      );
    assert.equal(c.suggestedFlowSchemas.at(-1)?.apiVersion, "flowcontrol.cluster.io/v1beta3");
    assert.equal(
      bootstrapConfiguration(naming("kubernetes")).mandatoryFlowSchemas[0]?.apiVersion,
      "flowcontrol.apiserver.k8s.io/v1beta3",
    );
  });
});
