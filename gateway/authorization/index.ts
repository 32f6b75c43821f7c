export {
  type AccessOptions,
  accessStages,
  authenticationStage,
  requestContext,
  requestInfoStage,
} from "./access.ts";
export { requestAttributes } from "./attributes.ts";
export { forbidden, forbiddenMessage } from "./forbidden.ts";
export { type AccessGuard, accessGuard, registerNotFound } from "./guard.ts";
export { authorizationStage, verbAuthorizer } from "./stage.ts";
