// Service-account tokens as bearer tokens: JWTs signed by one of the `--service-account-key-file`
// keys. A token from one of the `--service-account-issuer` values is a bound token (TokenRequest);
// one from the legacy issuer came from a token Secret. Tokens of other issuers, and strings that
// are no JWT at all, are not ours. Revocation follows upstream: a bound token dies with its
// account and its bound Secret or Pod; a legacy token with its Secret and account while
// `--service-account-lookup` is on.
import { decodeProtectedHeader, errors as joseErrors, jwtVerify } from "jose";
import type { Naming } from "../../../backends/naming/index.ts";
import type { ApiObject, ObjectAccess } from "../../objects/index.ts";
import type { AuthenticationResult, TokenAuthenticator } from "../authenticator.ts";
import {
  legacyIssuer,
  readBoundClaims,
  readLegacyClaims,
  type ServiceAccountClaims,
  serviceAccountUser,
} from "./claims.ts";
import type { VerificationKey } from "./keys.ts";

export interface ServiceAccountAuthenticatorOptions {
  readonly naming: Naming;
  /** `--service-account-key-file` keys. */
  readonly keys: readonly VerificationKey[];
  /** `--service-account-issuer` values: any of them is accepted. */
  readonly issuers: readonly string[];
  /** `--api-audiences`: implied for tokens without `aud`, and wanted when a caller names none. */
  readonly apiAudiences: readonly string[];
  /** `--service-account-lookup`: check legacy tokens against their Secret and account. */
  readonly lookup: boolean;
  readonly access: ObjectAccess;
  /** Milliseconds since the epoch; tests move the clock. */
  readonly now?: () => number;
}

/** Upstream's leeway for token times and for objects that are being deleted. */
const LEEWAY_SECONDS = 60;

const SERVICE_ACCOUNTS = { group: "", resource: "serviceaccounts" };
const SECRETS = { group: "", resource: "secrets" };
const PODS = { group: "", resource: "pods" };

function rejected(reason: string): AuthenticationResult {
  return { kind: "rejected", reason };
}

/** The unverified issuer of a compact JWS, or undefined when the string is no JWT. */
function unverifiedIssuer(token: string): string | undefined {
  if (token.trimStart().startsWith("{")) return undefined;
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    if (typeof payload !== "object" || payload === null) return undefined;
    const iss = (payload as Record<string, unknown>).iss;
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}

function audienceList(aud: unknown): string[] {
  if (typeof aud === "string") return aud === "" ? [] : [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === "string") : [];
}

/** Go's `%q` of a string list, as in upstream's audience error. */
function quotedList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(" ")}]`;
}

function metadataOf(object: ApiObject): { uid?: string; deletionTimestamp?: string } {
  return object.metadata as { uid?: string; deletionTimestamp?: string };
}

function secretData(object: ApiObject, key: string): string | undefined {
  const data = object.data;
  if (typeof data !== "object" || data === null) return undefined;
  const value = (data as Record<string, unknown>)[key];
  return typeof value === "string" ? Buffer.from(value, "base64").toString("utf8") : undefined;
}

export function serviceAccountTokenAuthenticator(
  options: ServiceAccountAuthenticatorOptions,
): TokenAuthenticator {
  const { naming, access } = options;
  const now = options.now ?? Date.now;
  const issuers = new Set(options.issuers);
  const legacy = legacyIssuer(naming);
  const byKeyId = new Map<string, VerificationKey[]>();
  for (const key of options.keys) {
    const list = byKeyId.get(key.keyId) ?? [];
    list.push(key);
    byKeyId.set(key.keyId, list);
  }

  /** Deleted before now minus the leeway (bound tokens), or at all (legacy tokens). */
  const deleted = (object: ApiObject, leeway: boolean): boolean => {
    const stamp = metadataOf(object).deletionTimestamp;
    if (!stamp) return false;
    if (!leeway) return true;
    const at = Date.parse(stamp);
    return Number.isNaN(at) || at < now() - LEEWAY_SECONDS * 1000;
  };

  async function verify(token: string): Promise<Record<string, unknown> | string> {
    let kid: string | undefined;
    try {
      const header = decodeProtectedHeader(token);
      kid = typeof header.kid === "string" && header.kid !== "" ? header.kid : undefined;
    } catch {
      return "malformed token";
    }
    const candidates = kid === undefined ? options.keys : (byKeyId.get(kid) ?? []);
    if (candidates.length === 0) return "invalid signature, no keys found";
    for (const candidate of candidates) {
      try {
        const { payload } = await jwtVerify(token, candidate.key, {
          algorithms: [...candidate.algorithms],
          clockTolerance: LEEWAY_SECONDS,
          currentDate: new Date(now()),
        });
        return payload as Record<string, unknown>;
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) return "service account token has expired";
        if (err instanceof joseErrors.JWTClaimValidationFailed) {
          return err.claim === "nbf"
            ? "service account token is not valid yet"
            : "service account token claims could not be validated";
        }
        if (err instanceof joseErrors.JWTInvalid) return "service account token claims are malformed";
        // A signature (or algorithm) that does not match this key: try the next one.
      }
    }
    return "invalid signature";
  }

  async function checkBound(claims: ServiceAccountClaims): Promise<string | undefined> {
    const { namespace } = claims;
    const account = await access.get(SERVICE_ACCOUNTS, namespace, claims.serviceAccount.name);
    if (!account) return `serviceaccounts "${claims.serviceAccount.name}" not found`;
    if (deleted(account, true)) {
      return `service account ${namespace}/${claims.serviceAccount.name} has been deleted`;
    }
    const accountUid = metadataOf(account).uid ?? "";
    if (accountUid !== claims.serviceAccount.uid) {
      return `service account UID (${accountUid}) does not match claim (${claims.serviceAccount.uid})`;
    }
    if (claims.secret) {
      const secret = await access.get(SECRETS, namespace, claims.secret.name);
      if (!secret || deleted(secret, true)) return "service account token has been invalidated";
      const uid = metadataOf(secret).uid ?? "";
      if (uid !== claims.secret.uid) {
        return `secret UID (${uid}) does not match service account secret ref claim (${claims.secret.uid})`;
      }
    }
    if (claims.pod) {
      const pod = await access.get(PODS, namespace, claims.pod.name);
      if (!pod || deleted(pod, true)) return "service account token has been invalidated";
      const uid = metadataOf(pod).uid ?? "";
      if (uid !== claims.pod.uid) {
        return `pod UID (${uid}) does not match service account pod ref claim (${claims.pod.uid})`;
      }
    }
    return undefined;
  }

  async function checkLegacy(
    token: string,
    claims: ServiceAccountClaims & { secret: { name: string } },
  ): Promise<string | undefined> {
    if (!options.lookup) return undefined;
    const { namespace } = claims;
    const secret = await access.get(SECRETS, namespace, claims.secret.name);
    if (!secret || deleted(secret, false)) return "Token has been invalidated";
    if (secretData(secret, "token") !== token) return "Token does not match server's copy";
    const name = claims.serviceAccount.name;
    const account = await access.get(SERVICE_ACCOUNTS, namespace, name);
    if (!account) return `serviceaccounts "${name}" not found`;
    if (deleted(account, false)) return `ServiceAccount ${namespace}/${name} has been deleted`;
    const uid = metadataOf(account).uid ?? "";
    if (uid !== claims.serviceAccount.uid) {
      return `ServiceAccount UID (${uid}) does not match claim (${claims.serviceAccount.uid})`;
    }
    return undefined;
  }

  return {
    name: "serviceaccount",
    async authenticateToken(token, audiences) {
      const iss = unverifiedIssuer(token);
      if (iss === undefined) return { kind: "none" };
      const bound = issuers.has(iss);
      if (!bound && iss !== legacy) return { kind: "none" };

      const payload = await verify(token);
      if (typeof payload === "string") return rejected(payload);
      if (payload.iss !== iss) return rejected(`token issuer ${JSON.stringify(payload.iss)} is invalid`);

      // Tokens without audiences (legacy ones) are good for this server only.
      const implicit = options.apiAudiences;
      const tokenAudiences = audienceList(payload.aud);
      const effective = tokenAudiences.length > 0 ? tokenAudiences : [...implicit];
      const requested = audiences.length > 0 ? audiences : implicit;
      const granted = effective.filter((a) => requested.includes(a));
      if (granted.length === 0 && implicit.length > 0) {
        return rejected(
          `token audiences ${quotedList(effective)} is invalid for the target audiences ${quotedList(requested)}`,
        );
      }

      let claims: ServiceAccountClaims;
      try {
        if (bound) {
          const read = readBoundClaims(naming, payload);
          if (typeof read === "string") return rejected(read);
          const problem = await checkBound(read);
          if (problem) return rejected(problem);
          claims = read;
        } else {
          const read = readLegacyClaims(naming, payload);
          if (typeof read === "string") return rejected(read);
          const problem = await checkLegacy(token, read);
          if (problem) return rejected(problem);
          // Legacy tokens carry no binding the user info should show.
          claims = { namespace: read.namespace, serviceAccount: read.serviceAccount };
        }
      } catch {
        return rejected("service account token could not be checked against the API objects");
      }
      return { kind: "user", user: serviceAccountUser(naming, claims), audiences: granted };
    },
  };
}
