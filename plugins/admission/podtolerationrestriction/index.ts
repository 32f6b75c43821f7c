// PodTolerationRestriction: namespace and cluster default tolerations and whitelists for pods.
import type { PluginRegistration } from "../index.ts";
import { createPodTolerationRestriction, PLUGIN_NAME } from "./plugin.ts";

export { parseConfig, type TolerationConfig } from "./config.ts";
export { createPodTolerationRestriction } from "./plugin.ts";
export { mergeTolerations, tolerationList, verifyAgainstWhitelist } from "./tolerations.ts";

export const registration: PluginRegistration = {
  name: PLUGIN_NAME,
  factory: (env) => createPodTolerationRestriction(env),
};
