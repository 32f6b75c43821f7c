// EventRateLimit's Configuration (`eventratelimit.admission.<domain>/v1alpha1`): which token
// buckets exist, checked as upstream's validation does.
import type { Naming } from "../../../backends/naming/index.ts";

export const LIMIT_TYPES = ["Server", "Namespace", "User", "SourceAndObject"] as const;
export type LimitType = (typeof LIMIT_TYPES)[number];

export interface Limit {
  readonly type: LimitType;
  readonly qps: number;
  readonly burst: number;
  /** Buckets kept for this type (LRU); upstream's 4096 when 0 or absent. */
  readonly cacheSize: number;
}

export const DEFAULT_CACHE_SIZE = 4096;

export class EventRateLimitConfigError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function parseConfiguration(raw: unknown, naming: Naming): Limit[] {
  if (raw === undefined || raw === null)
    throw new EventRateLimitConfigError(
      "EventRateLimit needs a Configuration in the admission configuration file",
    );
  if (!isObject(raw))
    throw new EventRateLimitConfigError("EventRateLimit: the configuration must be an object");
  const apiVersion = `${naming.group("eventratelimit.admission")}/v1alpha1`;
  if (raw.apiVersion !== undefined && raw.apiVersion !== apiVersion)
    throw new EventRateLimitConfigError(
      `EventRateLimit: unsupported apiVersion ${String(raw.apiVersion)} (want ${apiVersion})`,
    );
  if (raw.kind !== undefined && raw.kind !== "Configuration")
    throw new EventRateLimitConfigError(
      `EventRateLimit: unsupported kind ${String(raw.kind)} (want Configuration)`,
    );
  const errors: string[] = [];
  const limits = Array.isArray(raw.limits) ? raw.limits : [];
  if (limits.length === 0) errors.push("limits: Invalid value: null: must not be empty");
  const out: Limit[] = [];
  limits.forEach((entry, i) => {
    const l = isObject(entry) ? entry : {};
    const path = `limits[${i}]`;
    const type = l.type;
    if (!(LIMIT_TYPES as readonly unknown[]).includes(type))
      errors.push(
        `${path}.type: Unsupported value: ${JSON.stringify(type ?? "")}: supported values: ${LIMIT_TYPES.map((t) => `"${t}"`).join(", ")}`,
      );
    const qps = typeof l.qps === "number" ? l.qps : 0;
    const burst = typeof l.burst === "number" ? l.burst : 0;
    const cacheSize = typeof l.cacheSize === "number" ? l.cacheSize : 0;
    if (!Number.isInteger(burst) || burst <= 0)
      errors.push(`${path}.burst: Invalid value: ${String(l.burst ?? 0)}: must be positive`);
    if (!Number.isInteger(qps) || qps <= 0)
      errors.push(`${path}.qps: Invalid value: ${String(l.qps ?? 0)}: must be positive`);
    if (type !== "Server" && (!Number.isInteger(cacheSize) || cacheSize < 0))
      errors.push(`${path}.cacheSize: Invalid value: ${String(l.cacheSize)}: must not be negative`);
    out.push({ type: type as LimitType, qps, burst, cacheSize: cacheSize || DEFAULT_CACHE_SIZE });
  });
  if (errors.length > 0) throw new EventRateLimitConfigError(`EventRateLimit: ${errors.join(", ")}`);
  return out;
}
