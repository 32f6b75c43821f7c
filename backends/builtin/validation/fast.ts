// Cheap acceptance tests for the name formats validated on every request. Each accepts only
// what the full check (backends/validation/names.ts) accepts, ASCII-only so that length equals
// byte length; anything they reject goes to the full check for upstream's messages.
import { type FieldError, field } from "../../registry/field-error.ts";
import { isValidLabelValue } from "../../validation/names.ts";
import { validateLabelName } from "../../validation/object-meta.ts";

const LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

export function okDNSLabel(s: string): boolean {
  return s.length <= 63 && LABEL.test(s);
}

export function okDNSSubdomain(s: string): boolean {
  return s.length <= 253 && SUBDOMAIN.test(s);
}

/** `name` or `prefix/name`, as label keys are. */
export function okQualifiedName(s: string): boolean {
  const slash = s.indexOf("/");
  if (slash < 0) return s.length <= 63 && QUALIFIED_NAME.test(s);
  if (slash === 0 || slash > 253 || s.length - slash - 1 > 63) return false;
  const name = s.slice(slash + 1);
  return QUALIFIED_NAME.test(name) && SUBDOMAIN.test(s.slice(0, slash));
}

export function okLabelValue(s: string): boolean {
  return s.length <= 63 && LABEL_VALUE.test(s);
}

/** A label map's keys and values, with the messages of the full checks for the bad ones. */
export function validateLabelMap(errs: FieldError[], labels: unknown, path: string): void {
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) return;
  const map = labels as Record<string, unknown>;
  for (const k in map) {
    const v = typeof map[k] === "string" ? (map[k] as string) : "";
    if (!okQualifiedName(k)) for (const e of validateLabelName(k, path)) errs.push(e);
    if (!okLabelValue(v)) for (const msg of isValidLabelValue(v)) errs.push(field.invalid(path, v, msg));
  }
}
