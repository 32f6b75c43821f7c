// Authenticators tried as a union: the first user found decides; an invalid credential is a
// 401 even when anonymous access is on; no credential at all is anonymous (when allowed).
// An authenticator that throws counts as a rejection (a 401, not a 500); its reason names the
// error's kind only, since messages may quote the credential.
import type { UserInfo } from "../../gateway/pipeline/index.ts";
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from "./authenticator.ts";

export const ANONYMOUS: UserInfo = {
  username: "system:anonymous",
  uid: "",
  groups: ["system:unauthenticated"],
  extra: {},
};

/** A reason for an exception that says what failed without echoing its message (which may quote input). */
export function describeFailure(err: unknown): string {
  const kind = err instanceof Error ? err.name : typeof err;
  return `internal error (${kind})`;
}

/**
 * A user with system:authenticated among its groups. Kept per answer: the token cache and the
 * per-connection certificate answer hand out one user object for many requests.
 */
const authenticatedUsers = new WeakMap<UserInfo, UserInfo>();

function authenticatedUser(user: UserInfo): UserInfo {
  let found = authenticatedUsers.get(user);
  if (!found) {
    const groups = user.groups.includes("system:authenticated")
      ? user.groups
      : [...user.groups, "system:authenticated"];
    found = { ...user, groups };
    authenticatedUsers.set(user, found);
  }
  return found;
}

export type UnionResult = { readonly user: UserInfo } | { readonly rejected: string };

export async function authenticate(
  authenticators: readonly Authenticator[],
  req: AuthenticationRequest,
  anonymousAllowed: boolean,
): Promise<UnionResult> {
  const reasons: string[] = [];
  for (const a of authenticators) {
    let result: AuthenticationResult;
    try {
      result = await a.authenticate(req);
    } catch (err) {
      reasons.push(`${a.name}: ${describeFailure(err)}`);
      continue;
    }
    if (result.kind === "user") return { user: authenticatedUser(result.user) };
    if (result.kind === "rejected") reasons.push(`${a.name}: ${result.reason}`);
  }
  if (reasons.length > 0) return { rejected: reasons.join("; ") };
  if (anonymousAllowed) return { user: ANONYMOUS };
  return { rejected: "no credentials" };
}
