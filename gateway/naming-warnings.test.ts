import assert from "node:assert/strict";
import { it } from "node:test";
import { naming } from "../backends/naming/index.ts";
import { warnOtherNaming } from "./naming-warnings.ts";
import type { RequestContext } from "./pipeline/index.ts";
import type { ServedResource } from "./routing/resources.ts";

const served = (plural: string) => ({ schema: { group: "", plural } }) as unknown as ServedResource;

function warnings(
  preset: "cluster" | "kubernetes",
  plural: string,
  ns: string | undefined,
  object: unknown,
  subresource?: string,
): string[] {
  const ctx = { warnings: [] as string[] } as unknown as RequestContext;
  warnOtherNaming(ctx, naming(preset), { served: served(plural), ns, subresource }, object);
  return ctx.warnings;
}

it("names the other preset's spelling of what the server reads, and this preset's", () => {
  assert.deepEqual(
    warnings("kubernetes", "secrets", "cluster-public", {
      type: "cluster.io/dockerconfigjson",
      metadata: { annotations: { "cluster.io/service-account.name": "a", "example.com/x": "y" } },
    }),
    [
      "namespace cluster-public is not this server's public namespace: it uses kube-public (--api-naming=kubernetes)",
      "annotation cluster.io/service-account.name is not read by this server: it reads kubernetes.io/service-account.name (--api-naming=kubernetes)",
      "secret type cluster.io/dockerconfigjson is not read by this server: it reads kubernetes.io/dockerconfigjson (--api-naming=kubernetes)",
    ],
  );
});

it("warns of a Namespace named as the other preset's, and of nothing in a subresource's body", () => {
  assert.deepEqual(warnings("cluster", "namespaces", undefined, { metadata: { name: "kube-node-lease" } }), [
    "namespace kube-node-lease is not this server's node lease namespace: it uses cluster-node-lease (--api-naming=cluster)",
  ]);
  const labelled = { metadata: { labels: { "pod-security.kubernetes.io/warn": "baseline" } } };
  assert.equal(warnings("cluster", "namespaces", undefined, labelled).length, 1);
  assert.deepEqual(warnings("cluster", "namespaces", undefined, labelled, "status"), []);
  // Names both presets share, unknown keys and this preset's own spellings pass quietly.
  assert.deepEqual(
    warnings("cluster", "secrets", "default", {
      type: "Opaque",
      metadata: { labels: { "app.kubernetes.io/name": "x", "pod-security.cluster.io/warn": "baseline" } },
    }),
    [],
  );
});
