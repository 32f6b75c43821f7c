// Content negotiation (SPEC "Content negotiation", "Table representation"): which representation a
// response gets from the Accept header, and which media type a request body is in.
//
// The rules follow kube-apiserver 1.27 rather than RFC 9110, because clients are written against it:
// - Accept is split naively on "," and ";" (no quoted-string handling); type, subtype and parameter
//   names are compared case-sensitively; a clause with `q=0` is still acceptable.
// - Clauses are ordered by an insertion sort whose comparison puts a higher q first and a concrete
//   type or subtype before a wildcard; among equals the header's order is kept.
// - For each clause in that order the server's serializers are tried in the order JSON, YAML,
//   Protobuf; the first one the clause's parameters allow wins. Nothing allowed gives 406 listing the
//   server's media types.
// - `as`/`g`/`v` ask for a conversion: Table (JSON or YAML only, and only where the resource has a
//   table convertor), PartialObjectMetadata or PartialObjectMetadataList (any serializer), all in
//   group `meta.<suffix>` at v1 or v1beta1. Any other conversion makes the clause unusable.
// - A watch picks its clause the same way; the clause's serializer must be able to stream (JSON and
//   Protobuf can, YAML cannot), otherwise the answer is 406 listing the streaming media types.
import { type Naming, naming as namingPreset } from "../../backends/naming/index.ts";
import { errors } from "../request/api-error.ts";

/** One clause of an Accept header. */
export interface AcceptClause {
  readonly type: string;
  readonly subType: string;
  /** As a 32-bit float, the way the upstream parser keeps it; an unparsable value is 0. */
  readonly q: number;
  readonly params: Readonly<Record<string, string>>;
}

export type OutputKind =
  | "json"
  | "yaml"
  | "protobuf"
  | "table"
  | "partial-metadata"
  | "partial-metadata-list";
export type Encoding = "json" | "yaml" | "protobuf";
export type MetaVersion = "v1" | "v1beta1";
export type IncludeObject = "None" | "Metadata" | "Object";

export interface OutputChoice {
  /** What the body is: the object as stored, or one of the meta conversions. */
  readonly kind: OutputKind;
  /** How it is serialized; for json/yaml/protobuf kinds the same as `kind`. */
  readonly encoding: Encoding;
  /** The response's Content-Type. */
  readonly contentType: string;
  /** Version of the meta group for table and partial-metadata kinds. */
  readonly metaVersion?: MetaVersion;
  /** Same as metaVersion, for table kinds only. */
  readonly tableVersion?: MetaVersion;
  /** For table kinds: what each row's `object` holds (query parameter `includeObject`). */
  readonly includeObject?: IncludeObject;
  /** Indented JSON (`pretty=1` media parameter, `?pretty=true`, or a browser/curl/wget client). */
  readonly pretty?: boolean;
  /** Set for a watch: the body is a stream of events. */
  readonly stream?: boolean;
}

export interface NegotiateOutputOptions {
  readonly naming: Naming;
  /** Whether the resource can be rendered as a Table. */
  readonly tableSupported: boolean;
  /** Whether the resource can be served as Protobuf without conversion. */
  readonly protobufSupported: boolean;
  /**
   * Whether PartialObjectMetadata(List) may be served as Protobuf. Upstream allows it even for
   * resources that are not Protobuf themselves (custom resources). Defaults to `protobufSupported`.
   */
  readonly protobufMetaSupported?: boolean;
  /** A watch request. */
  readonly stream?: boolean;
  /** The raw `pretty` query parameter, when present. */
  readonly pretty?: string;
  /** The User-Agent header. */
  readonly userAgent?: string;
  /** The raw `includeObject` query parameter, when present (validated only for Table output). */
  readonly includeObject?: string;
}

const JSON_TYPE = "application/json";
const YAML_TYPE = "application/yaml";
const UPSTREAM_PROTOBUF = namingPreset("kubernetes").protobufMediaType;
const ERROR_NAMING = namingPreset("cluster");

interface Serializer {
  readonly mediaType: string;
  readonly type: string;
  readonly subType: string;
  readonly encoding: Encoding;
  readonly streams: boolean;
}

function protobufSerializer(mediaType: string): Serializer {
  return {
    mediaType,
    type: "application",
    subType: mediaType.slice("application/".length),
    encoding: "protobuf",
    streams: true,
  };
}

/**
 * JSON, YAML, the preset's Protobuf type, and upstream's Protobuf type when the preset's differs:
 * client-go asks for upstream's whatever the server's naming.
 */
function serializers(naming: Naming): readonly Serializer[] {
  const cached = serializerCache.get(naming);
  if (cached) return cached;
  const list: Serializer[] = [
    { mediaType: JSON_TYPE, type: "application", subType: "json", encoding: "json", streams: true },
    { mediaType: YAML_TYPE, type: "application", subType: "yaml", encoding: "yaml", streams: false },
    protobufSerializer(naming.protobufMediaType),
  ];
  if (naming.protobufMediaType !== UPSTREAM_PROTOBUF) list.push(protobufSerializer(UPSTREAM_PROTOBUF));
  serializerCache.set(naming, list);
  return list;
}
const serializerCache = new WeakMap<Naming, readonly Serializer[]>();

/** The media types named in a 406 for a plain request. */
export function supportedMediaTypes(naming: Naming): string[] {
  return serializers(naming).map((s) => s.mediaType);
}

/** The media types named in a 406 for a watch. */
export function supportedStreamMediaTypes(naming: Naming): string[] {
  return serializers(naming)
    .filter((s) => s.streams)
    .map((s) => `${s.mediaType};stream=watch`);
}

// ---------------------------------------------------------------------------------------------
// Accept parsing

/** Cut at the first `sep`: [before, after]; `after` is "" when there is no separator. */
function cut(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i === -1 ? [s, ""] : [s.slice(0, i), s.slice(i + 1)];
}

/** Trim ASCII spaces only (not tabs), as the upstream parser does. */
function trimSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) === 32) start++;
  while (end > start && s.charCodeAt(end - 1) === 32) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INFINITY = /^([+-]?)(?:inf|infinity)$/i;
const NAN = /^[+-]?nan$/i;

/** A q-value as a 32-bit float; anything unparsable counts as 0. */
function parseQ(text: string): number {
  if (DECIMAL.test(text)) return Math.fround(Number(text));
  const inf = INFINITY.exec(text);
  if (inf) return inf[1] === "-" ? -Infinity : Infinity;
  if (NAN.test(text)) return Number.NaN;
  return 0;
}

function before(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== "*" && b.type === "*") return true;
  if (a.subType !== "*" && b.subType === "*") return true;
  return false;
}

/** Parse an Accept header into clauses in the order the server considers them. */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  let remaining = header;
  while (remaining.length > 0) {
    let part: string;
    [part, remaining] = cut(remaining, ",");
    part = trimSpaces(part);
    const [range, paramText] = cut(part, ";");
    const [rawType, afterSlash] = cut(range, "/");
    const type = trimSpaces(rawType);
    let subType: string;
    if (afterSlash.length === 0) {
      if (type !== "*") continue;
      subType = "*";
    } else {
      const [rawSub, extra] = cut(afterSlash, "/");
      if (extra.length > 0) continue;
      subType = trimSpaces(rawSub);
    }
    let q = 1;
    const params: Record<string, string> = {};
    let rest = paramText;
    while (rest.length > 0) {
      let param: string;
      [param, rest] = cut(rest, ";");
      const [rawName, valuePart] = cut(param, "=");
      if (valuePart.length === 0) continue;
      const [value, extra] = cut(valuePart, "=");
      if (extra.length > 0) continue;
      const name = trimSpaces(rawName);
      if (name === "q") q = parseQ(value);
      else params[name] = trimSpaces(value);
    }
    clauses.push({ type, subType, q, params });
  }
  // Insertion sort: stable for a consistent order, and the same result as upstream's sort for
  // the short headers clients send.
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && before(clauses[j]!, clauses[j - 1]!); j--) {
      const t = clauses[j]!;
      clauses[j] = clauses[j - 1]!;
      clauses[j - 1] = t;
    }
  }
  return clauses;
}

// ---------------------------------------------------------------------------------------------
// Output negotiation

interface Conversion {
  kind: string;
  group: string;
  version: string;
}

interface Match {
  serializer: Serializer;
  conversion: Conversion | undefined;
  pretty: boolean;
}

function clauseMatches(clause: AcceptClause, s: Serializer): boolean {
  return (
    (clause.type === s.type && (clause.subType === s.subType || clause.subType === "*")) ||
    (clause.type === "*" && clause.subType === "*")
  );
}

/** The clause's options for this serializer, or undefined when the clause cannot use it. */
function acceptOptions(
  clause: AcceptClause,
  s: Serializer,
  options: NegotiateOutputOptions,
): Match | undefined {
  let conversion: Conversion | undefined;
  let pretty = false;
  for (const name in clause.params) {
    const value = clause.params[name]!;
    switch (name) {
      case "as":
        conversion = { kind: value, group: conversion?.group ?? "", version: conversion?.version ?? "" };
        break;
      case "g":
        conversion = { kind: conversion?.kind ?? "", group: value, version: conversion?.version ?? "" };
        break;
      case "v":
        conversion = { kind: conversion?.kind ?? "", group: conversion?.group ?? "", version: value };
        break;
      case "stream":
        if (value.length > 0 && (!s.streams || value !== "watch")) return undefined;
        break;
      case "sv":
        // The only server version of the meta group this server has is v1.
        if (value.length > 0 && value !== "v1") return undefined;
        break;
      case "pretty":
        pretty = value === "1";
        break;
      default:
        // `export` and unknown parameters (charset, ...) are ignored.
        break;
    }
  }
  if (!allowsTransform(s, conversion, options)) return undefined;
  return { serializer: s, conversion, pretty };
}

function allowsTransform(s: Serializer, c: Conversion | undefined, options: NegotiateOutputOptions): boolean {
  if (!c) return s.encoding !== "protobuf" || options.protobufSupported;
  if (c.group !== options.naming.group("meta") || (c.version !== "v1" && c.version !== "v1beta1")) {
    return false;
  }
  switch (c.kind) {
    case "Table":
      return (
        options.tableSupported && s.type === "application" && (s.subType === "json" || s.subType === "yaml")
      );
    case "PartialObjectMetadata":
    case "PartialObjectMetadataList":
      return s.encoding !== "protobuf" || (options.protobufMetaSupported ?? options.protobufSupported);
    default:
      return false;
  }
}

function findMatch(header: string, options: NegotiateOutputOptions): Match | undefined {
  const list = serializers(options.naming);
  if (header.length === 0) return { serializer: list[0]!, conversion: undefined, pretty: false };
  for (const clause of parseAccept(header)) {
    for (const s of list) {
      if (!clauseMatches(clause, s)) continue;
      const match = acceptOptions(clause, s, options);
      if (match) return match;
    }
  }
  return undefined;
}

/**
 * The Protobuf media type an error's Status goes out in, or undefined for JSON. As upstream writes
 * errors: the first clause any serializer can serve without a conversion decides, for built-in
 * and custom resources alike (a Status always has a Protobuf form). Error paths need not know
 * the preset: the cluster preset's serializers hold every preset's Protobuf type.
 */
export function errorProtobufType(accept: string | undefined): string | undefined {
  if (accept === undefined || accept.length === 0) return undefined;
  const options = { naming: ERROR_NAMING, tableSupported: false, protobufSupported: true };
  for (const clause of parseAccept(accept)) {
    // A clause asking for a conversion (as=Table, as=PartialObjectMetadata) is no form of an error.
    if ("as" in clause.params) continue;
    for (const s of serializers(ERROR_NAMING)) {
      if (clauseMatches(clause, s) && acceptOptions(clause, s, options)) {
        return s.encoding === "protobuf" ? s.mediaType : undefined;
      }
    }
  }
  return undefined;
}

const TRUE_VALUES = new Set(["1", "t", "T", "TRUE", "true", "True"]);

/**
 * Whether a response is indented for humans: an explicit `?pretty=` value decides; otherwise
 * browsers, curl and wget get indented output.
 */
export function isPrettyPrint(prettyQuery: string | undefined, userAgent: string | undefined): boolean {
  if (prettyQuery !== undefined && prettyQuery.length > 0) return TRUE_VALUES.has(prettyQuery);
  if (userAgent === undefined) return false;
  return userAgent.startsWith("curl") || userAgent.startsWith("Wget") || userAgent.startsWith("Mozilla/5.0");
}

/**
 * Validate the `includeObject` query parameter of a Table request; empty means Metadata.
 * An unknown value is a 400.
 */
export function parseIncludeObject(value: string | undefined): IncludeObject {
  switch (value) {
    case undefined:
    case "":
    case "Metadata":
      return "Metadata";
    case "None":
    case "Object":
      return value;
    default:
      throw errors.badRequest(
        `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`,
      );
  }
}

/**
 * Choose the response representation for an Accept header. Throws a 406 ApiError when no clause is
 * acceptable (or, for a watch, when the chosen one cannot stream), and a 400 for an invalid
 * `includeObject` on a Table request.
 */
export function negotiateOutput(accept: string | undefined, options: NegotiateOutputOptions): OutputChoice {
  const match = findMatch(accept ?? "", options);
  if (!match) throw errors.notAcceptable(supportedMediaTypes(options.naming));
  const s = match.serializer;
  const stream = options.stream === true;
  if (stream && !s.streams) throw errors.notAcceptable(supportedStreamMediaTypes(options.naming));

  const contentType = stream && s.encoding !== "json" ? `${s.mediaType};stream=watch` : s.mediaType;
  const pretty =
    !stream && s.encoding === "json" && (match.pretty || isPrettyPrint(options.pretty, options.userAgent));
  const common = {
    encoding: s.encoding,
    contentType,
    ...(pretty ? { pretty } : {}),
    ...(stream ? { stream } : {}),
  };
  const c = match.conversion;
  if (!c) return { kind: s.encoding, ...common };
  const metaVersion = c.version as MetaVersion;
  switch (c.kind) {
    case "Table":
      return {
        kind: "table",
        ...common,
        metaVersion,
        tableVersion: metaVersion,
        includeObject: parseIncludeObject(options.includeObject),
      };
    case "PartialObjectMetadata":
      return { kind: "partial-metadata", ...common, metaVersion };
    default:
      return { kind: "partial-metadata-list", ...common, metaVersion };
  }
}

// ---------------------------------------------------------------------------------------------
// Input negotiation

// RFC 2045 token characters: visible ASCII except tspecials.
const TSPECIALS = '()<>@,;:\\"/[]?=';
function isTokenChar(code: number): boolean {
  return code > 0x20 && code < 0x7f && !TSPECIALS.includes(String.fromCharCode(code));
}

function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

function tokenEnd(s: string, from: number): number {
  let i = from;
  while (i < s.length && isTokenChar(s.charCodeAt(i))) i++;
  return i;
}

/**
 * Parse a Content-Type the way Go's mime.ParseMediaType does: the media type lower-cased, then
 * `; name=value` parameters (token or quoted string). Undefined when malformed.
 */
export function parseContentType(
  value: string,
): { mediaType: string; params: Record<string, string> } | undefined {
  const semi = value.indexOf(";");
  const base = semi === -1 ? value : value.slice(0, semi);
  const mediaType = base.toLowerCase().trim();
  const typeEnd = tokenEnd(mediaType, 0);
  if (typeEnd === 0) return undefined;
  if (typeEnd < mediaType.length) {
    if (mediaType[typeEnd] !== "/") return undefined;
    const subEnd = tokenEnd(mediaType, typeEnd + 1);
    if (subEnd === typeEnd + 1 || subEnd !== mediaType.length) return undefined;
  }
  const params: Record<string, string> = {};
  let i = base.length;
  while (i < value.length) {
    while (i < value.length && isSpace(value.charCodeAt(i))) i++;
    if (i >= value.length) break;
    if (value[i] !== ";") return undefined;
    i++;
    while (i < value.length && isSpace(value.charCodeAt(i))) i++;
    const nameEnd = tokenEnd(value, i);
    if (nameEnd === i) {
      // A trailing ";" is allowed.
      if (value.slice(i).trim() === "") break;
      return undefined;
    }
    const name = value.slice(i, nameEnd).toLowerCase();
    i = nameEnd;
    while (i < value.length && isSpace(value.charCodeAt(i))) i++;
    if (value[i] !== "=") return undefined;
    i++;
    while (i < value.length && isSpace(value.charCodeAt(i))) i++;
    let paramValue: string;
    if (value[i] === '"') {
      let out = "";
      let j = i + 1;
      for (; j < value.length && value[j] !== '"'; j++) {
        if (value[j] === "\\" && j + 1 < value.length) j++;
        out += value[j];
      }
      if (j >= value.length) return undefined;
      paramValue = out;
      i = j + 1;
    } else {
      const end = tokenEnd(value, i);
      if (end === i) return undefined;
      paramValue = value.slice(i, end);
      i = end;
    }
    if (name in params && params[name] !== paramValue) return undefined;
    params[name] = paramValue;
  }
  return { mediaType, params };
}

export interface NegotiateInputOptions {
  /**
   * `body` (create, update): a missing Content-Type means the first allowed type; the type is
   * parsed and lower-cased. `patch`: the type is the text before the first ";", compared as sent,
   * and a missing Content-Type is unsupported.
   */
  readonly mode?: "body" | "patch";
}

/**
 * The media type of a request body, one of `allowed`; a 415 ApiError listing `allowed` otherwise.
 */
export function negotiateInput(
  contentType: string | undefined,
  allowed: readonly string[],
  options: NegotiateInputOptions = {},
): string {
  if (options.mode === "patch") {
    let type = contentType ?? "";
    const semi = type.indexOf(";");
    if (semi > 0) type = type.slice(0, semi);
    if (allowed.includes(type)) return type;
    throw errors.unsupportedMediaType(allowed);
  }
  if (contentType === undefined || contentType.length === 0) {
    const first = allowed[0];
    if (first !== undefined) return first;
    throw errors.unsupportedMediaType(allowed);
  }
  const parsed = parseContentType(contentType);
  if (parsed && allowed.includes(parsed.mediaType)) return parsed.mediaType;
  throw errors.unsupportedMediaType(allowed);
}
