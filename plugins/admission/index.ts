export type {
  AdmissionPlugin,
  Attributes,
  GroupVersionKind,
  GroupVersionResource,
  JsonObject,
  ObjectWriter,
  AuditAnnotationLevel,
  Operation,
  PluginEnv,
  PluginFactory,
  PluginOptions,
  PluginRegistration,
} from "./contract.ts";
export {
  type AdmissionDetails,
  AdmissionError,
  badRequest,
  forbidden,
  internalError,
  invalid,
} from "./errors.ts";
