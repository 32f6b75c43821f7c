export {
  type DistinctHeaders,
  distinctHeaders,
  type ImpersonationRequest,
  impersonationRequests,
  serviceAccountGroups,
  splitServiceAccountUsername,
} from "./requests.ts";
export { impersonationStage } from "./stage.ts";
