export { ControllerClient, type ControllerCredentials } from "./client.ts";
export { Informer } from "./informer.ts";
export { NamespaceController } from "./namespace/namespace-controller.ts";
export { ServiceAccountController } from "./serviceaccount/serviceaccount-controller.ts";
