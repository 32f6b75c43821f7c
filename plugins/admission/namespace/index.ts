export { namespaceAutoProvision } from "./autoprovision.ts";
export { namespaceExists } from "./exists.ts";
export { namespaceLifecycle } from "./lifecycle.ts";
