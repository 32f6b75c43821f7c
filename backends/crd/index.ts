// CustomResourceDefinitions (apiextensions/v1): the definition's own lifecycle and validation, and
// the served resource each definition describes. Pure backend code: the gateway routes, publishes
// discovery and OpenAPI, and runs the controllers.
export { type CelValidator, celValidator, runCelValidator } from "./cel-validator.ts";
export {
  type ConversionCallouts,
  ConversionError,
  MAX_CONVERSION_RESPONSE_BYTES,
  WebhookConverter,
} from "./conversion-webhook.ts";
export { type CrdStatusOptions, crdStatus } from "./crd-status.ts";
export { type CrdStrategyOptions, crdCleanupFinalizer, crdStrategy } from "./crd-strategy.ts";
export {
  apiApprovalAnnotation,
  apiApprovalState,
  isProtectedGroup,
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionStatus,
  validateCustomResourceDefinitionUpdate,
} from "./crd-validation.ts";
export { defaultCustomResourceDefinition, storageVersionOf } from "./crd-view.ts";
export {
  type CustomResourceKind,
  compareKubeAwareVersions,
  customResourceKind,
  defaultDeprecationWarning,
} from "./custom-kind.ts";
export { goJsonMarshal, type JsonPath, JsonPathError, parseJsonPath, printResult } from "./jsonpath.ts";
export { dateCell, printerColumns } from "./printer-columns.ts";
export {
  applyScale,
  getScale,
  readScale,
  type ScaleError,
  type ScaleSubresource,
  scaleForUpdate,
  UNSET_SPEC_REPLICAS,
  validateScaleSpec,
  validateScaleStatus,
} from "./scale.ts";
