import assert from "node:assert/strict";
import { it } from "node:test";
import type { KnownFields } from "./strategy.ts";
import { pruneUnknownFields } from "./unknown-fields.ts";

it("finds and drops unknown fields at every depth", () => {
  const known: KnownFields = {
    metadata: { name: true, labels: { "*": true } },
    spec: { containers: { "[]": { name: true, ports: { "[]": { containerPort: true } } } } },
    data: { "*": true },
  };
  const object = {
    metadata: { name: "a", labels: { x: "1" }, bogus: 1 },
    spec: { containers: [{ name: "c", extra: true, ports: [{ containerPort: 80, hostIP: "x" }] }] },
    data: { anything: "goes" },
    top: 1,
  };
  assert.deepEqual(pruneUnknownFields(object, known), [
    "metadata.bogus",
    "spec.containers[0].extra",
    "spec.containers[0].ports[0].hostIP",
    "top",
  ]);
  assert.deepEqual(object, {
    metadata: { name: "a", labels: { x: "1" } },
    spec: { containers: [{ name: "c", ports: [{ containerPort: 80 }] }] },
    data: { anything: "goes" },
  });
});
