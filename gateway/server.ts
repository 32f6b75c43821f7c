// The HTTPS listener: TLS with optional client certificates (verified against the client CA
// when presented; requests without one go on as anonymous candidates), structured logs, and a
// graceful stop that drains in-flight requests. Requests that never reach a route (plain HTTP on
// this port, a request line and headers past the bound, a request that does not parse) get
// upstream's answers, as Status objects where upstream's HTTP server has none of its own.
import { type IncomingMessage, ServerResponse, STATUS_CODES } from "node:http";
import type { ServerOptions as HttpsServerOptions } from "node:https";
import type { Socket } from "node:net";
import type { Server as TlsServer } from "node:tls";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { type ApiError, errors } from "./request/api-error.ts";
import { DISCARD_LIMIT_BYTES } from "./request/unread-body.ts";

export interface ServerTls {
  readonly certPem: string;
  readonly keyPem: string;
  /** CAs that sign client certificates. */
  readonly clientCaPem: string;
}

/** Upstream's bound on the request line and headers (Go's http.Server MaxHeaderBytes there). */
export const MAX_HEADER_BYTES = 1024 * 1024;

/** Node's header timing, which tests shorten. */
export interface HeaderTiming {
  /** How long a request's line and headers may take once they have begun (Node's default: 60 s). */
  readonly headersTimeoutMs: number;
  /** How often connections are checked against it (Node's default: 30 s). */
  readonly checkIntervalMs: number;
}

export function createServer(
  tls: ServerTls,
  logger: FastifyBaseLogger | boolean = true,
  timing: HeaderTiming = { headersTimeoutMs: 60_000, checkIntervalMs: 30_000 },
): FastifyInstance {
  const app = Fastify({
    loggerInstance: typeof logger === "boolean" ? undefined : logger,
    logger: typeof logger === "boolean" ? logger : undefined,
    https: {
      cert: tls.certPem,
      key: tls.keyPem,
      ca: tls.clientCaPem,
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: "TLSv1.2",
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: timing.headersTimeoutMs,
      connectionsCheckingInterval: timing.checkIntervalMs,
    } as HttpsServerOptions,
    // Watches and long lists stream for a long time; closing is driven by shutdown instead.
    requestTimeout: 0,
    return503OnClosing: true,
    // fastify 5's place for it (the top-level option is deprecated, FSTDEP023).
    logController: new LogController({ disableRequestLogging: true }),
    // Without a logger fastify makes no children; with one, a child only for a request that logs.
    ...(logger === false ? {} : { childLoggerFactory: lazyChildLogger }),
    forceCloseConnections: "idle",
    clientErrorHandler: answerClientError,
    // A path fastify cannot decode (`%zz`) never reaches a route; it still gets a Status.
    frameworkErrors: (err, _req, reply) => {
      const error = errors.badRequest(`the request path is not valid: ${err.message}`);
      const raw = reply.raw;
      const body = JSON.stringify(error.toStatus());
      raw.writeHead(error.code, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      });
      raw.end(body);
    },
  }) as unknown as FastifyInstance;
  answerPlainHttp(app.server as unknown as TlsServer);
  trackSecureSockets(app.server as unknown as TlsServer);
  app.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const seen = connections.get(socket) ?? { begun: 0, answering: 0 };
    seen.begun++;
    seen.answering++;
    connections.set(socket, seen);
    // `on`: a response closes once, and `once` would wrap the listener and remove it again.
    res.on("close", () => seen.answering--);
  });
  routeUpgrades(app);
  return app;
}

type LogArgs = [unknown, ...unknown[]];
type Bindings = Parameters<FastifyBaseLogger["child"]>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger["child"]>[1]>;

/**
 * A request's logger, made from the server's the first time the request logs. Request logging is
 * off, so most requests never log, and a pino child per request (its bindings serialized) was a
 * measurable share of a cached GET.
 */
class LazyChildLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #made: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): FastifyBaseLogger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }

  get level(): string {
    return this.#logger.level;
  }
  set level(level: string) {
    this.#logger.level = level;
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }
  fatal(...args: LogArgs): void {
    Reflect.apply(this.#logger.fatal, this.#logger, args);
  }
  error(...args: LogArgs): void {
    Reflect.apply(this.#logger.error, this.#logger, args);
  }
  warn(...args: LogArgs): void {
    Reflect.apply(this.#logger.warn, this.#logger, args);
  }
  info(...args: LogArgs): void {
    Reflect.apply(this.#logger.info, this.#logger, args);
  }
  debug(...args: LogArgs): void {
    Reflect.apply(this.#logger.debug, this.#logger, args);
  }
  trace(...args: LogArgs): void {
    Reflect.apply(this.#logger.trace, this.#logger, args);
  }
  silent(...args: LogArgs): void {
    Reflect.apply(this.#logger.silent, this.#logger, args);
  }
}

function lazyChildLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}

/**
 * Requests that ask to switch protocols (exec, port-forward, WebSocket watches) reach Node as
 * `upgrade` events, which it would otherwise answer by closing the connection. They go through the
 * same routes, so they are authenticated, audited and authorized as any request, with a response
 * bound to their socket: a handler that takes the connection over (the aggregator's proxy to an
 * extension server) answers 101 on it; otherwise the answer is an ordinary Status, and the
 * connection, no longer HTTP/1.1-parsed, closes after it.
 */
function routeUpgrades(app: FastifyInstance): void {
  app.server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    if (head.length > 0) socket.unshift(head);
    socket.on("error", () => socket.destroy());
    const res = new ServerResponse(req);
    res.assignSocket(socket);
    res.shouldKeepAlive = false;
    res.once("finish", () => socket.end());
    app.routing(req, res);
  });
}

/** Whether a request asks to switch protocols (and arrived through an `upgrade` event). */
export function isUpgrade(req: IncomingMessage): boolean {
  return typeof req.headers.upgrade === "string" && /\bupgrade\b/i.test(String(req.headers.connection ?? ""));
}

/**
 * Per connection: requests begun, and responses not yet finished. A header timeout uses them to
 * tell a stall or a pipelined request waiting its turn from a slow client.
 */
const connections = new WeakMap<Socket, { begun: number; answering: number }>();

/** Every open TLS connection of each server, for shutdown. */
const secureSockets = new WeakMap<TlsServer, Set<Socket>>();

function trackSecureSockets(server: TlsServer): void {
  const sockets = new Set<Socket>();
  secureSockets.set(server, sockets);
  server.on("secureConnection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
}

/**
 * Ends the connections that are not answering a request. Node's own idle check leaves out a
 * connection that finished its handshake but never sent a request (Go's HTTP client opens spare
 * ones), and the server's close would wait for it until the client goes away.
 */
export function closeIdleConnections(app: FastifyInstance): void {
  for (const socket of secureSockets.get(app.server as unknown as TlsServer) ?? []) {
    if ((connections.get(socket)?.answering ?? 0) === 0) socket.destroy();
  }
}

/**
 * A request the HTTP parser refused. The client may still be sending (a header section far past
 * the bound): closing at once would make the kernel reset the connection and the client lose the
 * answer, so the write side is closed and the rest is read and dropped, within bounds.
 */
function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  // The parser reports every later chunk of a refused request again; the first answer stands.
  if (err.code === "ECONNRESET" || socket.destroyed || socket.writableEnded) {
    if (socket.writableEnded && socket.bytesRead > dropUntil(socket)) socket.destroy();
    return;
  }
  // Go closes a connection whose headers time out without an answer, timing each request from
  // when it starts reading it, after the previous response. Node times a pipelined request from
  // its first byte, while an earlier response is still being made, and checks in the timers
  // phase, before pending reads: after the event loop stalled (a long GC, say) the rest of the
  // headers may sit unread although the client sent them in time. Either way closing would reset
  // requests that did nothing wrong. So a connection still answering is left alone, and one
  // round of I/O runs first; only a connection that then began no request is closed.
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    const seen = connections.get(socket);
    if (seen && seen.answering > 0) return;
    const begun = seen?.begun ?? 0;
    setImmediate(() => {
      if ((connections.get(socket)?.begun ?? 0) === begun) socket.destroy();
    });
    return;
  }
  const error: ApiError =
    err.code === "HPE_HEADER_OVERFLOW"
      ? errors.headersTooLarge(MAX_HEADER_BYTES)
      : errors.badRequest(`malformed HTTP request: ${err.message}`);
  const body = JSON.stringify(error.toStatus());
  dropLimits.set(socket, socket.bytesRead + DISCARD_LIMIT_BYTES);
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
  socket.end(
    `HTTP/1.1 ${error.code} ${STATUS_CODES[error.code]}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** How long a refused request's remainder is read before the connection is closed regardless. */
const DRAIN_MS = 5_000;
const dropLimits = new WeakMap<Socket, number>();
const dropUntil = (socket: Socket) => dropLimits.get(socket) ?? 0;

/** The first five bytes on which Go's HTTPS server answers plain HTTP instead of just closing. */
const PLAIN_HTTP_STARTS = new Set(["GET /", "HEAD ", "POST ", "PUT /", "OPTIO"]);
const PLAIN_HTTP_ANSWER = "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";
/** How long a connection may stay silent before its first bytes (tls's handshakeTimeout). */
const FIRST_BYTES_MS = 120_000;

/**
 * Looks at the first bytes of each connection before TLS does. A TLS record starts with 0x16
 * (handshake) and goes to the TLS server at once; anything else is judged on five bytes as Go
 * does. Bytes read here are put back, and the TLS socket consumes what the raw socket buffered.
 */
function answerPlainHttp(server: TlsServer): void {
  const tlsListeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    let head: Buffer | undefined;
    const close = () => socket.destroy();
    socket.on("error", close);
    socket.on("timeout", close);
    socket.setTimeout(FIRST_BYTES_MS);
    const onData = (chunk: Buffer) => {
      head = head ? Buffer.concat([head, chunk]) : chunk;
      if (head[0] !== 0x16 && head.length < 5) return;
      socket.off("data", onData);
      socket.pause();
      if (PLAIN_HTTP_STARTS.has(head.subarray(0, 5).toString("latin1"))) {
        socket.end(PLAIN_HTTP_ANSWER);
        socket.resume();
        return;
      }
      // From here on the TLS socket handles errors and timeouts, as it did before this layer.
      socket.setTimeout(0);
      socket.off("timeout", close);
      socket.off("error", close);
      socket.unshift(head);
      for (const listener of tlsListeners) listener.call(server, socket);
    };
    socket.on("data", onData);
  });
}
