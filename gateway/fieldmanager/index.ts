export { ApplyConflictError, FieldManagerError } from "./errors.ts";
export { FieldManager, type VersionView } from "./field-manager.ts";
export { fieldManagerFor, versionView } from "./for-resource.ts";
export { managerName, validateFieldManager } from "./manager-name.ts";
