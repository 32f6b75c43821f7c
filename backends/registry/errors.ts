// Typed failures of the object lifecycle; the gateway maps each to its Status.
import type { FieldError } from "./field-error.ts";

export type RegistryErrorReason =
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Invalid"
  | "BadRequest"
  | "Forbidden"
  | "MethodNotSupported";

export interface ResourceIdentity {
  readonly group: string;
  readonly resource: string;
  readonly kind: string;
}

export class RegistryError extends Error {
  readonly reason: RegistryErrorReason;
  readonly target: ResourceIdentity;
  readonly objectName: string;
  readonly causes: readonly FieldError[];

  constructor(
    reason: RegistryErrorReason,
    target: ResourceIdentity,
    objectName: string,
    message: string,
    causes: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = `RegistryError(${reason})`;
    this.reason = reason;
    this.target = target;
    this.objectName = objectName;
    this.causes = causes;
  }
}
