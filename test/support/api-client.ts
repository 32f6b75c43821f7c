// A small HTTPS client for tests that talks to the gateway with the credentials of a
// kubeconfig file (as kubectl would), returning status, headers and parsed body.
import { readFileSync } from "node:fs";
import { load } from "js-yaml";
import { Agent, request } from "undici";

interface Kubeconfig {
  clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
  users: { user: { "client-certificate-data"?: string; "client-key-data"?: string } }[];
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body as received (Protobuf answers are not text). */
  readonly bytes: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected field by field
  readonly body: any;
}

export class ApiClient {
  readonly server: string;
  readonly #agent: Agent;

  constructor(kubeconfigPath: string, options: { anonymous?: boolean } = {}) {
    const config = load(readFileSync(kubeconfigPath, "utf8")) as Kubeconfig;
    const cluster = config.clusters[0]?.cluster;
    const user = config.users[0]?.user;
    if (!cluster || !user) throw new Error(`${kubeconfigPath}: no cluster or user`);
    this.server = cluster.server;
    const b64 = (s: string | undefined) => (s ? Buffer.from(s, "base64").toString("utf8") : undefined);
    this.#agent = new Agent({
      connect: {
        ca: b64(cluster["certificate-authority-data"]),
        ...(options.anonymous
          ? {}
          : { cert: b64(user["client-certificate-data"]), key: b64(user["client-key-data"]) }),
      },
    });
  }

  async call(
    method: string,
    path: string,
    options: {
      body?: unknown;
      raw?: string | Buffer;
      contentType?: string;
      accept?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    let body: string | Buffer | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
    if (options.accept) headers.accept = options.accept;
    const res = await request(`${this.server}${path}`, {
      method: method as "GET",
      headers,
      body,
      dispatcher: this.#agent,
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    const text = bytes.toString("utf8");
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, bytes, body: parsed };
  }

  /** Open a watch and hand back its events as they arrive. */
  async watch(path: string): Promise<{
    events: AsyncGenerator<{ type: string; object: Record<string, unknown> }>;
    headers: Record<string, string | string[] | undefined>;
    close(): void;
  }> {
    const ac = new AbortController();
    const res = await request(`${this.server}${path}`, {
      method: "GET",
      dispatcher: this.#agent,
      signal: ac.signal,
    });
    if (res.statusCode !== 200)
      throw new Error(`watch ${path}: HTTP ${res.statusCode}: ${await res.body.text()}`);
    async function* events() {
      let buffer = "";
      try {
        for await (const chunk of res.body) {
          buffer += chunk.toString();
          let nl = buffer.indexOf("\n");
          while (nl >= 0) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (line) yield JSON.parse(line) as { type: string; object: Record<string, unknown> };
            nl = buffer.indexOf("\n");
          }
        }
      } catch (err) {
        if ((err as Error).name !== "AbortError") throw err;
      }
    }
    return { events: events(), headers: res.headers, close: () => ac.abort() };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
