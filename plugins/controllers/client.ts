// The controllers' way to the API: plain HTTPS requests to the gateway with their own client
// certificate, exactly as an external client would make them (DESIGN.md, Controllers).
import { Agent, request } from "undici";

export interface ControllerCredentials {
  readonly server: string;
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export interface ApiReply {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: API bodies are walked field by field by callers
  readonly body: any;
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
  readonly #server: string;
  readonly #agent: Agent;

  constructor(credentials: ControllerCredentials) {
    this.#server = credentials.server;
    this.#agent = new Agent({
      connect: { ca: credentials.caPem, cert: credentials.certPem, key: credentials.keyPem },
      keepAliveTimeout: 30_000,
    });
  }

  async call(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<ApiReply> {
    const res = await request(`${this.#server}${path}`, {
      method: method as "GET",
      dispatcher: this.#agent,
      headers: body === undefined ? {} : { "content-type": contentType },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: res.statusCode, body: parsed };
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
    const res = await request(`${this.#server}${path}`, {
      method: "GET",
      dispatcher: this.#agent,
      signal,
      bodyTimeout: 0,
    });
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      throw new ApiError(res.statusCode, `watch ${path}: ${res.statusCode} ${text}`);
    }
    let buffer = "";
    try {
      for await (const chunk of res.body) {
        buffer += chunk.toString();
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) yield JSON.parse(line) as { type: string; object: Record<string, unknown> };
        }
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
