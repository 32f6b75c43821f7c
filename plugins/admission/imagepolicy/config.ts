// ImagePolicyWebhook's configuration (upstream's `imagePolicy` file layout): the backend's
// kubeconfig, the answer cache's TTLs in seconds and the first retry delay in milliseconds, with
// upstream's defaults, bounds and sentinels (0 or absent: the default; -1: off).
export interface ImagePolicyConfig {
  readonly kubeConfigFile: string;
  readonly allowTtlMs: number;
  readonly denyTtlMs: number;
  readonly retryBackoffMs: number;
  readonly defaultAllow: boolean;
}

/** A configuration the plugin cannot start with. */
export class ImagePolicyConfigError extends Error {
  constructor(message: string) {
    super(`ImagePolicyWebhook: ${message}`);
    this.name = "ImagePolicyConfigError";
  }
}

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;
const NS_PER_MIN = 60n * NS_PER_S;
const NS_PER_H = 60n * NS_PER_MIN;

/** `whole[.fraction]` of `value / unit`, trailing zeros dropped (Go's Duration.String style). */
function decimal(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** Go's time.Duration.String(), which upstream's range errors print. */
export function goDuration(ns: bigint): string {
  if (ns === 0n) return "0s";
  const sign = ns < 0n ? "-" : "";
  let u = ns < 0n ? -ns : ns;
  if (u < 1000n) return `${sign}${u}ns`;
  if (u < NS_PER_MS) return `${sign}${decimal(u, 1000n)}µs`;
  if (u < NS_PER_S) return `${sign}${decimal(u, NS_PER_MS)}ms`;
  const h = u / NS_PER_H;
  u %= NS_PER_H;
  const m = u / NS_PER_MIN;
  u %= NS_PER_MIN;
  const s = `${decimal(u, NS_PER_S)}s`;
  if (h > 0n) return `${sign}${h}h${m}m${s}`;
  if (m > 0n) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}

interface Bounds {
  /** Exclusive, as upstream's check is. */
  readonly minNs: bigint;
  readonly maxNs: bigint;
  readonly defaultNs: bigint;
}

/** One duration field: a whole number in `unitNs`, as upstream decodes it into an int64. */
function duration(field: string, name: string, raw: unknown, unitNs: bigint, bounds: Bounds): number {
  if (raw === undefined || raw === null) return Number(bounds.defaultNs / NS_PER_MS);
  if (typeof raw !== "number" || !Number.isSafeInteger(raw))
    throw new ImagePolicyConfigError(
      `imagePolicy.${field} must be a whole number, got ${JSON.stringify(raw)}`,
    );
  if (raw === -1) return 0;
  if (raw === 0) return Number(bounds.defaultNs / NS_PER_MS);
  const ns = BigInt(raw) * unitNs;
  if (ns <= bounds.minNs || ns > bounds.maxNs)
    throw new ImagePolicyConfigError(
      `${name}: valid value is between ${goDuration(bounds.minNs)} and ${goDuration(bounds.maxNs)}, got ${goDuration(ns)}`,
    );
  // Sub-millisecond precision never arises: the units are milliseconds and seconds.
  return Number(ns / NS_PER_MS);
}

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Reads the plugin's configuration; throws an ImagePolicyConfigError on anything upstream refuses. */
export function parseConfig(raw: unknown): ImagePolicyConfig {
  if (raw === undefined || raw === null) throw new ImagePolicyConfigError("no config specified");
  const root = record(raw);
  if (!root)
    throw new ImagePolicyConfigError("the configuration must be an object with an imagePolicy field");
  const c = root.imagePolicy === undefined || root.imagePolicy === null ? {} : record(root.imagePolicy);
  if (!c) throw new ImagePolicyConfigError("imagePolicy must be an object");
  if (c.kubeConfigFile !== undefined && c.kubeConfigFile !== null && typeof c.kubeConfigFile !== "string")
    throw new ImagePolicyConfigError("imagePolicy.kubeConfigFile must be a string");
  if (c.defaultAllow !== undefined && c.defaultAllow !== null && typeof c.defaultAllow !== "boolean")
    throw new ImagePolicyConfigError("imagePolicy.defaultAllow must be a boolean");
  const retryBackoffMs = duration("retryBackoff", "backoff", c.retryBackoff, NS_PER_MS, {
    minNs: 1n,
    maxNs: 5n * NS_PER_MIN,
    defaultNs: 500n * NS_PER_MS,
  });
  const allowTtlMs = duration("allowTTL", "allow cache", c.allowTTL, NS_PER_S, {
    minNs: NS_PER_S,
    maxNs: 30n * NS_PER_MIN,
    defaultNs: 5n * NS_PER_MIN,
  });
  const denyTtlMs = duration("denyTTL", "deny cache", c.denyTTL, NS_PER_S, {
    minNs: NS_PER_S,
    maxNs: 30n * NS_PER_MIN,
    defaultNs: 30n * NS_PER_S,
  });
  const kubeConfigFile = typeof c.kubeConfigFile === "string" ? c.kubeConfigFile : "";
  if (kubeConfigFile === "")
    throw new ImagePolicyConfigError("imagePolicy.kubeConfigFile is required (the backend's kubeconfig)");
  return { kubeConfigFile, allowTtlMs, denyTtlMs, retryBackoffMs, defaultAllow: c.defaultAllow === true };
}
