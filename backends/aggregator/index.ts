export { type ApiServiceEntry, readApiService } from "./apiservice.ts";
export { RemoteTimeoutError, RemoteUnavailableError } from "./errors.ts";
export {
  escapeExtraKey,
  forwardedHeaders,
  type IdentityHeaderNames,
  type ProxiedUser,
} from "./identity-headers.ts";
export { type ForwardRequest, RemoteBackend, type RemoteBackendOptions } from "./proxy.ts";
export type { ClientSide } from "./proxy-call.ts";
export { readResourceList } from "./resource-list.ts";
export { ApiServiceTable } from "./table.ts";
