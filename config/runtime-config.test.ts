import assert from "node:assert/strict";
import { it } from "node:test";
import { RuntimeConfigError, runtimeConfig } from "./runtime-config.ts";

const served = [
  { group: "", version: "v1", resources: ["configmaps", "secrets"] },
  { group: "batch", version: "v1", resources: ["jobs"] },
  { group: "flowcontrol.example", version: "v1beta3", resources: ["flowschemas"] },
  { group: "admission.example", version: "v1alpha1", resources: ["policies"] },
];

it("serves GA and beta, not alpha, by default", () => {
  const on = runtimeConfig([], served);
  assert.equal(on("", "v1", "configmaps"), true);
  assert.equal(on("flowcontrol.example", "v1beta3", "flowschemas"), true);
  assert.equal(on("admission.example", "v1alpha1", "policies"), false);
});

it("turns group versions, resources and levels on and off", () => {
  const on = runtimeConfig(
    ["batch/v1=false", "admission.example/v1alpha1", "api/v1/secrets=false", "api/beta=false"],
    served,
  );
  assert.equal(on("batch", "v1", "jobs"), false);
  assert.equal(on("admission.example", "v1alpha1", "policies"), true);
  assert.equal(on("", "v1", "secrets"), false);
  assert.equal(on("", "v1", "configmaps"), true);
  assert.equal(on("flowcontrol.example", "v1beta3", "flowschemas"), false);
  assert.equal(runtimeConfig(["api/all=true"], served)("admission.example", "v1alpha1", "policies"), true);
});

it("refuses keys that name nothing and bad values", () => {
  assert.throws(() => runtimeConfig(["batch/v2=true"], served), RuntimeConfigError);
  assert.throws(() => runtimeConfig(["batch/v1/cronjobs=false"], served), /unknown resource/);
  assert.throws(() => runtimeConfig(["batch/v1=maybe"], served), /must be true or false/);
});
