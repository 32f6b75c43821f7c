export { alwaysAllow, alwaysDeny, privilegedGroups, SYSTEM_PRIVILEGED_GROUP } from "./always.ts";
export type {
  Attributes,
  AuthorizationResult,
  Authorizer,
  Decision,
  NonResourceRule,
  ResourceRule,
  RulesResult,
} from "./authorizer.ts";
export { type UnionAuthorizer, type UnionOptions, unionAuthorizer } from "./union.ts";
export {
  type WebhookAuthorizer,
  type WebhookAuthorizerOptions,
  webhookAuthorizer,
} from "./webhook/webhook.ts";
