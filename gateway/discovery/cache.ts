// Discovery responses, serialized once per change of the schema set: each document is held as its
// JSON body with an ETag, so a request costs a map lookup. The aggregated document is served with
// the ETag (the reference server also sets `Vary: Accept` and `Cache-Control: public` there and
// answers a matching `If-None-Match` with 304); the legacy documents carry one too for callers
// that want it.
import { createHash } from "node:crypto";
import type { ResourceSchema } from "../../backends/schema/index.ts";
import {
  type AggregatedVersion,
  aggregatedDiscoveryList,
  aggregatedMediaType,
  buildDiscovery,
  type DiscoveryOptions,
  type RemoteGroupVersion,
} from "./documents.ts";

export type DiscoveryVariant = "legacy" | "aggregated-v2beta1" | "aggregated-v2";

export interface DiscoveryResponse {
  /** The JSON body, ending with a newline as the reference server's encoder writes it. */
  readonly body: string;
  /** A strong entity tag, quoted: `"<hex of SHA-512 of the body>"`. */
  readonly etag: string;
  readonly contentType: string;
}

const aggregatedVariants: ReadonlyArray<readonly [DiscoveryVariant, AggregatedVersion]> = [
  ["aggregated-v2beta1", "v2beta1"],
  ["aggregated-v2", "v2"],
];

function response(document: unknown, contentType: string): DiscoveryResponse {
  const body = `${JSON.stringify(document)}\n`;
  const etag = `"${createHash("sha512").update(body).digest("hex").toUpperCase()}"`;
  return { body, etag, contentType };
}

/**
 * A fingerprint of everything discovery shows of a schema set, independent of the order of the
 * schemas and of fields discovery does not show.
 */
export function discoveryFingerprint(schemas: readonly ResourceSchema[]): string {
  const rows = schemas.map((s) =>
    JSON.stringify([
      s.group,
      s.plural,
      s.singular,
      s.kind,
      s.namespaced,
      s.verbs,
      s.shortNames,
      s.categories,
      s.subresources,
      s.versions.map((v) => [v.name, v.served, v.storage]),
    ]),
  );
  rows.sort();
  const hash = createHash("sha256");
  for (const row of rows) hash.update(row).update("\n");
  return hash.digest("base64");
}

/** Strips one trailing slash: `/apis/` is `/apis`. */
function normalize(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

export class DiscoveryCache {
  readonly #options: DiscoveryOptions;
  #fingerprint: string | undefined;
  #entries = new Map<string, DiscoveryResponse>();
  #builds = 0;

  constructor(options: DiscoveryOptions, schemas: readonly ResourceSchema[] = []) {
    this.#options = options;
    this.update(schemas);
  }

  /** How many times the documents were built. */
  get builds(): number {
    return this.#builds;
  }

  /**
   * Rebuilds the documents when the schema set or the remote group versions differ from the last
   * ones; reports whether it did.
   */
  update(schemas: readonly ResourceSchema[], remotes: readonly RemoteGroupVersion[] = []): boolean {
    const fingerprint = `${discoveryFingerprint(schemas)} ${remotes.length > 0 ? JSON.stringify(remotes) : ""}`;
    if (fingerprint === this.#fingerprint) return false;
    const { naming } = this.#options;
    const docs = buildDiscovery(schemas, this.#options, remotes);
    const entries = new Map<string, DiscoveryResponse>();
    const legacy = (path: string, document: unknown) =>
      entries.set(`legacy ${path}`, response(document, "application/json"));
    legacy("/api", docs.apiVersions);
    legacy("/apis", docs.apiGroupList);
    for (const [name, group] of docs.apiGroups) legacy(`/apis/${name}`, group);
    for (const [groupVersion, list] of docs.resourceLists) {
      legacy(groupVersion.includes("/") ? `/apis/${groupVersion}` : `/api/${groupVersion}`, list);
    }
    for (const [variant, version] of aggregatedVariants) {
      const contentType = aggregatedMediaType(naming, version);
      entries.set(
        `${variant} /api`,
        response(aggregatedDiscoveryList(naming, version, docs.aggregatedCore), contentType),
      );
      entries.set(
        `${variant} /apis`,
        response(aggregatedDiscoveryList(naming, version, docs.aggregatedGroups), contentType),
      );
    }
    this.#entries = entries;
    this.#fingerprint = fingerprint;
    this.#builds++;
    return true;
  }

  /**
   * The response for a discovery path: `/api`, `/apis`, `/api/v1`, `/apis/<group>`,
   * `/apis/<group>/<version>`. The aggregated variants exist for `/api` and `/apis` only (the
   * reference server answers other paths with the legacy document when the Accept header allows
   * plain JSON). Undefined for a path with no document (404).
   */
  get(path: string, variant: DiscoveryVariant): DiscoveryResponse | undefined {
    return this.#entries.get(`${variant} ${normalize(path)}`);
  }
}

/**
 * Whether an `If-None-Match` header matches the entity tag (then the answer is 304 with no body):
 * `*`, or any tag of the comma-separated list, compared weakly.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => (tag.startsWith("W/") ? tag.slice(2) : tag);
  return header.split(",").some((candidate) => {
    const tag = candidate.trim();
    return tag === "*" || bare(tag) === bare(etag);
  });
}
