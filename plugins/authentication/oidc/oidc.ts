// OpenID Connect ID tokens as bearer tokens (`--oidc-*`). The issuer is found through its
// discovery document, whose `issuer` must be the configured URL exactly; its keys come from the
// document's `jwks_uri`. Only tokens whose (unverified) `iss` is this issuer are claimed, so
// other token authenticators see the rest. Discovery runs in the background from creation and
// again every retry interval until it succeeds; meanwhile this issuer's tokens are rejected
// ("not initialized") rather than held, except that a request arriving while an attempt is under
// way waits for that attempt, which is bounded by the request timeout.
import { decodeProtectedHeader } from "jose";
import type { AuthenticationResult, TokenAuthenticator } from "../authenticator.ts";
import { describeFailure } from "../union.ts";
import { type ClaimRules, parseRequiredClaims, resolveUsernamePrefix, userFromClaims } from "./claims.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS, jsonFetcher } from "./fetch-json.ts";
import { KeyLookupError, RemoteKeySet } from "./key-set.ts";

/** Algorithms an operator may allow (upstream's list: asymmetric signatures only). */
export const ALLOWED_SIGNING_ALGS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "ES256",
  "ES384",
  "ES512",
  "PS256",
  "PS384",
  "PS512",
];

/** Clock skew tolerated on `nbf`, as upstream's OIDC library; `exp` is taken as is. */
const NOT_BEFORE_LEEWAY_MS = 5 * 60_000;

export interface OidcLog {
  info(message: string): void;
  error(message: string): void;
}

export interface OidcOptions {
  /** `--oidc-issuer-url` (https). */
  readonly issuerUrl: string;
  /** `--oidc-client-id`: tokens must name it in `aud`. */
  readonly clientId: string;
  /** `--oidc-username-claim`, default `sub`. */
  readonly usernameClaim?: string;
  /** `--oidc-username-prefix` as given ("-": none; unset: `<issuer>#` unless the claim is email). */
  readonly usernamePrefix?: string;
  readonly groupsClaim?: string;
  readonly groupsPrefix?: string;
  /** `--oidc-required-claim` values, `key=value`. */
  readonly requiredClaims?: readonly string[];
  /** Contents of `--oidc-ca-file`; the system roots when absent. */
  readonly caPem?: string;
  /** `--oidc-signing-algs`, default RS256. */
  readonly signingAlgs?: readonly string[];
  /** Bound on each request to the issuer. */
  readonly requestTimeoutMs?: number;
  /** Wait between failed discovery attempts (upstream: 10 s). */
  readonly retryIntervalMs?: number;
  /** Least time between key fetches caused by unknown key ids. */
  readonly keyRefreshIntervalMs?: number;
  /** Keys older than this are fetched again before use. */
  readonly keyMaxAgeMs?: number;
  readonly log?: OidcLog;
  readonly now?: () => number;
}

export interface OidcAuthenticator extends TokenAuthenticator {
  /** Resolves once discovery has succeeded. */
  ready(): Promise<void>;
  readonly initialized: boolean;
  /** Stops retrying discovery and closes connections to the issuer. */
  close(): Promise<void>;
}

/** The issuer a token claims, read without verifying it; undefined when it is no compact JWT. */
export function untrustedIssuer(token: string): string | undefined {
  if (token.trimStart().startsWith("{")) return undefined;
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const payload = parts[1] as string;
  if (!/^[A-Za-z0-9_-]*$/.test(payload)) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof claims !== "object" || claims === null) return undefined;
  const iss = (claims as Record<string, unknown>).iss;
  if (typeof iss !== "string") return undefined;
  // Google's legacy issuer spelling, which OpenID Connect says to treat as the https one.
  return iss === "accounts.google.com" ? "https://accounts.google.com" : iss;
}

function audienceList(aud: unknown): string[] | undefined {
  if (typeof aud === "string") return [aud];
  if (Array.isArray(aud) && aud.every((a) => typeof a === "string")) return aud;
  return undefined;
}

export function oidcAuthenticator(options: OidcOptions): OidcAuthenticator {
  const issuerUrl = options.issuerUrl;
  if (!issuerUrl.startsWith("https://")) throw new Error("oidc: the issuer URL must be an https URL");
  if (options.clientId === "") throw new Error("oidc: a client id is required");
  const algs = options.signingAlgs && options.signingAlgs.length > 0 ? [...options.signingAlgs] : ["RS256"];
  for (const alg of algs) {
    if (!ALLOWED_SIGNING_ALGS.includes(alg))
      throw new Error(`oidc: unsupported signing alg: ${JSON.stringify(alg)}`);
  }
  const usernameClaim = options.usernameClaim || "sub";
  const rules: ClaimRules = {
    usernameClaim,
    usernamePrefix: resolveUsernamePrefix(issuerUrl, usernameClaim, options.usernamePrefix),
    groupsClaim: options.groupsClaim,
    groupsPrefix: options.groupsPrefix ?? "",
    requiredClaims: parseRequiredClaims(options.requiredClaims ?? []),
  };
  const log = options.log ?? console;
  const now = options.now ?? Date.now;
  const retryIntervalMs = options.retryIntervalMs ?? 10_000;
  const fetcher = jsonFetcher({
    caPem: options.caPem,
    timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  });
  const discoveryUrl = `${issuerUrl.replace(/\/$/, "")}/.well-known/openid-configuration`;

  let keys: RemoteKeySet | undefined;
  let attempt: Promise<RemoteKeySet | undefined> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let markReady: () => void = () => {};
  const readyPromise = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  async function discover(): Promise<RemoteKeySet> {
    const doc = await fetcher.get(discoveryUrl);
    if (doc.issuer !== issuerUrl) {
      throw new Error(
        `oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(issuerUrl)} got ${JSON.stringify(doc.issuer)}`,
      );
    }
    const jwksUri = doc.jwks_uri;
    if (typeof jwksUri !== "string" || !URL.canParse(jwksUri) || !jwksUri.startsWith("https://"))
      throw new Error("oidc: the discovery document has no https jwks_uri");
    return new RemoteKeySet({
      fetcher,
      jwksUri,
      minRefreshIntervalMs: options.keyRefreshIntervalMs ?? 10_000,
      maxAgeMs: options.keyMaxAgeMs ?? 10 * 60_000,
      now,
    });
  }

  function tryDiscover(): Promise<RemoteKeySet | undefined> {
    attempt ??= discover().then(
      (found) => {
        attempt = undefined;
        if (closed) return undefined;
        keys = found;
        log.info(`oidc: issuer ${issuerUrl} discovered`);
        markReady();
        return found;
      },
      (err: unknown) => {
        attempt = undefined;
        if (closed) return undefined;
        log.error(`oidc authenticator: initializing plugin: ${(err as Error).message}`);
        retryTimer = setTimeout(tryDiscover, retryIntervalMs);
        retryTimer.unref();
        return undefined;
      },
    );
    return attempt;
  }
  void tryDiscover();

  async function verify(token: string): Promise<AuthenticationResult> {
    // Not this issuer's token (or no JWT at all): another authenticator may know it.
    if (untrustedIssuer(token) !== issuerUrl) return { kind: "none" };
    const keySet = keys ?? (attempt ? await attempt : undefined);
    if (!keySet) return { kind: "rejected", reason: "oidc: authenticator not initialized" };

    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return { kind: "rejected", reason: "oidc: verify token: malformed JWS header" };
    }
    const alg = header.alg;
    if (typeof alg !== "string" || !algs.includes(alg)) {
      return {
        kind: "rejected",
        reason: `oidc: verify token: oidc: id token signed with unsupported algorithm, expected ${JSON.stringify(algs)} got ${JSON.stringify(alg ?? "")}`,
      };
    }
    const kid = typeof header.kid === "string" ? header.kid : undefined;
    let payload: Uint8Array;
    try {
      payload = await keySet.verify(token, alg, kid);
    } catch (err) {
      const what = err instanceof KeyLookupError ? err.message : (err as Error).message;
      return { kind: "rejected", reason: `oidc: verify token: failed to verify signature: ${what}` };
    }

    let claims: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(new TextDecoder().decode(payload));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new Error("not an object");
      claims = parsed as Record<string, unknown>;
    } catch {
      return { kind: "rejected", reason: "oidc: verify token: oidc: failed to unmarshal claims" };
    }
    if (
      claims.iss !== issuerUrl &&
      !(claims.iss === "accounts.google.com" && issuerUrl === "https://accounts.google.com")
    ) {
      return {
        kind: "rejected",
        reason: `oidc: verify token: oidc: id token issued by a different provider, expected ${JSON.stringify(issuerUrl)} got ${JSON.stringify(claims.iss)}`,
      };
    }
    const aud = audienceList(claims.aud);
    if (aud === undefined)
      return { kind: "rejected", reason: "oidc: verify token: oidc: malformed aud claim" };
    if (!aud.includes(options.clientId)) {
      return {
        kind: "rejected",
        reason: `oidc: verify token: oidc: expected audience ${JSON.stringify(options.clientId)} got ${JSON.stringify(aud)}`,
      };
    }
    const current = now();
    if (typeof claims.exp !== "number" || !Number.isFinite(claims.exp))
      return { kind: "rejected", reason: "oidc: verify token: oidc: token has no valid exp claim" };
    if (claims.exp * 1000 < current) {
      return {
        kind: "rejected",
        reason: `oidc: verify token: oidc: token is expired (Token Expiry: ${new Date(claims.exp * 1000).toISOString()})`,
      };
    }
    if (claims.nbf !== undefined) {
      if (typeof claims.nbf !== "number" || !Number.isFinite(claims.nbf))
        return { kind: "rejected", reason: "oidc: verify token: oidc: malformed nbf claim" };
      if (current + NOT_BEFORE_LEEWAY_MS < claims.nbf * 1000) {
        return {
          kind: "rejected",
          reason: `oidc: verify token: oidc: current time ${new Date(current).toISOString()} before the nbf (not before) time: ${new Date(claims.nbf * 1000).toISOString()}`,
        };
      }
    }

    const mapped = userFromClaims(claims, rules);
    if ("error" in mapped) return { kind: "rejected", reason: mapped.error };
    return { kind: "user", user: mapped.user };
  }

  return {
    name: "oidc",
    async authenticateToken(token) {
      try {
        return await verify(token);
      } catch (err) {
        return { kind: "rejected", reason: `oidc: ${describeFailure(err)}` };
      }
    },
    ready: () => readyPromise,
    get initialized() {
      return keys !== undefined;
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      await fetcher.close();
    },
  };
}
