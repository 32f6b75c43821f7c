// ValidatingAdmissionPolicy (admissionregistration.<domain>/v1alpha1, gate ValidatingAdmissionPolicy),
// upstream 1.27 behaviour; meant to replace plugins/admission/validatingpolicy/ (same exports).
import type { PluginRegistration } from "../index.ts";
import { createValidatingAdmissionPolicy, PLUGIN_NAME } from "./plugin.ts";

export {
  AdmissionEvaluator,
  AuthorizationSession,
  admissionEnvironment,
  compileAdmission,
  requestValue,
} from "./environment.ts";

export const registration: PluginRegistration = {
  name: PLUGIN_NAME,
  factory: (env) => createValidatingAdmissionPolicy(env),
};
