// A CustomResourceDefinition's conversion webhook (`spec.conversion.strategy: Webhook`): objects go
// to the webhook in a ConversionReview (the first review version of `conversionReviewVersions`
// this server knows) and come back checked as upstream's apiextensions-apiserver checks them:
// the review's uid, `result.status`, the number of objects, each object's apiVersion and kind,
// and its metadata, of which only labels and annotations may change (the rest is restored).
// Calls go through the shared Service call-out client (backends/services), bounded in time
// (upstream's 30 s) and answer size. Failures are ConversionErrors with upstream's wording.
import { randomUUID } from "node:crypto";
import { request } from "undici";
import { asArray, asObject, asString, cloneJson, type JsonObject } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import { formatFieldError } from "../registry/field-error.ts";
import {
  type DispatcherPool,
  type ServiceDirectory,
  ServiceUnreachableError,
  serviceTargets,
} from "../services/index.ts";
import { goJsonSyntaxError } from "../validation/go-codec.ts";
import { validateAnnotations, validateLabels } from "../validation/object-meta.ts";

/** What calling a Service needs; the gateway gives one of each to every custom resource kind. */
export interface ConversionCallouts {
  readonly directory: ServiceDirectory;
  readonly dispatchers: DispatcherPool;
  /** Call a Service at its cluster IP rather than its endpoints (`--enable-aggregator-routing=false`). */
  readonly clusterIpRouting?: boolean;
  /** Upstream's webhook request timeout (30 s) unless given. */
  readonly timeoutMs?: number;
}

/** A conversion that failed; the message is upstream's. Answered as a 500 Status. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConversionError";
  }
}

const TIMEOUT_MS = 30_000;
/** The largest answer read, as the admission webhook caller bounds it. */
export const MAX_CONVERSION_RESPONSE_BYTES = 16 * 1024 * 1024;
const REVIEW_VERSIONS = new Set(["v1", "v1beta1"]);

/** Go's GroupVersion.String() of an apiVersion as unstructured objects parse it. */
function groupVersionText(apiVersion: string): string {
  return apiVersion.split("/").length > 2 ? "" : apiVersion;
}

/** Go's GroupVersionKind.String(). */
function gvkText(apiVersion: string, kind: string): string {
  const gv = groupVersionText(apiVersion);
  const slash = gv.indexOf("/");
  return `${slash < 0 ? "" : gv.slice(0, slash)}/${slash < 0 ? gv : gv.slice(slash + 1)}, Kind=${kind}`;
}

/** Go's %T of a decoded JSON value. */
function goType(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return "[]interface {}";
  if (typeof value === "object") return "map[string]interface {}";
  return typeof value === "number" ? "float64" : typeof value === "boolean" ? "bool" : "string";
}

/** The JSON type name Go's decoder uses in "cannot unmarshal <type>" messages. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  return typeof value === "boolean" ? "bool" : typeof value;
}

function metaString(object: JsonObject, key: string): string {
  const v = asObject(object.metadata)?.[key];
  return typeof v === "string" ? v : "";
}

function errorsText(texts: string[]): string {
  return texts.length === 1 ? (texts[0] as string) : `[${texts.join(", ")}]`;
}

/** Upstream's check that the webhook kept the object's identity. */
function identityError(original: JsonObject, converted: JsonObject): string | undefined {
  if (asString(original.kind) !== asString(converted.kind))
    return `must have the same kind: ${asString(original.kind)} != ${asString(converted.kind)}`;
  for (const [key, what] of [
    ["name", "name"],
    ["namespace", "namespace"],
    ["uid", "UID"],
  ] as const) {
    const a = metaString(original, key);
    const b = metaString(converted, key);
    if (a !== b) return `must have the same ${what}: ${a} != ${b}`;
  }
  return undefined;
}

/**
 * Upstream's restoreObjectMeta: the original metadata, with the labels and annotations the
 * webhook returned (validated when they changed). Mutates `converted`; returns an error text.
 */
function restoreMetadata(original: JsonObject, converted: JsonObject): string | undefined {
  if (!("metadata" in converted)) return "missing metadata in converted object";
  const answered = converted.metadata;
  if (typeof answered !== "object" || answered === null || Array.isArray(answered))
    return `invalid metadata of type ${goType(answered)} in converted object`;
  const restored: JsonObject =
    original.metadata === undefined ? {} : (cloneJson(original.metadata) as JsonObject);
  converted.metadata = restored;
  for (const key of ["labels", "annotations"] as const) {
    const value = (answered as JsonObject)[key];
    if (value === undefined || value === null) {
      delete restored[key];
      continue;
    }
    if (typeof value !== "object" || Array.isArray(value))
      return `invalid metadata.${key} of type ${goType(value)} in converted object`;
    const before = restored[key];
    if (before !== undefined && before !== null && (typeof before !== "object" || Array.isArray(before)))
      return `invalid metadata.${key} of type ${goType(before)} in original object`;
    const old = (before ?? {}) as JsonObject;
    const entries = Object.entries(value as JsonObject);
    let changed = Object.keys(old).length !== entries.length;
    for (const [k, v] of entries) {
      if (typeof v !== "string")
        return `metadata.${key}[${k}] must be a string, but is ${goType(v)} in converted object`;
      if (old[k] !== v) changed = true;
    }
    if (changed) {
      // Upstream names the annotations' path in the singular.
      const errs =
        key === "labels"
          ? validateLabels(value, "metadata.labels")
          : validateAnnotations(value, "metadata.annotation");
      if (errs.length > 0) return errorsText(errs.map(formatFieldError));
    }
    restored[key] = value;
  }
  return undefined;
}

/** An object with nothing but apiVersion and kind. */
function isEmptyObject(object: JsonObject): boolean {
  const keys = Object.keys(object);
  return keys.length === 2 && "kind" in object && "apiVersion" in object;
}

/** The converted objects of a decoded review answer; throws the reason it cannot be used. */
function readAnswer(
  body: unknown,
  reviewVersion: string,
  reviewApiVersion: string,
  uid: string,
): readonly unknown[] {
  const review = asObject(body) ?? {};
  const field = (path: string, value: unknown, type: string) =>
    `json: cannot unmarshal ${jsonType(value)} into Go struct field ConversionReview.${path} of type ${type}`;
  const response = review.response;
  if (response !== undefined && response !== null && asObject(response) === undefined)
    throw field("response", response, `${reviewVersion}.ConversionResponse`);
  const r = asObject(response);
  if (r) {
    if (r.uid !== undefined && r.uid !== null && typeof r.uid !== "string")
      throw field("response.uid", r.uid, "types.UID");
    if (r.convertedObjects !== undefined && r.convertedObjects !== null && !Array.isArray(r.convertedObjects))
      throw field("response.convertedObjects", r.convertedObjects, "[]runtime.RawExtension");
    if (r.result !== undefined && r.result !== null && asObject(r.result) === undefined)
      throw field("response.result", r.result, "v1.Status");
  }
  if (reviewVersion === "v1") {
    const apiVersion = asString(review.apiVersion);
    const kind = asString(review.kind);
    if (apiVersion !== reviewApiVersion || kind !== "ConversionReview")
      throw `expected webhook response of ${gvkText(reviewApiVersion, "ConversionReview")}, got ${gvkText(apiVersion, kind)}`;
  }
  if (!r) throw "no response provided";
  // v1beta1 answers were never held to the uid, and still are not (upstream keeps that).
  if (reviewVersion === "v1" && asString(r.uid) !== uid)
    throw `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(asString(r.uid))}`;
  const result = asObject(r.result) ?? {};
  const status = asString(result.status);
  if (status !== "Success") {
    const message = asString(result.message);
    throw message !== "" ? message : `response.result.status was '${status}', not 'Success'`;
  }
  return asArray(r.convertedObjects);
}

/** Go's reading of a converted object (unstructured: an object with a kind). */
function convertedObject(raw: unknown): JsonObject | string {
  if (raw !== null && (typeof raw !== "object" || Array.isArray(raw)))
    return `json: cannot unmarshal ${jsonType(raw)} into Go value of type map[string]interface {}`;
  const object = (raw ?? {}) as JsonObject;
  if (asString(object.kind) === "") return `Object 'Kind' is missing in '${JSON.stringify(raw)}'`;
  return object;
}

/** How client-go words an answer that is not a 2xx (generic messages by code, or the sent Status). */
function statusCodeError(code: number, text: string, isText: boolean, parsed: unknown): string {
  const status = asObject(parsed);
  if (status && status.kind === "Status" && status.status === "Failure" && typeof status.message === "string")
    return status.message;
  const serverMessage = isText ? text.slice(0, 1024).trim() : "unknown";
  const generic: Record<number, string> = {
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    403: serverMessage,
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    406:
      serverMessage === "" || serverMessage === "unknown"
        ? "the server was unable to respond with a content type that the client supports"
        : serverMessage,
    409: "the server reported a conflict",
    415: serverMessage,
    422: "the server rejected our request due to an error in our request",
    429: "the server has received too many requests and has asked us to try again later",
    503: "the server is currently unable to handle the request",
    504: "the server was unable to return a response in the time allotted, but may still be processing the request",
  };
  const known = generic[code];
  if (known !== undefined) return known;
  if (code >= 500)
    return `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}

interface Endpoint {
  readonly url: string;
  readonly serverName: string;
}

/** The conversion of one CustomResourceDefinition through its webhook. */
export class WebhookConverter {
  readonly #group: string;
  readonly #versions: ReadonlySet<string>;
  readonly #reviewVersion: string | undefined;
  readonly #reviewApiVersion: string;
  readonly #clientConfig: JsonObject;
  readonly #caPem: string | undefined;
  readonly #callouts: ConversionCallouts | undefined;

  constructor(crd: JsonObject, naming: Naming, callouts: ConversionCallouts | undefined) {
    const spec = asObject(crd.spec) ?? {};
    const webhook = asObject(asObject(spec.conversion)?.webhook) ?? {};
    this.#group = asString(spec.group);
    this.#versions = new Set(asArray(spec.versions).map((v) => asString(asObject(v)?.name)));
    this.#reviewVersion = asArray(webhook.conversionReviewVersions)
      .map(asString)
      .find((v) => REVIEW_VERSIONS.has(v));
    this.#reviewApiVersion = `${naming.group("apiextensions")}/${this.#reviewVersion ?? "v1"}`;
    this.#clientConfig = asObject(webhook.clientConfig) ?? {};
    const ca = asString(this.#clientConfig.caBundle);
    this.#caPem = ca === "" ? undefined : Buffer.from(ca, "base64").toString("utf8");
    this.#callouts = callouts;
  }

  /**
   * `objects` at `toVersion`, in their order; those already there are not sent. `list` names the
   * list kind when the objects are a list's items (upstream converts those in one review and
   * words its errors for the list). Throws ConversionError.
   */
  async convert(objects: readonly JsonObject[], toVersion: string, list?: string): Promise<JsonObject[]> {
    const desired = `${this.#group}/${toVersion}`;
    if (!this.#versions.has(toVersion))
      throw new ConversionError(`request to convert CR to an invalid group/version: ${desired}`);
    objects.forEach((o, i) => {
      const av = asString(o.apiVersion);
      const slash = av.indexOf("/");
      if (slash < 0 || av.slice(0, slash) !== this.#group || !this.#versions.has(av.slice(slash + 1)))
        throw new ConversionError(
          list === undefined
            ? `request to convert CR from an invalid group/version: ${groupVersionText(av)}`
            : `request to convert CR list failed, list index ${i} has invalid group/version: ${groupVersionText(av)}`,
        );
    });
    // A lone object of nothing but apiVersion and kind is converted without a call, as upstream does.
    const sent = objects.map((o) => o.apiVersion !== desired && (list !== undefined || !isEmptyObject(o)));
    const pending = objects.filter((_, i) => sent[i]);
    if (pending.length === 0)
      return objects.map((o) => (o.apiVersion === desired ? o : { ...o, apiVersion: desired }));
    const first = objects[0] as JsonObject;
    const what =
      list === undefined ? gvkText(asString(first.apiVersion), asString(first.kind)) : gvkText(desired, list);
    const converted = await this.#call(pending, desired, what);
    if (converted.length !== pending.length)
      throw new ConversionError(
        `conversion webhook for ${what} returned ${converted.length} objects, expected ${pending.length}`,
      );
    const out: JsonObject[] = [];
    let index = 0;
    objects.forEach((original, i) => {
      if (!sent[i]) {
        out.push(original.apiVersion === desired ? original : { ...original, apiVersion: desired });
        return;
      }
      out.push(this.#check(original, converted[index], index, desired, what, list !== undefined));
      index++;
    });
    return out;
  }

  /** One converted object checked and its metadata restored, with upstream's messages. */
  #check(
    original: JsonObject,
    raw: unknown,
    index: number,
    desired: string,
    what: string,
    inList: boolean,
  ): JsonObject {
    const object = convertedObject(raw);
    if (typeof object === "string")
      throw new ConversionError(
        inList
          ? `conversion webhook for ${what} returned invalid converted object at index ${index}: ${object}`
          : object,
      );
    // Upstream counts the list's index one further from here on.
    const at = inList
      ? `returned invalid converted object at index ${index + 1}`
      : "returned invalid object at index 0";
    const gv = groupVersionText(asString(object.apiVersion));
    if (gv !== desired)
      throw new ConversionError(
        `conversion webhook for ${what} ${at}: invalid groupVersion (expected ${desired}, received ${gv})`,
      );
    if (asString(object.kind) !== asString(original.kind))
      throw new ConversionError(
        `conversion webhook for ${what} ${at}: invalid kind (expected ${asString(original.kind)}, received ${asString(object.kind)})`,
      );
    const identity = identityError(original, object);
    if (identity !== undefined)
      throw new ConversionError(
        `conversion webhook for ${what} ${inList ? at : "returned invalid object"}: ${identity}`,
      );
    const metadata = restoreMetadata(original, object);
    if (metadata !== undefined)
      throw new ConversionError(
        inList
          ? `conversion webhook for ${what} returned invalid metadata in object at index ${index + 1}: ${metadata}`
          : `conversion webhook for ${what} returned invalid metadata: ${metadata}`,
      );
    return object;
  }

  /** Sends the review; returns the answer's converted objects. */
  async #call(objects: readonly JsonObject[], desired: string, what: string): Promise<readonly unknown[]> {
    const failed = (why: string) => new ConversionError(`conversion webhook for ${what} failed: ${why}`);
    if (!this.#reviewVersion) throw new ConversionError("no supported conversion review versions");
    if (!this.#callouts) throw failed("conversion webhooks cannot be called from here");
    const uid = randomUUID();
    const review = {
      kind: "ConversionReview",
      apiVersion: this.#reviewApiVersion,
      request: { uid, desiredAPIVersion: desired, objects },
      // Upstream sends an empty response along.
      response: { uid: "", convertedObjects: null, result: { metadata: {} } },
    };
    const timeoutMs = this.#callouts.timeoutMs ?? TIMEOUT_MS;
    let endpoint: Endpoint;
    try {
      endpoint = await this.#endpoint(timeoutMs);
    } catch (err) {
      if (err instanceof ConversionError) throw failed(err.message);
      throw err;
    }
    const answer = await this.#post(endpoint, JSON.stringify(review), timeoutMs).catch((err: unknown) => {
      throw failed(err instanceof Error ? err.message : String(err));
    });
    try {
      return readAnswer(answer, this.#reviewVersion, this.#reviewApiVersion, uid);
    } catch (why) {
      throw failed(String(why));
    }
  }

  /** Where the review goes, with the query upstream's client adds for its timeout. */
  async #endpoint(timeoutMs: number): Promise<Endpoint> {
    const query = `?timeout=${timeoutMs / 1000}s`;
    const url = this.#clientConfig.url;
    if (typeof url === "string") {
      const host = new URL(url).hostname;
      // An IP address is no TLS server name; the certificate is then checked against the address.
      const isIp = /^[\d.]+$/.test(host) || host.startsWith("[");
      return { url: `${url}${query}`, serverName: isIp ? "" : host };
    }
    const service = asObject(this.#clientConfig.service) ?? {};
    const ref = {
      namespace: asString(service.namespace),
      name: asString(service.name),
      port: typeof service.port === "number" ? service.port : 443,
      path: asString(service.path),
    };
    const shown = `https://${ref.name}.${ref.namespace}.svc:${ref.port}${ref.path}${query}`;
    try {
      const targets = await serviceTargets(this.#callouts!.directory, ref, {
        clusterIp: this.#callouts!.clusterIpRouting === true,
      });
      const target = targets[Math.floor(Math.random() * targets.length)]!;
      return { url: `${target.url}${query}`, serverName: target.serverName };
    } catch (err) {
      if (err instanceof ServiceUnreachableError)
        throw new ConversionError(`Post ${JSON.stringify(shown)}: ${err.message}`);
      throw err;
    }
  }

  /** POSTs the review and decodes the answer as client-go does; throws the failure's text. */
  async #post(endpoint: Endpoint, body: string, timeoutMs: number): Promise<unknown> {
    const dispatcher = this.#callouts!.dispatchers.get({
      serverName: endpoint.serverName,
      ...(this.#caPem ? { caPem: this.#caPem } : {}),
    });
    const signal = AbortSignal.timeout(timeoutMs);
    const post = `Post ${JSON.stringify(endpoint.url)}`;
    let status: number;
    let contentType: string;
    const chunks: Buffer[] = [];
    try {
      const res = await request(endpoint.url, {
        method: "POST",
        dispatcher,
        signal,
        headers: { "content-type": "application/json", accept: "application/json, */*" },
        body,
      });
      status = res.statusCode;
      const type = res.headers["content-type"];
      contentType = (Array.isArray(type) ? type[0] : type) ?? "application/json";
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_CONVERSION_RESPONSE_BYTES) {
          res.body.destroy();
          throw new Error(`the answer is larger than ${MAX_CONVERSION_RESPONSE_BYTES} bytes`);
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (signal.aborted)
        throw `${post}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
      const cause = (err as { cause?: unknown }).cause;
      const message = cause instanceof Error ? cause.message : (err as Error).message;
      throw `${post}: ${message}`;
    }
    const bytes = Buffer.concat(chunks);
    const text = bytes.toString("utf8");
    const mediaType = (contentType.split(";")[0] ?? "").trim().toLowerCase();
    const isJson = mediaType === "application/json";
    let parsed: unknown;
    let syntax: string | undefined;
    if (isJson) {
      syntax = goJsonSyntaxError(bytes);
      if (syntax === undefined) parsed = JSON.parse(text);
    }
    if (status < 200 || status > 206)
      throw statusCodeError(status, text, mediaType.startsWith("text/"), parsed);
    if (!isJson) throw `serializer for ${contentType} doesn't exist`;
    if (bytes.length === 0)
      throw `0-length response with status code: ${status} and content type: ${contentType}`;
    if (syntax !== undefined) throw `couldn't get version/kind; json parse error: ${syntax}`;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(parsed)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
    const answer = parsed as JsonObject;
    // A Status in place of the review: its failure is the error.
    if (answer.apiVersion === "v1" && answer.kind === "Status" && answer.status !== "Success")
      throw asString(answer.message);
    return answer;
  }
}
