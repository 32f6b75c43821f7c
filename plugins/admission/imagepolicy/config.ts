// ImagePolicyWebhook's configuration: `imagePolicy` with the backend's kubeconfig and the cache and
// retry durations, with upstream's defaults, bounds and sentinels (0: the default, -1: off).
export interface ImagePolicyConfig {
  readonly kubeConfigFile: string;
  readonly allowTtlMs: number;
  readonly denyTtlMs: number;
  readonly retryBackoffMs: number;
  readonly defaultAllow: boolean;
}

export class ImagePolicyConfigError extends Error {}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** Go's Duration.String() for the whole milliseconds and seconds used here. */
function goDuration(ms: number): string {
  if (ms < SECOND) return `${ms}ms`;
  const minutes = Math.floor(ms / MINUTE);
  const seconds = (ms % MINUTE) / SECOND;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

function duration(
  name: string,
  raw: unknown,
  unitMs: number,
  bounds: { min: number; max: number; fallback: number },
): number {
  if (raw === undefined || raw === null || raw === 0) return bounds.fallback;
  if (typeof raw !== "number" || !Number.isInteger(raw))
    throw new ImagePolicyConfigError(
      `ImagePolicyWebhook: ${name} must be a whole number, got ${JSON.stringify(raw)}`,
    );
  if (raw === -1) return 0;
  const ms = raw * unitMs;
  // Upstream's range excludes its minimum.
  if (ms <= bounds.min || ms > bounds.max)
    throw new ImagePolicyConfigError(
      `ImagePolicyWebhook: ${name}: valid value is between ${goDuration(bounds.min)} and ${goDuration(bounds.max)}, got ${goDuration(ms)}`,
    );
  return ms;
}

export function parseConfig(raw: unknown): ImagePolicyConfig {
  const root = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : undefined;
  const c = root?.imagePolicy;
  if (typeof c !== "object" || c === null)
    throw new ImagePolicyConfigError("ImagePolicyWebhook needs a configuration with an imagePolicy object");
  const cfg = c as Record<string, unknown>;
  if (typeof cfg.kubeConfigFile !== "string" || cfg.kubeConfigFile === "")
    throw new ImagePolicyConfigError("ImagePolicyWebhook: imagePolicy.kubeConfigFile is required");
  if (cfg.defaultAllow !== undefined && typeof cfg.defaultAllow !== "boolean")
    throw new ImagePolicyConfigError("ImagePolicyWebhook: imagePolicy.defaultAllow must be a boolean");
  return {
    kubeConfigFile: cfg.kubeConfigFile,
    retryBackoffMs: duration("backoff", cfg.retryBackoff, 1, { min: 0, max: 5 * MINUTE, fallback: 500 }),
    allowTtlMs: duration("allow cache", cfg.allowTTL, SECOND, {
      min: SECOND,
      max: 30 * MINUTE,
      fallback: 5 * MINUTE,
    }),
    denyTtlMs: duration("deny cache", cfg.denyTTL, SECOND, {
      min: SECOND,
      max: 30 * MINUTE,
      fallback: 30 * SECOND,
    }),
    defaultAllow: cfg.defaultAllow === true,
  };
}
