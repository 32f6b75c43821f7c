export {
  ApiClient,
  type ApiClientOptions,
  type ApiReply,
  type RequestOptions,
  ResponseError,
} from "./api-client.ts";
export {
  EXEC_INFO_ENV,
  type ExecClusterInfo,
  ExecCredentialProvider,
  type ExecCredentials,
  type ExecProviderOptions,
} from "./exec.ts";
export { ExpiringCache } from "./expiring-cache.ts";
export {
  type ClientConfig,
  type ClusterConfig,
  type ExecConfig,
  type KubeconfigFile,
  loadKubeconfig,
  parseKubeconfig,
  readKubeconfigFile,
  resolveContext,
  type UserConfig,
} from "./kubeconfig.ts";
export { type WatchEvent, watchEvents } from "./watch-lines.ts";
export { WebhookCredentials } from "./webhook-credentials.ts";
