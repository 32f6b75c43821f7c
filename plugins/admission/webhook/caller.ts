// Calls one webhook: where it is (its URL, or a ready endpoint of its Service from the
// EndpointSlices), how to trust it (caBundle, else the system roots), which credentials to present
// (the WebhookAdmissionConfiguration's kubeconfig), bounded by timeoutSeconds and answer size.
import type { Naming } from "../../../backends/naming/index.ts";
import { ApiClient, type WebhookCredentials } from "../../client/index.ts";
import type { ObjectAccess } from "../../objects/index.ts";
import type { JsonObject } from "../index.ts";
import type { ServiceReference, Webhook } from "./hooks.ts";

/** An answer larger than this fails the call (and then follows failurePolicy). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Clients kept for reuse of their connections; the oldest is closed beyond this. */
const MAX_CLIENTS = 256;

/** The webhook could not be called or answered unusably: failurePolicy decides. */
export class CallError extends Error {
  /** The HTTP status the webhook answered with, when it answered. */
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

interface Target {
  readonly server: string;
  readonly tlsServerName?: string;
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function withTimeoutQuery(url: string, seconds: number): string {
  return `${url}${url.includes("?") ? "&" : "?"}timeout=${seconds}s`;
}

export class WebhookCaller {
  readonly #objects: ObjectAccess;
  readonly #naming: Naming;
  readonly #credentials: WebhookCredentials;
  readonly #clients = new Map<string, ApiClient>();

  constructor(objects: ObjectAccess, naming: Naming, credentials: WebhookCredentials) {
    this.#objects = objects;
    this.#naming = naming;
    this.#credentials = credentials;
  }

  /** POSTs the review and returns the parsed answer; throws CallError. */
  async call(hook: Webhook, review: JsonObject, signal: AbortSignal): Promise<unknown> {
    const target = await this.#target(hook);
    const url = withTimeoutQuery(target.server, hook.timeoutSeconds);
    const user = hook.service
      ? this.#credentials.forService(hook.service.name, hook.service.namespace, hook.service.port)
      : this.#credentials.forUrl(hook.url ?? "");
    const client = this.#client(url, target.tlsServerName, hook.caPem, user);
    let reply: Awaited<ReturnType<ApiClient["request"]>>;
    try {
      reply = await client.request("POST", "", {
        body: review,
        accept: "application/json",
        signal,
        timeoutMs: hook.timeoutSeconds * 1000,
        maxBodyBytes: MAX_RESPONSE_BYTES,
      });
    } catch (err) {
      throw new CallError(`failed to call webhook: ${(err as Error).message}`);
    }
    if (reply.status < 200 || reply.status > 299) {
      const body = reply.body;
      const message =
        typeof body === "object" && body !== null && typeof body.message === "string"
          ? body.message
          : `the server responded with the status code ${reply.status} but did not return more information`;
      throw new CallError(`failed to call webhook: ${message}`, reply.status);
    }
    if (typeof reply.body !== "object" || reply.body === null)
      throw new CallError("failed to call webhook: the answer is not JSON");
    return reply.body;
  }

  async close(): Promise<void> {
    const clients = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.allSettled(clients.map((c) => c.close()));
  }

  #client(
    server: string,
    tlsServerName: string | undefined,
    caPem: string | undefined,
    user: ReturnType<WebhookCredentials["forTarget"]>,
  ): ApiClient {
    const key = JSON.stringify([server, tlsServerName ?? "", caPem ?? "", user]);
    const found = this.#clients.get(key);
    if (found) {
      // Most recently used last, so the oldest is the first to go.
      this.#clients.delete(key);
      this.#clients.set(key, found);
      return found;
    }
    const client = new ApiClient(
      {
        cluster: {
          server,
          insecureSkipTlsVerify: false,
          extensions: {},
          ...(caPem ? { caPem } : {}),
          ...(tlsServerName ? { tlsServerName } : {}),
        },
        user,
      },
      { naming: this.#naming },
    );
    this.#clients.set(key, client);
    if (this.#clients.size > MAX_CLIENTS) {
      const [oldestKey, oldest] = this.#clients.entries().next().value as [string, ApiClient];
      this.#clients.delete(oldestKey);
      void oldest.close().catch(() => {});
    }
    return client;
  }

  async #target(hook: Webhook): Promise<Target> {
    if (hook.url !== undefined) return { server: hook.url };
    if (!hook.service) throw new CallError("webhook has neither url nor service");
    return this.#serviceTarget(hook.service);
  }

  /** A ready endpoint of the Service, addressed by IP, with the Service's DNS name for TLS. */
  async #serviceTarget(ref: ServiceReference): Promise<Target> {
    const tlsServerName = `${ref.name}.${ref.namespace}.svc`;
    const service = await this.#objects.get({ group: "", resource: "services" }, ref.namespace, ref.name);
    if (!service)
      throw new CallError(`failed to call webhook: service "${ref.namespace}/${ref.name}" not found`);
    const spec = obj(service.spec);
    if (spec.type === "ExternalName" && typeof spec.externalName === "string") {
      return { server: `https://${spec.externalName}:${ref.port}${ref.path}`, tlsServerName };
    }
    const port = list(spec.ports)
      .map(obj)
      .find((p) => p.port === ref.port);
    if (!port)
      throw new CallError(
        `failed to call webhook: no service port ${ref.port} found for service "${ref.name}"`,
      );
    const portName = typeof port.name === "string" ? port.name : "";
    const slices = this.#objects.informer({
      group: this.#naming.group("discovery"),
      resource: "endpointslices",
    });
    const label = this.#naming.label("service-name");
    const candidates: string[] = [];
    for (const slice of slices?.list(ref.namespace) ?? []) {
      const labels = obj(obj(slice.metadata).labels);
      if (labels[label] !== ref.name) continue;
      const slicePort = list(slice.ports)
        .map(obj)
        .find((p) => (typeof p.name === "string" ? p.name : "") === portName);
      if (!slicePort || typeof slicePort.port !== "number") continue;
      for (const e of list(slice.endpoints).map(obj)) {
        if (obj(e.conditions).ready === false) continue;
        const address = list(e.addresses).find((x): x is string => typeof x === "string");
        if (!address) continue;
        const host = address.includes(":") ? `[${address}]` : address;
        candidates.push(`https://${host}:${slicePort.port}${ref.path}`);
      }
    }
    if (candidates.length === 0)
      throw new CallError(`failed to call webhook: no endpoints available for service "${ref.name}"`);
    const server = candidates[Math.floor(Math.random() * candidates.length)] as string;
    return { server, tlsServerName };
  }
}
