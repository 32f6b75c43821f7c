// EventRateLimit's Configuration (`eventratelimit.admission.<domain>/v1alpha1`): which token
// buckets exist, checked as upstream's validation does (all problems reported at once).
import type { Naming } from "../../../backends/naming/index.ts";

export const LIMIT_TYPES = ["Server", "Namespace", "User", "SourceAndObject"] as const;
export type LimitType = (typeof LIMIT_TYPES)[number];

export interface Limit {
  readonly type: LimitType;
  readonly qps: number;
  readonly burst: number;
  /** Buckets kept for this type (LRU); upstream's default when 0 or absent; 1 for Server. */
  readonly cacheSize: number;
}

/** Upstream's LRU size when `cacheSize` is 0 or absent. */
export const DEFAULT_CACHE_SIZE = 4096;

const INT32_MAX = 2 ** 31 - 1;

/** A configuration the plugin cannot start with; the server refuses to start. */
export class EventRateLimitConfigError extends Error {
  constructor(message: string) {
    super(`EventRateLimit: ${message}`);
    this.name = "EventRateLimitConfigError";
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const shown = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? "null"));

/**
 * The limits of a Configuration. No configuration at all is upstream's empty default, which its
 * validation refuses ("limits: ... must not be empty").
 */
export function parseConfiguration(raw: unknown, naming: Naming): Limit[] {
  const config = raw ?? {};
  if (!isObject(config)) throw new EventRateLimitConfigError("the configuration must be an object");
  const apiVersion = `${naming.group("eventratelimit.admission")}/v1alpha1`;
  if (config.apiVersion !== undefined && config.apiVersion !== apiVersion)
    throw new EventRateLimitConfigError(
      `no kind "${String(config.kind ?? "")}" is registered for version "${String(config.apiVersion)}" (want apiVersion ${apiVersion})`,
    );
  if (config.kind !== undefined && config.kind !== "Configuration")
    throw new EventRateLimitConfigError(
      `no kind "${String(config.kind)}" is registered for version "${apiVersion}" (want kind Configuration)`,
    );
  if (config.limits !== undefined && config.limits !== null && !Array.isArray(config.limits))
    throw new EventRateLimitConfigError(`limits: must be a list, not ${shown(config.limits)}`);

  const errors: string[] = [];
  const raws: unknown[] = Array.isArray(config.limits) ? config.limits : [];
  if (raws.length === 0)
    errors.push(`limits: Invalid value: ${shown(config.limits ?? null)}: must not be empty`);
  const limits: Limit[] = [];
  raws.forEach((entry, i) => {
    const path = `limits[${i}]`;
    if (!isObject(entry)) {
      errors.push(`${path}: Invalid value: ${shown(entry)}: must be an object`);
      return;
    }
    // qps, burst and cacheSize are int32 upstream: anything else cannot even be decoded there.
    const int = (field: string): number | undefined => {
      const v = entry[field] ?? 0;
      if (typeof v === "number" && Number.isInteger(v) && Math.abs(v) <= INT32_MAX) return v;
      errors.push(`${path}.${field}: Invalid value: ${shown(v)}: must be a 32-bit integer`);
      return undefined;
    };
    const type = entry.type;
    const known = (LIMIT_TYPES as readonly unknown[]).includes(type);
    if (!known)
      errors.push(
        `${path}.type: Unsupported value: ${shown(type ?? "")}: supported values: ${LIMIT_TYPES.map((t) => `"${t}"`).join(", ")}`,
      );
    const burst = int("burst");
    if (burst !== undefined && burst <= 0)
      errors.push(`${path}.burst: Invalid value: ${burst}: must be positive`);
    const qps = int("qps");
    if (qps !== undefined && qps <= 0) errors.push(`${path}.qps: Invalid value: ${qps}: must be positive`);
    // Server has one bucket: upstream ignores its cacheSize entirely.
    const cacheSize = type === "Server" ? 1 : int("cacheSize");
    if (cacheSize !== undefined && cacheSize < 0)
      errors.push(`${path}.cacheSize: Invalid value: ${cacheSize}: must not be negative`);
    if (known && burst !== undefined && qps !== undefined && cacheSize !== undefined)
      limits.push({ type: type as LimitType, qps, burst, cacheSize: cacheSize || DEFAULT_CACHE_SIZE });
  });
  // Upstream's aggregate: one error as is, several in brackets.
  if (errors.length === 1) throw new EventRateLimitConfigError(errors[0] as string);
  if (errors.length > 1) throw new EventRateLimitConfigError(`[${errors.join(", ")}]`);
  return limits;
}
