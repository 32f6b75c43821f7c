// Authorizers asked as one, in order (`--authorization-mode=Node,RBAC`): the first that allows
// or denies decides. When all of them have no opinion the union has none either, with their
// reasons joined; the request stage turns that into a 403 while SubjectAccessReview reports it
// as "not allowed" without "denied", as upstream does.
import type { Attributes, AuthorizationResult, Authorizer } from "./authorizer.ts";

export interface UnionAuthorizer extends Authorizer {
  /** The members in the order they are asked (for rule listing in SelfSubjectRulesReview). */
  readonly authorizers: readonly Authorizer[];
}

export interface UnionOptions {
  /** Told about an authorizer that threw; the union goes on as if it had no opinion. */
  readonly onError?: (err: unknown, authorizer: string) => void;
}

export function unionAuthorizer(
  authorizers: readonly Authorizer[],
  options: UnionOptions = {},
): UnionAuthorizer {
  const members = [...authorizers];
  return {
    name: "union",
    authorizers: members,
    async authorize(attributes: Attributes): Promise<AuthorizationResult> {
      const reasons: string[] = [];
      for (const a of members) {
        let result: AuthorizationResult;
        try {
          result = await a.authorize(attributes);
        } catch (err) {
          // A broken authorizer must not turn a request into a 500 nor allow it.
          options.onError?.(err, a.name);
          reasons.push(`${a.name} authorizer error: ${err instanceof Error ? err.message : String(err)}`);
          continue;
        }
        if (result.decision === "allow" || result.decision === "deny") return result;
        if (result.reason) reasons.push(result.reason);
      }
      return { decision: "noOpinion", reason: reasons.join("\n") };
    },
  };
}
