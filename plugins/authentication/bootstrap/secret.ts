// Reading bootstrap-token Secrets (`bootstrap-token-<id>` in the system namespace, type
// `bootstrap.<domain>/token`): their base64 data keys and their expiration, shared by the
// authenticator and the token cleaner.

/** The shape both API objects and controller copies of a Secret have. */
export interface SecretLike {
  readonly metadata: { readonly name: string; readonly deletionTimestamp?: unknown };
  readonly type?: unknown;
  readonly data?: unknown;
}

export const BOOTSTRAP_SECRET_PREFIX = "bootstrap-token-";

export function bootstrapSecretName(tokenId: string): string {
  return `${BOOTSTRAP_SECRET_PREFIX}${tokenId}`;
}

/** A data key's decoded value; "" when absent, as upstream reads it. */
export function bootstrapSecretValue(secret: SecretLike, key: string): string {
  if (typeof secret.data !== "object" || secret.data === null) return "";
  const value = (secret.data as Record<string, unknown>)[key];
  return typeof value === "string" ? Buffer.from(value, "base64").toString("utf8") : "";
}

// RFC 3339 as Go's time.RFC3339 parses it: seconds required, fraction and offset optional form.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export type Expiration =
  | { readonly expired: false; readonly expiresAt?: number }
  | { readonly expired: true };

/**
 * Whether the token has expired at `now` (milliseconds). No `expiration` never expires; one that
 * does not parse counts as expired, as upstream treats it.
 */
export function bootstrapTokenExpiration(secret: SecretLike, now: number): Expiration {
  const text = bootstrapSecretValue(secret, "expiration");
  if (text === "") return { expired: false };
  const at = RFC3339.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at) || at <= now) return { expired: true };
  return { expired: false, expiresAt: at };
}
