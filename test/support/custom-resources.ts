// Custom resources for end-to-end suites: a CustomResourceDefinition of one version (`v1`, served
// and stored), created and waited for until its collection answers.
import assert from "node:assert/strict";
import type { ApiClient } from "./api-client.ts";
import { eventually } from "./watch.ts";

export interface CrdOptions {
  /** The apiextensions group under the server's naming preset (`apiextensions.k8s.io`). */
  readonly apiextensions: string;
  readonly group: string;
  readonly kind: string;
  /** Default: the kind in lower case with an `s`. */
  readonly plural?: string;
  readonly scope?: "Namespaced" | "Cluster";
  /** The version's openAPIV3Schema. */
  readonly schema: unknown;
  readonly subresources?: unknown;
}

export function crdBody(o: CrdOptions): Record<string, unknown> {
  const singular = o.kind.toLowerCase();
  const plural = o.plural ?? `${singular}s`;
  return {
    apiVersion: `${o.apiextensions}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${o.group}` },
    spec: {
      group: o.group,
      scope: o.scope ?? "Namespaced",
      names: { plural, singular, kind: o.kind, listKind: `${o.kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: o.schema },
          ...(o.subresources ? { subresources: o.subresources } : {}),
        },
      ],
    },
  };
}

/**
 * Creates the definition and waits until its collection answers 200; returns the collection's
 * path (in namespace `default` when namespaced).
 */
export async function createServedCrd(api: ApiClient, o: CrdOptions): Promise<string> {
  const body = crdBody(o);
  const made = await api.call("POST", `/apis/${o.apiextensions}/v1/customresourcedefinitions`, { body });
  assert.equal(made.status, 201, made.text.slice(0, 500));
  const plural = (body.spec as { names: { plural: string } }).names.plural;
  const path =
    o.scope === "Cluster"
      ? `/apis/${o.group}/v1/${plural}`
      : `/apis/${o.group}/v1/namespaces/default/${plural}`;
  await eventually(async () => (await api.call("GET", path)).status === 200, 30_000, `${path} served`);
  return path;
}
