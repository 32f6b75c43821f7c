export type { ApiObject, InformerEvent, LocalInformer, ObjectAccess, ResourceRef } from "./objects.ts";
