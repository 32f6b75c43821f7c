export type { RequestContext, UserInfo } from "./context.ts";
export { Pipeline, type Stage } from "./pipeline.ts";
