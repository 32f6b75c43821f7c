// The authorizer contract: given who asks for what, each authorizer allows, denies, or has no
// opinion; a union asks them in order and the first allow or deny decides.
import type { UserInfo } from "../../gateway/pipeline/index.ts";

/** What a request asks to do, as authorizers see it (upstream's authorizer attributes). */
export interface Attributes {
  readonly user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, or a special verb. */
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** The URL path, for non-resource requests (`/healthz`, `/apis`). */
  readonly path: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

export type Decision = "allow" | "deny" | "noOpinion";

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Why, for the 403 message and SubjectAccessReview's `status.reason`; may be empty. */
  readonly reason: string;
}

export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

/** What a user may do in a namespace, for SelfSubjectRulesReview. */
export interface RulesResult {
  readonly resourceRules: readonly ResourceRule[];
  readonly nonResourceRules: readonly NonResourceRule[];
  /** True when some authorizer could not list its rules (the list may be short). */
  readonly incomplete: boolean;
  readonly evaluationError?: string;
}

export interface Authorizer {
  readonly name: string;
  authorize(attributes: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
  /** The rules this authorizer grants; absent when it cannot enumerate them. */
  rulesFor?(user: UserInfo, namespace: string): RulesResult | Promise<RulesResult>;
}
