// The shape shared by the review kinds: create-only resources that are computed, never stored.
import type { ResourceSchema } from "../../backends/schema/index.ts";

export function reviewSchema(options: {
  group: string;
  versions: readonly { name: string; served: boolean }[];
  kind: string;
  namespaced?: boolean;
}): ResourceSchema {
  const plural = `${options.kind.toLowerCase()}s`;
  return {
    group: options.group,
    versions: options.versions.map((v, i) => ({ name: v.name, served: v.served, storage: i === 0 })),
    plural,
    singular: options.kind.toLowerCase(),
    kind: options.kind,
    listKind: `${options.kind}List`,
    shortNames: [],
    categories: [],
    namespaced: options.namespaced ?? false,
    verbs: ["create"],
    subresources: [],
    allowCreateOnUpdate: false,
  };
}

/** Reviews answer with the body they were given, status filled in, and no stored metadata. */
export function reviewResponse(body: Record<string, unknown>, status: Record<string, unknown>) {
  const metadata = { ...(body.metadata as Record<string, unknown> | undefined) };
  metadata.creationTimestamp = null;
  return { ...body, metadata, status };
}
