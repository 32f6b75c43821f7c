// One proxied request as an undici dispatch handler: the extension's answer goes straight from the
// client connection's parser to the response, without a body stream, a second abort controller or
// a promise per step in between. That path is what every proxied GET and every watch event pays.
import type { Writable } from "node:stream";
import type { Dispatcher } from "undici";
import { describe, RemoteTimeoutError, RemoteUnavailableError } from "./errors.ts";
import { returnedHeaders } from "./identity-headers.ts";

/**
 * Answers of at most this many bytes (by their Content-Length) are read whole and sent on in one
 * write with their head, rather than streamed: a GET of one object is one write to the client.
 */
const WHOLE_ANSWER_BYTES = 64 * 1024;

/**
 * The client's side of a proxied call. One object per request with no closures in it: a closure
 * made per request and kept where it can reach itself (an abort listener on the client's signal,
 * say) kept every proxied request alive through V8's young-generation collections.
 */
export interface ClientSide {
  /** Opens the response to the client with the extension's status and headers. */
  begin(status: number, headers: Record<string, string | string[]>): Writable;
  /**
   * From now on `call.clientLeft()` is called if the client goes away before its answer is
   * complete; `undefined` stops that.
   */
  follow(call: { clientLeft(): void } | undefined): void;
}

/** The call a streaming response belongs to, for the one drain listener every response shares. */
const CALL = Symbol("proxied call");

function resumeUpstream(this: Writable & { [CALL]?: ProxyCall }): void {
  this[CALL]?.resume();
}

function expire(call: ProxyCall): void {
  call.expire();
}

/**
 * Settles `done` when the answer has been sent on (or the client left): with a RemoteTimeoutError
 * or RemoteUnavailableError only before the answer began; afterwards a failure ends the response.
 */
export class ProxyCall implements Dispatcher.DispatchHandler {
  readonly #apiService: string;
  readonly #client: ClientSide;
  readonly #resolve: () => void;
  readonly #reject: (err: Error) => void;
  readonly #timer: NodeJS.Timeout | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the call was ended before undici started it; it is aborted as it starts. */
  #endedEarly: Error | undefined;
  #timedOut = false;
  #settled = false;
  /** A small answer's status, headers and chunks, sent on whole at its end. */
  #whole: { status: number; headers: Record<string, string | string[]>; chunks: Buffer[] } | undefined;
  /** A streamed answer's response. */
  #out: (Writable & { [CALL]?: ProxyCall }) | undefined;

  constructor(
    apiService: string,
    client: ClientSide,
    timeoutMs: number | undefined,
    resolve: () => void,
    reject: (err: Error) => void,
  ) {
    this.#apiService = apiService;
    this.#client = client;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = timeoutMs === undefined ? undefined : setTimeout(expire, timeoutMs, this);
    client.follow(this);
  }

  clientLeft(): void {
    this.#end(new Error("the client closed the request"));
  }

  /** The request's deadline passed. */
  expire(): void {
    this.#timedOut = true;
    this.#end(new Error("the request's deadline passed"));
  }

  resume(): void {
    this.#controller?.resume();
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#endedEarly) controller.abort(this.#endedEarly);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (status < 200) return; // interim answers (100 Continue) are not sent on
    const sent = returnedHeaders(headers);
    const length = Number(headers["content-length"] ?? Number.NaN);
    if (length <= WHOLE_ANSWER_BYTES) {
      this.#whole = { status, headers: sent, chunks: [] };
      return;
    }
    const out = this.#client.begin(status, sent) as Writable & { [CALL]?: ProxyCall };
    out[CALL] = this;
    out.on("drain", resumeUpstream);
    this.#out = out;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#whole) this.#whole.chunks.push(chunk);
    else if (this.#out && !this.#out.write(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    const whole = this.#whole;
    if (whole) {
      const body = whole.chunks.length === 1 ? (whole.chunks[0] as Buffer) : Buffer.concat(whole.chunks);
      this.#client.begin(whole.status, whole.headers).end(body);
    } else this.#out?.end();
    this.#settle(undefined);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.#out) {
      // The status went out already: the response just ends.
      this.#out.destroy();
      this.#settle(undefined);
    } else this.#settle(this.#failure(err));
  }

  #end(reason: Error): void {
    if (this.#settled) return;
    if (this.#controller) this.#controller.abort(reason);
    else {
      // Still queued for a connection: undici starts it later, and it is aborted then.
      this.#endedEarly = reason;
      this.#settle(this.#out ? undefined : this.#failure(reason));
    }
  }

  #failure(err: Error): Error {
    return this.#timedOut
      ? new RemoteTimeoutError(
          "request did not complete within requested timeout - context deadline exceeded",
        )
      : new RemoteUnavailableError(this.#apiService, `error trying to reach service: ${describe(err)}`);
  }

  #settle(err: Error | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#client.follow(undefined);
    if (this.#out) {
      this.#out.off("drain", resumeUpstream);
      delete this.#out[CALL];
    }
    if (err) this.#reject(err);
    else this.#resolve();
  }
}
