export {
  applyJsonPatch,
  JsonPatchError,
  type JsonPatchOptions,
  MAX_JSON_PATCH_OPERATIONS,
} from "./json-patch.ts";
export { applyMergePatch, pruneNulls } from "./merge-patch.ts";
export { PatchError } from "./patch-error.ts";
export { applyStrategicMergePatch } from "./strategic-merge.ts";
