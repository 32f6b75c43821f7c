// Compute resources: which names a container may request, the values they may take, and how a
// container's requests relate to its limits.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  type Quantity,
  quantityFromJson,
} from "../../schema/structural/quantity.ts";
import { isQualifiedName } from "../../validation/names.ts";
import { IS_NEGATIVE, NOT_POSITIVE, obj } from "./util.ts";

const STANDARD_CONTAINER = new Set(["cpu", "memory", "ephemeral-storage"]);
const STANDARD = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "persistentvolumeclaims",
  "storage",
  "requests.storage",
  "services.nodeports",
  "services.loadbalancers",
]);
const INTEGER = new Set([
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
]);
const HUGEPAGES = "hugepages-";
const REQUESTS_PREFIX = "requests.";

/** The quantity of a JSON value, or undefined when it is not one (the schema reports that). */
export function quantityOf(v: unknown): Quantity | undefined {
  if (v === undefined || v === null) return undefined;
  try {
    return quantityFromJson(v);
  } catch {
    return undefined;
  }
}

/** Upstream's canonical spelling of a quantity, as its messages print it. */
export function quantityText(q: Quantity): string {
  return formatQuantity(q);
}

const ZERO = parseQuantity("0");

export function sign(q: Quantity): -1 | 0 | 1 {
  return compareQuantities(q, ZERO);
}

/** The value rounded up to a whole number of units (upstream's Value()). */
function ceilValue(q: Quantity, milli = false): bigint {
  const scale = q.scale - (milli ? 3 : 0);
  if (scale <= 0) return q.unscaled * 10n ** BigInt(-scale);
  const div = 10n ** BigInt(scale);
  const quotient = q.unscaled / div;
  return quotient * div === q.unscaled || q.unscaled < 0n ? quotient : quotient + 1n;
}

/** Names that belong to the product itself: no domain, or the product's own domain. */
export function isNativeResource(name: string, naming: Naming): boolean {
  return !name.includes("/") || name.includes(`${naming.labelDomain}/`);
}

export function isHugePageResource(name: string): boolean {
  return name.startsWith(HUGEPAGES);
}

export function isExtendedResource(name: string, naming: Naming): boolean {
  if (isNativeResource(name, naming) || name.startsWith(REQUESTS_PREFIX)) return false;
  return isQualifiedName(REQUESTS_PREFIX + name).length === 0;
}

/** Requests may be below limits (everything but extended resources and huge pages). */
export function isOvercommitAllowed(name: string, naming: Naming): boolean {
  return isNativeResource(name, naming) && !isHugePageResource(name);
}

function isStandardResourceName(name: string): boolean {
  return (
    STANDARD.has(name) || name.startsWith(HUGEPAGES) || name.startsWith(`${REQUESTS_PREFIX}${HUGEPAGES}`)
  );
}

/** A resource name of any kind: qualified, and standard when it has no domain. */
export function validateResourceName(errs: FieldError[], name: string, path: string): boolean {
  let ok = true;
  for (const msg of isQualifiedName(name)) {
    errs.push(field.invalid(path, name, msg));
    ok = false;
  }
  if (!ok) return false;
  if (!name.includes("/") && !isStandardResourceName(name)) {
    errs.push(field.invalid(path, name, "must be a standard resource type or fully qualified"));
    return false;
  }
  return true;
}

/** A resource name a container may request or limit. */
export function validateContainerResourceName(
  errs: FieldError[],
  name: string,
  path: string,
  naming: Naming,
): void {
  validateResourceName(errs, name, path);
  if (!name.includes("/")) {
    if (!STANDARD_CONTAINER.has(name) && !isHugePageResource(name))
      errs.push(field.invalid(path, name, "must be a standard resource for containers"));
  } else if (!isNativeResource(name, naming) && !isExtendedResource(name, naming)) {
    errs.push(field.invalid(path, name, "doesn't follow extended resource name standard"));
  }
}

/** Non-negative, and whole for countable resources. */
export function validateResourceQuantityValue(
  errs: FieldError[],
  name: string,
  q: Quantity,
  path: string,
  naming: Naming,
): void {
  if (sign(q) < 0) errs.push(field.invalid(path, quantityText(q), IS_NEGATIVE));
  if ((INTEGER.has(name) || isExtendedResource(name, naming)) && ceilValue(q, true) % 1000n !== 0n) {
    errs.push(field.invalid(path, quantityText(q), "must be an integer"));
  }
}

export function validatePositiveQuantity(errs: FieldError[], q: Quantity, path: string): void {
  if (sign(q) <= 0) errs.push(field.invalid(path, quantityText(q), NOT_POSITIVE));
}

function hugePageDivisible(name: string, q: Quantity): boolean {
  let page: Quantity;
  try {
    page = parseQuantity(name.slice(HUGEPAGES.length));
  } catch {
    return false;
  }
  if (sign(page) <= 0 || ceilValue(page, true) % 1000n !== 0n) return false;
  const size = ceilValue(page);
  return size !== 0n && ceilValue(q) % size === 0n;
}

// Most quantities are small whole numbers with a common suffix; those are compared as exact
// thousandths in plain numbers, the rest through the exact parser.
const DECIMAL_MILLI: Readonly<Record<string, number>> = { m: 1, k: 1e6, M: 1e9, G: 1e12, T: 1e15 };
const BINARY_MILLI: Readonly<Record<string, number>> = {
  K: 1024e3,
  M: 1048576e3,
  G: 1073741824e3,
  T: 1099511627776e3,
};

/** The value in thousandths when it is a simple quantity and that is an exact safe integer. */
export function milliOf(v: unknown): number | undefined {
  if (typeof v === "number") {
    const m = v * 1000;
    return Number.isInteger(v) && Number.isSafeInteger(m) ? m : undefined;
  }
  if (typeof v !== "string") return undefined;
  const len = v.length;
  let n = 0;
  let i = 0;
  for (; i < len; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  if (i === 0 || i > 12) return undefined;
  let mult: number | undefined;
  if (i === len) mult = 1000;
  else if (len - i === 1) mult = DECIMAL_MILLI[v[i]!];
  else if (len - i === 2 && v.charCodeAt(i + 1) === 105) mult = BINARY_MILLI[v[i]!];
  if (mult === undefined) return undefined;
  const m = n * mult;
  return Number.isSafeInteger(m) ? m : undefined;
}

/** -1, 0 or 1 comparing two quantity JSON values (undefined when either is not a quantity). */
function compareValues(a: unknown, b: unknown): number | undefined {
  const ma = milliOf(a);
  const mb = milliOf(b);
  if (ma !== undefined && mb !== undefined) return ma < mb ? -1 : ma > mb ? 1 : 0;
  const qa = quantityOf(a);
  const qb = quantityOf(b);
  return qa && qb ? compareQuantities(qa, qb) : undefined;
}

function textOf(v: unknown): string {
  const q = quantityOf(v);
  return q ? quantityText(q) : String(v);
}

/** A quantity value's checks: non-negative, and whole for countable resources. */
function validateValue(errs: FieldError[], name: string, v: unknown, path: string, naming: Naming): void {
  const milli = milliOf(v);
  if (milli !== undefined) {
    // Simple quantities are never negative; only countable resources need a look.
    if (milli % 1000 !== 0 && (INTEGER.has(name) || isExtendedResource(name, naming)))
      errs.push(field.invalid(path, textOf(v), "must be an integer"));
    return;
  }
  const q = quantityOf(v);
  if (q) validateResourceQuantityValue(errs, name, q, path, naming);
}

function hugePageValue(errs: FieldError[], name: string, v: unknown, path: string): void {
  const q = quantityOf(v);
  if (q && !hugePageDivisible(name, q))
    errs.push(
      field.invalid(path, quantityText(q), `${quantityText(q)} is not positive integer multiple of ${name}`),
    );
}

function checkResourceName(errs: FieldError[], name: string, path: string, naming: Naming): void {
  if (STANDARD_CONTAINER.has(name)) return;
  validateContainerResourceName(errs, name, path, naming);
}

/**
 * A container's `resources` (or a pod's overhead, as limits only): names, values, requests not
 * above limits (equal for resources that cannot be overcommitted), and huge pages' rules.
 */
export function validateResourceRequirements(
  errs: FieldError[],
  resources: unknown,
  path: string,
  naming: Naming,
): void {
  const r = obj(resources);
  if (!r) return;
  const limits = obj(r.limits);
  const requests = obj(r.requests);
  let limCpuOrMemory = false;
  let reqCpuOrMemory = false;
  let limHugePages = false;
  let reqHugePages = false;
  if (limits) {
    for (const name in limits) {
      const p = `${path}.limits[${name}]`;
      checkResourceName(errs, name, p, naming);
      validateValue(errs, name, limits[name], p, naming);
      if (isHugePageResource(name)) {
        limHugePages = true;
        hugePageValue(errs, name, limits[name], p);
      }
      if (name === "cpu" || name === "memory") limCpuOrMemory = true;
    }
  }
  if (requests) {
    for (const name in requests) {
      const value = requests[name];
      const p = `${path}.requests[${name}]`;
      checkResourceName(errs, name, p, naming);
      validateValue(errs, name, value, p, naming);
      const limit = limits?.[name];
      if (limit !== undefined) {
        const cmp = compareValues(value, limit);
        if (cmp !== undefined && cmp !== 0 && !isOvercommitAllowed(name, naming)) {
          errs.push(
            field.invalid(
              `${path}.requests`,
              textOf(value),
              `must be equal to ${name} limit of ${textOf(limit)}`,
            ),
          );
        } else if (cmp !== undefined && cmp > 0) {
          errs.push(
            field.invalid(
              `${path}.requests`,
              textOf(value),
              `must be less than or equal to ${name} limit of ${textOf(limit)}`,
            ),
          );
        }
      } else if (!isOvercommitAllowed(name, naming)) {
        errs.push(field.required(`${path}.limits`, "Limit must be set for non overcommitable resources"));
      }
      if (isHugePageResource(name)) {
        reqHugePages = true;
        hugePageValue(errs, name, value, p);
      }
      if (name === "cpu" || name === "memory") reqCpuOrMemory = true;
    }
  }
  if (!limCpuOrMemory && !reqCpuOrMemory && (reqHugePages || limHugePages)) {
    errs.push(field.forbidden(path, "HugePages require cpu or memory"));
  }
}
