// Read failures of the watch cache, typed; the gateway turns each into its Status.
import type { Revision } from "../contract/index.ts";

/** The request's own parameters are wrong (HTTP 400). */
export class InvalidRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidRequestError";
  }
}

/** The requested revision or continue token has left the history window (HTTP 410). */
export class ExpiredError extends Error {
  /** For an expired continue token: a token that continues at the latest revision instead. */
  readonly continueToken: string | undefined;

  constructor(message: string, continueToken?: string) {
    super(message);
    this.name = "ExpiredError";
    this.continueToken = continueToken;
  }
}

/** A revision the cache has not reached did not arrive in time (HTTP 504 with Retry-After). */
export class TooLargeResourceVersionError extends Error {
  readonly requested: Revision;
  readonly current: Revision;
  readonly retryAfterSeconds: number;

  constructor(requested: Revision, current: Revision, retryAfterSeconds = 1) {
    super(`Too large resource version: ${requested}, current: ${current}`);
    this.name = "TooLargeResourceVersionError";
    this.requested = requested;
    this.current = current;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The cache could not catch up with the store in time (HTTP 504). */
export class CacheTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CacheTimeoutError";
  }
}
