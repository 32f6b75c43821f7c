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
    // Synchronous while the members answer synchronously (RBAC, Node, the privileged groups): a
    // request then goes on without a microtask turn per member.
    authorize(attributes: Attributes): AuthorizationResult | Promise<AuthorizationResult> {
      const reasons: string[] = [];
      const failed = (err: unknown, a: Authorizer) => {
        // A broken authorizer must not turn a request into a 500 nor allow it.
        options.onError?.(err, a.name);
        reasons.push(`${a.name} authorizer error: ${err instanceof Error ? err.message : String(err)}`);
      };
      /** The result when it decides; otherwise its reason is kept and undefined returned. */
      const decided = (result: AuthorizationResult) => {
        if (result.decision === "allow" || result.decision === "deny") return result;
        if (result.reason) reasons.push(result.reason);
        return undefined;
      };
      const from = (start: number): AuthorizationResult | Promise<AuthorizationResult> => {
        for (let i = start; i < members.length; i++) {
          const a = members[i] as Authorizer;
          let answer: AuthorizationResult | Promise<AuthorizationResult>;
          try {
            answer = a.authorize(attributes);
          } catch (err) {
            failed(err, a);
            continue;
          }
          if (answer instanceof Promise)
            return answer.then(
              (result) => decided(result) ?? from(i + 1),
              (err: unknown) => {
                failed(err, a);
                return from(i + 1);
              },
            );
          const result = decided(answer);
          if (result) return result;
        }
        return { decision: "noOpinion", reason: reasons.join("\n") };
      };
      return from(0);
    },
  };
}
