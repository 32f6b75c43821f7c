// The kind-specific validation rules of the built-in kinds, keyed by catalog type id. They run
// after the structural checks the catalog schema does for every kind (types, enums, required
// fields, ranges, quantities, list keys) and after the metadata checks, so neither is repeated
// here. `validateUpdate` replaces `validate` on updates and includes what applies to both.
import type { Naming } from "../../naming/naming.ts";
import type { FieldError } from "../../registry/field-error.ts";
import { validateWebhookConfiguration, validateWebhookConfigurationUpdate } from "./admission.ts";
import { validateAPIService } from "./apiregistration.ts";
import { validateCronJob, validateCronJobUpdate, validateJob, validateJobUpdate } from "./batch.ts";
import {
  validateCertificateSigningRequest,
  validateCertificateSigningRequestUpdate,
} from "./certificates.ts";
import {
  validateEndpointSlice,
  validateEndpointSliceUpdate,
  validateIngress,
  validateIngressClass,
  validateIngressClassUpdate,
  validateIngressUpdate,
  validateNetworkPolicy,
} from "./networking.ts";
import { validatePod, validatePodTemplate, validatePodUpdate } from "./pod.ts";
import {
  validateHorizontalPodAutoscaler,
  validatePodDisruptionBudget,
  validatePriorityClass,
  validatePriorityClassUpdate,
  validateRuntimeClass,
  validateRuntimeClassUpdate,
} from "./scheduling.ts";
import { validateEndpoints, validateService, validateServiceUpdate } from "./service.ts";
import {
  validatePV,
  validatePVC,
  validatePVCUpdate,
  validatePVUpdate,
  validateStorageClass,
  validateStorageClassUpdate,
} from "./storage.ts";
import {
  validateDaemonSet,
  validateDaemonSetUpdate,
  validateDeployment,
  validateDeploymentUpdate,
  validateReplicaSet,
  validateReplicaSetUpdate,
  validateReplicationController,
  validateStatefulSet,
  validateStatefulSetUpdate,
} from "./workloads.ts";

export { generateJobSelector, jobLabels } from "./batch.ts";
export { prepareServiceForCreate, prepareServiceForUpdate } from "./service.ts";
export { FIELD_VALUE_NOT_FOUND } from "./util.ts";

export interface KindValidator {
  /** Rules on create. */
  validate?(object: Record<string, unknown>): FieldError[];
  /** Rules on update of the main resource; called instead of `validate`. */
  validateUpdate?(object: Record<string, unknown>, old: Record<string, unknown>): FieldError[];
}

/** The validators of the built-in kinds that have rules of their own, by catalog type id. */
export function kindValidators(naming: Naming): Readonly<Record<string, KindValidator>> {
  const webhooks: KindValidator = {
    validate: validateWebhookConfiguration,
    validateUpdate: validateWebhookConfigurationUpdate,
  };
  return {
    "core/v1.Pod": {
      validate: (o) => validatePod(o, naming),
      validateUpdate: (o, old) => validatePodUpdate(o, old, naming),
    },
    "core/v1.PodTemplate": {
      validate: (o) => validatePodTemplate(o, naming),
      validateUpdate: (o) => validatePodTemplate(o, naming),
    },
    "core/v1.ReplicationController": {
      validate: (o) => validateReplicationController(o, naming),
      validateUpdate: (o) => validateReplicationController(o, naming),
    },
    "core/v1.Service": {
      validate: (o) => validateService(o, naming),
      validateUpdate: (o, old) => validateServiceUpdate(o, old, naming),
    },
    "core/v1.Endpoints": { validate: validateEndpoints, validateUpdate: validateEndpoints },
    "core/v1.PersistentVolumeClaim": {
      validate: (o) => validatePVC(o, naming),
      validateUpdate: (o, old) => validatePVCUpdate(o, old, naming),
    },
    "core/v1.PersistentVolume": {
      validate: (o) => validatePV(o, naming),
      validateUpdate: (o, old) => validatePVUpdate(o, old, naming),
    },
    "apps/v1.Deployment": {
      validate: (o) => validateDeployment(o, naming),
      validateUpdate: (o, old) => validateDeploymentUpdate(o, old, naming),
    },
    "apps/v1.ReplicaSet": {
      validate: (o) => validateReplicaSet(o, naming),
      validateUpdate: (o, old) => validateReplicaSetUpdate(o, old, naming),
    },
    "apps/v1.DaemonSet": {
      validate: (o) => validateDaemonSet(o, naming),
      validateUpdate: (o, old) => validateDaemonSetUpdate(o, old, naming),
    },
    "apps/v1.StatefulSet": { validate: validateStatefulSet, validateUpdate: validateStatefulSetUpdate },
    "batch/v1.Job": {
      validate: (o) => validateJob(o, naming),
      validateUpdate: (o, old) => validateJobUpdate(o, old, naming),
    },
    "batch/v1.CronJob": {
      validate: (o) => validateCronJob(o, naming),
      validateUpdate: (o, old) => validateCronJobUpdate(o, old, naming),
    },
    "networking/v1.Ingress": {
      validate: (o) => validateIngress(o, naming),
      validateUpdate: validateIngressUpdate,
    },
    "networking/v1.IngressClass": {
      validate: validateIngressClass,
      validateUpdate: validateIngressClassUpdate,
    },
    "networking/v1.NetworkPolicy": { validate: validateNetworkPolicy, validateUpdate: validateNetworkPolicy },
    "discovery/v1.EndpointSlice": {
      validate: validateEndpointSlice,
      validateUpdate: validateEndpointSliceUpdate,
    },
    "policy/v1.PodDisruptionBudget": {
      validate: validatePodDisruptionBudget,
      validateUpdate: validatePodDisruptionBudget,
    },
    "autoscaling/v2.HorizontalPodAutoscaler": {
      validate: (o) => validateHorizontalPodAutoscaler(o, naming),
      validateUpdate: (o) => validateHorizontalPodAutoscaler(o, naming),
    },
    "scheduling/v1.PriorityClass": {
      validate: validatePriorityClass,
      validateUpdate: validatePriorityClassUpdate,
    },
    "node/v1.RuntimeClass": {
      validate: (o) => validateRuntimeClass(o, naming),
      validateUpdate: (o, old) => validateRuntimeClassUpdate(o, old, naming),
    },
    "storage/v1.StorageClass": { validate: validateStorageClass, validateUpdate: validateStorageClassUpdate },
    "admissionregistration/v1.MutatingWebhookConfiguration": webhooks,
    "admissionregistration/v1.ValidatingWebhookConfiguration": webhooks,
    "apiregistration/v1.APIService": { validate: validateAPIService, validateUpdate: validateAPIService },
    "certificates/v1.CertificateSigningRequest": {
      validate: (o) => validateCertificateSigningRequest(o, naming),
      validateUpdate: (o, old) => validateCertificateSigningRequestUpdate(o, old, naming),
    },
  };
}
