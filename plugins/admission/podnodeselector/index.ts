// PodNodeSelector: namespace and cluster node selectors for new pods.
import type { PluginRegistration } from "../index.ts";
import { createPodNodeSelector, PLUGIN_NAME } from "./plugin.ts";

export { createPodNodeSelector, parseConfig } from "./plugin.ts";
export { type LabelMap, parseNodeSelector, SelectorError } from "./selector.ts";

export const registration: PluginRegistration = {
  name: PLUGIN_NAME,
  factory: (env) => createPodNodeSelector(env),
};
