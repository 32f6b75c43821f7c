// Serving OpenAPI: `/openapi/v3` (the index), `/openapi/v3/<api/v1|apis/g/v>` (one document per
// group version), `/openapi/v2` (JSON or gnostic protobuf by Accept) and the legacy
// `/swagger-2.0.0.pb-v1` (protobuf). kubectl reads these to learn that the server validates fields
// itself (`fieldValidation` on each kind's PATCH operation) before `create`/`apply`/`replace`.
//
// HTTP behaviour follows the reference server's OpenAPI handlers: strong ETags (upper-case hex
// SHA-512 of the JSON), `If-None-Match`/`If-Modified-Since` answered with 304, `Vary: Accept` on
// negotiated documents; a group-version document requested with the current `?hash=` is
// immutable (`Cache-Control: public, immutable`, a year's `Expires`), a stale hash is redirected
// (301) to the current URL, and an unknown group version is 404.
//
// Extension servers' specs (openapi/remote.ts) are part of both: merged into `/openapi/v2`, and
// their group versions' v3 documents listed and served like the gateway's own.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Naming } from "../backends/naming/index.ts";
import type { ResourceSchema } from "../backends/schema/index.ts";
import type { AccessGuard } from "./authorization/guard.ts";
import { ifNoneMatchMatches } from "./discovery/index.ts";
import { type AcceptClause, parseAccept } from "./negotiation/media-type.ts";
import { OpenApiCache, type ServedDocument, serverRelativeUrl } from "./openapi/documents.ts";
import type { RemoteSpecs } from "./openapi/remote.ts";
import { errors } from "./request/api-error.ts";
import { sendError } from "./request/send-error.ts";

export interface OpenApiRouteOptions {
  readonly naming: Naming;
  /** The current schema set; documents are rebuilt when it changes. */
  readonly schemas: () => readonly ResourceSchema[];
  /** Patch media types to advertise; the ones the server accepts by default. */
  readonly patchMediaTypes?: readonly string[];
  /**
   * Authentication, impersonation and authorization, as for every request (RBAC grants OpenAPI
   * to authenticated users through system:discovery).
   */
  readonly guard: AccessGuard;
  /** The extensions' specs, merged into `/openapi/v2` and listed in `/openapi/v3`. */
  readonly remote?: () => RemoteSpecs | undefined;
}

const JSON_TYPE = "application/json";
const V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
const V2_PROTOBUF_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

type Variant = "json" | "protobuf";

/**
 * The first offered variant the Accept header allows, clause by clause in the parsed order
 * (an empty header is `*\/*`); undefined when none fits.
 */
function negotiate(
  accept: string | undefined,
  offered: readonly (readonly [string, Variant])[],
): Variant | undefined {
  const clauses: AcceptClause[] = parseAccept(accept && accept.length > 0 ? accept : "*/*");
  for (const clause of clauses) {
    for (const [mediaType, variant] of offered) {
      const slash = mediaType.indexOf("/");
      const type = mediaType.slice(0, slash);
      const subType = mediaType.slice(slash + 1);
      if (clause.type !== type && clause.type !== "*") continue;
      if (clause.subType !== subType && clause.subType !== "*") continue;
      return variant;
    }
  }
  return undefined;
}

/** Whether a conditional GET may be answered with 304 (If-None-Match first, as Go's ServeContent). */
function notModified(req: FastifyRequest, doc: ServedDocument): boolean {
  const ifNoneMatch = req.headers["if-none-match"];
  if (ifNoneMatch !== undefined) return ifNoneMatchMatches(ifNoneMatch, `"${doc.etag}"`);
  const since = req.headers["if-modified-since"];
  if (since === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && doc.lastModified.getTime() <= time;
}

function send(req: FastifyRequest, reply: FastifyReply, doc: ServedDocument, contentType: string): void {
  reply
    .header("content-type", contentType)
    .header("etag", `"${doc.etag}"`)
    .header("last-modified", doc.lastModified.toUTCString());
  if (notModified(req, doc)) {
    // A 304 carries no body, and so no content type.
    reply.removeHeader("content-type");
    void reply.code(304).send();
    return;
  }
  void reply.code(200).send(doc.body);
}

export function registerOpenApi(app: FastifyInstance, options: OpenApiRouteOptions): void {
  const cache = new OpenApiCache({
    naming: options.naming,
    ...(options.patchMediaTypes ? { patchMediaTypes: options.patchMediaTypes } : {}),
  });
  const documents = () => cache.documents(options.schemas(), options.remote?.());

  const onRequest = options.guard;

  app.get("/openapi/v3", { onRequest }, async (req, reply) => {
    send(req, reply, documents().index, JSON_TYPE);
    return reply;
  });

  app.get("/openapi/v3/*", { onRequest }, async (req, reply) => {
    const url = new URL(req.url, "https://localhost");
    const gvPath = url.pathname.slice("/openapi/v3/".length);
    const docs = documents();
    const doc = docs.v3.get(gvPath);
    if (!doc) {
      // The reference server answers an unknown group version with an empty 404.
      void reply.code(404).send();
      return reply;
    }
    reply.header("vary", "Accept");
    // Only JSON is produced (the protobuf forms are not encoded): a client that lists protobuf
    // first still gets JSON when it accepts it; one that accepts only protobuf gets 406.
    if (negotiate(req.headers.accept, [[JSON_TYPE, "json"]]) !== "json") {
      sendError(reply, errors.notAcceptable([JSON_TYPE]));
      return reply;
    }
    const hash = url.searchParams.get("hash");
    if (hash) {
      if (hash !== doc.etag) {
        void reply.redirect(serverRelativeUrl(gvPath, doc.etag), 301);
        return reply;
      }
      const expires = new Date(Date.now());
      expires.setUTCFullYear(expires.getUTCFullYear() + 1);
      reply.header("cache-control", "public, immutable").header("expires", expires.toUTCString());
    }
    send(req, reply, doc, JSON_TYPE);
    return reply;
  });

  app.get("/openapi/v2", { onRequest }, async (req, reply) => {
    reply.header("vary", "Accept");
    const variant = negotiate(req.headers.accept, [
      [JSON_TYPE, "json"],
      [V2_PROTOBUF_DEPRECATED, "protobuf"],
      [V2_PROTOBUF, "protobuf"],
    ]);
    if (!variant) {
      sendError(reply, errors.notAcceptable([JSON_TYPE, V2_PROTOBUF]));
      return reply;
    }
    const docs = documents();
    if (variant === "json") send(req, reply, docs.v2Json, JSON_TYPE);
    else send(req, reply, docs.v2Proto, V2_PROTOBUF);
    return reply;
  });

  // Clients fall back to this path when /openapi/v2 is missing (servers before 1.10 served only it).
  app.get("/swagger-2.0.0.pb-v1", { onRequest }, async (req, reply) => {
    send(req, reply, documents().v2Proto, V2_PROTOBUF);
    return reply;
  });
}
