// Which checks a level and version run, in upstream's order (baseline ids sorted, then
// restricted ids sorted), and how their results read when combined.
import { BASELINE_CHECKS } from "./baseline.ts";
import type { Check, CheckFn, CheckKeys, CheckResult, VersionedCheck } from "./check.ts";
import { byCodeUnit } from "./format.ts";
import type { LevelVersion } from "./levels.ts";
import type { PodView } from "./pod-spec.ts";
import { RESTRICTED_CHECKS } from "./restricted.ts";

const ALL_CHECKS: readonly Check[] = [...BASELINE_CHECKS, ...RESTRICTED_CHECKS];

/** The newest version any check changes at; newer versions and `latest` evaluate as this one. */
export const MAX_VERSION = Math.max(
  ...ALL_CHECKS.map((c) => c.versions[c.versions.length - 1]?.minimumVersion ?? 0),
);

const ORDER = [
  ...BASELINE_CHECKS.map((c) => c.id).sort(byCodeUnit),
  ...RESTRICTED_CHECKS.map((c) => c.id).sort(byCodeUnit),
];

function activeAt(check: Check, minor: number): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const v of check.versions) if (v.minimumVersion <= minor) found = v;
  return found;
}

function checksFor(level: "baseline" | "restricted", minor: number): CheckFn[] {
  const active = new Map<string, VersionedCheck>();
  for (const c of BASELINE_CHECKS) {
    const v = activeAt(c, minor);
    if (v) active.set(c.id, v);
  }
  if (level === "restricted") {
    for (const c of RESTRICTED_CHECKS) {
      const v = activeAt(c, minor);
      if (!v) continue;
      active.set(c.id, v);
      for (const id of v.overrides ?? []) active.delete(id);
    }
  }
  return ORDER.flatMap((id) => {
    const v = active.get(id);
    return v ? [v.check] : [];
  });
}

const tables = {
  baseline: Array.from({ length: MAX_VERSION + 1 }, (_, minor) => checksFor("baseline", minor)),
  restricted: Array.from({ length: MAX_VERSION + 1 }, (_, minor) => checksFor("restricted", minor)),
};

/** The ids of the checks a level and version run (for tests and diagnostics). */
export function checkIds(lv: LevelVersion): string[] {
  if (lv.level === "privileged") return [];
  const minor = lv.version === "latest" ? MAX_VERSION : Math.min(lv.version, MAX_VERSION);
  const active = new Set(tables[lv.level][minor]);
  return ORDER.filter((id) => {
    const check = ALL_CHECKS.find((c) => c.id === id);
    const v = check && activeAt(check, minor);
    return v !== undefined && active.has(v.check);
  });
}

export interface Verdict {
  readonly allowed: boolean;
  readonly reasons: readonly string[];
  readonly details: readonly string[];
}

export function evaluate(lv: LevelVersion, pod: PodView, keys: CheckKeys): Verdict {
  if (lv.level === "privileged") return { allowed: true, reasons: [], details: [] };
  const minor = lv.version === "latest" ? MAX_VERSION : Math.min(lv.version, MAX_VERSION);
  const results: CheckResult[] = tables[lv.level][minor]?.map((check) => check(pod, keys)) ?? [];
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.reason || "unknown forbidden reason");
    details.push(r.detail);
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** `reason (detail), reason (detail)`: what denials and warnings say. */
export function verdictDetail(v: Verdict): string {
  return v.reasons.map((r, i) => (v.details[i] ? `${r} (${v.details[i]})` : r)).join(", ");
}

/** `reason, reason`: what namespace label changes report per pod. */
export function verdictReasons(v: Verdict): string {
  return v.reasons.join(", ");
}
