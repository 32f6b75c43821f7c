export type { RequestContext, UserInfo } from "./context.ts";
export { Pipeline, type Stage } from "./pipeline.ts";
export { AUDIT_ID_HEADER, takeOverResponse } from "./take-over.ts";
