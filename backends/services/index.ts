export type { ServiceDirectory } from "./directory.ts";
export { DispatcherPool, type TlsIdentity } from "./dispatchers.ts";
export {
  type ResolveOptions,
  type ServiceProblem,
  type ServiceReference,
  type ServiceTarget,
  ServiceUnreachableError,
  serviceTargets,
} from "./targets.ts";
