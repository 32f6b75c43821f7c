// Reading request bodies and writing responses for the resource handlers: negotiation (JSON,
// YAML, Table, PartialObjectMetadata), fieldValidation, patches, lists built from the cache's
// pre-encoded objects, and watch frames.
import type { Readable } from "node:stream";
import type { CachedItem, CacheListResult, WatchDelivery } from "../../backends/cacher/index.ts";
import { turnIf } from "../../backends/common/turn.ts";
import type { Naming } from "../../backends/naming/index.ts";
import { type JsonObject, pruneUnknownFields } from "../../backends/registry/index.ts";
import { storageVersion } from "../../backends/schema/index.ts";
import { compileSchema } from "../../backends/schema/structural/index.ts";
import { auditRequestBody, auditRequestObject, auditResponse, auditStatus } from "../audit/index.ts";
import {
  decodeJson,
  decodeYaml,
  duplicateFieldMessage,
  encodeObject,
  encodeWatchFrame,
  goQuote,
  JsonSyntaxError,
  negotiateInput,
  negotiateOutput,
  type OutputChoice,
  transformResult,
  YamlSyntaxError,
} from "../negotiation/index.ts";
import { applyJsonPatch } from "../patch/json-patch.ts";
import { applyMergePatch } from "../patch/merge-patch.ts";
import { applyStrategicMergePatch } from "../patch/strategic-merge.ts";
import type { RequestContext } from "../pipeline/index.ts";
import {
  decodeProtobuf,
  encodeProtobufEnvelope,
  encodeProtobufList,
  encodeProtobufMessage,
  encodeProtobufObject,
  encodeProtobufWatchEvent,
  hasProtobufForm,
  PROTOBUF_MEDIA_TYPE,
  ProtobufDecodeError,
} from "../protobuf/codec.ts";
import { errors, type Status } from "../request/api-error.ts";
import { hasRawBytes, warningHeader } from "../request/warning.ts";
import { knownFieldsOf, type Resource } from "../routing/resources.ts";
import { type DeleteOptionsBody, readDeleteOptions } from "./delete-options.ts";
import { CHUNK_CHARS, listBodyLength, listBodyStream } from "./list-body.ts";

export type { OutputChoice };

export function queryFlag(url: URL, name: string): boolean {
  const v = url.searchParams.get(name);
  return v !== null && v !== "false" && v !== "0";
}

const JSON_TYPE = "application/json";
const YAML_TYPE = "application/yaml";

function bodyText(ctx: RequestContext): string {
  const body = ctx.req.body;
  if (body === undefined || body === null) return "";
  return Buffer.isBuffer(body) ? body.toString("utf8") : String(body);
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export class Codec {
  readonly naming: Naming;

  constructor(naming: Naming) {
    this.naming = naming;
  }

  /**
   * The response representation. `kind` names the result's type when it is not the resource's
   * (a Scale).
   */
  output(
    ctx: RequestContext,
    served: Resource,
    options: { list: boolean; stream: boolean; kind?: { apiVersion: string; kind: string } },
  ): OutputChoice {
    const q = ctx.url.searchParams;
    const pretty = q.get("pretty");
    const includeObject = q.get("includeObject");
    const userAgent = ctx.req.headers["user-agent"];
    const { schema } = served;
    const version = ctx.info?.apiVersion ?? "";
    const apiVersion = schema.group ? `${schema.group}/${version}` : version;
    const accept = ctx.req.headers.accept;
    // Only a clause naming a Protobuf type can select it (wildcards pick JSON first), so a JSON
    // request skips the lookup.
    const typed =
      accept?.includes("protobuf") === true
        ? (options.kind ?? { apiVersion, kind: options.list ? schema.listKind : schema.kind })
        : undefined;
    const choice = negotiateOutput(accept, {
      naming: this.naming,
      tableSupported: true,
      // Built-in kinds have a Protobuf form; custom resources have none, so a client that also
      // accepts JSON gets JSON and one that accepts only Protobuf gets a 406.
      protobufSupported: typed !== undefined && hasProtobufForm(typed.apiVersion, typed.kind),
      // Their metadata does, whatever the resource, as upstream serves it.
      protobufMetaSupported: true,
      stream: options.stream,
      ...(pretty !== null ? { pretty } : {}),
      ...(includeObject !== null ? { includeObject } : {}),
      ...(userAgent ? { userAgent } : {}),
    });
    // PartialObjectMetadata of a list, or PartialObjectMetadataList of one object, is a 406: found
    // now, on an empty result of the right shape, so that a write is refused before it commits.
    if (!options.stream && (choice.kind === "partial-metadata" || choice.kind === "partial-metadata-list")) {
      const shape = options.list
        ? { apiVersion, kind: schema.listKind, items: [] }
        : (options.kind ?? { apiVersion, kind: schema.kind });
      transformResult(shape, choice, { naming: this.naming });
    }
    return choice;
  }

  #send(ctx: RequestContext, code: number, body: string | Uint8Array | Readable, contentType: string): void {
    ctx.done = true;
    const reply = ctx.reply.code(code).header("content-type", contentType);
    const warnings = ctx.warnings.length > 0 ? warningHeader(ctx.warnings) : [];
    if (warnings.length > 0) reply.header("warning", warnings);
    void reply.send(typeof body === "string" && hasRawBytes(warnings) ? Buffer.from(body) : body);
  }

  /**
   * A stored object (JSON at the storage version) at the version the request named. Tables are
   * computed from the stored form, whose fields their columns read.
   */
  #atVersion(version: string | undefined, json: string, served: Resource, choice: OutputChoice): string {
    const convert = served.schema.convert;
    if (!convert || !("registry" in served) || !version || choice.kind === "table") return json;
    if (version === storageVersion(served.schema).name) return json;
    return JSON.stringify(convert(JSON.parse(json) as JsonObject, version));
  }

  /** Whether the request's version gets the stored JSON unchanged. */
  #servesStored(version: string | undefined, served: Resource): boolean {
    const { convert, convertMany } = served.schema;
    if ((!convert && !convertMany) || !("registry" in served) || !version) return true;
    return version === storageVersion(served.schema).name;
  }

  /**
   * Stored objects at the request's version, as #atVersion, in one conversion when converting
   * calls out (a CRD's conversion webhook: one review for a list's items).
   */
  async #allAtVersion(
    version: string | undefined,
    jsons: readonly string[],
    served: Resource,
    choice: OutputChoice,
    listKind?: string,
  ): Promise<readonly string[]> {
    const { convertMany } = served.schema;
    if (!convertMany || !("registry" in served) || !version || choice.kind === "table") {
      return jsons.map((j) => this.#atVersion(version, j, served, choice));
    }
    if (version === storageVersion(served.schema).name || jsons.length === 0) return jsons;
    const out = await convertMany(
      jsons.map((j) => JSON.parse(j) as JsonObject),
      version,
      listKind,
    );
    return out.map((o) => JSON.stringify(o));
  }

  /** A stored object's JSON, at the request's version. */
  async sendStored(
    ctx: RequestContext,
    code: number,
    stored: string,
    choice: OutputChoice,
    served: Resource,
  ): Promise<void> {
    const [json] = await this.#allAtVersion(ctx.info?.apiVersion, [stored], served, choice);
    this.#sendJson(ctx, code, json as string, choice, served);
  }

  /**
   * A cached object (a GET). In Protobuf at the stored version, its message is made once per
   * object version and kept with the cached item, as a list's items are.
   */
  async sendItem(
    ctx: RequestContext,
    item: CachedItem,
    choice: OutputChoice,
    served: Resource,
  ): Promise<void> {
    const version = ctx.info?.apiVersion;
    const stored = this.#servesStored(version, served);
    if (stored && choice.kind === "json" && !choice.pretty) {
      auditResponse(ctx.reply.raw, () => item.json);
      this.#send(ctx, 200, this.#itemBytes(item), choice.contentType);
      return;
    }
    if (choice.kind !== "protobuf" || !stored) {
      await this.sendStored(ctx, 200, item.json, choice, served);
      return;
    }
    const { schema } = served;
    const apiVersion = schema.group ? `${schema.group}/${version}` : (version ?? "");
    auditResponse(ctx.reply.raw, () => item.json);
    this.#send(
      ctx,
      200,
      encodeProtobufEnvelope(apiVersion, schema.kind, this.#itemMessage(item, item.json)),
      choice.contentType,
    );
  }

  /** An object of another kind than the resource's (a Scale): sent as it is, never converted. */
  sendOther(
    ctx: RequestContext,
    code: number,
    object: JsonObject,
    choice: OutputChoice,
    served: Resource,
  ): void {
    this.#sendJson(ctx, code, JSON.stringify(object), choice, served);
  }

  /** A body already in JSON: sent as it is when the client wants plain compact JSON. */
  #sendJson(ctx: RequestContext, code: number, json: string, choice: OutputChoice, served: Resource): void {
    if (choice.kind === "json" && !choice.pretty) {
      auditResponse(ctx.reply.raw, () => json);
      this.#send(ctx, code, `${json}\n`, choice.contentType);
      return;
    }
    const converted = transformResult(JSON.parse(json) as JsonObject, choice, {
      naming: this.naming,
      ...(served.schema.tableColumns ? { columns: served.schema.tableColumns } : {}),
    });
    // The audit records what was sent (a Table, metadata only), as upstream.
    auditResponse(ctx.reply.raw, () => converted);
    if (choice.encoding === "protobuf") {
      this.#sendProtobuf(ctx, code, converted, choice);
      return;
    }
    this.#send(ctx, code, encodeObject(converted, choice), choice.contentType);
  }

  /**
   * An object in Protobuf. One without a Protobuf form (a kind other than the route's that a
   * handler answers with) goes out as JSON, which every client reads, rather than failing.
   */
  #sendProtobuf(ctx: RequestContext, code: number, object: JsonObject, choice: OutputChoice): void {
    if (!hasProtobufForm(String(object.apiVersion ?? ""), String(object.kind ?? ""))) {
      this.#send(ctx, code, `${JSON.stringify(object)}\n`, JSON_TYPE);
      return;
    }
    this.#send(ctx, code, encodeProtobufObject(object), choice.contentType);
  }

  async sendObject(
    ctx: RequestContext,
    code: number,
    object: JsonObject,
    choice: OutputChoice,
    served: Resource,
  ): Promise<void> {
    await this.sendStored(ctx, code, JSON.stringify(object), choice, served);
  }

  /** A Status answer (a delete's success), in Protobuf when that is the choice. */
  sendStatus(
    ctx: RequestContext,
    code: number,
    status: Record<string, unknown>,
    choice?: OutputChoice,
  ): void {
    auditStatus(ctx.reply.raw, status);
    if (choice?.encoding === "protobuf") this.#sendProtobuf(ctx, code, status, choice);
    else this.#send(ctx, code, JSON.stringify(status), JSON_TYPE);
  }

  /**
   * The Protobuf message of a cached item, kept with the item (which is replaced, never changed,
   * when its object changes) so that every page holding it reuses the bytes.
   */
  #itemMessage(item: CachedItem | undefined, json: string): Uint8Array {
    if (item === undefined || item.json !== json)
      return encodeProtobufMessage(JSON.parse(json) as JsonObject);
    let bytes = this.#itemMessages.get(item);
    if (bytes === undefined) {
      bytes = encodeProtobufMessage(JSON.parse(json) as JsonObject);
      this.#itemMessages.set(item, bytes);
    }
    return bytes;
  }

  readonly #itemMessages = new WeakMap<CachedItem, Uint8Array>();

  /**
   * A cached item's JSON body as bytes, kept with the item as its Protobuf message is: a string
   * body is measured, joined to the head and UTF-8-encoded again on every response.
   */
  #itemBytes(item: CachedItem): Buffer {
    let bytes = this.#itemJson.get(item);
    if (bytes === undefined) {
      bytes = Buffer.from(`${item.json}\n`);
      this.#itemJson.set(item, bytes);
    }
    return bytes;
  }

  readonly #itemJson = new WeakMap<CachedItem, Buffer>();

  /** A list body up to its items array: `{"kind":...,"metadata":...,"items":[`. */
  #listHead(served: Resource, version: string, meta: Record<string, unknown>): string {
    const apiVersion = served.schema.group ? `${served.schema.group}/${version}` : version;
    return `{"kind":${JSON.stringify(served.schema.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(meta)},"items":[`;
  }

  #listJson(
    served: Resource,
    version: string,
    meta: Record<string, unknown>,
    items: readonly string[],
  ): string {
    return `${this.#listHead(served, version, meta)}${items.join(",")}]}`;
  }

  async sendList(
    ctx: RequestContext,
    result: CacheListResult,
    choice: OutputChoice,
    served: Resource,
    version: string,
  ): Promise<void> {
    const meta: Record<string, unknown> = { resourceVersion: String(result.revision) };
    if (result.continue) meta.continue = result.continue;
    if (result.remainingItemCount !== undefined) meta.remainingItemCount = result.remainingItemCount;
    const items = await this.#allAtVersion(
      ctx.info?.apiVersion,
      result.items.map((i) => i.json),
      served,
      choice,
      served.schema.listKind,
    );
    if (choice.kind === "protobuf") {
      // Items' messages are made once per cached item, not once per page.
      const apiVersion = served.schema.group ? `${served.schema.group}/${version}` : version;
      const list = { apiVersion, kind: served.schema.listKind, metadata: meta };
      const messages = items.map((json, i) => this.#itemMessage(result.items[i], json));
      auditResponse(ctx.reply.raw, () => this.#listJson(served, version, meta, items));
      this.#send(ctx, 200, encodeProtobufList(list, messages), choice.contentType);
      return;
    }
    if (choice.kind === "json" && !choice.pretty) {
      // Plain JSON goes out as the cached strings: one body string when small, else in pieces.
      const head = this.#listHead(served, version, meta);
      const tail = "]}\n";
      if (listBodyLength(head, items, tail) > CHUNK_CHARS) {
        auditResponse(ctx.reply.raw, () => `${head}${items.join(",")}]}`);
        this.#send(ctx, 200, listBodyStream(head, items, tail), choice.contentType);
        return;
      }
    }
    this.#sendJson(ctx, 200, this.#listJson(served, version, meta, items), choice, served);
  }

  async sendObjects(
    ctx: RequestContext,
    objects: JsonObject[],
    choice: OutputChoice,
    served: Resource,
    version: string,
  ): Promise<void> {
    const items = await this.#allAtVersion(
      ctx.info?.apiVersion,
      objects.map((o) => JSON.stringify(o)),
      served,
      choice,
      served.schema.listKind,
    );
    this.#sendJson(ctx, 200, this.#listJson(served, version, {}, items), choice, served);
  }

  /** Decode a JSON or YAML body, noting duplicated keys. */
  #decodeBody(
    ctx: RequestContext,
    allowed: readonly string[],
    mode: "body" | "patch",
  ): { value: unknown; duplicates: string[] } {
    const type = negotiateInput(ctx.req.headers["content-type"], allowed, { mode });
    const text = bodyText(ctx);
    if (text.trim() === "") throw errors.badRequest("the request body is empty");
    try {
      return type === YAML_TYPE || type.endsWith("+yaml") ? decodeYaml(text) : decodeJson(text);
    } catch (err) {
      if (err instanceof JsonSyntaxError || err instanceof YamlSyntaxError) {
        throw errors.badRequest(`the request body could not be decoded: ${err.message}`);
      }
      throw err;
    }
  }

  /**
   * Protobuf bodies, under this preset's media type and under upstream's, which newer clients
   * send for built-in kinds whatever the server's naming.
   */
  #protobufTypes(): string[] {
    return [...new Set([this.naming.protobufMediaType, PROTOBUF_MEDIA_TYPE])];
  }

  /** The body of a create or update, of this resource's kind, with fieldValidation applied. */
  async readObject(ctx: RequestContext, served: Resource, version: string): Promise<JsonObject> {
    const apiVersion = served.schema.group ? `${served.schema.group}/${version}` : version;
    // A kind without a Protobuf form answers 415 listing what it accepts, as upstream does.
    const protobufTypes = hasProtobufForm(apiVersion, served.schema.kind) ? this.#protobufTypes() : [];
    const type = negotiateInput(ctx.req.headers["content-type"], [JSON_TYPE, YAML_TYPE, ...protobufTypes]);
    if (protobufTypes.includes(type)) {
      const raw = ctx.req.body;
      const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
      const decoded = this.#decodeProtobufBody(bytes, { apiVersion, kind: served.schema.kind });
      this.#checkTypeMeta(decoded, served, version);
      this.#fieldValidation(ctx, decoded, served, version, []);
      auditRequestObject(ctx, decoded);
      return await this.#toStorage(decoded, served, version);
    }
    const { value, duplicates } = this.#decodeBody(ctx, [JSON_TYPE, YAML_TYPE], "body");
    if (!isObject(value)) throw errors.badRequest("the request body must be an object");
    this.#checkTypeMeta(value, served, version);
    this.#fieldValidation(ctx, value, served, version, duplicates);
    auditRequestObject(ctx, value);
    return await this.#toStorage(value, served, version);
  }

  #checkTypeMeta(object: JsonObject, served: Resource, version: string): void {
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
    // Virtual resources answer at whatever version was asked.
    if (!("registry" in served)) return;
    const stored = storageVersion(schema).name;
    if (stored !== version && !schema.convert)
      throw errors.badRequest(`version ${version} of ${schema.plural} cannot be converted`);
  }

  /** An object at the request's version in its stored form. */
  toStorage(object: JsonObject, served: Resource, version: string): Promise<JsonObject> {
    return this.#toStorage(object, served, version);
  }

  /**
   * A server-side apply body: a partial object at the request's version, YAML or JSON, with
   * fieldValidation applied (unknown fields are refused, reported or dropped before the field
   * manager sees them).
   */
  async readApply(ctx: RequestContext, served: Resource, version: string): Promise<JsonObject> {
    const { value, duplicates } = this.#decodeBody(ctx, ["application/apply-patch+yaml"], "patch");
    if (!isObject(value)) throw errors.badRequest("the apply body must be an object");
    const metadata = value.metadata;
    if (isObject(metadata) && metadata.managedFields !== undefined && metadata.managedFields !== null)
      throw errors.badRequest("metadata.managedFields must be nil");
    this.#fieldValidation(ctx, value, served, version, duplicates);
    auditRequestBody(ctx, value);
    return value;
  }

  /** A body at the request's version, as the storage version holds it. */
  async #toStorage(object: JsonObject, served: Resource, version: string): Promise<JsonObject> {
    const { schema } = served;
    if (!("registry" in served) || !schema.convert) return object;
    const stored = storageVersion(schema).name;
    if (stored === version) return object;
    if (schema.convertMany) return (await schema.convertMany([object], stored))[0] as JsonObject;
    return schema.convert(object, stored);
  }

  #fieldValidation(
    ctx: RequestContext,
    object: JsonObject,
    served: Resource,
    version: string,
    duplicates: readonly string[],
  ): void {
    const level = ctx.url.searchParams.get("fieldValidation") ?? "Warn";
    if (level !== "Ignore" && level !== "Warn" && level !== "Strict") {
      throw errors.badRequest(
        `fieldValidation: Unsupported value: "${level}": supported values: "Ignore", "Warn", "Strict"`,
      );
    }
    const unknown = this.#pruneUnknown(object, served, version);
    if ((unknown.length === 0 && duplicates.length === 0) || level === "Ignore") return;
    const problems = [
      ...duplicates.map(duplicateFieldMessage),
      // Quoted as Go's %q does, so that any field name reads back and fits a Warning header.
      ...unknown.map((p) => `unknown field ${goQuote(p)}`),
    ];
    if (level === "Strict") throw errors.badRequest(`strict decoding error: ${problems.join(", ")}`);
    ctx.warnings.push(...problems);
  }

  /** Drops the fields the kind does not have at `version`; returns their paths. */
  #pruneUnknown(object: JsonObject, served: Resource, version: string): string[] {
    if ("registry" in served) {
      const { schema, registry } = served;
      // A body at another version than the stored one is pruned by that version's schema.
      const atVersion = schema.versions.find((v) => v.name === version);
      if (atVersion?.schema && !atVersion.storage) {
        const builtin = atVersion.catalogType !== undefined;
        const compiled = compileSchema(atVersion.schema, { builtin });
        // A custom resource's version schema does not declare apiVersion, kind and metadata: they
        // stay for the storage version's pruning.
        const unknown = compiled.prune(object, { root: !builtin });
        compiled.dropNulls(object);
        return unknown;
      }
      if (registry.strategy.typed) return registry.strategy.typed.prune(object);
    }
    const known = knownFieldsOf(served);
    return known ? pruneUnknownFields(object, known) : [];
  }

  patchType(ctx: RequestContext, accepted: readonly string[]): string {
    return negotiateInput(ctx.req.headers["content-type"], accepted, { mode: "patch" });
  }

  async readPatch(ctx: RequestContext, type: string): Promise<unknown> {
    const patch = this.#decodeBody(ctx, [type], "patch").value;
    auditRequestBody(ctx, patch);
    return patch;
  }

  /** `large`: give the event loop a turn between the steps (see backends/common/turn.ts). */
  async applyPatch(
    type: string,
    current: JsonObject,
    patch: unknown,
    served: Resource,
    version: string,
    large = false,
  ): Promise<JsonObject> {
    const { schema } = served;
    const stored = storageVersion(schema).name;
    // Patches are written against the version the request names.
    const base =
      !schema.convert || version === stored
        ? current
        : schema.convertMany
          ? ((await schema.convertMany([current], version))[0] as JsonObject)
          : schema.convert(current, version);
    const result =
      type === "application/strategic-merge-patch+json"
        ? this.#strategicPatch(base, patch, served, version)
        : this.applyValuePatch(type, base, patch);
    await turnIf(large);
    if (!isObject(result)) throw errors.badRequest("the patched object is not a JSON object");
    this.#checkTypeMeta(result, served, version);
    return await this.#toStorage(result, served, version);
  }

  #strategicPatch(base: JsonObject, patch: unknown, served: Resource, version: string): JsonObject {
    if (patch === null) return base;
    if (!isObject(patch))
      throw errors.badRequest(
        `json: cannot unmarshal ${Array.isArray(patch) ? "array" : typeof patch} into Go value of type map[string]interface {}`,
      );
    const schema = served.schema.versions.find((v) => v.name === version)?.schema;
    return applyStrategicMergePatch(base, patch, schema);
  }

  /** A merge or JSON patch applied to any value, with patch errors as 400s. */
  applyValuePatch(type: string, value: JsonObject, patch: unknown, fieldValidation?: string): unknown {
    const options = fieldValidation ? { fieldValidation } : {};
    if (type === "application/merge-patch+json") return applyMergePatch(value, patch, options);
    return applyJsonPatch(value, patch, options);
  }

  /**
   * The options of a DELETE or deletecollection: a body in JSON, YAML or Protobuf (client-go
   * sends Protobuf for built-in groups), else the query.
   */
  async readDeleteOptions(ctx: RequestContext): Promise<DeleteOptionsBody> {
    const metaGroup = this.naming.group("meta");
    const raw = ctx.req.body;
    let body: unknown;
    if (Buffer.isBuffer(raw) && raw.length > 0 && this.#isProtobufBody(ctx)) {
      body = this.#decodeProtobufBody(raw, { apiVersion: `${metaGroup}/v1`, kind: "DeleteOptions" });
    } else {
      // Protobuf is listed for the 415 of a body in another type; a Protobuf one was read above.
      const text = bodyText(ctx);
      body =
        text.trim() === ""
          ? undefined
          : this.#decodeBody(ctx, [JSON_TYPE, YAML_TYPE, ...this.#protobufTypes()], "body").value;
    }
    if (body !== undefined) auditRequestBody(ctx, body);
    return readDeleteOptions(body, ctx.url.searchParams, metaGroup);
  }

  /**
   * A body of another kind than the resource's (a Scale) when it is Protobuf, as client-go's
   * scale client sends it; undefined for other bodies, which the caller reads as before.
   */
  readProtobufOther(
    ctx: RequestContext,
    expected: { apiVersion: string; kind: string },
  ): JsonObject | undefined {
    const raw = ctx.req.body;
    if (!Buffer.isBuffer(raw) || !this.#isProtobufBody(ctx)) return undefined;
    const object = this.#decodeProtobufBody(raw, expected);
    if (object.kind !== expected.kind) {
      throw errors.badRequest(
        `the kind in the data (${String(object.kind)}) does not match the expected kind (${expected.kind})`,
      );
    }
    auditRequestBody(ctx, object);
    return object;
  }

  /** Whether the request's Content-Type is one of the Protobuf types. */
  #isProtobufBody(ctx: RequestContext): boolean {
    const type = ctx.req.headers["content-type"];
    if (type === undefined) return false;
    try {
      return this.#protobufTypes().includes(negotiateInput(type, this.#protobufTypes()));
    } catch {
      return false;
    }
  }

  /** A Protobuf body as JSON; what cannot be read is a 400. */
  #decodeProtobufBody(bytes: Uint8Array, expected: { apiVersion: string; kind: string }): JsonObject {
    try {
      return decodeProtobuf(bytes, expected).object as JsonObject;
    } catch (err) {
      if (err instanceof ProtobufDecodeError) throw errors.badRequest(err.message);
      throw err;
    }
  }

  /**
   * A change's object at the watch's version when converting calls out (a CRD's conversion
   * webhook), ahead of watchFrame, which frames synchronously; other changes as they are.
   */
  async watchDelivery(
    d: WatchDelivery,
    choice: OutputChoice,
    served: Resource,
    version: string,
  ): Promise<WatchDelivery> {
    if (d.type === "BOOKMARK" || d.type === "ERROR" || !served.schema.convertMany) return d;
    const [json] = await this.#allAtVersion(version, [d.item.json], served, choice);
    return json === d.item.json ? d : { ...d, item: { ...d.item, json: json as string } };
  }

  watchFrame(
    d: WatchDelivery,
    choice: OutputChoice,
    served: Resource,
    version: string,
    first: boolean,
  ): string | Buffer {
    if (d.type === "ERROR") throw new Error("ERROR deliveries are encoded by errorFrame");
    let objectJson: string;
    if (d.type === "BOOKMARK") {
      const apiVersion = served.schema.group ? `${served.schema.group}/${version}` : version;
      const metadata: Record<string, unknown> = { resourceVersion: String(d.revision) };
      if (d.initialEventsEnd)
        metadata.annotations = { [`${this.naming.groupSuffix}/initial-events-end`]: "true" };
      objectJson = JSON.stringify({ kind: served.schema.kind, apiVersion, metadata });
    } else {
      objectJson = this.#atVersion(version, d.item.json, served, choice);
    }
    if (choice.encoding === "protobuf") return this.#protobufEvent(d.type, objectJson, choice);
    return encodeWatchFrame(
      { type: d.type, objectJson },
      choice,
      { naming: this.naming, ...(served.schema.tableColumns ? { columns: served.schema.tableColumns } : {}) },
      { headers: first },
    );
  }

  /**
   * A Protobuf watch frame: the length, then the event with the object's full body inside. The
   * object is reduced to its metadata when that is asked for.
   */
  #protobufEvent(type: string, objectJson: string, choice: OutputChoice): Buffer {
    let object = JSON.parse(objectJson) as JsonObject;
    if (type !== "ERROR" && choice.kind === "partial-metadata")
      object = transformResult(object, choice, { naming: this.naming });
    return encodeProtobufWatchEvent(type, encodeProtobufObject(object), true);
  }

  errorFrame(status: Status, choice: OutputChoice): string | Buffer {
    if (choice.encoding === "protobuf") return this.#protobufEvent("ERROR", JSON.stringify(status), choice);
    return encodeWatchFrame({ type: "ERROR", objectJson: JSON.stringify(status) }, choice, {
      naming: this.naming,
    });
  }
}
