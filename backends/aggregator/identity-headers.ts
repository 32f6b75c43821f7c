// The front-proxy headers that carry the effective user to an extension server, and the request
// headers that must never reach it: the caller's own credentials, impersonation, and anything
// that could pass for the gateway's identity headers.

export interface ProxiedUser {
  readonly username: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);

/** Token characters (RFC 7230); anything else in an extra key is percent-encoded, as upstream. */
const TOKEN = /^[!#$&'*+\-.^_`|~0-9A-Za-z]$/;

/** An extra key as upstream's client puts it into a header name (bytes outside tchar, and %, escaped). */
export function escapeExtraKey(key: string): string {
  let out = "";
  for (const byte of Buffer.from(key, "utf8")) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && TOKEN.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The gateway's own request-header settings: names and prefixes that carry an identity. */
export interface IdentityHeaderNames {
  readonly names: readonly string[];
  readonly prefixes: readonly string[];
}

/** One object, so the WeakMap below holds one entry for callers without settings. */
const NO_IDENTITY_HEADERS: IdentityHeaderNames = { names: [], prefixes: [] };

const loweredNames = new WeakMap<IdentityHeaderNames, { names: Set<string>; prefixes: string[] }>();

/** The settings in lower case, worked out once per settings object rather than per request. */
function lowered(identity: IdentityHeaderNames): { names: Set<string>; prefixes: string[] } {
  let found = loweredNames.get(identity);
  if (!found) {
    found = {
      names: new Set(identity.names.map((h) => h.toLowerCase())),
      prefixes: identity.prefixes.map((h) => h.toLowerCase()),
    };
    loweredNames.set(identity, found);
  }
  return found;
}

/**
 * The headers sent on: the request's own, less hop-by-hop ones, `Authorization`, `Impersonate-*`
 * and every identity header (`X-Remote-*` and the gateway's request-header names and prefixes),
 * plus the effective user's.
 */
export function forwardedHeaders(
  incoming: Readonly<Record<string, string | string[] | undefined>>,
  user: ProxiedUser,
  identity: IdentityHeaderNames = NO_IDENTITY_HEADERS,
): Record<string, string | string[]> {
  const { names, prefixes } = lowered(identity);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || lower === "authorization") continue;
    if (lower.startsWith("impersonate-") || lower.startsWith("x-remote-")) continue;
    if (names.has(lower) || prefixes.some((p) => lower.startsWith(p))) continue;
    out[lower] = value;
  }
  out["x-remote-user"] = user.username;
  if (user.groups.length > 0) out["x-remote-group"] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra)) {
    if (values.length > 0) out[`x-remote-extra-${escapeExtraKey(key)}`] = [...values];
  }
  return out;
}

/** Response headers the gateway sends on: all but the hop-by-hop ones. */
export function returnedHeaders(
  upstream: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream)) {
    const lower = name.toLowerCase();
    if (value === undefined || (HOP_BY_HOP.has(lower) && lower !== "content-length")) continue;
    out[lower] = value;
  }
  return out;
}
