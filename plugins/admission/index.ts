export type {
  AdmissionPlugin,
  Attributes,
  AuditAnnotationLevel,
  GroupVersionKind,
  GroupVersionResource,
  JsonObject,
  ObjectWriter,
  Operation,
  PluginEnv,
  PluginFactory,
  PluginOptions,
  PluginRegistration,
  Reinvocation,
  ResourceCatalog,
  ResourceInfo,
} from "./contract.ts";
export {
  type AdmissionDetails,
  AdmissionError,
  badRequest,
  forbidden,
  internalError,
  invalid,
} from "./errors.ts";
export { objectAtVersion } from "./object-version.ts";
export { sharedMetric } from "./shared-metric.ts";
export { authorizedForSigner, signerNameOf } from "./signer-authorization.ts";
