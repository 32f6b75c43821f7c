// A real HTTPS server for tests of clients and webhook callers: its own CA, a serving certificate
// for 127.0.0.1, and the client certificates it saw (by common name) on each request.
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { type Authority, createAuthority, issueCertificate } from "../../../gateway/pki/certificates.ts";

export interface PeerRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
  /** Common name of a client certificate that chains to the peer's client CA; undefined otherwise. */
  readonly clientCN: string | undefined;
  /** Which TLS connection (counted from 1) carried the request. */
  readonly connection: number;
}

export type PeerHandler = (req: PeerRequest, res: ServerResponse) => void | Promise<void>;

export interface HttpsPeer {
  readonly url: string;
  readonly port: number;
  /** The CA that signed the peer's serving certificate. */
  readonly serverCa: Authority;
  /** The CA whose client certificates the peer accepts. */
  readonly clientCa: Authority;
  readonly requests: PeerRequest[];
  /** TLS connections accepted so far. */
  readonly connections: () => number;
  clientCertificate(
    commonName: string,
    organizations?: string[],
  ): Promise<{ certPem: string; keyPem: string }>;
  close(): Promise<void>;
}

let sharedCas: Promise<{ server: Authority; client: Authority }> | undefined;

export async function startHttpsPeer(
  handler: PeerHandler,
  options: { readonly altNames?: readonly string[] } = {},
): Promise<HttpsPeer> {
  // Key generation is the slow part; tests in one process share the two authorities.
  sharedCas ??= (async () => ({
    server: await createAuthority("test-peer-server-ca"),
    client: await createAuthority("test-peer-client-ca"),
  }))();
  const { server: serverCa, client: clientCa } = await sharedCas;
  const serving = await issueCertificate(serverCa, {
    commonName: "test-peer",
    usage: "server",
    altNames: ["127.0.0.1", "localhost", ...(options.altNames ?? [])],
  });
  const requests: PeerRequest[] = [];
  let connections = 0;
  const connectionIds = new WeakMap<TLSSocket, number>();
  const server: Server = createServer(
    {
      cert: serving.certPem,
      key: serving.keyPem,
      ca: clientCa.certPem,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const socket = req.socket as TLSSocket;
        const cert = socket.getPeerCertificate();
        const cn = socket.authorized && cert?.subject ? (cert.subject.CN as string | undefined) : undefined;
        const request: PeerRequest = {
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          clientCN: cn,
          connection: connectionIds.get(socket) ?? 0,
        };
        requests.push(request);
        Promise.resolve(handler(request, res)).catch((err: unknown) => {
          res.statusCode = 500;
          res.end(String(err));
        });
      });
    },
  );
  server.on("secureConnection", (socket: TLSSocket) => {
    connections++;
    connectionIds.set(socket, connections);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    serverCa,
    clientCa,
    requests,
    connections: () => connections,
    clientCertificate: (commonName, organizations = []) =>
      issueCertificate(clientCa, { commonName, organizations, usage: "client" }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answer with a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
