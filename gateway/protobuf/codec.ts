// The upstream Protobuf wire format of the kinds in descriptors.ts (every kind of the built-in
// catalog the gateway serves): the 4-byte magic `k8s\0`, then a runtime.Unknown envelope whose
// typeMeta names the kind and whose raw bytes are the object's message.
//
// Decoding gives the JSON object a Go client would have sent as JSON for the same object (the
// Go json encoding of the struct the bytes unmarshal into), so bodies of either encoding take
// the same path afterwards. Encoding is the inverse and writes what Go's generated marshallers
// write: value fields always (zero values included), pointer fields when set, fields in number
// order, map entries in key order.
import protobuf, { type Writer } from "protobufjs";
import { naming } from "../../backends/naming/index.ts";
import { MAX_BODY_DEPTH, nestingLimitText, nestsWithin } from "../../backends/registry/index.ts";
import {
  type FieldDescriptor,
  type FieldType,
  type KindDescriptor,
  kindDescriptor,
  type MessageDescriptor,
  messageDescriptor,
  type SpecialJson,
} from "./descriptors.ts";

/** Upstream's Protobuf media type, which clients send whatever the server's naming preset. */
export const PROTOBUF_MEDIA_TYPE = naming("kubernetes").protobufMediaType;

/** The 4 bytes every Kubernetes Protobuf body starts with: `k8s` and a NUL. */
export const PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** A body that cannot be read as a Kubernetes Protobuf object (the caller answers 400). */
export class ProtobufDecodeError extends Error {
  /** JSON path of the message being read when it failed ("" for the envelope or the top level). */
  readonly path: string;
  constructor(message: string, path = "") {
    super(message);
    this.name = "ProtobufDecodeError";
    this.path = path;
  }
}

/**
 * A kind this server has no Protobuf form of. When `expected` is true it is the kind the request's
 * route serves, the case where upstream answers 415 Unsupported Media Type before reading the body
 * (resources without a Protobuf serializer accept only JSON and YAML); otherwise it is a kind the
 * envelope names instead of the route's. A ProtobufDecodeError, so callers that only know that
 * class answer 400.
 */
export class ProtobufUnsupportedKindError extends ProtobufDecodeError {
  readonly apiVersion: string;
  readonly kind: string;
  readonly expected: boolean;
  constructor(apiVersion: string, kind: string, expected: boolean) {
    super(
      `kind "${kind}" of version "${apiVersion}" has no Protobuf form on this server; send ${expected ? "it" : "the body"} as JSON or YAML`,
    );
    this.name = "ProtobufUnsupportedKindError";
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.expected = expected;
  }
}

/** An object that cannot be written as Protobuf (unknown kind, or a value of the wrong JSON type). */
export class ProtobufEncodeError extends Error {
  readonly path: string;
  constructor(message: string, path = "") {
    super(message);
    this.name = "ProtobufEncodeError";
    this.path = path;
  }
}

/** A field number the descriptor does not know; skipped, as proto decoding does. */
export interface UnknownProtobufField {
  /** JSON path of the message that held it ("" for the object itself). */
  readonly path: string;
  readonly number: number;
  readonly wireType: number;
}

export interface ProtobufDecodeResult {
  /** The object as JSON, with `kind` and `apiVersion` set. */
  readonly object: Record<string, unknown>;
  readonly apiVersion: string;
  readonly kind: string;
  /** Fields skipped because their numbers are unknown. */
  readonly unknownFields: readonly UnknownProtobufField[];
  /** The envelope's contentEncoding and contentType; upstream ignores both, and so do we. */
  readonly contentEncoding: string;
  readonly contentType: string;
}

export interface ExpectedKind {
  readonly apiVersion: string;
  readonly kind: string;
}

// Wire types.
const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const START_GROUP = 3;
const END_GROUP = 4;
const FIXED32 = 5;

const MAX_GROUP_DEPTH = 100;
const utf8 = new TextDecoder("utf-8");

/** Seconds of Go's zero time.Time (0001-01-01T00:00:00Z) since the Unix epoch. */
const GO_ZERO_TIME_SECONDS = -62135596800;
/** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the years Go's RFC 3339 JSON can express. */
const MIN_JSON_SECONDS = -62167219200;
const MAX_JSON_SECONDS = 253402300800;

// ---------------------------------------------------------------------------------------------
// Reading

class Reader {
  readonly buf: Uint8Array;
  pos: number;
  readonly end: number;
  readonly path: string;

  constructor(buf: Uint8Array, path: string) {
    this.buf = buf;
    this.pos = 0;
    this.end = buf.length;
    this.path = path;
  }

  fail(message: string): never {
    throw new ProtobufDecodeError(`${message}${this.path ? ` (in ${this.path})` : ""}`, this.path);
  }

  /** A varint as its low and high 32 bits. */
  varint64(): { lo: number; hi: number } {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail("unexpected end of data in a varint");
      const b = this.buf[this.pos++]!;
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >> 4;
      } else hi |= (b & 0x7f) << (7 * i - 32);
      if (b < 0x80) return { lo: lo >>> 0, hi: hi >>> 0 };
    }
    return this.fail("varint overflows 64 bits");
  }

  /** A varint that must fit in a safe non-negative number (tags and lengths). */
  size(): number {
    const { lo, hi } = this.varint64();
    if (hi >= 0x200000) this.fail("length or tag out of range");
    return hi * 0x100000000 + lo;
  }

  bytes(): Uint8Array {
    const length = this.size();
    if (length > this.end - this.pos) {
      this.fail(`length ${length} runs past the end of the data (${this.end - this.pos} bytes left)`);
    }
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  skipBytes(n: number): void {
    if (n > this.end - this.pos) this.fail("unexpected end of data in a skipped field");
    this.pos += n;
  }

  skip(wireType: number, depth = 0): void {
    switch (wireType) {
      case VARINT:
        this.varint64();
        return;
      case FIXED64:
        this.skipBytes(8);
        return;
      case LENGTH_DELIMITED:
        this.bytes();
        return;
      case FIXED32:
        this.skipBytes(4);
        return;
      case START_GROUP: {
        if (depth >= MAX_GROUP_DEPTH) this.fail("groups nested too deeply");
        for (;;) {
          if (this.pos >= this.end) this.fail("unexpected end of data in a group");
          const tag = this.size();
          if ((tag & 7) === END_GROUP) return;
          this.skip(tag & 7, depth + 1);
        }
      }
      default:
        this.fail(wireType === END_GROUP ? "unexpected end-group tag" : `illegal wire type ${wireType}`);
    }
  }
}

function int64Value({ lo, hi }: { lo: number; hi: number }): number {
  if (hi < 0x80000000) return hi * 0x100000000 + lo;
  return Number(BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)));
}

function expectedWireType(type: FieldType): number {
  if (type.kind !== "scalar" || type.scalar === "string") return LENGTH_DELIMITED;
  return type.scalar === "double" ? FIXED64 : VARINT;
}

/** Repeated numbers may also arrive packed: one length-delimited run of values. */
function packable(type: FieldType): boolean {
  return type.kind === "scalar" && type.scalar !== "string";
}

function wireTypeName(wireType: number): string {
  return (
    ["varint", "fixed64", "length-delimited", "start-group", "end-group", "fixed32"][wireType] ?? "invalid"
  );
}

interface DecodeContext {
  readonly unknownFields: UnknownProtobufField[];
  /** Messages being decoded, one inside the other. */
  depth: number;
}

/**
 * Messages nest at most two per level of the JSON they become (JSONSchemaPropsOrArray holds a
 * JSONSchemaProps), so past this the object is too deep anyway; the decoding recursion stops here.
 */
const MAX_MESSAGE_DEPTH = 2 * MAX_BODY_DEPTH;

function tooDeep(): ProtobufDecodeError {
  return new ProtobufDecodeError(`the object ${nestingLimitText(MAX_BODY_DEPTH)}`);
}

function joinPath(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  return Buffer.concat(chunks);
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

function scalarValue(reader: Reader, type: FieldType): unknown {
  if (type.kind === "bytes") return reader.bytes();
  if (type.kind !== "scalar") return reader.fail("internal: not a scalar");
  switch (type.scalar) {
    case "string":
      return utf8.decode(reader.bytes());
    case "bool": {
      const { lo, hi } = reader.varint64();
      return lo !== 0 || hi !== 0;
    }
    case "int32":
      return reader.varint64().lo | 0;
    case "int64":
      return int64Value(reader.varint64());
    case "double": {
      if (reader.end - reader.pos < 8) reader.fail("unexpected end of data in a double");
      const value = Buffer.from(reader.buf.buffer, reader.buf.byteOffset + reader.pos, 8).readDoubleLE(0);
      reader.pos += 8;
      return value;
    }
  }
}

function zeroValue(type: FieldType): unknown {
  if (type.kind === "scalar") {
    if (type.scalar === "string") return "";
    if (type.scalar === "bool") return false;
    return 0;
  }
  return undefined;
}

/**
 * One map entry: key (1) and value (2); a missing part is the zero value. A message value is
 * read after its key is known, so that its path names the key.
 */
function decodeMapEntry(
  bytes: Uint8Array,
  type: Extract<FieldType, { kind: "map" }>,
  path: string,
  ctx: DecodeContext,
): [string, unknown] {
  const reader = new Reader(bytes, path);
  let key = "";
  let raw: Uint8Array | undefined;
  while (reader.pos < reader.end) {
    const tag = reader.size();
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (number === 0) reader.fail(`illegal tag 0 (wire type ${wireType})`);
    if (number === 1 || number === 2) {
      if (wireType !== LENGTH_DELIMITED) {
        reader.fail(`wrong wire type ${wireTypeName(wireType)} for map ${number === 1 ? "key" : "value"}`);
      }
      const data = reader.bytes();
      if (number === 1) key = utf8.decode(data);
      else raw = data;
    } else {
      reader.skip(wireType);
    }
  }
  switch (type.value) {
    case "string":
      return [key, raw ? utf8.decode(raw) : ""];
    case "bytes":
      return [key, raw ? base64(raw) : ""];
    case "message":
      return [
        key,
        messageJson(
          messageDescriptor(type.message),
          raw ?? new Uint8Array(0),
          `${path}[${JSON.stringify(key)}]`,
          ctx,
        ),
      ];
  }
}

/** Seconds and nanos of a Time/MicroTime message. */
function decodeTimestamp(bytes: Uint8Array, path: string): { seconds: number; nanos: number } {
  const reader = new Reader(bytes, path);
  let seconds = 0;
  let nanos = 0;
  while (reader.pos < reader.end) {
    const tag = reader.size();
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (number === 0) reader.fail(`illegal tag 0 (wire type ${wireType})`);
    if (number === 1 || number === 2) {
      if (wireType !== VARINT) {
        reader.fail(
          `wrong wire type ${wireTypeName(wireType)} for field ${number === 1 ? "seconds" : "nanos"}`,
        );
      }
      const v = reader.varint64();
      if (number === 1) seconds = int64Value(v);
      else nanos = v.lo | 0;
    } else {
      reader.skip(wireType);
    }
  }
  // time.Unix normalizes nanoseconds outside [0, 1e9).
  const carry = Math.floor(nanos / 1e9);
  return { seconds: seconds + carry, nanos: nanos - carry * 1e9 };
}

function formatTime(seconds: number, micros: number | undefined, path: string): string {
  if (seconds < MIN_JSON_SECONDS || seconds >= MAX_JSON_SECONDS) {
    throw new ProtobufDecodeError(`time out of range (year outside [0,9999]) in ${path}`, path);
  }
  const iso = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ for years 0-9999
  const whole = iso.slice(0, 19);
  return micros === undefined ? `${whole}Z` : `${whole}.${String(micros).padStart(6, "0")}Z`;
}

/** The JSON form of a message with special JSON, or of a regular message. */
function messageJson(
  descriptor: MessageDescriptor,
  bytes: Uint8Array,
  path: string,
  ctx: DecodeContext,
): unknown {
  switch (descriptor.special) {
    case "time": {
      if (bytes.length === 0) return null;
      // Upstream keeps whole seconds only, to match what JSON can carry.
      const { seconds } = decodeTimestamp(bytes, path);
      return seconds === GO_ZERO_TIME_SECONDS ? null : formatTime(seconds, undefined, path);
    }
    case "microTime": {
      if (bytes.length === 0) return null;
      const { seconds, nanos } = decodeTimestamp(bytes, path);
      if (seconds === GO_ZERO_TIME_SECONDS && nanos === 0) return null;
      return formatTime(seconds, Math.floor(nanos / 1000), path);
    }
    case "stringList": {
      // Go makes the slice before appending to it: `[]` rather than null when empty.
      const object = decodeMessage(descriptor, bytes, path, ctx);
      return object.items ?? [];
    }
    case "fieldsV1":
      return embeddedJson(decodeMessage(descriptor, bytes, path, ctx).Raw, path);
    case "rawExtension":
    case "json":
      // Both write their raw bytes as the JSON value itself, `null` when there are none.
      return embeddedJson(decodeMessage(descriptor, bytes, path, ctx).raw, path);
    case "quantity": {
      // A zero Quantity (nothing on the wire) is "0" in JSON.
      const value = decodeMessage(descriptor, bytes, path, ctx).string;
      return typeof value === "string" ? value : "0";
    }
    case "intOrString": {
      const object = decodeMessage(descriptor, bytes, path, ctx);
      const type = object.type ?? 0;
      if (type === 0) return object.intVal ?? 0;
      if (type === 1) return object.strVal ?? "";
      throw new ProtobufDecodeError(`impossible IntOrString.Type ${String(type)} in ${path}`, path);
    }
    case "schemaOrArray": {
      const object = decodeMessage(descriptor, bytes, path, ctx);
      return object.jSONSchemas ?? object.schema ?? null;
    }
    case "schemaOrBool": {
      const object = decodeMessage(descriptor, bytes, path, ctx);
      return object.schema ?? object.allows === true;
    }
    case "schemaOrStringArray": {
      const object = decodeMessage(descriptor, bytes, path, ctx);
      return object.property ?? object.schema ?? null;
    }
    default:
      return decodeMessage(descriptor, bytes, path, ctx);
  }
}

/** The JSON value that base64 `raw` bytes hold, or `null` when there are none. */
function embeddedJson(raw: unknown, path: string): unknown {
  if (typeof raw !== "string" || raw === "") return null;
  const text = Buffer.from(raw, "base64").toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw new ProtobufDecodeError(`${path} does not hold valid JSON`, path);
  }
}

const numberIndexes = new WeakMap<MessageDescriptor, Map<number, FieldDescriptor>>();

function fieldsByNumber(descriptor: MessageDescriptor): Map<number, FieldDescriptor> {
  let index = numberIndexes.get(descriptor);
  if (!index) {
    index = new Map(descriptor.fields.map((f) => [f.number, f]));
    numberIndexes.set(descriptor, index);
  }
  return index;
}

interface FieldState {
  /** Singular scalars: the last value seen. */
  value?: unknown;
  present: boolean;
  /** Singular messages: every occurrence, merged by concatenation as proto merging does. */
  chunks?: Uint8Array[];
  /** Repeated fields. */
  items?: unknown[];
  /** Maps. */
  entries?: Map<string, unknown>;
}

function decodeMessage(
  descriptor: MessageDescriptor,
  bytes: Uint8Array,
  path: string,
  ctx: DecodeContext,
): Record<string, unknown> {
  if (++ctx.depth > MAX_MESSAGE_DEPTH) throw tooDeep();
  const reader = new Reader(bytes, path);
  const byNumber = fieldsByNumber(descriptor);
  const states = new Map<FieldDescriptor, FieldState>();
  const state = (f: FieldDescriptor): FieldState => {
    let s = states.get(f);
    if (!s) {
      s = { present: false };
      states.set(f, s);
    }
    return s;
  };

  while (reader.pos < reader.end) {
    const tag = reader.size();
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (number === 0) reader.fail(`illegal tag 0 (wire type ${wireType})`);
    const f = byNumber.get(number);
    if (!f) {
      ctx.unknownFields.push({ path, number, wireType });
      reader.skip(wireType);
      continue;
    }
    const s = state(f);
    s.present = true;
    const expected = expectedWireType(f.type);
    const fieldPath = joinPath(path, f.name);
    if (f.repeated && wireType === LENGTH_DELIMITED && expected !== LENGTH_DELIMITED && packable(f.type)) {
      const packed = new Reader(reader.bytes(), fieldPath);
      s.items ??= [];
      while (packed.pos < packed.end) s.items.push(scalarValue(packed, f.type));
      continue;
    }
    if (wireType !== expected) {
      reader.fail(
        `wrong wire type ${wireTypeName(wireType)} for field ${descriptor.name.split(".").pop()}.${f.name} (${number}), expected ${wireTypeName(expected)}`,
      );
    }
    switch (f.type.kind) {
      case "map": {
        s.entries ??= new Map();
        const [key, value] = decodeMapEntry(reader.bytes(), f.type, fieldPath, ctx);
        s.entries.set(key, value);
        break;
      }
      case "message": {
        const sub = reader.bytes();
        if (f.repeated) {
          s.items ??= [];
          const index = s.items.length;
          s.items.push(messageJson(messageDescriptor(f.type.message), sub, `${fieldPath}[${index}]`, ctx));
        } else {
          s.chunks ??= [];
          s.chunks.push(sub);
        }
        break;
      }
      default: {
        const v = scalarValue(reader, f.type);
        if (f.repeated) {
          s.items ??= [];
          s.items.push(v instanceof Uint8Array ? base64(v) : v);
        } else {
          s.value = v;
        }
      }
    }
  }

  const out: Record<string, unknown> = {};
  for (const f of descriptor.fields) {
    const s = states.get(f);
    const fieldPath = joinPath(path, f.name);
    if (f.type.kind === "map") {
      const entries = s?.entries;
      if (!entries || entries.size === 0) {
        // Go leaves the map nil, which its JSON encoder writes as null.
        if (!f.omitEmpty) out[f.name] = null;
        continue;
      }
      const map: Record<string, unknown> = {};
      // Go's JSON encoder writes map keys sorted.
      for (const key of [...entries.keys()].sort()) map[key] = entries.get(key);
      out[f.name] = map;
      continue;
    }
    if (f.repeated) {
      const items = s?.items;
      if (!items || items.length === 0) {
        // Go leaves the slice nil, which its JSON encoder writes as null.
        if (!f.omitEmpty) out[f.name] = f.emptyAsArray ? [] : null;
        continue;
      }
      out[f.name] = items;
      continue;
    }
    if (f.type.kind === "message" && f.inline) {
      // An embedded struct: its fields are this object's (the path stays the parent's).
      const sub = messageDescriptor(f.type.message);
      Object.assign(
        out,
        decodeMessage(sub, s?.present ? concat(s.chunks ?? []) : new Uint8Array(0), path, ctx),
      );
      continue;
    }
    if (f.type.kind === "message") {
      const sub = messageDescriptor(f.type.message);
      if (!s?.present) {
        // A value struct is still emitted (zero Time as null); a nil pointer only without omitempty.
        if (!f.pointer) out[f.name] = messageJson(sub, new Uint8Array(0), fieldPath, ctx);
        else if (!f.omitEmpty) out[f.name] = null;
        continue;
      }
      // Time replaces rather than merges: the last occurrence wins.
      const chunks = s.chunks ?? [];
      const bytes = sub.special === "time" || sub.special === "microTime" ? chunks.at(-1)! : concat(chunks);
      out[f.name] = messageJson(sub, bytes, fieldPath, ctx);
      continue;
    }
    if (f.type.kind === "bytes") {
      if (s?.present) out[f.name] = base64(s.value as Uint8Array);
      else if (!f.omitEmpty) out[f.name] = null;
      continue;
    }
    if (f.pointer) {
      if (s?.present) out[f.name] = s.value;
      else if (!f.omitEmpty) out[f.name] = null;
      continue;
    }
    const value = s?.present ? s.value : zeroValue(f.type);
    if (f.omitEmpty && (value === "" || value === false || value === 0)) continue;
    out[f.name] = value;
  }
  ctx.depth--;
  return out;
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** runtime.Unknown: typeMeta (1), raw (2), contentEncoding (3), contentType (4). */
function decodeEnvelope(bytes: Uint8Array): Envelope {
  const reader = new Reader(bytes, "");
  const envelope: Envelope = {
    apiVersion: "",
    kind: "",
    raw: new Uint8Array(0),
    contentEncoding: "",
    contentType: "",
  };
  const expectLengthDelimited = (wireType: number, name: string) => {
    if (wireType !== LENGTH_DELIMITED) {
      reader.fail(`wrong wire type ${wireTypeName(wireType)} for field Unknown.${name} of the envelope`);
    }
  };
  while (reader.pos < reader.end) {
    const tag = reader.size();
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (number === 0) reader.fail(`illegal tag 0 (wire type ${wireType}) in the envelope`);
    switch (number) {
      case 1: {
        expectLengthDelimited(wireType, "typeMeta");
        const typeMeta = new Reader(reader.bytes(), "");
        while (typeMeta.pos < typeMeta.end) {
          const t = typeMeta.size();
          const n = Math.floor(t / 8);
          const w = t & 7;
          if (n === 0) typeMeta.fail(`illegal tag 0 (wire type ${w}) in the envelope's typeMeta`);
          if (n === 1 || n === 2) {
            if (w !== LENGTH_DELIMITED) {
              typeMeta.fail(
                `wrong wire type ${wireTypeName(w)} for field TypeMeta.${n === 1 ? "apiVersion" : "kind"}`,
              );
            }
            const value = utf8.decode(typeMeta.bytes());
            if (n === 1) envelope.apiVersion = value;
            else envelope.kind = value;
          } else {
            typeMeta.skip(w);
          }
        }
        break;
      }
      case 2:
        expectLengthDelimited(wireType, "raw");
        envelope.raw = reader.bytes();
        break;
      case 3:
        expectLengthDelimited(wireType, "contentEncoding");
        envelope.contentEncoding = utf8.decode(reader.bytes());
        break;
      case 4:
        expectLengthDelimited(wireType, "contentType");
        envelope.contentType = utf8.decode(reader.bytes());
        break;
      default:
        reader.skip(wireType);
    }
  }
  return envelope;
}

function hasMagic(body: Uint8Array): boolean {
  return PROTOBUF_MAGIC.every((b, i) => body[i] === b);
}

/**
 * Reads a Kubernetes Protobuf body. `expected` fills in an apiVersion or kind the envelope leaves
 * empty, as upstream's decoder does with the defaults of the request; a different kind in the
 * envelope is returned as it is, for the caller to check like a JSON body's.
 */
export function decodeProtobuf(body: Uint8Array, expected?: ExpectedKind): ProtobufDecodeResult {
  // Like upstream's media type negotiation, this comes before anything is read.
  if (expected?.apiVersion && expected.kind && !kindDescriptor(expected.apiVersion, expected.kind)) {
    throw new ProtobufUnsupportedKindError(expected.apiVersion, expected.kind, true);
  }
  if (body.length === 0) throw new ProtobufDecodeError("empty data");
  if (body.length < PROTOBUF_MAGIC.length || !hasMagic(body)) {
    throw new ProtobufDecodeError(
      `provided data does not appear to be a protobuf message, expected prefix [${[...PROTOBUF_MAGIC].join(" ")}]`,
    );
  }
  if (body.length === PROTOBUF_MAGIC.length) throw new ProtobufDecodeError("empty body");
  const envelope = decodeEnvelope(body.subarray(PROTOBUF_MAGIC.length));
  const apiVersion = envelope.apiVersion || expected?.apiVersion || "";
  const kind = envelope.kind || expected?.kind || "";
  if (kind === "") throw new ProtobufDecodeError("Object 'Kind' is missing in the protobuf envelope");
  if (apiVersion === "")
    throw new ProtobufDecodeError("Object 'apiVersion' is missing in the protobuf envelope");
  const known = kindDescriptor(apiVersion, kind);
  if (!known) throw new ProtobufUnsupportedKindError(apiVersion, kind, false);
  const ctx: DecodeContext = { unknownFields: [], depth: 0 };
  const fields = decodeMessage(messageDescriptor(known.message), envelope.raw, "", ctx);
  const object: Record<string, unknown> = { kind, apiVersion, ...fields };
  // Embedded JSON (RawExtension, fieldsV1) and the messages together: the same limit as JSON bodies.
  if (!nestsWithin(object, MAX_BODY_DEPTH)) throw tooDeep();
  return {
    object,
    apiVersion,
    kind,
    unknownFields: ctx.unknownFields,
    contentEncoding: envelope.contentEncoding,
    contentType: envelope.contentType,
  };
}

/** The object a Kubernetes Protobuf body holds, as JSON with `apiVersion` and `kind` set. */
export function decodeProtobufObject(body: Uint8Array, expected?: ExpectedKind): Record<string, unknown> {
  return decodeProtobuf(body, expected).object;
}

/**
 * True when objects of this apiVersion and kind have a Protobuf form here: what a handler can
 * ask before reading a Protobuf body, to answer 415 for resources that accept only JSON and YAML.
 */
export function hasProtobufForm(apiVersion: string, kind: string): boolean {
  return kindDescriptor(apiVersion, kind) !== undefined;
}

/** True when a body starts with the Kubernetes Protobuf magic. */
export function isProtobufBody(body: Uint8Array): boolean {
  return body.length >= PROTOBUF_MAGIC.length && hasMagic(body);
}

// ---------------------------------------------------------------------------------------------
// Writing

function tag(number: number, wireType: number): number {
  return number * 8 + wireType;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function typeError(path: string, expected: string, value: unknown): ProtobufEncodeError {
  return new ProtobufEncodeError(`${path}: expected ${expected}, got ${jsonType(value)}`, path);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function parseTime(value: string, path: string): { seconds: number; nanos: number } {
  const m = RFC3339.exec(value);
  if (!m) throw new ProtobufEncodeError(`${path}: ${JSON.stringify(value)} is not an RFC 3339 time`, path);
  const [, y, mo, d, h, mi, s, fraction, , sign, oh, om] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  // Date.UTC maps years 0-99 to 1900-1999; set the year explicitly.
  const date = new Date(ms);
  date.setUTCFullYear(Number(y));
  if (date.getUTCMonth() + 1 !== Number(mo) || date.getUTCDate() !== Number(d) || Number(h) > 23) {
    throw new ProtobufEncodeError(`${path}: ${JSON.stringify(value)} is not a valid time`, path);
  }
  let seconds = date.getTime() / 1000;
  if (sign) seconds -= (sign === "-" ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const nanos = fraction ? Number(fraction.padEnd(9, "0")) : 0;
  return { seconds, nanos };
}

function writeTimestamp(writer: Writer, value: unknown, special: "time" | "microTime", path: string): void {
  if (value === null || value === undefined || value === "") return; // zero time: an empty message
  if (typeof value !== "string") throw typeError(path, "an RFC 3339 string", value);
  const { seconds, nanos } = parseTime(value, path);
  if (
    special === "time" ? seconds === GO_ZERO_TIME_SECONDS : seconds === GO_ZERO_TIME_SECONDS && nanos === 0
  ) {
    return;
  }
  writer.uint32(tag(1, VARINT)).int64(seconds);
  writer.uint32(tag(2, VARINT)).int32(nanos);
}

/**
 * `parent` is the path of the message holding the field (or of the list item, with `item`): the
 * field's own path is built only for an error, since building one per field costs more than the
 * write.
 */
function writeScalar(
  writer: Writer,
  f: FieldDescriptor,
  value: unknown,
  parent: string,
  item?: number,
): void {
  const type = f.type;
  if (type.kind === "bytes") {
    if (typeof value !== "string")
      throw typeError(scalarPath(parent, f.name, item), "a base64 string", value);
    writer.uint32(tag(f.number, LENGTH_DELIMITED)).bytes(Buffer.from(value, "base64"));
    return;
  }
  if (type.kind !== "scalar")
    throw new ProtobufEncodeError(
      `${scalarPath(parent, f.name, item)}: internal: not a scalar`,
      scalarPath(parent, f.name, item),
    );
  switch (type.scalar) {
    case "string":
      if (typeof value !== "string") throw typeError(scalarPath(parent, f.name, item), "a string", value);
      writer.uint32(tag(f.number, LENGTH_DELIMITED)).string(value);
      return;
    case "bool":
      if (typeof value !== "boolean") throw typeError(scalarPath(parent, f.name, item), "a boolean", value);
      writer.uint32(tag(f.number, VARINT)).bool(value);
      return;
    case "int32":
    case "int64":
      if (typeof value !== "number" || !Number.isInteger(value))
        throw typeError(scalarPath(parent, f.name, item), "an integer", value);
      writer.uint32(tag(f.number, VARINT));
      if (type.scalar === "int32") writer.int32(value);
      else writer.int64(value);
      return;
    case "double":
      if (typeof value !== "number") throw typeError(scalarPath(parent, f.name, item), "a number", value);
      writer.uint32(tag(f.number, FIXED64)).double(value);
      return;
  }
}

/**
 * The message form of a special JSON value (quantity, intOrString and the schema unions), as Go's
 * JSON decoder fills the struct in; undefined when the value is unset.
 */
function specialFields(
  special: SpecialJson,
  value: unknown,
  path: string,
): Record<string, unknown> | undefined {
  const unset = value === null || value === undefined;
  switch (special) {
    case "quantity":
      // A zero Quantity is written as "0".
      if (unset) return { string: "0" };
      if (typeof value === "number") return { string: String(value) };
      if (typeof value !== "string") throw typeError(path, "a quantity string", value);
      return { string: value };
    case "intOrString":
      if (unset) return {};
      if (typeof value === "number") {
        if (!Number.isInteger(value)) throw typeError(path, "an integer or a string", value);
        return { type: 0, intVal: value };
      }
      if (typeof value !== "string") throw typeError(path, "an integer or a string", value);
      return { type: 1, strVal: value };
    case "schemaOrArray":
      if (unset) return undefined;
      if (Array.isArray(value)) return { jSONSchemas: value };
      if (!isObject(value)) throw typeError(path, "a schema or an array of schemas", value);
      return { schema: value };
    case "schemaOrBool":
      if (unset) return {};
      if (typeof value === "boolean") return { allows: value };
      if (!isObject(value)) throw typeError(path, "a schema or a boolean", value);
      return { allows: true, schema: value };
    case "schemaOrStringArray":
      if (unset) return undefined;
      if (Array.isArray(value)) return { property: value };
      if (!isObject(value)) throw typeError(path, "a schema or an array of strings", value);
      return { schema: value };
    default:
      throw new ProtobufEncodeError(`${path}: internal: ${special} is not a struct-like special`, path);
  }
}

function writeMessageField(
  writer: Writer,
  number: number,
  descriptor: MessageDescriptor,
  value: unknown,
  path: string,
): void {
  writer.uint32(tag(number, LENGTH_DELIMITED)).fork();
  switch (descriptor.special) {
    case "time":
    case "microTime":
      writeTimestamp(writer, value, descriptor.special, path);
      break;
    case "stringList":
      if (value !== null && value !== undefined) {
        if (!Array.isArray(value)) throw typeError(path, "an array", value);
        value.forEach((item: unknown, i) => {
          if (typeof item !== "string") throw typeError(`${path}[${i}]`, "a string", item);
          writer.uint32(tag(1, LENGTH_DELIMITED)).string(item);
        });
      }
      break;
    case "fieldsV1":
    case "rawExtension":
    case "json":
      // The raw bytes are the JSON value itself; an unset value leaves them nil.
      if (value !== null && value !== undefined) {
        writer.uint32(tag(1, LENGTH_DELIMITED)).bytes(Buffer.from(JSON.stringify(value), "utf8"));
      }
      break;
    case "quantity":
    case "intOrString":
    case "schemaOrArray":
    case "schemaOrBool":
    case "schemaOrStringArray": {
      const fields = specialFields(descriptor.special, value, path);
      if (fields) writeMessage(writer, descriptor, fields, path);
      break;
    }
    default:
      if (value !== null && value !== undefined && !isObject(value))
        throw typeError(path, "an object", value);
      writeMessage(writer, descriptor, value ?? {}, path);
  }
  writer.ldelim();
}

function scalarPath(parent: string, name: string, item: number | undefined): string {
  const path = joinPath(parent, name);
  return item === undefined ? path : `${path}[${item}]`;
}

const fieldsInNumberOrder = new WeakMap<MessageDescriptor, readonly FieldDescriptor[]>();

/** A message's fields in the order Go writes them, sorted once per descriptor. */
function numberOrder(descriptor: MessageDescriptor): readonly FieldDescriptor[] {
  let fields = fieldsInNumberOrder.get(descriptor);
  if (!fields) {
    fields = [...descriptor.fields].sort((a, b) => a.number - b.number);
    fieldsInNumberOrder.set(descriptor, fields);
  }
  return fields;
}

function writeMessage(
  writer: Writer,
  descriptor: MessageDescriptor,
  object: Record<string, unknown>,
  path: string,
) {
  for (const f of numberOrder(descriptor)) {
    const value = object[f.name];
    const type = f.type;
    if (type.kind !== "message" && !f.repeated && type.kind !== "map") {
      if (value === null || value === undefined) {
        // Pointers and []byte stay off the wire when unset; value fields carry their zero value.
        if (f.pointer || type.kind === "bytes") continue;
        writeScalar(writer, f, zeroValue(type), path);
      } else writeScalar(writer, f, value, path);
      continue;
    }
    const fieldPath = joinPath(path, f.name);
    if (type.kind === "map") {
      if (value === null || value === undefined) continue;
      if (!isObject(value)) throw typeError(fieldPath, "an object", value);
      for (const key of Object.keys(value).sort()) {
        const v = value[key];
        writer.uint32(tag(f.number, LENGTH_DELIMITED)).fork();
        writer.uint32(tag(1, LENGTH_DELIMITED)).string(key);
        if (type.value === "message") {
          // Go writes the value of every entry, an empty message included.
          writeMessageField(writer, 2, messageDescriptor(type.message), v, `${fieldPath}.${key}`);
        } else if (type.value === "string") {
          if (v !== null && typeof v !== "string") throw typeError(`${fieldPath}.${key}`, "a string", v);
          writer.uint32(tag(2, LENGTH_DELIMITED)).string(v ?? "");
        } else if (v !== null) {
          if (typeof v !== "string") throw typeError(`${fieldPath}.${key}`, "a base64 string", v);
          writer.uint32(tag(2, LENGTH_DELIMITED)).bytes(Buffer.from(v, "base64"));
        }
        writer.ldelim();
      }
      continue;
    }
    if (f.repeated) {
      if (value === null || value === undefined) continue;
      if (!Array.isArray(value)) throw typeError(fieldPath, "an array", value);
      value.forEach((item: unknown, i) => {
        if (type.kind === "message")
          writeMessageField(writer, f.number, messageDescriptor(type.message), item, `${fieldPath}[${i}]`);
        else writeScalar(writer, f, item ?? zeroValue(type), path, i);
      });
      continue;
    }
    if (type.kind === "message" && f.inline) {
      // An embedded struct: its fields are read from this same object.
      writeMessageField(writer, f.number, messageDescriptor(type.message), object, path);
      continue;
    }
    if (type.kind === "message") {
      if (f.pointer && (value === null || value === undefined)) continue;
      writeMessageField(writer, f.number, messageDescriptor(type.message), value, fieldPath);
    }
  }
}

/**
 * The descriptor of an object's apiVersion and kind, or an encode error. The envelope carries
 * the object's own apiVersion, so a group keeps the spelling the request used.
 */
function encodableKind(object: Record<string, unknown>): KindDescriptor & { apiVersion: string } {
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !apiVersion || !kind) {
    throw new ProtobufEncodeError("the object needs a string apiVersion and kind");
  }
  const known = kindDescriptor(apiVersion, kind);
  if (!known) {
    throw new ProtobufEncodeError(
      `kind "${kind}" of version "${apiVersion}" has no Protobuf form on this server`,
    );
  }
  return { ...known, apiVersion };
}

/** The message bytes of an object, without the envelope (the envelope's `raw`). */
export function encodeProtobufMessage(object: Record<string, unknown>): Uint8Array {
  const known = encodableKind(object);
  const writer = protobuf.Writer.create();
  writeMessage(writer, messageDescriptor(known.message), object, "");
  return writer.finish();
}

/** The Kubernetes Protobuf body (magic and envelope) of an object with `apiVersion` and `kind`. */
export function encodeProtobufObject(object: Record<string, unknown>): Buffer {
  const known = encodableKind(object);
  return encodeProtobufEnvelope(known.apiVersion, known.kind, encodeProtobufMessage(object));
}

/**
 * The magic and a runtime.Unknown holding `raw`, the message of a kind named by apiVersion and
 * kind; contentEncoding and contentType are written empty, as Go's serializer leaves them.
 */
export function encodeProtobufEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const writer = protobuf.Writer.create();
  writer.uint32(tag(1, LENGTH_DELIMITED)).fork();
  writer.uint32(tag(1, LENGTH_DELIMITED)).string(apiVersion);
  writer.uint32(tag(2, LENGTH_DELIMITED)).string(kind);
  writer.ldelim();
  writer.uint32(tag(2, LENGTH_DELIMITED)).bytes(raw);
  writer.uint32(tag(3, LENGTH_DELIMITED)).string(""); // contentEncoding
  writer.uint32(tag(4, LENGTH_DELIMITED)).string(""); // contentType
  const envelope = writer.finish();
  const out = Buffer.allocUnsafe(PROTOBUF_MAGIC.length + envelope.length);
  out.set(PROTOBUF_MAGIC, 0);
  out.set(envelope, PROTOBUF_MAGIC.length);
  return out;
}

/**
 * A list body from its items' messages (encodeProtobufMessage of each item), so that an item's
 * bytes, once made, serve every page that holds it. `list` has the list's apiVersion, kind and
 * metadata; the fields go in number order, as Go writes them.
 */
export function encodeProtobufList(
  list: { apiVersion: string; kind: string; metadata: Record<string, unknown> },
  items: readonly Uint8Array[],
): Buffer {
  const known = encodableKind(list);
  const fields = messageDescriptor(known.message).fields;
  const meta = fields.find((f) => f.name === "metadata");
  const itemsField = fields.find((f) => f.name === "items");
  if (!meta || !itemsField || meta.type.kind !== "message") {
    throw new ProtobufEncodeError(`kind "${known.kind}" is not a list`);
  }
  const metaWriter = protobuf.Writer.create();
  writeMessageField(metaWriter, meta.number, messageDescriptor(meta.type.message), list.metadata, "metadata");
  const metaBytes = metaWriter.finish();
  const typeMeta = protobuf.Writer.create();
  typeMeta.uint32(tag(1, LENGTH_DELIMITED)).string(known.apiVersion);
  typeMeta.uint32(tag(2, LENGTH_DELIMITED)).string(known.kind);
  const typeMetaBytes = typeMeta.finish();
  // The items are copied once, into the answer itself (a page is megabytes).
  const itemTag = tag(itemsField.number, LENGTH_DELIMITED);
  let rawLength = metaBytes.length;
  for (const item of items) rawLength += varintLength(itemTag) + varintLength(item.length) + item.length;
  const total =
    PROTOBUF_MAGIC.length +
    1 +
    varintLength(typeMetaBytes.length) +
    typeMetaBytes.length +
    1 +
    varintLength(rawLength) +
    rawLength +
    4; // empty contentEncoding and contentType
  const out = Buffer.allocUnsafe(total);
  out.set(PROTOBUF_MAGIC, 0);
  let at = PROTOBUF_MAGIC.length;
  at = putVarint(out, at, tag(1, LENGTH_DELIMITED));
  at = putVarint(out, at, typeMetaBytes.length);
  out.set(typeMetaBytes, at);
  at += typeMetaBytes.length;
  at = putVarint(out, at, tag(2, LENGTH_DELIMITED));
  at = putVarint(out, at, rawLength);
  const putItems = () => {
    for (const item of items) {
      at = putVarint(out, at, itemTag);
      at = putVarint(out, at, item.length);
      out.set(item, at);
      at += item.length;
    }
  };
  if (itemsField.number < meta.number) putItems();
  out.set(metaBytes, at);
  at += metaBytes.length;
  if (itemsField.number > meta.number) putItems();
  out.set([tag(3, LENGTH_DELIMITED), 0, tag(4, LENGTH_DELIMITED), 0], at);
  return out;
}

function varintLength(n: number): number {
  let length = 1;
  for (let v = n; v >= 0x80; v = Math.floor(v / 128)) length++;
  return length;
}

function putVarint(out: Buffer, at: number, n: number): number {
  let i = at;
  let v = n;
  while (v >= 0x80) {
    out[i++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  out[i++] = v;
  return i;
}

/**
 * One event of a Protobuf watch stream: a meta.v1.WatchEvent whose object's raw bytes are the
 * object's full body (magic and envelope). The event itself has neither: upstream encodes it
 * with its raw serializer. `framed` puts the 4-byte big-endian length in front, as a chunked
 * HTTP stream carries it; a WebSocket message is the event alone.
 */
export function encodeProtobufWatchEvent(type: string, object: Uint8Array, framed: boolean): Buffer {
  const writer = protobuf.Writer.create();
  writer.uint32(tag(1, LENGTH_DELIMITED)).string(type);
  writer.uint32(tag(2, LENGTH_DELIMITED)).fork();
  writer.uint32(tag(1, LENGTH_DELIMITED)).bytes(object);
  writer.ldelim();
  const event = writer.finish();
  const prefix = framed ? 4 : 0;
  const out = Buffer.allocUnsafe(prefix + event.length);
  if (framed) out.writeUInt32BE(event.length, 0);
  out.set(event, prefix);
  return out;
}
