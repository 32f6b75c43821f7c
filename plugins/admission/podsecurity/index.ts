// PodSecurity: the Pod Security Standards admission plugin (upstream's pod-security-admission).
import type { PluginRegistration } from "../contract.ts";
import { createPodSecurity, PLUGIN_NAME } from "./plugin.ts";

export { type PodSecurityConfig, parseConfig } from "./config.ts";
export { checkIds, evaluate, MAX_VERSION, verdictDetail } from "./evaluator.ts";
export type { Level, LevelVersion, Policy, Version } from "./levels.ts";
export { createPodSecurity, NAMESPACE_MAX_PODS_TO_CHECK, type PodSecurityOptions } from "./plugin.ts";

export const registration: PluginRegistration = {
  name: PLUGIN_NAME,
  factory: (env) => createPodSecurity(env),
};
