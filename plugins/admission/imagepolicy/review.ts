// The ImageReview a pod becomes: its images and its `*.image-policy.<domain>/*` annotations, in
// the shape upstream serializes (empty fields left out, annotation keys sorted), so that the
// JSON text doubles as the answer cache's key.
import type { JsonObject } from "../index.ts";

export interface ImageReviewSpec {
  readonly containers?: readonly { readonly image?: string }[];
  readonly annotations?: Readonly<Record<string, string>>;
  readonly namespace?: string;
}

const record = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(record) : []);

/**
 * The review of a pod write: on the pod itself its containers then its init containers; on the
 * `ephemeralcontainers` subresource only the ephemeral containers (upstream's order and choice).
 * `marker` is the annotation domain with its dots, `.image-policy.<domain>/`.
 */
export function reviewSpec(
  pod: JsonObject,
  subresource: string,
  namespace: string,
  marker: string,
): ImageReviewSpec {
  const spec = record(pod.spec);
  const containers =
    subresource === ""
      ? [...list(spec.containers), ...list(spec.initContainers)]
      : list(spec.ephemeralContainers);
  const annotations: Record<string, string> = {};
  const all = record(record(pod.metadata).annotations);
  for (const key of Object.keys(all).sort())
    if (key.includes(marker) && typeof all[key] === "string") annotations[key] = all[key];
  return {
    ...(containers.length > 0
      ? {
          containers: containers.map((c) =>
            typeof c.image === "string" && c.image !== "" ? { image: c.image } : {},
          ),
        }
      : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...(namespace ? { namespace } : {}),
  };
}

/** The request body: an ImageReview with upstream's empty metadata and status. */
export function imageReview(apiVersion: string, spec: ImageReviewSpec): JsonObject {
  return {
    kind: "ImageReview",
    apiVersion,
    metadata: { creationTimestamp: null },
    spec: spec as JsonObject,
    status: { allowed: false },
  };
}
