// JSON values (as decoded from a request body) to CEL values, driven by the schema's CEL type.
//
// Shapes: integer -> bigint (int64; values outside int64 are an error), number -> number (double),
// boolean -> boolean, string -> string; format byte -> Uint8Array (from base64), date and date-time
// -> Date (UTC; millisecond precision), duration -> cel-js Duration; int-or-string -> bigint or
// string; array -> Array; object with properties -> an instance of the type's CelObject subclass
// (a Map keyed by escaped property names, holding only properties the schema declares, exposes and
// that are not null); additionalProperties -> Map keyed by the raw keys. Values that do not match
// their schema are converted as if untyped (dyn) so that evaluation reports the mismatch.
// Untyped (dyn) JSON: integral numbers -> bigint when within int64, else number; objects -> Map.
import { Duration } from "@marcbachmann/cel-js/evaluator";
import { CelRuntimeError } from "./errors.ts";
import { type CelSchema, type DeclType, declTypeFromSchema } from "./schema.ts";

const MAX_INT = 9223372036854775807n;
const MIN_INT = -9223372036854775808n;

export interface CelValueOptions {
  /** The value is the root of a custom resource or an embedded resource (see declTypeFromSchema). */
  readonly isResourceRoot?: boolean;
}

/**
 * The CEL value of JSON `value` under `schema` (untyped when no schema is given). Throws
 * CelRuntimeError (`numeric_overflow`) for an integer outside int64.
 */
export function celValueFromJson(value: unknown, schema?: CelSchema, options: CelValueOptions = {}): unknown {
  if (schema === undefined) return dynValue(value);
  const type = declTypeFromSchema(schema, options.isResourceRoot === true);
  return type === undefined ? dynValue(value) : celValueOfType(value, type);
}

/** The CEL value of JSON `value` whose CEL type is `type`. */
export function celValueOfType(value: unknown, type: DeclType): unknown {
  if (value === null || value === undefined) return value;
  switch (type.kind) {
    case "object": {
      if (!isJsonObject(value)) return dynValue(value);
      const out = new type.ctor();
      for (const field of type.fields.values()) {
        if (!Object.hasOwn(value, field.jsonName)) continue;
        const v = value[field.jsonName];
        if (v === null || v === undefined) continue;
        out.set(field.celName, celValueOfType(v, field.type));
      }
      return out;
    }
    case "map": {
      if (!isJsonObject(value)) return dynValue(value);
      const out = new Map<string, unknown>();
      for (const [k, v] of Object.entries(value)) out.set(k, celValueOfType(v, type.values));
      return out;
    }
    case "list":
      if (!Array.isArray(value)) return dynValue(value);
      return value.map((v) => celValueOfType(v, type.items));
    case "int":
      return typeof value === "number" || typeof value === "bigint" ? toInt64(value) : dynValue(value);
    case "double":
      if (typeof value === "number") return value;
      return typeof value === "bigint" ? Number(value) : dynValue(value);
    case "bytes":
      return typeof value === "string" ? (bytesFromBase64(value) ?? value) : dynValue(value);
    case "timestamp":
      return typeof value === "string" ? (parseTimestamp(value, type.dateOnly) ?? value) : dynValue(value);
    case "duration":
      return typeof value === "string" ? (parseGoDuration(value) ?? value) : dynValue(value);
    default:
      return dynValue(value);
  }
}

/** Untyped JSON to CEL: numbers that are integers and fit int64 become int, other numbers double. */
export function dynValue(value: unknown): unknown {
  switch (typeof value) {
    case "number":
      if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) return BigInt(value);
      return value;
    case "bigint":
      return value >= MIN_INT && value <= MAX_INT ? value : Number(value);
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map(dynValue);
      if (!isJsonObject(value)) return value;
      const out = new Map<string, unknown>();
      for (const [k, v] of Object.entries(value)) out.set(k, dynValue(v));
      return out;
    }
    default:
      return value;
  }
}

function isJsonObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function toInt64(v: number | bigint): bigint | number {
  if (typeof v === "number" && !Number.isInteger(v)) return v;
  const i = typeof v === "bigint" ? v : BigInt(v);
  if (i > MAX_INT || i < MIN_INT) {
    throw new CelRuntimeError("numeric_overflow", `integer overflow: ${String(v)} does not fit int64`);
  }
  return i;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function bytesFromBase64(s: string): Uint8Array | undefined {
  if (!BASE64.test(s)) return undefined;
  return new Uint8Array(Buffer.from(s, "base64"));
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** An RFC 3339 date (`dateOnly`) or date-time as a Date, or undefined if malformed. */
export function parseTimestamp(s: string, dateOnly: boolean): Date | undefined {
  const m = (dateOnly ? DATE : DATE_TIME).exec(s);
  if (m === null) return undefined;
  const [y, mo, d, h = 0, mi = 0, sec = 0] = m.slice(1, 7).map((x) => Number(x ?? 0));
  if (y === undefined || mo === undefined || d === undefined) return undefined;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return undefined;
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  let t = Date.UTC(y, mo - 1, d, h, mi, Math.min(sec, 59), ms);
  if (new Date(t).getUTCDate() !== d) return undefined;
  if (m[9] !== undefined) {
    const offset = (Number(m[10]) * 60 + Number(m[11])) * 60_000;
    t += m[9] === "+" ? -offset : offset;
  }
  return new Date(t);
}

const UNIT_NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const DURATION_PART = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
const MAX_DURATION_NANOS = MAX_INT;

/** A Go duration string ("1h30m", "-1.5s", "0") as a Duration, or undefined if malformed. */
export function parseGoDuration(input: string): Duration | undefined {
  let s = input;
  let negative = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    negative = s.startsWith("-");
    s = s.slice(1);
  }
  if (s === "0") return new Duration(0, 0);
  if (s === "") return undefined;
  let total = 0n;
  while (s !== "") {
    const m = DURATION_PART.exec(s);
    if (m === null) return undefined;
    const [whole, int = "", frac = "", unit = ""] = m;
    if (int === "" && frac === "") return undefined;
    const scale = UNIT_NANOS[unit];
    if (scale === undefined) return undefined;
    total += BigInt(int || "0") * scale;
    if (frac !== "") total += (BigInt(frac.slice(0, 18).padEnd(18, "0")) * scale) / 10n ** 18n;
    if (total > MAX_DURATION_NANOS) return undefined;
    s = s.slice(whole.length);
  }
  const seconds = total / 1_000_000_000n;
  const nanos = Number(total % 1_000_000_000n);
  return negative ? new Duration(-seconds, -nanos) : new Duration(seconds, nanos);
}
