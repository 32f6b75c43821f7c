// Why a request for a remote group/version got no answer from its extension server. The gateway
// maps these to Status (503, 504) in its one place for errors.

/** The extension could not be reached (no Service or endpoints, refused, TLS, reset). */
export class RemoteUnavailableError extends Error {
  /** The APIService's name. */
  readonly apiService: string;

  constructor(apiService: string, message: string) {
    super(message);
    this.name = "RemoteUnavailableError";
    this.apiService = apiService;
  }
}

/** The extension did not answer within the request's deadline. */
export class RemoteTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RemoteTimeoutError";
  }
}

/** An undici failure's message with its cause's, as the Status message of a failed call. */
export function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  const cause = e.cause?.message ?? "";
  return [e.message ?? String(err), cause].filter(Boolean).join(": ");
}
