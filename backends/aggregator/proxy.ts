// The remote backend: a request for a group/version an APIService assigns to an extension server
// is sent on to one of its Service's addresses over TLS (the gateway's proxy client certificate;
// the extension's certificate checked against the APIService's caBundle for
// `<service>.<namespace>.svc`), carrying the effective user in front-proxy headers. The answer
// streams back as it comes: watches and large lists are never held whole.
import type { Duplex } from "node:stream";
import type { Dispatcher } from "undici";
import {
  type DispatcherPool,
  type ServiceDirectory,
  ServiceUnreachableError,
  serviceTargets,
} from "../services/index.ts";
import type { ApiServiceEntry } from "./apiservice.ts";
import { describe, RemoteUnavailableError } from "./errors.ts";
import { forwardedHeaders, type IdentityHeaderNames, type ProxiedUser } from "./identity-headers.ts";
import { type ClientSide, ProxyCall } from "./proxy-call.ts";
import { openUpgrade } from "./upgrade.ts";

export interface RemoteBackendOptions {
  readonly directory: ServiceDirectory;
  readonly dispatchers: DispatcherPool;
  /** The proxy client certificate (`--proxy-client-cert-file`, `--proxy-client-key-file`). */
  readonly client: { readonly certPem: string; readonly keyPem: string };
  /** Call Services at their cluster IP rather than an endpoint (`--enable-aggregator-routing=false`). */
  readonly clusterIpRouting: boolean;
  /** The gateway's own identity headers, never sent on from a client. */
  readonly identityHeaders?: IdentityHeaderNames;
}

export interface ForwardRequest {
  readonly method: string;
  /** Path and query, as received. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer | undefined;
  readonly user: ProxiedUser;
  /** How long the extension has to start answering; undefined for long-running requests (watches). */
  readonly timeoutMs: number | undefined;
}

export class RemoteBackend {
  readonly #o: RemoteBackendOptions;
  /** Entries are replaced when their APIService changes, so an entry's identity never does. */
  readonly #dispatchers = new WeakMap<ApiServiceEntry, { serverName: string; dispatcher: Dispatcher }>();

  constructor(options: RemoteBackendOptions) {
    this.#o = options;
  }

  /**
   * Sends the request to the APIService's extension and its answer on to `client`, opened with the
   * extension's status and headers: a small answer of known length whole (one write), any other as
   * it streams, under backpressure (proxy-call.ts); a client that leaves ends the call. Throws
   * RemoteUnavailableError or RemoteTimeoutError before the answer begins; once it has begun, a
   * failure ends the response.
   */
  async forward(entry: ApiServiceEntry, request: ForwardRequest, client: ClientSide): Promise<void> {
    const target = await this.#target(entry);
    const dispatcher = this.#dispatcher(entry, target.serverName);
    const headers = forwardedHeaders(request.headers, request.user, this.#o.identityHeaders);
    await new Promise<void>((resolve, reject) => {
      const call = new ProxyCall(entry.name, client, request.timeoutMs, resolve, reject);
      dispatcher.dispatch(
        {
          // Aggregator targets carry no path: the URL is the origin.
          origin: target.url,
          path: request.url,
          method: request.method as Dispatcher.HttpMethod,
          headers,
          ...(request.body && request.body.length > 0 ? { body: request.body } : {}),
          // The request's own deadline bounds the answer; watches have none.
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        call,
      );
    });
  }

  /**
   * Opens a connection upgrade (`protocol`) with the extension for the request: see upgrade.ts.
   * Throws RemoteUnavailableError when the extension cannot be reached or answers nothing.
   */
  async upgrade(
    entry: ApiServiceEntry,
    request: Omit<ForwardRequest, "body" | "timeoutMs">,
    protocol: string,
  ): Promise<{ status: number; join(client: Duplex): void }> {
    const target = await this.#target(entry);
    try {
      return await openUpgrade(
        {
          ...target,
          ...(entry.caPem ? { caPem: entry.caPem } : {}),
          insecure: entry.insecure,
          client: this.#o.client,
        },
        {
          method: request.method,
          path: request.url,
          headers: forwardedHeaders(request.headers, request.user, this.#o.identityHeaders),
          protocol,
        },
      );
    } catch (err) {
      throw new RemoteUnavailableError(entry.name, `error trying to reach service: ${describe(err)}`);
    }
  }

  /**
   * A GET of `path` from the extension as `user`, its answer read whole (at most `maxBytes`): the
   * availability probe and the OpenAPI downloads (`signal` ends one early). Throws
   * ServiceUnreachableError when the Service has nowhere to call, and RemoteUnavailableError when
   * the call fails.
   */
  async get(
    entry: ApiServiceEntry,
    path: string,
    user: ProxiedUser,
    timeoutMs: number,
    maxBytes = 16 * 1024 * 1024,
    signal?: AbortSignal,
  ): Promise<{ url: string; status: number; body: string }> {
    const target = await this.#resolve(entry);
    const dispatcher = this.#dispatcher(entry, target.serverName);
    const url = `${new URL(target.url).origin}${path}`;
    try {
      const answer = await dispatcher.request({
        origin: new URL(target.url).origin,
        path,
        method: "GET",
        headers: forwardedHeaders({ accept: "application/json" }, user, this.#o.identityHeaders),
        signal: signal
          ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal])
          : AbortSignal.timeout(timeoutMs),
      });
      // Streaming, so a character split between chunks is decoded whole.
      const decoder = new TextDecoder();
      let body = "";
      for await (const chunk of answer.body) {
        body += decoder.decode(chunk as Uint8Array, { stream: true });
        if (body.length > maxBytes) {
          answer.body.destroy();
          throw new Error(`the answer is larger than ${maxBytes} bytes`);
        }
      }
      body += decoder.decode();
      return { url, status: answer.statusCode, body };
    } catch (err) {
      throw new RemoteUnavailableError(entry.name, `${url}: ${describe(err)}`);
    }
  }

  /** The shared client for the entry's TLS identity, kept per entry (the pool keys on whole PEMs). */
  #dispatcher(entry: ApiServiceEntry, serverName: string): Dispatcher {
    const known = this.#dispatchers.get(entry);
    if (known && known.serverName === serverName && !(known.dispatcher as { closed?: boolean }).closed)
      return known.dispatcher;
    const dispatcher = this.#o.dispatchers.get({
      serverName,
      ...(entry.caPem ? { caPem: entry.caPem } : {}),
      insecure: entry.insecure,
      client: this.#o.client,
    });
    this.#dispatchers.set(entry, { serverName, dispatcher });
    return dispatcher;
  }

  /** Where the APIService's Service is called; throws ServiceUnreachableError. */
  #resolve(entry: ApiServiceEntry): Promise<{ url: string; serverName: string }> {
    const service = entry.service;
    if (!service) throw new RemoteUnavailableError(entry.name, "the APIService names no service");
    return serviceTargets(
      this.#o.directory,
      { namespace: service.namespace, name: service.name, port: service.port },
      { clusterIp: this.#o.clusterIpRouting },
    ).then(
      (targets) => targets[Math.floor(Math.random() * targets.length)] as { url: string; serverName: string },
    );
  }

  async #target(entry: ApiServiceEntry): Promise<{ url: string; serverName: string }> {
    try {
      return await this.#resolve(entry);
    } catch (err) {
      if (err instanceof ServiceUnreachableError) throw new RemoteUnavailableError(entry.name, err.message);
      throw err;
    }
  }
}
