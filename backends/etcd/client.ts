// The gRPC connection to etcd: channels per endpoint, TLS, deadlines, and the translation of
// transport failures into UnavailableError. Knows nothing about the storage contract's keys.

import { readFile } from "node:fs/promises";
import {
  type CallOptions,
  type ChannelCredentials,
  type ChannelOptions,
  Client,
  type ClientDuplexStream,
  connectivityState,
  credentials,
  Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import { TooLargeError, UnavailableError } from "../contract/index.ts";
import {
  type Codec,
  type CompactionRequest,
  type CompactionResponse,
  codecs,
  type RangeRequest,
  type RangeResponse,
  type TxnRequest,
  type TxnResponse,
  type WatchRequest,
  type WatchResponse,
} from "./proto.ts";

export interface EtcdConnectionOptions {
  /** Client URLs, e.g. `http://127.0.0.1:2379` or `https://etcd-0:2379`. */
  readonly endpoints: readonly string[];
  /** CA bundle that signs etcd's serving certificate (kube-apiserver's `--etcd-cafile`). */
  readonly caFile?: string;
  /** Client certificate and key for etcd (`--etcd-certfile`, `--etcd-keyfile`). */
  readonly certFile?: string;
  readonly keyFile?: string;
  /**
   * How long a call waits for a connection to etcd before failing with Unavailable. A refused
   * connection fails at once; this bounds hosts that do not answer at all. Default 3 s.
   */
  readonly connectTimeoutMs?: number;
  /** Deadline of one call on an established connection; past it the call fails with Unavailable. Default 10 s. */
  readonly requestTimeoutMs?: number;
  /** HTTP/2 keepalive ping interval that detects a silently dead connection. Default 10 s. */
  readonly keepaliveMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const DEFAULT_KEEPALIVE_MS = 10_000;

/** etcd's errors for reads or compactions at revisions it no longer or not yet has. */
export const ERR_COMPACTED = "mvcc: required revision has been compacted";
export const ERR_FUTURE_REV = "mvcc: required revision is a future revision";

/** Status codes that mean "the server could not be reached or went away", not "it said no". */
const TRANSPORT_CODES = new Set<number>([
  status.UNAVAILABLE,
  status.DEADLINE_EXCEEDED,
  status.CANCELLED,
  status.INTERNAL,
  status.UNKNOWN,
]);

/** An error etcd itself returned (bad request, quota, ...): the server is fine, the call is not. */
export class EtcdRequestError extends Error {
  readonly code: number;

  constructor(err: ServiceError) {
    super(`etcd: ${err.details || err.message}`, { cause: err });
    this.name = "EtcdRequestError";
    this.code = err.code;
  }
}

export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === "number";
}

/** etcd refused a read or compaction because history at that revision is gone. */
export function isCompacted(err: unknown): boolean {
  return err instanceof EtcdRequestError && err.message.includes(ERR_COMPACTED);
}

/** etcd refused a read or compaction at a revision it has not reached. */
export function isFutureRevision(err: unknown): boolean {
  return err instanceof EtcdRequestError && err.message.includes(ERR_FUTURE_REV);
}

/**
 * etcd's refusal of a request over its `--max-request-bytes` (InvalidArgument), or gRPC's of a
 * message over the server's receive limit (ResourceExhausted; the same code also means "database
 * space exceeded", hence the message check).
 */
function isTooLarge(err: ServiceError): boolean {
  const text = err.details || err.message;
  return (
    (err.code === status.INVALID_ARGUMENT && text.includes("request is too large")) ||
    (err.code === status.RESOURCE_EXHAUSTED && text.includes("larger than max"))
  );
}

/**
 * Maps a gRPC failure to the contract's Unavailable or TooLarge, or to EtcdRequestError for
 * etcd's other refusals.
 */
export function translateError(err: unknown, what: string): Error {
  if (!isServiceError(err)) return err instanceof Error ? err : new Error(String(err));
  if (isTooLarge(err)) {
    const reason = err.details || err.message;
    return new TooLargeError(`the object is larger than etcd accepts (${reason})`, undefined, { cause: err });
  }
  if (TRANSPORT_CODES.has(err.code)) {
    return new UnavailableError(`etcd ${what}: ${err.details || err.message}`, { cause: err });
  }
  return new EtcdRequestError(err);
}

interface Endpoint {
  readonly target: string;
  readonly secure: boolean;
  client: Client;
}

function parseEndpoint(url: string): { target: string; secure: boolean } {
  const withScheme = url.includes("://") ? url : `http://${url}`;
  const parsed = new URL(withScheme);
  const secure = parsed.protocol === "https:";
  if (!secure && parsed.protocol !== "http:") throw new Error(`etcd endpoint ${url}: unsupported scheme`);
  const port = parsed.port || "2379";
  return { target: `${parsed.hostname}:${port}`, secure };
}

export class EtcdClient {
  readonly #endpoints: Endpoint[];
  readonly #insecure: ChannelCredentials;
  readonly #secure: ChannelCredentials;
  readonly #channelOptions: ChannelOptions;
  readonly #connectTimeoutMs: number;
  readonly #timeoutMs: number;
  #current = 0;
  #closed = false;

  private constructor(options: EtcdConnectionOptions, secure: ChannelCredentials) {
    if (options.endpoints.length === 0) throw new Error("etcd: no endpoints given");
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const keepalive = options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS;
    this.#insecure = credentials.createInsecure();
    this.#secure = secure;
    this.#channelOptions = {
      // List pages and catch-up watch batches can exceed gRPC's 4 MiB default.
      "grpc.max_receive_message_length": -1,
      "grpc.max_send_message_length": -1,
      // etcd rejects pings more often than every 5 s (its --grpc-keepalive-min-time).
      "grpc.keepalive_time_ms": Math.max(5_000, keepalive),
      "grpc.keepalive_timeout_ms": Math.max(1_000, Math.floor(keepalive / 2)),
      // Each storage object owns its connections, so recreating one never reuses a broken one.
      "grpc.use_local_subchannel_pool": 1,
      "grpc.initial_reconnect_backoff_ms": 100,
      "grpc.max_reconnect_backoff_ms": 2_000,
      "grpc.enable_http_proxy": 0,
    };
    this.#endpoints = options.endpoints.map((url) => {
      const { target, secure: isSecure } = parseEndpoint(url);
      return { target, secure: isSecure, client: this.#connect(target, isSecure) };
    });
  }

  static async connect(options: EtcdConnectionOptions): Promise<EtcdClient> {
    const [ca, cert, key] = await Promise.all(
      [options.caFile, options.certFile, options.keyFile].map((file) =>
        file === undefined ? undefined : readFile(file),
      ),
    );
    if ((cert === undefined) !== (key === undefined)) {
      throw new Error("etcd: a client certificate needs both certFile and keyFile");
    }
    const secure = credentials.createSsl(ca ?? null, key ?? null, cert ?? null);
    return new EtcdClient(options, secure);
  }

  /** The longest a new watch may wait for etcd to confirm it. */
  get watchCreateTimeoutMs(): number {
    return this.#connectTimeoutMs + this.#timeoutMs;
  }

  #connect(target: string, secure: boolean): Client {
    return new Client(target, secure ? this.#secure : this.#insecure, this.#channelOptions);
  }

  /**
   * The endpoint to use now, connected. A channel stuck in reconnect back-off is replaced by a
   * fresh one, so the first call after etcd comes back does not wait out the back-off; a failed
   * connection attempt fails the call at once, a silent one after the connect timeout.
   */
  async #ready(): Promise<Endpoint> {
    if (this.#closed) throw new UnavailableError("storage closed");
    const endpoint = this.#endpoints[this.#current] as Endpoint;
    let channel = endpoint.client.getChannel();
    let state = channel.getConnectivityState(true);
    if (state === connectivityState.READY) return endpoint;
    if (state === connectivityState.TRANSIENT_FAILURE) {
      endpoint.client.close();
      endpoint.client = this.#connect(endpoint.target, endpoint.secure);
      channel = endpoint.client.getChannel();
      state = channel.getConnectivityState(true);
    }
    const deadline = Date.now() + this.#connectTimeoutMs;
    while (state !== connectivityState.READY) {
      if (state === connectivityState.TRANSIENT_FAILURE || state === connectivityState.SHUTDOWN) {
        this.#failed(endpoint);
        throw new UnavailableError(`etcd at ${endpoint.target}: cannot connect`);
      }
      const from = state;
      const changed = await new Promise<boolean>((resolve) =>
        channel.watchConnectivityState(from, deadline, (err) => resolve(!err)),
      );
      if (this.#closed) throw new UnavailableError("storage closed");
      if (!changed) {
        this.#failed(endpoint);
        throw new UnavailableError(
          `etcd at ${endpoint.target}: no connection within ${this.#connectTimeoutMs} ms`,
        );
      }
      state = channel.getConnectivityState(true);
    }
    return endpoint;
  }

  /** After a transport failure, the next call tries the next endpoint. */
  #failed(endpoint: Endpoint): void {
    if (this.#endpoints[this.#current] === endpoint) {
      this.#current = (this.#current + 1) % this.#endpoints.length;
    }
  }

  async #unary<Req, Res>(method: string, req: Req, reqCodec: Codec<Req>, resCodec: Codec<Res>): Promise<Res> {
    const endpoint = await this.#ready();
    const options: CallOptions = { deadline: Date.now() + this.#timeoutMs };
    return new Promise<Res>((resolve, reject) => {
      endpoint.client.makeUnaryRequest(
        method,
        reqCodec.serialize,
        resCodec.deserialize,
        req,
        new Metadata(),
        options,
        (err, res) => {
          if (err || res === undefined) {
            const translated = translateError(err ?? new Error("empty response"), method);
            if (translated instanceof UnavailableError) this.#failed(endpoint);
            reject(translated);
          } else {
            resolve(res);
          }
        },
      );
    });
  }

  range(req: RangeRequest): Promise<RangeResponse> {
    return this.#unary("/etcdserverpb.KV/Range", req, codecs.RangeRequest, codecs.RangeResponse);
  }

  txn(req: TxnRequest): Promise<TxnResponse> {
    return this.#unary("/etcdserverpb.KV/Txn", req, codecs.TxnRequest, codecs.TxnResponse);
  }

  compact(req: CompactionRequest): Promise<CompactionResponse> {
    return this.#unary("/etcdserverpb.KV/Compact", req, codecs.CompactionRequest, codecs.CompactionResponse);
  }

  /** A new bidirectional Watch stream on the current endpoint, once it is connected. */
  async watch(): Promise<{ call: ClientDuplexStream<WatchRequest, WatchResponse>; failed(): void }> {
    const endpoint = await this.#ready();
    const call = endpoint.client.makeBidiStreamRequest(
      "/etcdserverpb.Watch/Watch",
      codecs.WatchRequest.serialize,
      codecs.WatchResponse.deserialize,
      new Metadata(),
      {},
    );
    return { call, failed: () => this.#failed(endpoint) };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const endpoint of this.#endpoints) endpoint.client.close();
  }
}
