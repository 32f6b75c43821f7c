// The fixed authorizers: AlwaysAllow and AlwaysDeny (`--authorization-mode`), and the
// privileged-group authorizer the server puts ahead of every mode so that members of
// `system:masters` may do anything whatever the other authorizers say.
import type { UserInfo } from "../../gateway/pipeline/index.ts";
import type { Authorizer, RulesResult } from "./authorizer.ts";

export const SYSTEM_PRIVILEGED_GROUP = "system:masters";

const EVERYTHING: RulesResult = {
  resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
  nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
  incomplete: false,
};

const NOTHING: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };

export function alwaysAllow(): Authorizer {
  return {
    name: "AlwaysAllow",
    authorize: () => ({ decision: "allow", reason: "" }),
    rulesFor: () => EVERYTHING,
  };
}

/** Upstream's AlwaysDeny has no opinion (a later mode may still allow) and says why. */
export function alwaysDeny(): Authorizer {
  return {
    name: "AlwaysDeny",
    authorize: () => ({ decision: "noOpinion", reason: "Everything is forbidden." }),
    rulesFor: () => NOTHING,
  };
}

/**
 * Allows every request of a user in one of `groups`; no opinion otherwise. It lists no rules of
 * its own (the rules a privileged user sees come from the other authorizers), and a listing is
 * not incomplete because of it.
 */
export function privilegedGroups(groups: readonly string[] = [SYSTEM_PRIVILEGED_GROUP]): Authorizer {
  const privileged = new Set(groups);
  return {
    name: "PrivilegedGroups",
    authorize(attributes) {
      const user: UserInfo | undefined = attributes.user;
      if (!user) return { decision: "noOpinion", reason: "no user on request" };
      return user.groups.some((g) => privileged.has(g))
        ? { decision: "allow", reason: "" }
        : { decision: "noOpinion", reason: "" };
    },
    rulesFor: () => NOTHING,
  };
}
