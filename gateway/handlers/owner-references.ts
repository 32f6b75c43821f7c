// Duplicate owner references, as upstream 1.27 treats them: an entry equal to an earlier one
// (same uid and every field alike) is dropped with a Warning; entries that share a uid but differ
// are kept. Create and update do it before and after mutating admission, patch only after.
import type { RequestContext } from "../pipeline/index.ts";

const BEFORE =
  ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ";
const AFTER =
  ".metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ";

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function dedupOwnerReferences(ctx: RequestContext, object: unknown, afterAdmission: boolean): void {
  if (typeof object !== "object" || object === null) return;
  const meta = (object as Record<string, unknown>).metadata;
  if (typeof meta !== "object" || meta === null) return;
  const refs = (meta as Record<string, unknown>).ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return;
  const kept: unknown[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const ref of refs) {
    const key = canonical(ref);
    if (seen.has(key)) {
      const uid = (ref as { uid?: unknown } | null)?.uid;
      duplicates.push(typeof uid === "string" ? uid : "");
      continue;
    }
    seen.add(key);
    kept.push(ref);
  }
  if (duplicates.length === 0) return;
  (meta as Record<string, unknown>).ownerReferences = kept;
  const warning = `${afterAdmission ? AFTER : BEFORE}${duplicates.join(", ")}`;
  if (!ctx.warnings.includes(warning)) ctx.warnings.push(warning);
}
