// Small shared pieces of the kind validators: readers for plain JSON values, the error values the
// shared field-error module does not build, and the generic checks upstream repeats everywhere
// (non-negative numbers, immutable fields, DNS names).
import { asObject as obj, asString as str } from "../../common/json.ts";
import type { FieldError, FieldErrorType } from "../../registry/field-error.ts";
import { field } from "../../registry/field-error.ts";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  maxLenError,
  regexError,
} from "../../validation/names.ts";
import { okDNSLabel, okDNSSubdomain, okLabelValue, okQualifiedName } from "./fast.ts";

export type Json = Record<string, unknown>;

// The plain readers are the shared ones; the empty containers below are frozen and shared, as the
// validators read far more absent lists and objects than they write.
export { obj, str };

export const EMPTY: readonly unknown[] = Object.freeze([]);
const NO_OBJECT: Json = Object.freeze({}) as Json;

/** The value as an object, or a shared frozen empty object (never written to). */
export function objOrEmpty(v: unknown): Json {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : NO_OBJECT;
}

/** The array, or a shared empty one. */
export function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : EMPTY;
}

/** The number, or undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === "number" ? v : undefined;
}

/** A number field with Go's zero value for absent. */
export function int(v: unknown): number {
  return typeof v === "number" ? v : 0;
}

export function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** A map's entry count (0 for anything that is not an object). */
export function size(v: unknown): number {
  const o = obj(v);
  if (!o) return 0;
  let n = 0;
  for (const _ in o) n++;
  return n;
}

export const IS_NEGATIVE = "must be greater than or equal to 0";
export const NOT_POSITIVE = "must be greater than zero";
export const FIELD_IMMUTABLE = "field is immutable";

export const FIELD_VALUE_NOT_FOUND: FieldErrorType = "FieldValueNotFound";

export function notFound(path: string, value: unknown): FieldError {
  return { field: path, type: FIELD_VALUE_NOT_FOUND, value };
}

/**
 * `Required value` for a field the catalog marks required. The structural schema already reports
 * such a field when it is absent, so only a present but empty value (`""`, `[]`, `{}`, 0) is left
 * for the kind rules to flag.
 */
export function requiredIfPresent(errs: FieldError[], raw: unknown, path: string, detail?: string): void {
  if (raw !== undefined) errs.push(field.required(path, detail));
}

export function tooMany(path: string, actual: number, max: number): FieldError {
  return { field: path, type: "FieldValueTooMany", value: actual, detail: `must have at most ${max} items` };
}

/** `Too long: must have at most N bytes` with upstream's wording for a field. */
export function tooLong(path: string, max: number): FieldError {
  return field.tooLong(path, max);
}

export function inclusiveRange(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** value >= 0, for integers that upstream stores without a pointer (absent reads as 0). */
export function nonNegative(errs: FieldError[], value: unknown, path: string): void {
  if (typeof value === "number" && value < 0) errs.push(field.invalid(path, value, IS_NEGATIVE));
}

export function dnsLabel(errs: FieldError[], value: string, path: string): void {
  if (okDNSLabel(value)) return;
  for (const msg of isDNS1123Label(value)) errs.push(field.invalid(path, value, msg));
}

export function dnsSubdomain(errs: FieldError[], value: string, path: string): void {
  if (okDNSSubdomain(value)) return;
  for (const msg of isDNS1123Subdomain(value)) errs.push(field.invalid(path, value, msg));
}

/** A label value: empty, or up to 63 alphanumerics with '-', '_', '.' inside. */
export function labelValue(errs: FieldError[], value: string, path: string): void {
  if (okLabelValue(value)) return;
  for (const msg of isValidLabelValue(value)) errs.push(field.invalid(path, value, msg));
}

/** A qualified name (label keys, condition types, scheduling gates). */
export function qualifiedName(errs: FieldError[], value: string, path: string): void {
  if (okQualifiedName(value)) return;
  for (const msg of isQualifiedName(value)) errs.push(field.invalid(path, value, msg));
}

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** A DNS-1035 label (Service names, port names of some kinds); texts as upstream's. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) errs.push(regexError(DNS1035_MSG, DNS1035_FMT, "my-name", "abc-123"));
  return errs;
}

/**
 * Equality as upstream's semantic deep-equal sees decoded objects: key order does not matter, and
 * an absent value equals an empty list, an empty map, "", false and 0 (Go's zero values, which
 * the JSON decoder leaves out). Quantities are compared as written.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isZero(a) && isZero(b)) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!semanticEqual(a[i], b[i])) return false;
    return true;
  }
  const oa = obj(a);
  const ob = obj(b);
  if (!oa || !ob) return false;
  for (const k in oa) if (!semanticEqual(oa[k], ob[k])) return false;
  for (const k in ob) if (!(k in oa) && !isZero(ob[k])) return false;
  return true;
}

function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === "" || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") {
    for (const _ in v as Json) return false;
    return true;
  }
  return false;
}

/** `Invalid value: <new>: field is immutable` when the value changed (semantically). */
export function immutable(errs: FieldError[], now: unknown, old: unknown, path: string): void {
  if (!semanticEqual(now, old)) errs.push(field.invalid(path, now ?? null, FIELD_IMMUTABLE));
}

/**
 * A short, readable list of the leaves that differ between two values (`- path: old`, `+ path:
 * new`), for the Forbidden messages upstream follows with a diff of the whole spec.
 */
export function describeDiff(old: unknown, now: unknown, root: string, limit = 20): string {
  const lines: string[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (lines.length >= limit * 2 || semanticEqual(a, b)) return;
    const oa = obj(a);
    const ob = obj(b);
    if (oa && ob) {
      const keys = new Set([...Object.keys(oa), ...Object.keys(ob)]);
      for (const k of keys) walk(oa[k], ob[k], path === "" ? k : `${path}.${k}`);
      return;
    }
    if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      for (let i = 0; i < a.length; i++) walk(a[i], b[i], `${path}[${i}]`);
      return;
    }
    if (!isZero(a)) lines.push(`- ${path}: ${JSON.stringify(a)}`);
    if (!isZero(b)) lines.push(`+ ${path}: ${JSON.stringify(b)}`);
  };
  walk(old, now, root);
  return lines.join("\n");
}

/** An int-or-string JSON value's parts: a number, or a string. */
export function isIntOrStringInt(v: unknown): v is number {
  return typeof v === "number";
}
