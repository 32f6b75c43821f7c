// ValidatingAdmissionPolicy (admissionregistration.<domain>/v1alpha1, gate ValidatingAdmissionPolicy),
// upstream 1.27 behaviour. Its CEL environment lives in ../cel, shared with webhooks.
import type { PluginRegistration } from "../index.ts";
import { createValidatingAdmissionPolicy, PLUGIN_NAME } from "./plugin.ts";

export const registration: PluginRegistration = {
  name: PLUGIN_NAME,
  factory: (env) => createValidatingAdmissionPolicy(env),
};
