export {
  type BootstrapPolicy,
  bootstrapPolicy,
  CONTROLLER_NAMES,
  SYSTEM_AUTHENTICATED,
  SYSTEM_UNAUTHENTICATED,
  signerNames,
} from "./bootstrap-policy.ts";
export {
  type EscalationCheck,
  type EscalationDenial,
  type EscalationOptions,
  type EscalationRequest,
  escalationCheck,
  SYSTEM_MASTERS,
} from "./escalation.ts";
export {
  breakdownRule,
  compactString,
  covers,
  type PolicyRule,
  policyRule,
  ruleAllows,
  rulesOf,
  ruleToJson,
  sameRule,
  toPolicyRule,
} from "./policy-rule.ts";
export { RbacAuthorizer, type RoleRef, rbacAuthorizer } from "./rbac-authorizer.ts";
export { type ReconcileReport, reconcileBootstrapPolicy } from "./reconcile.ts";
