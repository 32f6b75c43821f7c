// ResourceQuota: namespaced writes are charged to, and refused by, the namespace's quotas.
import type { PluginRegistration } from "../index.ts";
import { createResourceQuota, PLUGIN_NAME } from "./plugin.ts";

export { charge, checkRequest, type QuotaState, quotaState } from "./check.ts";
export { type LimitedResource, parseConfig, type QuotaConfig } from "./config.ts";
export { type Evaluator, EvaluatorRegistry, objectCountName, type ScopeSelector } from "./evaluators.ts";
export { createResourceQuota, type ResourceQuotaOptions } from "./plugin.ts";

export const registration: PluginRegistration = {
  name: PLUGIN_NAME,
  factory: (env) => createResourceQuota(env),
};
