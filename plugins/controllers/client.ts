// The controllers' way to the API: plain HTTPS requests to the gateway with their own client
// certificate, exactly as an external client would make them (DESIGN.md, Controllers). The
// transport is the shared API client; this adds `must` and the controllers' error type.
import { ApiClient, type ApiReply, ResponseError } from "../client/index.ts";

export type { ApiReply } from "../client/index.ts";

export interface ControllerCredentials {
  readonly server: string;
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  /** Sent as User-Agent: the server records writes under the name before its first slash. */
  readonly userAgent?: string;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "ControllerApiError";
    this.status = status;
  }
}

export class ControllerClient {
  readonly #client: ApiClient;

  /** A controller running elsewhere, with the credentials of a kubeconfig file. */
  static fromKubeconfig(path: string): ControllerClient {
    return new ControllerClient(ApiClient.fromKubeconfig(path));
  }

  constructor(credentials: ControllerCredentials | ApiClient) {
    if (credentials instanceof ApiClient) {
      this.#client = credentials;
      return;
    }
    this.#client = new ApiClient(
      {
        cluster: {
          server: credentials.server,
          caPem: credentials.caPem,
          insecureSkipTlsVerify: false,
          extensions: {},
        },
        user: { clientCertPem: credentials.certPem, clientKeyPem: credentials.keyPem },
      },
      credentials.userAgent ? { userAgent: credentials.userAgent } : {},
    );
  }

  call(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<ApiReply> {
    return this.#client.call(method, path, body, contentType);
  }

  /** Like `call`, but a non-2xx answer is thrown. */
  async must(method: string, path: string, body?: unknown, contentType?: string): Promise<ApiReply> {
    const reply = await this.call(method, path, body, contentType);
    if (reply.status >= 300) {
      const message =
        typeof reply.body === "object" && reply.body ? String(reply.body.message) : String(reply.body);
      throw new ApiError(reply.status, `${method} ${path}: ${reply.status} ${message}`);
    }
    return reply;
  }

  /** Stream a watch's events until the signal aborts or the server ends it. */
  async *watch(
    path: string,
    signal: AbortSignal,
  ): AsyncGenerator<{ type: string; object: Record<string, unknown> }> {
    try {
      yield* this.#client.watch(path, signal);
    } catch (err) {
      if (err instanceof ResponseError) throw new ApiError(err.status, err.message);
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  /** Close every connection now, requests in flight included (the server is going away). */
  async destroy(): Promise<void> {
    await this.#client.destroy();
  }
}
