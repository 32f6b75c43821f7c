export type {
  Attributes,
  AuthorizationResult,
  Authorizer,
  Decision,
  NonResourceRule,
  ResourceRule,
  RulesResult,
} from "./authorizer.ts";
