import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../backends/naming/index.ts";
import type { ResourceSchema } from "../backends/schema/index.ts";
import { deprecationWarning, noteDeprecatedRequest } from "./deprecation.ts";
import { GatewayMetrics } from "./metrics.ts";
import type { RequestContext } from "./pipeline/context.ts";

const n = naming("kubernetes");
const schema: ResourceSchema = {
  group: "flowcontrol.apiserver.k8s.io",
  versions: [
    { name: "v1beta3", served: true, storage: true },
    {
      name: "v1beta2",
      served: true,
      storage: false,
      deprecated: true,
      deprecatedRelease: "1.26",
      removedRelease: "1.29",
      replacement: "flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema",
    },
  ],
  plural: "flowschemas",
  singular: "flowschema",
  kind: "FlowSchema",
  listKind: "FlowSchemaList",
  shortNames: [],
  categories: [],
  namespaced: false,
  verbs: ["get", "list"],
  subresources: ["status"],
  allowCreateOnUpdate: false,
};

// The note reads and writes only these parts of a request's context.
function context(subresource = ""): RequestContext {
  return { warnings: [], info: { subresource } } as unknown as RequestContext;
}

describe("deprecated versions", () => {
  it("words the warning as upstream does", () => {
    assert.equal(
      deprecationWarning(schema, schema.versions[1] as ResourceSchema["versions"][number]),
      "flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema is deprecated in v1.26+, unavailable in v1.29+; use flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema",
    );
    assert.equal(
      deprecationWarning(
        { ...schema, group: "example.com", kind: "CronTab" },
        { name: "v1", served: true, storage: true, deprecated: true },
      ),
      "example.com/v1 CronTab is deprecated",
    );
  });

  it("warns, annotates the audit event and sets the gauge, only for deprecated versions", async () => {
    const metrics = new GatewayMetrics();
    const ctx = context("status");
    noteDeprecatedRequest(ctx, n, schema, "v1beta2", metrics);
    assert.equal(ctx.warnings.length, 1);
    assert.deepEqual(ctx.auditAnnotations, { "k8s.io/deprecated": "true", "k8s.io/removed-release": "1.29" });
    const text = await metrics.registry.metrics();
    assert.match(
      text,
      /apiserver_requested_deprecated_apis\{group="flowcontrol.apiserver.k8s.io",version="v1beta2",resource="flowschemas",subresource="status",removed_release="1.29"\} 1/,
    );
    const current = context();
    noteDeprecatedRequest(current, n, schema, "v1beta3", metrics);
    assert.deepEqual(current.warnings, []);
    assert.equal(current.auditAnnotations, undefined);
  });
});
