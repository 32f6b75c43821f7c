// Resource quantities (`100m`, `1Gi`, `1e3`) with upstream's parsing, error texts, exact values
// and canonical spelling. A value is kept exactly as `unscaled × 10^-scale` with bigint digits, so
// huge exponents never expand into huge numbers unless a comparison really needs the digits.

export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

export interface Quantity {
  /** The digits, with sign. */
  readonly unscaled: bigint;
  /** The value is `unscaled × 10^-scale`. */
  readonly scale: number;
  readonly format: QuantityFormat;
  /** Upstream keeps the input as the canonical text when it already is one (e.g. `100m`, `+1`). */
  readonly text?: string;
}

export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_NUMERIC_ERROR = "unable to parse numeric part of quantity";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

export class QuantityError extends Error {}

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);
const DECIMAL_SUFFIX_BY_EXPONENT: ReadonlyMap<number, string> = new Map(
  [...DECIMAL_SUFFIXES].map(([s, e]) => [e, s]),
);
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60],
]);
const BINARY_SUFFIX_BY_EXPONENT: ReadonlyMap<number, string> = new Map(
  [...BINARY_SUFFIXES].map(([s, e]) => [e, s]),
);
const SUFFIX_CHARS = "eEinumkKMGTP";
const NANO_SCALE = 9;
const MAX_INT64 = (1n << 63n) - 1n;
const INT64_DIGITS = 18;

const ZERO: Quantity = { unscaled: 0n, scale: 0, format: "DecimalSI", text: "0" };

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

interface Pieces {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

// Splits sign, whole digits, fraction digits and suffix the way upstream's scanner does, including
// its leniencies (`1.G`, a lone `+` reading as zero).
function scan(str: string): Pieces {
  const end = str.length;
  let positive = true;
  let pos = 0;
  if (str[0] === "-") {
    positive = false;
    pos++;
  } else if (str[0] === "+") {
    pos++;
  }
  while (true) {
    if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
    if (str[pos] !== "0") break;
    pos++;
  }
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: "", suffix: "" };
  let num = str.slice(pos, i);
  pos = i;
  if (num === "") num = "0";
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: "" };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos] as string)) pos++;
  if (pos >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  if (str[pos] === "-" || str[pos] === "+") pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(suffix: string): Suffix | undefined {
  const dec = DECIMAL_SUFFIXES.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: "DecimalSI" };
  const bin = BINARY_SUFFIXES.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const digits = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    const parsed = BigInt(digits);
    if (parsed > MAX_INT64 || parsed < -MAX_INT64 - 1n) return undefined;
    // Upstream narrows the parsed exponent to 32 bits.
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: "DecimalExponent" };
  }
  return undefined;
}

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/** Parses a quantity; throws QuantityError with upstream's message when the text is not one. */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  if (str === "0") return ZERO;
  const { positive, value, num, denom, suffix } = scan(str);
  const sfx = interpretSuffix(suffix);
  if (!sfx) throw new QuantityError(QUANTITY_SUFFIX_ERROR);
  const { base, exponent } = sfx;
  let format = sfx.format;

  // Upstream's small-number path keeps the input text when it is already canonical.
  let text: string | undefined;
  let fast = false;
  const shifted = num + denom;
  const precision =
    format === "BinarySI"
      ? exponent >= 0 && denom.length === 0
        ? 15 - num.length - Math.trunc(Math.fround((exponent * 3) / 10)) - 1
        : -1
      : INT64_DIGITS - (num.length + denom.length);
  const fastScale = (format === "BinarySI" ? 0 : exponent) - denom.length;
  if (precision >= 0 && fastScale >= -NANO_SCALE) {
    const digits = BigInt(shifted);
    const result = format === "BinarySI" ? digits << BigInt(exponent) : digits;
    if (result <= MAX_INT64) {
      fast = true;
      const canonical =
        format === "BinarySI"
          ? exponent % 10 === 0 && (digits & 7n) !== 0n
          : fastScale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
      if (canonical) text = str;
    }
  }

  // Only the exact (big number) path reads the digits as a decimal and can fail on them.
  if (!fast && !/[0-9]/.test(value)) throw new QuantityError(QUANTITY_NUMERIC_ERROR);
  let unscaled = BigInt(shifted);
  let scale = denom.length;
  if (base === 10) scale -= exponent;
  else unscaled <<= BigInt(exponent);

  // Amounts finer than 1n round up (away from zero) to 1n: asking for some gives some.
  if (unscaled !== 0n && scale > NANO_SCALE) {
    const drop = scale - NANO_SCALE;
    if (digitCount(unscaled) <= drop) unscaled = 1n;
    else {
      const divisor = 10n ** BigInt(drop);
      const q = unscaled / divisor;
      unscaled = q * divisor === unscaled ? q : q + 1n;
    }
    scale = NANO_SCALE;
  }
  if (format === "BinarySI") {
    if (compareMagnitude(unscaled, scale, MAX_INT64, 0) > 0) {
      unscaled = MAX_INT64;
      scale = 0;
    }
    if (unscaled !== 0n && compareMagnitude(unscaled, scale, 1n, 0) < 0) format = "DecimalSI";
  }
  if (!positive) unscaled = -unscaled;
  return text === undefined ? { unscaled, scale, format } : { unscaled, scale, format, text };
}

/**
 * The parse error's message, or undefined for a valid quantity. Cheaper than parseQuantity: it
 * decides validity without computing the value.
 */
export function quantityError(str: string): string | undefined {
  if (str.length === 0) return QUANTITY_FORMAT_ERROR;
  if (str === "0") return undefined;
  let pieces: Pieces;
  try {
    pieces = scan(str);
  } catch (e) {
    if (e instanceof QuantityError) return e.message;
    throw e;
  }
  const sfx = interpretSuffix(pieces.suffix);
  if (!sfx) return QUANTITY_SUFFIX_ERROR;
  if (/[0-9]/.test(pieces.value)) return undefined;
  // Without digits the number reads as 0: only the exact path (taken for very small scales or
  // large binary suffixes) fails on it.
  const precision =
    sfx.format === "BinarySI"
      ? sfx.exponent >= 0 && pieces.denom.length === 0
        ? 15 - pieces.num.length - Math.trunc(Math.fround((sfx.exponent * 3) / 10)) - 1
        : -1
      : INT64_DIGITS - (pieces.num.length + pieces.denom.length);
  const fastScale = (sfx.format === "BinarySI" ? 0 : sfx.exponent) - pieces.denom.length;
  return precision >= 0 && fastScale >= -NANO_SCALE ? undefined : QUANTITY_NUMERIC_ERROR;
}

/** A JSON value as upstream's Quantity decoder reads it: a (trimmed) string or a number's text. */
export function quantityFromJson(value: unknown): Quantity {
  if (typeof value === "string") return parseQuantity(value.trim());
  if (typeof value === "number" && Number.isFinite(value)) return parseQuantity(JSON.stringify(value));
  throw new QuantityError(QUANTITY_FORMAT_ERROR);
}

// Compares |a|·10^-sa with |b|·10^-sb without expanding far-apart exponents.
function compareMagnitude(a: bigint, sa: number, b: bigint, sb: number): number {
  const ma = a < 0n ? -a : a;
  const mb = b < 0n ? -b : b;
  if (ma === 0n || mb === 0n) return ma === mb ? 0 : ma === 0n ? -1 : 1;
  const orderA = digitCount(ma) - sa;
  const orderB = digitCount(mb) - sb;
  if (orderA !== orderB) return orderA < orderB ? -1 : 1;
  // Same order of magnitude: the scales differ by at most the digit counts.
  const x = sa < sb ? ma * 10n ** BigInt(sb - sa) : ma;
  const y = sb < sa ? mb * 10n ** BigInt(sa - sb) : mb;
  return x === y ? 0 : x < y ? -1 : 1;
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const signA = a.unscaled === 0n ? 0 : a.unscaled < 0n ? -1 : 1;
  const signB = b.unscaled === 0n ? 0 : b.unscaled < 0n ? -1 : 1;
  if (signA !== signB) return signA < signB ? -1 : 1;
  if (signA === 0) return 0;
  const c = compareMagnitude(a.unscaled, a.scale, b.unscaled, b.scale);
  const r = signA < 0 ? -c : c;
  return r < 0 ? -1 : r > 0 ? 1 : 0;
}

function stripFactors(value: bigint, base: bigint): [bigint, number] {
  let times = 0;
  while (value !== 0n && value % base === 0n) {
    value /= base;
    times++;
  }
  return [value, times];
}

/** The canonical spelling upstream serializes: `1536Mi`, `500m`, `1e3`, `0`. */
export function formatQuantity(q: Quantity): string {
  if (q.text !== undefined) return q.text;
  if (q.unscaled === 0n) return "0";
  let format = q.format;
  if (format === "BinarySI") {
    const inSmallRange = compareMagnitude(q.unscaled, q.scale, 1024n, 0) < 0;
    if (inSmallRange) format = "DecimalSI";
    else if (q.scale > 0 && q.unscaled % 10n ** BigInt(q.scale) !== 0n) format = "DecimalSI";
  }
  if (format === "BinarySI") {
    const whole = q.scale >= 0 ? q.unscaled / 10n ** BigInt(q.scale) : q.unscaled * 10n ** BigInt(-q.scale);
    const [amount, times] = stripFactors(whole, 1024n);
    return `${amount}${BINARY_SUFFIX_BY_EXPONENT.get(times * 10) ?? ""}`;
  }
  let [amount, times] = stripFactors(q.unscaled, 10n);
  let exponent = -q.scale + times;
  while (exponent % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  if (format === "DecimalExponent") return exponent === 0 ? `${amount}` : `${amount}e${exponent}`;
  // Upstream writes no suffix when the exponent is beyond the table (e.g. 1000E); kept as is.
  return `${amount}${DECIMAL_SUFFIX_BY_EXPONENT.get(exponent) ?? ""}`;
}

/** parse + format: how a built-in kind stores a quantity. */
export function canonicalQuantity(str: string): string {
  return formatQuantity(parseQuantity(str));
}

/** The nearest float64, for display and rough arithmetic only. */
export function quantityToNumber(q: Quantity): number {
  if (q.unscaled === 0n) return 0;
  return Number(`${q.unscaled}e${-q.scale}`);
}
