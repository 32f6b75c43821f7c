// Calls one webhook: where it is (its URL, or a ready endpoint of its Service from the
// EndpointSlices), how to trust it (caBundle, else the system roots), which credentials to present
// (the WebhookAdmissionConfiguration's kubeconfig), bounded by timeoutSeconds and answer size.
import type { Naming } from "../../../backends/naming/index.ts";
import { ApiClient, type WebhookCredentials } from "../../client/index.ts";
import type { ObjectAccess } from "../../objects/index.ts";
import type { JsonObject } from "../index.ts";
import { CallError } from "./call-error.ts";
import type { Webhook } from "./hooks.ts";
import { serviceTargets, type Target } from "./service-target.ts";

export { CallError } from "./call-error.ts";

/** An answer larger than this fails the call (and then follows failurePolicy). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Clients kept for reuse of their connections; the oldest is closed beyond this. */
const MAX_CLIENTS = 256;

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
    const targets = await serviceTargets(this.#objects, this.#naming, hook.service);
    return targets[Math.floor(Math.random() * targets.length)] as Target;
  }
}
