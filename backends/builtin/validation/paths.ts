// Relative file paths inside volumes and mounts, checked as upstream checks them on its own
// (Linux) side: no absolute paths where a relative one is expected, no `..` steps.
import { type FieldError, field } from "../../registry/field-error.ts";

/** No `..` element anywhere in the path (one error is enough). */
export function validatePathNoBacksteps(errs: FieldError[], target: string, path: string): void {
  if (!target.includes("..")) return;
  for (const item of target.split("/")) {
    if (item === "..") {
      errs.push(field.invalid(path, target, "must not contain '..'"));
      return;
    }
  }
}

/** A relative path that stays below its base. */
export function validateLocalDescendingPath(errs: FieldError[], target: string, path: string): void {
  if (target.startsWith("/")) errs.push(field.invalid(path, target, "must be a relative path"));
  validatePathNoBacksteps(errs, target, path);
}

/** Like validateLocalDescendingPath, and not starting with `..` either. */
export function validateLocalNonReservedPath(errs: FieldError[], target: string, path: string): void {
  validateLocalDescendingPath(errs, target, path);
  if (target.startsWith("..") && !target.startsWith("../"))
    errs.push(field.invalid(path, target, "must not start with '..'"));
}
