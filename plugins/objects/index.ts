export type { ApiObject, InformerEvent, LocalInformer, ObjectAccess, ResourceRef } from "./objects.ts";
export { serviceDirectory } from "./service-directory.ts";
