// Authenticators tried as a union: the first user found decides; an invalid credential is a
// 401 even when anonymous access is on; no credential at all is anonymous (when allowed).
import type { UserInfo } from "../../gateway/pipeline/index.ts";
import type { AuthenticationRequest, Authenticator } from "./authenticator.ts";

export const ANONYMOUS: UserInfo = {
  username: "system:anonymous",
  uid: "",
  groups: ["system:unauthenticated"],
  extra: {},
};

export type UnionResult = { readonly user: UserInfo } | { readonly rejected: string };

export async function authenticate(
  authenticators: readonly Authenticator[],
  req: AuthenticationRequest,
  anonymousAllowed: boolean,
): Promise<UnionResult> {
  const reasons: string[] = [];
  for (const a of authenticators) {
    const result = await a.authenticate(req);
    if (result.kind === "user") {
      const groups = result.user.groups.includes("system:authenticated")
        ? result.user.groups
        : [...result.user.groups, "system:authenticated"];
      return { user: { ...result.user, groups } };
    }
    if (result.kind === "rejected") reasons.push(`${a.name}: ${result.reason}`);
  }
  if (reasons.length > 0) return { rejected: reasons.join("; ") };
  if (anonymousAllowed) return { user: ANONYMOUS };
  return { rejected: "no credentials" };
}
