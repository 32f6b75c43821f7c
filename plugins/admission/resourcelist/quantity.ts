// Quantity arithmetic for quota and limit ranges on top of the shared parser: sums, differences,
// upstream's rounded integer views (Value, MilliValue) and resource lists keyed by resource name.
import {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  type Quantity,
  QuantityError,
  quantityFromJson,
} from "../../../backends/schema/structural/index.ts";

export type { Quantity };
export { compareQuantities, formatQuantity, parseQuantity };

/** Resource name → quantity, in insertion order. */
export type ResourceList = Map<string, Quantity>;

export const ZERO: Quantity = parseQuantity("0");

export function quantity(n: number | bigint): Quantity {
  return { unscaled: BigInt(n), scale: 0, format: "DecimalSI" };
}

export function isZero(q: Quantity): boolean {
  return q.unscaled === 0n;
}

export function sign(q: Quantity): -1 | 0 | 1 {
  return q.unscaled === 0n ? 0 : q.unscaled < 0n ? -1 : 1;
}

function aligned(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.unscaled * 10n ** BigInt(scale - a.scale), b.unscaled * 10n ** BigInt(scale - b.scale), scale];
}

// Upstream keeps the receiver's format, except that a zero receiver takes the other's.
function resultFormat(a: Quantity, b: Quantity): Quantity["format"] {
  return isZero(a) ? b.format : a.format;
}

export function add(a: Quantity, b: Quantity): Quantity {
  const [x, y, scale] = aligned(a, b);
  return { unscaled: x + y, scale, format: resultFormat(a, b) };
}

export function subtract(a: Quantity, b: Quantity): Quantity {
  const [x, y, scale] = aligned(a, b);
  return { unscaled: x - y, scale, format: resultFormat(a, b) };
}

export function negate(q: Quantity): Quantity {
  return { unscaled: -q.unscaled, scale: q.scale, format: q.format };
}

/** ceil(q × 10^shift) as an integer: upstream's Value() (shift 0) and MilliValue() (shift 3). */
export function scaledCeil(q: Quantity, shift: number): bigint {
  const scale = q.scale - shift;
  if (scale <= 0) return q.unscaled * 10n ** BigInt(-scale);
  const div = 10n ** BigInt(scale);
  const quotient = q.unscaled / div;
  return quotient * div === q.unscaled || q.unscaled < 0n ? quotient : quotient + 1n;
}

/** Rounds up to a whole number (upstream's RoundUp(0)). */
export function roundUpToInteger(q: Quantity): Quantity {
  if (q.scale <= 0) return q;
  return { unscaled: scaledCeil(q, 0), scale: 0, format: q.format };
}

/** The canonical spelling upstream prints (`500m`, `1Gi`). */
export function text(q: Quantity): string {
  return formatQuantity(q);
}

/** A quantity from JSON; throws QuantityError (with upstream's message) when it is not one. */
export function fromJson(value: unknown): Quantity {
  return quantityFromJson(value);
}

export { QuantityError };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A JSON resource map (`{cpu: "1", memory: "1Gi"}`) as a ResourceList; `where` names it in the
 * error thrown for a value that is not a quantity. Absent or null reads as empty.
 */
export function resourceList(value: unknown, where: string): ResourceList {
  const out: ResourceList = new Map();
  if (value === undefined || value === null) return out;
  if (!isObject(value)) throw new QuantityError(`${where}: must be an object`);
  for (const [name, v] of Object.entries(value)) {
    try {
      out.set(name, fromJson(v));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new QuantityError(`${where}[${name}]: ${why}`);
    }
  }
  return out;
}

/** A ResourceList as JSON, canonically spelled. */
export function toJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of list) out[k] = text(v);
  return out;
}
