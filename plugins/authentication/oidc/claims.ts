// From verified ID-token claims to a user, by the `--oidc-*` flags: the user name claim and its
// prefix, the groups claim and its prefix, and the required claims. Messages follow upstream's.
import type { UserInfo } from "../../../gateway/pipeline/index.ts";

export interface ClaimRules {
  readonly usernameClaim: string;
  /** The prefix actually applied (already resolved from the flags; "" for none). */
  readonly usernamePrefix: string;
  readonly groupsClaim?: string;
  readonly groupsPrefix: string;
  readonly requiredClaims: ReadonlyMap<string, string>;
}

/**
 * The prefix rule of `--oidc-username-prefix`: "-" turns prefixing off; unset (or empty) means
 * `<issuer>#` unless the user name claim is `email`.
 */
export function resolveUsernamePrefix(
  issuerUrl: string,
  usernameClaim: string,
  flag: string | undefined,
): string {
  if (flag === "-") return "";
  if (flag === undefined || flag === "") return usernameClaim === "email" ? "" : `${issuerUrl}#`;
  return flag;
}

/** `key=value` pairs of `--oidc-required-claim`, split at the first "=". */
export function parseRequiredClaims(pairs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new Error(`oidc: required claim ${JSON.stringify(pair)} is not key=value`);
    out.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return out;
}

const has = (claims: Record<string, unknown>, name: string) => Object.hasOwn(claims, name);

export type ClaimsResult = { readonly user: UserInfo } | { readonly error: string };

export function userFromClaims(claims: Record<string, unknown>, rules: ClaimRules): ClaimsResult {
  const username = claims[rules.usernameClaim];
  if (!has(claims, rules.usernameClaim))
    return { error: `oidc: parse username claims ${JSON.stringify(rules.usernameClaim)}: claim not present` };
  if (typeof username !== "string")
    return { error: `oidc: parse username claims ${JSON.stringify(rules.usernameClaim)}: not a string` };
  // An empty name would authenticate nobody in particular (upstream lets it through).
  if (username === "")
    return { error: `oidc: username claim ${JSON.stringify(rules.usernameClaim)} is empty` };
  if (rules.usernameClaim === "email" && has(claims, "email_verified")) {
    const verified = claims.email_verified;
    if (typeof verified !== "boolean" && verified !== null)
      return { error: "oidc: parse 'email_verified' claim: not a boolean" };
    if (verified !== true) return { error: "oidc: email not verified" };
  }

  let groups: string[] = [];
  if (rules.groupsClaim !== undefined && rules.groupsClaim !== "" && has(claims, rules.groupsClaim)) {
    const value = claims[rules.groupsClaim];
    // A single string is one group (upstream accepts it for claims like "role"); null is none.
    if (typeof value === "string") groups = [value];
    else if (Array.isArray(value) && value.every((g) => typeof g === "string")) groups = value;
    else if (value !== null)
      return {
        error: `oidc: parse groups claim ${JSON.stringify(rules.groupsClaim)}: not a string or an array of strings`,
      };
    groups = groups.map((g) => rules.groupsPrefix + g);
  }

  for (const [claim, want] of rules.requiredClaims) {
    if (!has(claims, claim)) return { error: `oidc: required claim ${claim} not present in ID token` };
    const got = claims[claim];
    // Only string values can satisfy a required claim, as upstream.
    if (typeof got !== "string") return { error: `oidc: parse claim ${claim}: not a string` };
    if (got !== want)
      return { error: `oidc: required claim ${claim} value does not match. Got = ${got}, want = ${want}` };
  }

  return { user: { username: rules.usernamePrefix + username, uid: "", groups, extra: {} } };
}
