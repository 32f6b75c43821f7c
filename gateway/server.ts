// The HTTPS listener: TLS with optional client certificates (verified against the client CA
// when presented; requests without one go on as anonymous candidates), structured logs, and a
// graceful stop that drains in-flight requests.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";

export interface ServerTls {
  readonly certPem: string;
  readonly keyPem: string;
  /** CAs that sign client certificates. */
  readonly clientCaPem: string;
}

export function createServer(tls: ServerTls, logger: FastifyBaseLogger | boolean = true): FastifyInstance {
  return Fastify({
    loggerInstance: typeof logger === "boolean" ? undefined : logger,
    logger: typeof logger === "boolean" ? logger : undefined,
    https: {
      cert: tls.certPem,
      key: tls.keyPem,
      ca: tls.clientCaPem,
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: "TLSv1.2",
    },
    // Watches and long lists stream for a long time; closing is driven by shutdown instead.
    requestTimeout: 0,
    return503OnClosing: true,
    disableRequestLogging: true,
    forceCloseConnections: "idle",
  }) as unknown as FastifyInstance;
}
