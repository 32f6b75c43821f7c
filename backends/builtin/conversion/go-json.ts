// A small model of how upstream's Go structs travel through JSON, for the conversions that pack
// whole sub-objects into annotation strings. A Shape describes a Go type by its JSON field names
// (in the struct's declaration order) and `omitempty` tags; with it we can:
//   - decode the way Go's encoding/json does (`goUnmarshal`): keys match case-insensitively when no
//     exact match exists, unknown keys are ignored, `null` leaves a value alone or clears a
//     pointer/slice/map, and any type mismatch fails the whole decode;
//   - encode the way Go does (`goMarshal`): declaration order, `omitempty`, nil as `null`, map keys
//     sorted, HTML-safe string escapes — so an annotation's bytes match upstream's;
//   - read a stored object's JSON leniently (`readLenient`) and write plain JSON back
//     (`toPlainJson`), where absent means nil/zero.
// Go values are modelled as: string → string, int → number, Quantity → its canonical text ("0" when
// zero), Time → RFC 3339 UTC text ("" when zero), pointers/slices/maps → value or null, structs →
// objects holding every field.
import { formatQuantity, quantityFromJson } from "../../schema/structural/quantity.ts";

export type Scalar = "string" | "int32" | "int64" | "quantity" | "time" | "stringMap";

export type Shape =
  | Scalar
  | { readonly list: Shape }
  | { readonly ptr: Shape }
  | { readonly fields: readonly Field[] };

export interface Field {
  readonly name: string;
  readonly shape: Shape;
  readonly omitempty: boolean;
}

export function field(name: string, shape: Shape, omitempty = false): Field {
  return { name, shape, omitempty };
}

export function struct(...fields: Field[]): Shape {
  return { fields };
}

export function ptr(shape: Shape): Shape {
  return { ptr: shape };
}

export function list(shape: Shape): Shape {
  return { list: shape };
}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Go's zero value of the shape. */
export function zero(shape: Shape): unknown {
  if (typeof shape === "string") {
    switch (shape) {
      case "string":
      case "time":
        return "";
      case "int32":
      case "int64":
        return 0;
      case "quantity":
        return "0";
      case "stringMap":
        return null;
    }
  }
  if ("fields" in shape) {
    const out: Obj = {};
    for (const f of shape.fields) out[f.name] = zero(f.shape);
    return out;
  }
  return null;
}

class Mismatch extends Error {}

// ---------------------------------------------------------------------------------------------
// Time: metav1.Time reads RFC 3339 and writes UTC with whole seconds; the zero time writes `null`.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const ZERO_TIME = "0001-01-01T00:00:00Z";

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/**
 * The time as Go's metav1.Time re-encodes it (UTC, whole seconds), "" for the zero time, or
 * undefined when the text is not RFC 3339.
 */
export function normalizeTime(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[7] !== undefined) {
    const oh = Number(m[8]);
    const om = Number(m[9]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[7] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute - offsetMinutes, second, 0);
  const out =
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}Z`;
  return out === ZERO_TIME ? "" : out;
}

// ---------------------------------------------------------------------------------------------
// Decoding.

function mismatch(shape: Shape, strict: boolean): unknown {
  if (strict) throw new Mismatch();
  return zero(shape);
}

function findField(fields: readonly Field[], key: string): Field | undefined {
  const exact = fields.find((f) => f.name === key);
  if (exact) return exact;
  const folded = key.toLowerCase();
  return fields.find((f) => f.name.toLowerCase() === folded);
}

function decodeScalar(shape: Scalar, json: unknown, strict: boolean): unknown {
  switch (shape) {
    case "string":
      return typeof json === "string" ? json : mismatch(shape, strict);
    case "int32":
      return Number.isInteger(json) && (json as number) >= -(2 ** 31) && (json as number) < 2 ** 31
        ? json
        : mismatch(shape, strict);
    case "int64":
      return Number.isSafeInteger(json) ? json : mismatch(shape, strict);
    case "quantity":
      try {
        return formatQuantity(quantityFromJson(json));
      } catch {
        if (strict) throw new Mismatch();
        return typeof json === "string" ? json : "0";
      }
    case "time": {
      if (typeof json !== "string") return mismatch(shape, strict);
      const normalized = normalizeTime(json);
      if (normalized !== undefined) return normalized;
      if (strict) throw new Mismatch();
      return json;
    }
    case "stringMap": {
      if (!isObj(json)) return mismatch(shape, strict);
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(json)) {
        if (v === null) out[k] = "";
        else if (typeof v === "string") out[k] = v;
        else if (strict) throw new Mismatch();
      }
      return out;
    }
  }
}

function decode(shape: Shape, json: unknown, current: unknown, strict: boolean): unknown {
  if (json === null || json === undefined) {
    // `null` clears pointers, slices and maps; Quantity and Time read it as their zero value; other
    // values are left as they were.
    if (typeof shape === "string") {
      if (shape === "stringMap") return null;
      if (shape === "quantity") return "0";
      if (shape === "time") return "";
      return current;
    }
    return "fields" in shape ? current : null;
  }
  if (typeof shape === "string") return decodeScalar(shape, json, strict);
  if ("list" in shape) {
    if (!Array.isArray(json)) return mismatch(shape, strict);
    return json.map((item) => decode(shape.list, item, zero(shape.list), strict));
  }
  if ("ptr" in shape) return decode(shape.ptr, json, current ?? zero(shape.ptr), strict);
  if (!isObj(json)) return mismatch(shape, strict);
  const out = isObj(current) ? current : (zero(shape) as Obj);
  for (const [key, value] of Object.entries(json)) {
    const f = findField(shape.fields, key);
    if (f) out[f.name] = decode(f.shape, value, out[f.name], strict);
  }
  return out;
}

/**
 * Go's `json.Unmarshal` of the text into a fresh value of the shape: undefined when the text is not
 * JSON or any value has the wrong type (upstream then ignores the whole text).
 */
export function goUnmarshal(shape: Shape, text: string): { value: unknown } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  try {
    return { value: decode(shape, parsed, zero(shape), true) };
  } catch {
    return undefined;
  }
}

/** A stored object's JSON read into the shape's Go model; values of the wrong type read as zero. */
export function readLenient(shape: Shape, json: unknown): unknown {
  return decode(shape, json, zero(shape), false);
}

// ---------------------------------------------------------------------------------------------
// Encoding.

function isEmpty(shape: Shape, value: unknown): boolean {
  if (typeof shape === "string") {
    switch (shape) {
      case "string":
        return value === "";
      case "int32":
      case "int64":
        return value === 0;
      case "stringMap":
        return !isObj(value) || Object.keys(value).length === 0;
      default:
        // Quantity and Time are structs in Go: `omitempty` never drops them.
        return false;
    }
  }
  if ("list" in shape) return !Array.isArray(value) || value.length === 0;
  if ("ptr" in shape) return value === null || value === undefined;
  return false;
}

const HEX = "0123456789abcdef";

/** A JSON string literal as Go writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped. */
export function goQuote(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26) out += `\\u00${HEX[c >> 4]}${HEX[c & 15]}`;
    else if (c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16)}`;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i]! + text[i + 1]!;
        i++;
      } else out += "\\ufffd";
    } else if (c >= 0xdc00 && c <= 0xdfff) out += "\\ufffd";
    else out += text[i]!;
  }
  return `${out}"`;
}

function encode(shape: Shape, value: unknown): string {
  if (typeof shape === "string") {
    switch (shape) {
      case "string":
        return goQuote(typeof value === "string" ? value : "");
      case "int32":
      case "int64":
        return typeof value === "number" && Number.isFinite(value) ? String(value) : "0";
      case "quantity":
        return goQuote(typeof value === "string" ? value : "0");
      case "time":
        return typeof value === "string" && value !== "" ? goQuote(value) : "null";
      case "stringMap": {
        if (!isObj(value)) return "null";
        const keys = Object.keys(value).sort();
        return `{${keys.map((k) => `${goQuote(k)}:${encode("string", value[k])}`).join(",")}}`;
      }
    }
  }
  if ("list" in shape) {
    if (!Array.isArray(value)) return "null";
    return `[${value.map((item) => encode(shape.list, item)).join(",")}]`;
  }
  if ("ptr" in shape) return value === null || value === undefined ? "null" : encode(shape.ptr, value);
  const obj = isObj(value) ? value : {};
  const parts: string[] = [];
  for (const f of shape.fields) {
    const v = obj[f.name] ?? zero(f.shape);
    if (f.omitempty && isEmpty(f.shape, v)) continue;
    parts.push(`${goQuote(f.name)}:${encode(f.shape, v)}`);
  }
  return `{${parts.join(",")}}`;
}

/** Go's `json.Marshal` of a value of the shape. */
export function goMarshal(shape: Shape, value: unknown): string {
  return encode(shape, value);
}

/**
 * The value as this server's plain JSON: what Go would write, except that nil pointers, slices
 * and maps and the zero time are left out instead of written as `null`. Undefined: nothing to write.
 */
export function toPlainJson(shape: Shape, value: unknown): unknown {
  if (typeof shape === "string") {
    if (shape === "time") return typeof value === "string" && value !== "" ? value : undefined;
    if (shape === "stringMap") return isObj(value) ? { ...value } : undefined;
    return value ?? zero(shape);
  }
  if ("list" in shape) {
    if (!Array.isArray(value)) return undefined;
    return value.map((item) => toPlainJson(shape.list, item) ?? null);
  }
  if ("ptr" in shape)
    return value === null || value === undefined ? undefined : toPlainJson(shape.ptr, value);
  const obj = isObj(value) ? value : {};
  const out: Obj = {};
  for (const f of shape.fields) {
    const v = obj[f.name] ?? zero(f.shape);
    if (f.omitempty && isEmpty(f.shape, v)) continue;
    const plain = toPlainJson(f.shape, v);
    if (plain !== undefined) out[f.name] = plain;
  }
  return out;
}
