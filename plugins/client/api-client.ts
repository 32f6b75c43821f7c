// An HTTPS client of the API built from a client config (kubeconfig): the server's CA, and the
// caller's client certificate, bearer token (inline or from a file), basic auth or credential
// plugin. One undici Agent per client certificate: a plugin that hands out a new certificate
// gets a new TLS connection, since a certificate is only presented at the handshake.
import { readFileSync } from "node:fs";
import { Agent, request } from "undici";
import type { Naming } from "../../backends/naming/index.ts";
import { ExecCredentialProvider, type ExecCredentials } from "./exec.ts";
import type { ClientConfig, ClusterConfig, UserConfig } from "./kubeconfig.ts";
import { loadKubeconfig } from "./kubeconfig.ts";
import { type WatchEvent, watchEvents } from "./watch-lines.ts";

export interface ApiReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  // biome-ignore lint/suspicious/noExplicitAny: API bodies are walked field by field by callers
  readonly body: any;
}

export interface RequestOptions {
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Sent as is (instead of `body`). */
  readonly raw?: string | Uint8Array;
  /** Default `application/json` when there is a body. */
  readonly contentType?: string;
  readonly accept?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** Abort the whole exchange (credentials, connect, answer) after this long. */
  readonly timeoutMs?: number;
  /** Refuse answers longer than this many bytes. */
  readonly maxBodyBytes?: number;
}

/** A watch that did not start: the server answered with something other than 200. */
export class ResponseError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, message: string, body: string) {
    super(message);
    this.name = "ResponseError";
    this.status = status;
    this.body = body;
  }
}

export interface ApiClientOptions {
  /** Needed when the user runs a credential plugin (its apiVersion and cluster extension). */
  readonly naming?: Naming;
  /** Per-request limit for headers and each body gap; default 30 s. Watches have none. */
  readonly timeoutMs?: number;
  readonly userAgent?: string;
  /** For credential plugins: whether standard input is a terminal (default: it is asked). */
  readonly stdinIsTerminal?: boolean;
  /** Clock for credential expiry. */
  readonly now?: () => number;
}

/** How long a token file's content is trusted before it is read again. */
const TOKEN_FILE_REREAD_MS = 60_000;

interface Credentials {
  readonly authorization?: string;
  readonly certPem?: string;
  readonly keyPem?: string;
  /** The plugin answer these came from, to drop after a 401. */
  readonly exec?: ExecCredentials;
}

export class ApiClient {
  /** The server URL without a trailing slash; request paths are appended to it. */
  readonly server: string;
  /** The server URL exactly as configured: where a request with the empty path goes (webhooks). */
  readonly #endpoint: string;
  readonly namespace: string | undefined;
  readonly #cluster: ClusterConfig;
  readonly #user: UserConfig;
  readonly #exec: ExecCredentialProvider | undefined;
  readonly #timeoutMs: number;
  readonly #userAgent: string | undefined;
  #agent: Agent | undefined;
  #agentCert: string | undefined;
  readonly #retired = new Set<Promise<void>>();
  #tokenFromFile: { token: string; readAt: number } | undefined;

  static fromKubeconfig(path: string, options: ApiClientOptions & { context?: string } = {}): ApiClient {
    return new ApiClient(
      loadKubeconfig(path, options.context === undefined ? {} : { context: options.context }),
      options,
    );
  }

  constructor(
    config: Pick<ClientConfig, "cluster" | "user"> & Partial<ClientConfig>,
    options: ApiClientOptions = {},
  ) {
    this.server = config.cluster.server.replace(/\/+$/, "");
    this.#endpoint = config.cluster.server;
    this.namespace = config.namespace;
    this.#cluster = config.cluster;
    this.#user = config.user;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#userAgent = options.userAgent;
    const exec = config.user.exec;
    if (exec) {
      if (!options.naming) throw new Error("a credential plugin (user.exec) needs the API naming");
      const extension = config.cluster.extensions[`${options.naming.group("client.authentication")}/exec`];
      this.#exec = new ExecCredentialProvider(exec, {
        naming: options.naming,
        cluster: {
          server: config.cluster.server,
          ...(config.cluster.tlsServerName ? { tlsServerName: config.cluster.tlsServerName } : {}),
          insecureSkipTlsVerify: config.cluster.insecureSkipTlsVerify,
          ...(config.cluster.caPem ? { caPem: config.cluster.caPem } : {}),
          ...(extension !== undefined ? { config: extension } : {}),
        },
        ...(config.userName !== undefined ? { userName: config.userName } : {}),
        ...(options.stdinIsTerminal !== undefined ? { stdinIsTerminal: options.stdinIsTerminal } : {}),
        ...(options.now ? { now: options.now } : {}),
      });
    }
  }

  /** The credential plugin, when the user has one. */
  get execProvider(): ExecCredentialProvider | undefined {
    return this.#exec;
  }

  /** One request; the body is parsed as JSON when it is JSON, else kept as text. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiReply> {
    const signal = withTimeout(options.signal, options.timeoutMs);
    try {
      const res = await this.#send(method, path, options, signal, false);
      const text = await readBody(res.body, options.maxBodyBytes);
      let parsed: unknown;
      try {
        parsed = text === "" ? undefined : JSON.parse(text);
      } catch {
        parsed = text;
      }
      return { status: res.statusCode, headers: res.headers, body: parsed };
    } catch (err) {
      throw describeFailure(
        method,
        path === "" ? this.#endpoint : `${this.server}${path}`,
        err,
        signal,
        options.timeoutMs,
      );
    }
  }

  /** `request` with a JSON body: the controllers' shape. */
  call(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<ApiReply> {
    return this.request(method, path, body === undefined ? {} : { body, contentType });
  }

  /** Stream a watch's events until the signal aborts or the server ends it. */
  async *watch(path: string, signal: AbortSignal): AsyncGenerator<WatchEvent> {
    const res = await this.#send("GET", path, {}, signal, true);
    if (res.statusCode !== 200) {
      const text = await readBody(res.body, 1 << 20).catch(() => "");
      throw new ResponseError(res.statusCode, `watch ${path}: ${res.statusCode} ${text}`, text);
    }
    try {
      yield* watchEvents(res.body);
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      // Leaving the loop early (break, return) must not leave the stream open.
      if (!res.body.destroyed) res.body.destroy();
    }
  }

  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    await Promise.all([agent?.close(), ...this.#retired]);
  }

  /** Close every connection now, in-flight requests included. */
  async destroy(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    await agent?.destroy();
  }

  async #send(
    method: string,
    path: string,
    options: RequestOptions,
    signal: AbortSignal | undefined,
    streaming: boolean,
  ): Promise<Awaited<ReturnType<typeof request>>> {
    const headers: Record<string, string> = {};
    if (this.#userAgent) headers["user-agent"] = this.#userAgent;
    if (options.accept) headers.accept = options.accept;
    let body: string | Uint8Array | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
    Object.assign(headers, options.headers);
    const callerAuthorization = Object.keys(headers).some((h) => h.toLowerCase() === "authorization");

    for (let attempt = 0; ; attempt++) {
      const creds = await abortable(this.#credentials(), signal);
      const res = await request(path === "" ? this.#endpoint : `${this.server}${path}`, {
        method: method as "GET",
        dispatcher: this.#agentFor(creds),
        headers:
          creds.authorization && !callerAuthorization
            ? { ...headers, authorization: creds.authorization }
            : headers,
        body,
        // undici drops the connection after a DELETE with a body (a server might not read it);
        // the API reads DeleteOptions bodies, and a new TLS connection per delete is slow.
        ...(method === "DELETE" && body !== undefined ? { reset: false } : {}),
        signal,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: streaming ? 0 : this.#timeoutMs,
      });
      // A plugin's credential the server refuses is dropped; a fresh one gets a single retry.
      if (res.statusCode === 401 && creds.exec && this.#exec && attempt === 0) {
        this.#exec.invalidate(creds.exec);
        await res.body.dump().catch(() => {});
        continue;
      }
      return res;
    }
  }

  async #credentials(): Promise<Credentials> {
    const u = this.#user;
    let authorization: string | undefined;
    if (u.token !== undefined) authorization = `Bearer ${u.token}`;
    else if (u.tokenFile !== undefined) authorization = `Bearer ${this.#readTokenFile(u.tokenFile)}`;
    else if (u.username !== undefined || u.password !== undefined)
      authorization = `Basic ${Buffer.from(`${u.username ?? ""}:${u.password ?? ""}`).toString("base64")}`;
    let certPem = u.clientCertPem;
    let keyPem = u.clientKeyPem;
    let exec: ExecCredentials | undefined;
    if (this.#exec) {
      exec = await this.#exec.credentials();
      if (exec.token !== undefined && authorization === undefined) authorization = `Bearer ${exec.token}`;
      if (exec.clientCertPem !== undefined) {
        certPem = exec.clientCertPem;
        keyPem = exec.clientKeyPem;
      }
    }
    return {
      ...(authorization !== undefined ? { authorization } : {}),
      ...(certPem !== undefined ? { certPem, keyPem } : {}),
      ...(exec ? { exec } : {}),
    };
  }

  #readTokenFile(file: string): string {
    const now = Date.now();
    const cached = this.#tokenFromFile;
    if (cached && now - cached.readAt < TOKEN_FILE_REREAD_MS) return cached.token;
    try {
      const token = readFileSync(file, "utf8").trim();
      this.#tokenFromFile = { token, readAt: now };
      return token;
    } catch (err) {
      // A file that vanished for a moment (being rotated) leaves the last token in use.
      if (cached) return cached.token;
      throw new Error(`cannot read token file ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
    }
  }

  #agentFor(creds: Credentials): Agent {
    const certKey = creds.certPem === undefined ? "" : `${creds.certPem}\n${creds.keyPem}`;
    if (this.#agent && this.#agentCert === certKey) return this.#agent;
    const old = this.#agent;
    if (old) {
      // In-flight requests finish on the old connections; new ones hand over the new certificate.
      const closing = old.close().catch(() => {});
      this.#retired.add(closing);
      void closing.finally(() => this.#retired.delete(closing));
    }
    const c = this.#cluster;
    this.#agent = new Agent({
      connect: {
        ...(c.caPem !== undefined ? { ca: c.caPem } : {}),
        ...(creds.certPem !== undefined ? { cert: creds.certPem, key: creds.keyPem } : {}),
        ...(c.insecureSkipTlsVerify ? { rejectUnauthorized: false } : {}),
        ...(c.tlsServerName ? { servername: c.tlsServerName } : {}),
      },
      keepAliveTimeout: 30_000,
    });
    this.#agentCert = certKey;
    return this.#agent;
  }
}

function withTimeout(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): AbortSignal | undefined {
  if (timeoutMs === undefined) return signal;
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

async function readBody(body: AsyncIterable<Uint8Array>, limit: number | undefined): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (limit !== undefined && size > limit) throw new Error(`answer longer than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** An error that says what failed, without credentials (they are never part of the URL or cause). */
function describeFailure(
  method: string,
  url: string,
  err: unknown,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Error {
  const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
  let why: string;
  if (signal?.aborted && (signal.reason as Error | undefined)?.name === "TimeoutError")
    why = `timed out after ${timeoutMs} ms`;
  else if (signal?.aborted) why = "aborted";
  else why = e.cause?.message ?? e.message ?? String(err);
  const out = new Error(`${method} ${url}: ${why}`);
  out.cause = err;
  return out;
}
