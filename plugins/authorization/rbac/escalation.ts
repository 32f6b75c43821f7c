// Escalation prevention for writes of the RBAC kinds: nobody grants through a role or a binding
// what they could not do themselves. A role write passes when the writer already holds every rule
// it grants (in that namespace, or cluster-wide for a ClusterRole) or may `escalate` on the
// resource; a binding write passes when the writer may `bind` the referenced role or holds every
// rule of it. Members of system:masters pass always.
import type { Naming } from "../../../backends/naming/index.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { Attributes, AuthorizationResult } from "../authorizer.ts";
import {
  compactRules,
  compactString,
  covers,
  goQuotedList,
  type PolicyRule,
  rulesOf,
} from "./policy-rule.ts";
import { aggregateErrors, type RbacAuthorizer, type RoleRef } from "./rbac-authorizer.ts";

export const SYSTEM_MASTERS = "system:masters";

export interface EscalationRequest {
  readonly user: UserInfo;
  /** The request's namespace; "" for ClusterRoles and ClusterRoleBindings. */
  readonly namespace: string;
  /** `create`, `update` or `patch`. */
  readonly verb: string;
  /** `roles`, `clusterroles`, `rolebindings` or `clusterrolebindings`; others are not checked. */
  readonly resource: string;
  readonly apiVersion: string;
  /** The object as it is about to be stored. */
  readonly object: Record<string, unknown>;
  /** The stored object, for an update. */
  readonly old?: Record<string, unknown>;
}

/**
 * Why a write is refused. Forbidden: the message goes after
 * `<resource>.<group> "<name>" is forbidden: `. NotFound: a binding names a role that does not
 * exist, answered as upstream does with that role's 404.
 */
export type EscalationDenial =
  | { readonly reason: "Forbidden"; readonly message: string }
  | { readonly reason: "NotFound"; readonly resource: "roles" | "clusterroles"; readonly name: string };

export interface EscalationOptions {
  readonly rbac: RbacAuthorizer;
  readonly naming: Naming;
  /** The gateway's whole authorizer chain, asked about the `escalate` and `bind` verbs. */
  readonly authorize: (attributes: Attributes) => AuthorizationResult | Promise<AuthorizationResult>;
}

export type EscalationCheck = (request: EscalationRequest) => Promise<EscalationDenial | undefined>;

/** Everything: what a ClusterRole with an aggregationRule could come to grant. */
const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"], resourceNames: [], nonResourceURLs: [] },
  { verbs: ["*"], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: ["*"] },
];

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => deepEqual(x[k], y[k]));
}

// Fields the garbage collector and the server change; writing only these grants nothing.
const GC_AND_SERVER_FIELDS = [
  "ownerReferences",
  "finalizers",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "selfLink",
  "resourceVersion",
  "managedFields",
  "generation",
  "creationTimestamp",
  "uid",
];

/** Whether an update changes nothing but fields used to garbage-collect the object. */
export function onlyGarbageCollectionFields(
  object: Record<string, unknown>,
  old: Record<string, unknown>,
): boolean {
  const strip = (o: Record<string, unknown>) => {
    const meta = { ...(record(o.metadata) ?? {}) };
    for (const k of GC_AND_SERVER_FIELDS) delete meta[k];
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(object), strip(old));
}

function roleRefOf(object: Record<string, unknown>): RoleRef {
  const ref = record(object.roleRef) ?? {};
  const s = (v: unknown) => (typeof v === "string" ? v : "");
  return { apiGroup: s(ref.apiGroup), kind: s(ref.kind), name: s(ref.name) };
}

function hasAggregationRule(object: Record<string, unknown> | undefined): boolean {
  return object !== undefined && record(object.aggregationRule) !== undefined;
}

/** Builds the check the gateway runs before storing a write of an RBAC kind. */
export function escalationCheck(options: EscalationOptions): EscalationCheck {
  const group = options.naming.group("rbac.authorization");

  const allowed = async (attributes: Attributes): Promise<boolean> => {
    try {
      return (await options.authorize(attributes)).decision === "allow";
    } catch {
      // An authorizer failure grants nothing; the covering check still decides.
      return false;
    }
  };

  /** Undefined when the user holds every rule; otherwise upstream's refusal text. */
  const confirmNoEscalation = (user: UserInfo, namespace: string, rules: readonly PolicyRule[]) => {
    const owner = options.rbac.policyRulesFor(user, namespace);
    const { covered, missing } = covers(owner.rules, rules);
    if (covered) return undefined;
    const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
    let message = `user ${JSON.stringify(user.username)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join("\n")}`;
    if (owner.errors.length > 0) message += `; resolution errors: [${aggregateErrors(owner.errors)}]`;
    return message;
  };

  const attributes = (
    request: EscalationRequest,
    verb: string,
    apiGroup: string,
    resource: string,
    name: string,
  ): Attributes => ({
    user: request.user,
    verb,
    isResourceRequest: true,
    path: "",
    namespace: request.namespace,
    apiGroup,
    apiVersion: verb === "escalate" ? request.apiVersion : "",
    resource,
    subresource: "",
    name,
  });

  const checkRole = async (
    request: EscalationRequest,
    name: string,
  ): Promise<EscalationDenial | undefined> => {
    if (await allowed(attributes(request, "escalate", group, request.resource, name))) return undefined;
    const refused = confirmNoEscalation(request.user, request.namespace, rulesOf(request.object));
    if (refused) return { reason: "Forbidden", message: refused };
    if (
      request.resource === "clusterroles" &&
      (hasAggregationRule(request.object) || hasAggregationRule(request.old)) &&
      confirmNoEscalation(request.user, "", FULL_AUTHORITY) !== undefined
    ) {
      return {
        reason: "Forbidden",
        message: "must have cluster-admin privileges to use the aggregationRule",
      };
    }
    return undefined;
  };

  const checkBinding = async (request: EscalationRequest): Promise<EscalationDenial | undefined> => {
    const ref = roleRefOf(request.object);
    // A reference validation will refuse anyway needs no decision here.
    if (ref.kind !== "Role" && ref.kind !== "ClusterRole") return undefined;
    if (request.resource === "clusterrolebindings" && ref.kind !== "ClusterRole") return undefined;
    const roleResource = ref.kind === "Role" ? "roles" : "clusterroles";
    if (await allowed(attributes(request, "bind", ref.apiGroup, roleResource, ref.name))) return undefined;
    const rules = options.rbac.roleReferenceRules(ref, request.namespace);
    if (!rules) return { reason: "NotFound", resource: roleResource, name: ref.name };
    const refused = confirmNoEscalation(request.user, request.namespace, rules);
    return refused ? { reason: "Forbidden", message: refused } : undefined;
  };

  return async (request) => {
    if (!["roles", "clusterroles", "rolebindings", "clusterrolebindings"].includes(request.resource)) {
      return undefined;
    }
    // system:masters is how the server's own privileged clients act; it may always grant.
    if (request.user.groups.includes(SYSTEM_MASTERS)) return undefined;
    if (request.old && onlyGarbageCollectionFields(request.object, request.old)) return undefined;
    const meta = record(request.object.metadata) ?? {};
    const name = typeof meta.name === "string" ? meta.name : "";
    return request.resource.endsWith("bindings") ? checkBinding(request) : checkRole(request, name);
  };
}
