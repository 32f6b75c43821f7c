// The served OpenAPI documents, built once per change of the schema set or of the extensions'
// specs and held serialized: the v3 index, one v3 document per group version (an extension's as
// it sent it), and the v2 document as JSON with the extensions' specs merged in (its protobuf
// form is encoded on first use). Each carries the reference server's entity tag: the SHA-512 of
// the JSON bytes in upper-case hex; the v3 index links each document with `?hash=<that tag>`.
import { createHash } from "node:crypto";
import type { Naming } from "../../backends/naming/index.ts";
import type { ResourceSchema } from "../../backends/schema/index.ts";
import { EMULATED_RELEASE } from "../discovery/version.ts";
import { buildGroupVersions } from "./group-versions.ts";
import { mergeV2Document } from "./merge.ts";
import { groupVersionPath } from "./names.ts";
import type { RemoteSpecs } from "./remote.ts";
import { openApiV2Document } from "./v2.ts";
import { encodeV2Document } from "./v2-proto.ts";
import { type DocumentInfo, documentTitle, openApiV3Document } from "./v3.ts";

export interface ServedDocument {
  /** Bytes, so the server sends the content type exactly as set (no charset appended). */
  readonly body: Buffer;
  /** Unquoted: upper-case hex SHA-512 of the JSON form. */
  readonly etag: string;
  readonly lastModified: Date;
}

export interface OpenApiOptions {
  readonly naming: Naming;
  /** Patch media types to advertise; the ones the server accepts by default. */
  readonly patchMediaTypes?: readonly string[];
}

export function computeEtag(body: Uint8Array): string {
  return createHash("sha512").update(body).digest("hex").toUpperCase();
}

/** `/openapi/v3/api/v1?hash=<etag>`. */
export function serverRelativeUrl(gvPath: string, etag: string): string {
  return `/openapi/v3/${gvPath}?hash=${encodeURIComponent(etag)}`;
}

/**
 * What the documents depend on, independent of schema order: a changed fingerprint means
 * rebuilding.
 */
// Schema objects are immutable once served; a new one (a changed custom resource) gets a new id.
const schemaIds = new WeakMap<object, number>();
let nextSchemaId = 1;
function schemaId(schema: object | undefined): number {
  if (!schema) return 0;
  let id = schemaIds.get(schema);
  if (id === undefined) {
    id = nextSchemaId++;
    schemaIds.set(schema, id);
  }
  return id;
}

export function openApiFingerprint(schemas: readonly ResourceSchema[]): string {
  const rows = schemas.map((s) =>
    JSON.stringify([
      s.group,
      s.plural,
      s.kind,
      s.listKind,
      s.namespaced,
      s.verbs,
      s.subresources,
      s.versions.filter((v) => v.served).map((v) => [v.name, schemaId(v.schema)]),
    ]),
  );
  rows.sort();
  return createHash("sha256").update(rows.join("\n")).digest("base64");
}

function serve(document: unknown, lastModified: Date): ServedDocument {
  return serveBytes(Buffer.from(JSON.stringify(document)), lastModified);
}

function serveBytes(body: Buffer, lastModified: Date): ServedDocument {
  return { body, etag: computeEtag(body), lastModified };
}

/** One build of all documents for one schema set. */
export class OpenApiDocuments {
  /** `/openapi/v3`. */
  readonly index: ServedDocument;
  /** By group-version path (`api/v1`, `apis/<g>/<v>`). */
  readonly v3: ReadonlyMap<string, ServedDocument>;
  readonly v2Json: ServedDocument;
  readonly #v2Document: Record<string, unknown>;
  #v2Proto: ServedDocument | undefined;

  constructor(
    schemas: readonly ResourceSchema[],
    options: OpenApiOptions,
    now: Date = new Date(),
    remote?: RemoteSpecs,
  ) {
    // HTTP dates have whole seconds.
    const lastModified = new Date(Math.floor(now.getTime() / 1000) * 1000);
    const { major, minor, patch } = EMULATED_RELEASE;
    const info: DocumentInfo = {
      title: documentTitle(options.naming),
      version: `v${major}.${minor}.${patch}`,
    };
    const apis = buildGroupVersions(schemas, {
      naming: options.naming,
      ...(options.patchMediaTypes ? { patchMediaTypes: options.patchMediaTypes } : {}),
    });

    const v3 = new Map<string, ServedDocument>();
    for (const api of apis)
      v3.set(groupVersionPath(api.group, api.version), serve(openApiV3Document(api, info), lastModified));
    // An extension's group version is routed to it, so its document is the one shown.
    for (const [gvPath, body] of remote?.v3 ?? []) v3.set(gvPath, serveBytes(body, lastModified));
    this.v3 = v3;
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const key of [...v3.keys()].sort())
      paths[key] = { serverRelativeURL: serverRelativeUrl(key, v3.get(key)!.etag) };
    this.index = serve({ paths }, lastModified);

    this.#v2Document = mergeV2Document(openApiV2Document(apis, info), remote?.v2 ?? []);
    this.v2Json = serve(this.#v2Document, lastModified);
  }

  /** The v2 document in gnostic protobuf form, under the JSON form's entity tag. */
  get v2Proto(): ServedDocument {
    this.#v2Proto ??= {
      body: Buffer.from(encodeV2Document(this.#v2Document)),
      etag: this.v2Json.etag,
      lastModified: this.v2Json.lastModified,
    };
    return this.#v2Proto;
  }
}

/**
 * Holds the current documents, rebuilding them when the schema set's fingerprint or the
 * extensions' specs change.
 */
export class OpenApiCache {
  readonly #options: OpenApiOptions;
  #schemas: readonly ResourceSchema[] | undefined;
  #fingerprint: string | undefined;
  #remote: RemoteSpecs | undefined;
  #documents: OpenApiDocuments | undefined;
  #builds = 0;

  constructor(options: OpenApiOptions) {
    this.#options = options;
  }

  /** How many times the documents were built. */
  get builds(): number {
    return this.#builds;
  }

  /** The documents for this schema set and these extensions' specs. */
  documents(schemas: readonly ResourceSchema[], remote?: RemoteSpecs): OpenApiDocuments {
    const remoteSame = remote?.generation === this.#remote?.generation;
    if (this.#documents && schemas === this.#schemas && remoteSame) return this.#documents;
    const fingerprint = openApiFingerprint(schemas);
    this.#schemas = schemas;
    if (!this.#documents || fingerprint !== this.#fingerprint || !remoteSame) {
      this.#documents = new OpenApiDocuments(schemas, this.#options, new Date(), remote);
      this.#fingerprint = fingerprint;
      this.#remote = remote;
      this.#builds++;
    }
    return this.#documents;
  }
}
