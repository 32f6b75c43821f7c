// Reading request bodies and writing responses for the resource handlers: media types,
// fieldValidation, patches, lists built from the cache's pre-encoded objects, watch frames.
import type { CacheListResult, WatchDelivery } from "../../backends/cacher/index.ts";
import type { Naming } from "../../backends/naming/index.ts";
import { type JsonObject, pruneUnknownFields } from "../../backends/registry/index.ts";
import { storageVersion } from "../../backends/schema/index.ts";
import { applyJsonPatch, JsonPatchError } from "../patch/json-patch.ts";
import { applyMergePatch } from "../patch/merge-patch.ts";
import type { RequestContext } from "../pipeline/index.ts";
import { errors, type Status } from "../request/api-error.ts";
import type { ServedResource } from "../routing/resources.ts";

export interface OutputChoice {
  readonly kind: "json";
  readonly contentType: string;
  readonly pretty: boolean;
}

export interface DeleteOptionsBody {
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  readonly dryRun?: boolean;
  readonly propagationPolicy?: string;
  readonly gracePeriodSeconds?: number;
}

export function queryFlag(url: URL, name: string): boolean {
  const v = url.searchParams.get(name);
  return v !== null && v !== "false" && v !== "0";
}

const JSON_TYPE = "application/json";

function bodyText(ctx: RequestContext): string {
  const body = ctx.req.body;
  if (body === undefined || body === null) return "";
  return Buffer.isBuffer(body) ? body.toString("utf8") : String(body);
}

function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw errors.badRequest(`the request body is not valid JSON: ${(err as Error).message}`);
  }
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export class Codec {
  readonly naming: Naming;

  constructor(naming: Naming) {
    this.naming = naming;
  }

  output(
    ctx: RequestContext,
    _served: ServedResource,
    _options: { list: boolean; stream: boolean },
  ): OutputChoice {
    const accept = ctx.req.headers.accept;
    const pretty = queryFlag(ctx.url, "pretty");
    if (!accept) return { kind: "json", contentType: JSON_TYPE, pretty };
    for (const part of accept.split(",")) {
      const [type, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
      if (params.some((p) => p.startsWith("as="))) continue;
      if (type === JSON_TYPE || type === "*/*" || type === "application/*") {
        return { kind: "json", contentType: JSON_TYPE, pretty };
      }
    }
    throw errors.notAcceptable([JSON_TYPE]);
  }

  #send(ctx: RequestContext, code: number, body: string): void {
    ctx.done = true;
    const reply = ctx.reply.code(code).type(JSON_TYPE);
    if (ctx.warnings.length > 0)
      reply.header(
        "warning",
        ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`),
      );
    void reply.send(body);
  }

  #render(json: string, choice: OutputChoice): string {
    return choice.pretty ? JSON.stringify(JSON.parse(json), null, 2) : json;
  }

  sendItem(
    ctx: RequestContext,
    code: number,
    json: string,
    choice: OutputChoice,
    _served: ServedResource,
  ): void {
    this.#send(ctx, code, this.#render(json, choice));
  }

  sendObject(
    ctx: RequestContext,
    code: number,
    object: JsonObject,
    choice: OutputChoice,
    served: ServedResource,
  ): void {
    this.sendItem(ctx, code, JSON.stringify(object), choice, served);
  }

  sendStatus(ctx: RequestContext, code: number, status: Record<string, unknown>): void {
    this.#send(ctx, code, JSON.stringify(status));
  }

  #listJson(served: ServedResource, version: string, meta: Record<string, unknown>, items: string[]): string {
    const apiVersion = served.schema.group ? `${served.schema.group}/${version}` : version;
    return `{"kind":${JSON.stringify(served.schema.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(meta)},"items":[${items.join(",")}]}`;
  }

  sendList(
    ctx: RequestContext,
    result: CacheListResult,
    choice: OutputChoice,
    served: ServedResource,
    version: string,
  ): void {
    const meta: Record<string, unknown> = { resourceVersion: String(result.revision) };
    if (result.continue) meta.continue = result.continue;
    if (result.remainingItemCount !== undefined) meta.remainingItemCount = result.remainingItemCount;
    this.#send(
      ctx,
      200,
      this.#render(
        this.#listJson(
          served,
          version,
          meta,
          result.items.map((i) => i.json),
        ),
        choice,
      ),
    );
  }

  sendObjects(
    ctx: RequestContext,
    objects: JsonObject[],
    choice: OutputChoice,
    served: ServedResource,
    version: string,
  ): void {
    this.#send(
      ctx,
      200,
      this.#render(
        this.#listJson(
          served,
          version,
          {},
          objects.map((o) => JSON.stringify(o)),
        ),
        choice,
      ),
    );
  }

  /** The body of a create or update: JSON, of this resource's kind, with fieldValidation applied. */
  async readObject(ctx: RequestContext, served: ServedResource, version: string): Promise<JsonObject> {
    const type = mediaType(ctx.req.headers["content-type"]);
    if (type !== JSON_TYPE && type !== "") throw errors.unsupportedMediaType([JSON_TYPE]);
    const text = bodyText(ctx);
    if (text.trim() === "") throw errors.badRequest("the request body is empty");
    const value = parseJsonBody(text);
    if (!isObject(value)) throw errors.badRequest("the request body must be a JSON object");
    this.#checkTypeMeta(value, served, version);
    this.#fieldValidation(ctx, value, served);
    return value;
  }

  #checkTypeMeta(object: JsonObject, served: ServedResource, version: string): void {
    const { schema } = served;
    const expected = schema.group ? `${schema.group}/${version}` : version;
    if (object.apiVersion === undefined || object.apiVersion === "") object.apiVersion = expected;
    if (object.kind === undefined || object.kind === "") object.kind = schema.kind;
    if (object.apiVersion !== expected) {
      throw errors.badRequest(
        `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${expected})`,
      );
    }
    if (object.kind !== schema.kind) {
      throw errors.badRequest(
        `the kind in the data (${String(object.kind)}) does not match the expected kind (${schema.kind})`,
      );
    }
    // Objects are kept at the storage version; with one version per kind for now they agree.
    const stored = storageVersion(schema).name;
    if (stored !== version)
      throw errors.badRequest(`version ${version} of ${schema.plural} cannot be converted yet`);
  }

  #fieldValidation(ctx: RequestContext, object: JsonObject, served: ServedResource): void {
    const level = ctx.url.searchParams.get("fieldValidation") ?? "Warn";
    if (level !== "Ignore" && level !== "Warn" && level !== "Strict") {
      throw errors.badRequest(
        `fieldValidation: Unsupported value: "${level}": supported values: "Ignore", "Warn", "Strict"`,
      );
    }
    const known = served.registry.strategy.knownFields;
    if (!known) return;
    const unknown = pruneUnknownFields(object, known);
    if (unknown.length === 0 || level === "Ignore") return;
    const problems = unknown.map((p) => `unknown field "${p}"`);
    if (level === "Strict") throw errors.badRequest(`strict decoding error: ${problems.join(", ")}`);
    ctx.warnings.push(...problems);
  }

  patchType(ctx: RequestContext, accepted: readonly string[]): string {
    const type = mediaType(ctx.req.headers["content-type"]);
    if (!accepted.includes(type)) throw errors.unsupportedMediaType(accepted);
    return type;
  }

  async readPatch(ctx: RequestContext, _type: string): Promise<unknown> {
    const text = bodyText(ctx);
    if (text.trim() === "") throw errors.badRequest("the request body is empty");
    return parseJsonBody(text);
  }

  applyPatch(
    type: string,
    current: JsonObject,
    patch: unknown,
    served: ServedResource,
    version: string,
  ): JsonObject {
    let result: unknown;
    if (type === "application/merge-patch+json") {
      if (!isObject(patch)) throw errors.badRequest("a merge patch must be a JSON object");
      result = applyMergePatch(current, patch);
    } else {
      try {
        result = applyJsonPatch(current, patch);
      } catch (err) {
        if (err instanceof JsonPatchError) throw errors.badRequest(err.message);
        throw err;
      }
    }
    if (!isObject(result)) throw errors.badRequest("the patched object is not a JSON object");
    this.#checkTypeMeta(result, served, version);
    return result;
  }

  async readDeleteOptions(ctx: RequestContext): Promise<DeleteOptionsBody> {
    const text = bodyText(ctx);
    const body: Record<string, unknown> =
      text.trim() === "" ? {} : (parseJsonBody(text) as Record<string, unknown>);
    if (!isObject(body)) throw errors.badRequest("DeleteOptions must be a JSON object");
    const q = ctx.url.searchParams;
    const propagationPolicy = (q.get("propagationPolicy") ?? body.propagationPolicy) as string | undefined;
    if (
      propagationPolicy !== undefined &&
      !["Orphan", "Background", "Foreground"].includes(propagationPolicy)
    ) {
      throw errors.invalid({ group: this.naming.group("meta"), kind: "DeleteOptions" }, "", [
        {
          field: "propagationPolicy",
          type: "FieldValueNotSupported",
          value: propagationPolicy,
          supported: ["Foreground", "Background", "Orphan"],
        },
      ]);
    }
    const graceRaw = q.get("gracePeriodSeconds") ?? body.gracePeriodSeconds;
    let gracePeriodSeconds: number | undefined;
    if (graceRaw !== undefined && graceRaw !== null) {
      gracePeriodSeconds = Number(graceRaw);
      if (!Number.isInteger(gracePeriodSeconds) || gracePeriodSeconds < 0) {
        throw errors.badRequest(
          `gracePeriodSeconds must be a non-negative integer, got ${JSON.stringify(graceRaw)}`,
        );
      }
    }
    const pre = isObject(body.preconditions)
      ? (body.preconditions as { uid?: string; resourceVersion?: string })
      : undefined;
    const dryRunList = Array.isArray(body.dryRun) ? body.dryRun : [];
    return {
      ...(pre ? { preconditions: pre } : {}),
      ...(dryRunList.includes("All") ? { dryRun: true } : {}),
      ...(propagationPolicy ? { propagationPolicy } : {}),
      ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}),
    };
  }

  watchFrame(
    d: WatchDelivery,
    _choice: OutputChoice,
    served: ServedResource,
    version: string,
    _first: boolean,
  ): string {
    if (d.type === "ERROR") throw new Error("ERROR deliveries are encoded by errorFrame");
    if (d.type === "BOOKMARK") {
      const apiVersion = served.schema.group ? `${served.schema.group}/${version}` : version;
      const metadata: Record<string, unknown> = { resourceVersion: String(d.revision) };
      if (d.initialEventsEnd)
        metadata.annotations = { [`${this.naming.groupSuffix}/initial-events-end`]: "true" };
      return `{"type":"BOOKMARK","object":${JSON.stringify({ kind: served.schema.kind, apiVersion, metadata })}}\n`;
    }
    return `{"type":"${d.type}","object":${d.item.json}}\n`;
  }

  errorFrame(status: Status, _choice: OutputChoice): string {
    return `{"type":"ERROR","object":${JSON.stringify(status)}}\n`;
  }
}
