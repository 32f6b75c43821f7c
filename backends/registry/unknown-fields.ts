// Finding (and dropping) fields a kind does not have, for `fieldValidation`.
import type { JsonObject, KnownFields } from "./strategy.ts";

function pathJoin(base: string, key: string): string {
  return base === "" ? key : `${base}.${key}`;
}

/**
 * Remove the fields of `value` that `known` does not list, and return their paths (upstream's
 * spelling: `spec.foo`, `spec.containers[0].bar`).
 */
export function pruneUnknownFields(value: unknown, known: KnownFields | true, base = ""): string[] {
  if (known === true || typeof value !== "object" || value === null) return [];
  const found: string[] = [];
  if (Array.isArray(value)) {
    const element = known["[]"];
    if (element === undefined) return [];
    value.forEach((v, i) => {
      found.push(...pruneUnknownFields(v, element, `${base}[${i}]`));
    });
    return found;
  }
  const object = value as JsonObject;
  const any = known["*"];
  for (const key of Object.keys(object)) {
    const sub = Object.hasOwn(known, key) && key !== "*" && key !== "[]" ? known[key] : any;
    if (sub === undefined) {
      found.push(pathJoin(base, key));
      delete object[key];
      continue;
    }
    found.push(...pruneUnknownFields(object[key], sub, pathJoin(base, key)));
  }
  return found;
}
