// Typed storage failures. The gateway maps them to Status responses in one place; nothing
// here carries an HTTP code.
import type { Revision, StoredValue } from "./storage.ts";

export type StorageErrorCode =
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "TooOld"
  | "TooLarge"
  | "Unavailable"
  | "Internal";

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key: string | undefined;

  constructor(code: StorageErrorCode, message: string, key?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = `StorageError(${code})`;
    this.code = code;
    this.key = key;
  }
}

export class NotFoundError extends StorageError {
  constructor(key: string) {
    super("NotFound", `key not found: ${key}`, key);
  }
}

export class AlreadyExistsError extends StorageError {
  constructor(key: string) {
    super("AlreadyExists", `key already exists: ${key}`, key);
  }
}

/** A precondition on the revision failed; `current` is the value that is stored now. */
export class ConflictError extends StorageError {
  readonly current: StoredValue;
  readonly expectedRevision: Revision;

  constructor(key: string, expectedRevision: Revision, current: StoredValue) {
    super(
      "Conflict",
      `revision mismatch for ${key}: expected ${expectedRevision}, found ${current.modRevision}`,
      key,
    );
    this.current = current;
    this.expectedRevision = expectedRevision;
  }
}

/** The requested revision is older than the retained history. */
export class TooOldError extends StorageError {
  readonly requested: Revision;
  readonly oldest: Revision;

  /** `message` replaces the default when the store knows more about what was lost. */
  constructor(requested: Revision, oldest: Revision, message?: string) {
    super("TooOld", message ?? `revision ${requested} has been compacted; the oldest available is ${oldest}`);
    this.requested = requested;
    this.oldest = oldest;
  }
}

/** The backend refused the value as larger than it stores (etcd's request size limit, say). */
export class TooLargeError extends StorageError {
  constructor(message: string, key?: string, options?: ErrorOptions) {
    super("TooLarge", message, key, options);
  }
}

/** The backend cannot be reached or has been closed. */
export class UnavailableError extends StorageError {
  constructor(message: string, options?: ErrorOptions) {
    super("Unavailable", message, undefined, options);
  }
}

/** A stored value cannot be read back (it fails to decrypt, say); the key is not overwritten. */
export class InternalStorageError extends StorageError {
  constructor(message: string, key?: string, options?: ErrorOptions) {
    super("Internal", message, key, options);
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
