// The webhook admission plugins (MutatingAdmissionWebhook, ValidatingAdmissionWebhook).
import type { PluginRegistration } from "../index.ts";
import { createWebhookPlugin, MUTATING, VALIDATING } from "./plugin.ts";

export const mutatingWebhook: PluginRegistration = {
  name: MUTATING,
  factory: (env) => createWebhookPlugin(env, true),
};

export const validatingWebhook: PluginRegistration = {
  name: VALIDATING,
  factory: (env) => createWebhookPlugin(env, false),
};
