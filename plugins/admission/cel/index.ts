// The CEL environment of admission expressions, shared by ValidatingAdmissionPolicy, webhooks'
// matchConditions and the validation of webhook configurations.
export {
  AdmissionEvaluator,
  AuthorizationSession,
  admissionEnvironment,
  compileAdmission,
  requestValue,
} from "./environment.ts";
