// Pod Security Standards levels and versions, and the policy a namespace's labels select
// (upstream's pod-security-admission api package).
import { type FieldError, field } from "../../../backends/registry/index.ts";

export type Level = "privileged" | "baseline" | "restricted";

export const LEVELS: readonly Level[] = ["privileged", "baseline", "restricted"];

/** A minor version of v1, or `latest` (newer than every numbered version). */
export type Version = number | "latest";

export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}

export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

export const LATEST: LevelVersion = { level: "privileged", version: "latest" };

export const PRIVILEGED_POLICY: Policy = { enforce: LATEST, audit: LATEST, warn: LATEST };

const LEVEL_ERROR = `must be one of ${LEVELS.join(", ")}`;
const VERSION_ERROR = 'must be "latest" or "v1.x"';
const VERSION_PATTERN = /^v1\.([0-9]|[1-9][0-9]*)$/;

export function isLevel(value: unknown): value is Level {
  return typeof value === "string" && (LEVELS as readonly string[]).includes(value);
}

/** The level, or the error text upstream gives for anything else. */
export function parseLevel(value: string): { level: Level } | { error: string } {
  return isLevel(value) ? { level: value } : { error: LEVEL_ERROR };
}

export function parseVersion(value: string): { version: Version } | { error: string } {
  if (value === "latest") return { version: "latest" };
  const match = VERSION_PATTERN.exec(value);
  if (!match) return { error: VERSION_ERROR };
  const minor = Number(match[1]);
  return Number.isSafeInteger(minor) ? { version: minor } : { error: VERSION_ERROR };
}

export function versionString(v: Version): string {
  return v === "latest" ? "latest" : `v1.${v}`;
}

/** `restricted:v1.25`, `baseline:latest`. */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version === b.version;
}

/** Two privileged levels are the same whatever their versions. */
function equivalent(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === "privileged" && b.level === "privileged") || sameLevelVersion(a, b);
}

export function equivalentPolicies(a: Policy, b: Policy): boolean {
  return equivalent(a.enforce, b.enforce) && equivalent(a.audit, b.audit) && equivalent(a.warn, b.warn);
}

export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === "privileged" && p.audit.level === "privileged" && p.warn.level === "privileged";
}

/** Negative, zero or positive as `a` is less, as or more strict than `b`. */
export function compareLevels(a: Level, b: Level): number {
  return LEVELS.indexOf(a) - LEVELS.indexOf(b);
}

/** The namespace label keys under the naming preset's domain. */
export interface PolicyLabels {
  readonly enforce: string;
  readonly enforceVersion: string;
  readonly audit: string;
  readonly auditVersion: string;
  readonly warn: string;
  readonly warnVersion: string;
}

export function policyLabels(label: (name: string, subdomain?: string) => string): PolicyLabels {
  return {
    enforce: label("enforce", "pod-security"),
    enforceVersion: label("enforce-version", "pod-security"),
    audit: label("audit", "pod-security"),
    auditVersion: label("audit-version", "pod-security"),
    warn: label("warn", "pod-security"),
    warnVersion: label("warn-version", "pod-security"),
  };
}

/**
 * The policy a namespace's labels select over the configured defaults, and the label errors.
 * A bad enforce level enforces restricted (fail closed); bad audit or warn levels turn those
 * modes off (fail open); bad versions mean latest. Enforcing stricter than the warn level
 * without an explicit warn label warns at the enforce level too.
 */
export function policyFromLabels(
  labels: Readonly<Record<string, unknown>> | undefined,
  defaults: Policy,
  keys: PolicyLabels,
): { policy: Policy; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (!labels || Object.keys(labels).length === 0) return { policy: defaults, errors };
  let { enforce, audit, warn } = defaults;
  const has = (key: string) => Object.hasOwn(labels, key) && typeof labels[key] === "string";
  const text = (key: string) => labels[key] as string;
  const fail = (key: string, message: string) =>
    errors.push(field.invalid(`metadata.labels[${key}]`, text(key), message));

  let hasEnforceLevel = false;
  if (has(keys.enforce)) {
    const parsed = parseLevel(text(keys.enforce));
    if ("level" in parsed) {
      enforce = { ...enforce, level: parsed.level };
      hasEnforceLevel = true;
    } else {
      enforce = { ...enforce, level: "restricted" };
      fail(keys.enforce, parsed.error);
    }
  }
  if (has(keys.enforceVersion)) {
    const parsed = parseVersion(text(keys.enforceVersion));
    enforce = { ...enforce, version: "version" in parsed ? parsed.version : "latest" };
    if ("error" in parsed) fail(keys.enforceVersion, parsed.error);
  }
  if (has(keys.audit)) {
    const parsed = parseLevel(text(keys.audit));
    audit = { ...audit, level: "level" in parsed ? parsed.level : "privileged" };
    if ("error" in parsed) fail(keys.audit, parsed.error);
  }
  if (has(keys.auditVersion)) {
    const parsed = parseVersion(text(keys.auditVersion));
    audit = { ...audit, version: "version" in parsed ? parsed.version : "latest" };
    if ("error" in parsed) fail(keys.auditVersion, parsed.error);
  }
  const hasWarnLevel = has(keys.warn);
  const hasWarnVersion = has(keys.warnVersion);
  if (hasWarnLevel) {
    const parsed = parseLevel(text(keys.warn));
    warn = { ...warn, level: "level" in parsed ? parsed.level : "privileged" };
    if ("error" in parsed) fail(keys.warn, parsed.error);
  }
  if (hasWarnVersion) {
    const parsed = parseVersion(text(keys.warnVersion));
    warn = { ...warn, version: "version" in parsed ? parsed.version : "latest" };
    if ("error" in parsed) fail(keys.warnVersion, parsed.error);
  }
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(enforce.level, warn.level) > 0) {
    warn = { level: enforce.level, version: hasWarnVersion ? warn.version : enforce.version };
  }
  return { policy: { enforce, audit, warn }, errors };
}
