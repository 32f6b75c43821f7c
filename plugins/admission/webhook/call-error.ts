// A webhook call that failed: failurePolicy decides what the request gets.

export class CallError extends Error {
  /** The HTTP status the webhook answered with, when it answered. */
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}
