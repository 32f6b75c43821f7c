export {
  BootstrapObjectsController,
  type BootstrapObjectsOptions,
} from "./apiserver-bootstrap/bootstrap-objects-controller.ts";
export {
  ApiServiceRegistrationController,
  type ApiServiceRegistrationOptions,
} from "./apiservice-registration/apiservice-registration-controller.ts";
export {
  AUTHENTICATION_CONFIG_MAP,
  type AuthenticationTrust,
  AuthenticationTrustController,
} from "./authentication-trust/authentication-trust-controller.ts";
export { BootstrapSigner, type BootstrapSignerOptions } from "./bootstrap-signer/bootstrap-signer.ts";
export {
  CLUSTER_INFO,
  ClusterInfoPublisher,
  clusterInfoKubeconfig,
  JWS_KEY_PREFIX,
  KUBECONFIG_KEY,
} from "./bootstrap-signer/cluster-info.ts";
export { detachedSignature, detachedSignatureIsValid } from "./bootstrap-signer/jws.ts";
export { BootstrapTokenCleaner, type TokenCleanerOptions } from "./bootstrap-token/token-cleaner.ts";
export { CsrApprovingController } from "./certificates/approver.ts";
export {
  type ClusterSigningFiles,
  loadClusterSigners,
  SigningAuthority,
  SigningAuthorityError,
} from "./certificates/authority.ts";
export { CsrCleaner, type CsrCleanerOptions, csrExpiry } from "./certificates/cleaner.ts";
export { type CsrSignerOptions, CsrSigningController } from "./certificates/signer.ts";
export { ControllerClient, type ControllerCredentials } from "./client.ts";
export { ClusterRoleAggregationController } from "./clusterrole-aggregation/clusterrole-aggregation-controller.ts";
export {
  GarbageCollector,
  type GarbageCollectorOptions,
  type GcLogger,
} from "./garbage-collector/garbage-collector.ts";
export { Informer } from "./informer.ts";
export { advertiseAddress } from "./kubernetes-service/advertise-address.ts";
export {
  KubernetesServiceController,
  type KubernetesServiceOptions,
} from "./kubernetes-service/kubernetes-service-controller.ts";
export {
  defaultIdentity,
  LeaderElector,
  type LeaderElectorOptions,
} from "./leader-election/index.ts";
export { NamespaceController } from "./namespace/namespace-controller.ts";
export { RootCaPublisher } from "./rootca/root-ca-publisher.ts";
export { ServiceAccountController } from "./serviceaccount/serviceaccount-controller.ts";
export { StorageProtectionController } from "./storageprotection/storage-protection.ts";
export { TokenController, type TokenControllerOptions } from "./token/token-controller.ts";
