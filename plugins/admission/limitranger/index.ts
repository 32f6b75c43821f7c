// LimitRanger: default and bounded compute resources for pods, bounded storage for claims.
import type { PluginRegistration } from "../index.ts";
import { createLimitRanger, PLUGIN_NAME } from "./plugin.ts";

export {
  aggregate,
  maxConstraint,
  maxRequestConstraint,
  minConstraint,
  ratioConstraint,
} from "./constraints.ts";
export { createLimitRanger } from "./plugin.ts";

export const registration: PluginRegistration = {
  name: PLUGIN_NAME,
  factory: (env) => createLimitRanger(env),
};
