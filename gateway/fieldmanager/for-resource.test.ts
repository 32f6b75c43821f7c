import assert from "node:assert/strict";
import { it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import type { ServedResource } from "../routing/resources.ts";
import { fieldManagerFor } from "./for-resource.ts";

// A custom resource whose schema leaves metadata open, as CRDs do.
const served = {
  schema: {
    group: "example.com",
    kind: "Widget",
    plural: "widgets",
    subresources: [],
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          type: "object",
          properties: {
            apiVersion: { type: "string" },
            kind: { type: "string" },
            metadata: { type: "object" },
            spec: { type: "object", properties: { size: { type: "integer" } } },
          },
        },
      },
    ],
  },
} as unknown as ServedResource;

it("custom resources' metadata is walked as ObjectMeta: finalizers are a set, owner references keyed", async () => {
  const fm = fieldManagerFor(served, naming("cluster"), "v1", undefined);
  const widget = (meta: Record<string, unknown>) => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w", ...meta },
  });
  const a = await fm.apply(undefined, widget({ finalizers: ["example.com/a"] }), "a", false);
  const both = await fm.apply(a, widget({ finalizers: ["example.com/b"] }), "b", false);
  assert.deepEqual((both.metadata as { finalizers: string[] }).finalizers, [
    "example.com/a",
    "example.com/b",
  ]);
  const entries = (both.metadata as { managedFields: { manager: string; fieldsV1: unknown }[] })
    .managedFields;
  assert.deepEqual(entries.find((e) => e.manager === "b")?.fieldsV1, {
    "f:metadata": { "f:finalizers": { 'v:"example.com/b"': {} } },
  });
});
