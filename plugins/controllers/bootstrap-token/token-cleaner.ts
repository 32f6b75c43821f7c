// The bootstrap token cleaner: deletes bootstrap-token Secrets of the system namespace once their
// `expiration` has passed (an unparseable one counts as passed). Each Secret that will expire
// gets a timer for its expiry, re-armed at most `recheckMs` apart so a long wait still looks
// again now and then; when it fires the Secret is read afresh, since someone may have extended it.
import type { Naming } from "../../../backends/naming/index.ts";
import { bootstrapTokenExpiration } from "../../authentication/index.ts";
import { ApiError, type ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";

export interface TokenCleanerOptions {
  /** Longest wait before a Secret is looked at again (default 1 hour). */
  readonly recheckMs?: number;
  /** Milliseconds since the epoch; tests move the clock. */
  readonly now?: () => number;
}

const enc = encodeURIComponent;

export class BootstrapTokenCleaner {
  readonly #client: ControllerClient;
  readonly #naming: Naming;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #informer: Informer;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #recheckMs: number;
  readonly #now: () => number;
  #signal: AbortSignal | undefined;

  constructor(
    client: ControllerClient,
    naming: Naming,
    onError: (err: unknown, context: string) => void,
    options: TokenCleanerOptions = {},
  ) {
    this.#client = client;
    this.#naming = naming;
    this.#onError = onError;
    this.#recheckMs = options.recheckMs ?? 3_600_000;
    this.#now = options.now ?? Date.now;
    const type = naming.label("token", "bootstrap");
    this.#informer = new Informer(
      client,
      `/api/v1/namespaces/${enc(naming.systemNamespace)}/secrets?fieldSelector=${enc(`type=${type}`)}`,
      {
        upsert: (secret) => this.#evaluate(secret),
        deleted: (secret) => this.#cancel(secret.metadata.name),
      },
      (err) => onError(err, "bootstrap token informer"),
    );
  }

  get synced(): boolean {
    return this.#informer.synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    try {
      await this.#informer.run(signal);
    } finally {
      for (const timer of this.#timers.values()) clearTimeout(timer);
      this.#timers.clear();
    }
  }

  #cancel(name: string): void {
    const timer = this.#timers.get(name);
    if (timer) clearTimeout(timer);
    this.#timers.delete(name);
  }

  async #evaluate(secret: InformerObject): Promise<void> {
    const name = secret.metadata.name;
    this.#cancel(name);
    if (this.#signal?.aborted) return;
    const expiration = bootstrapTokenExpiration(secret, this.#now());
    if (expiration.expired) {
      if (!(await this.#delete(name, (secret.metadata as { uid?: string }).uid))) this.#retryLater(name);
      return;
    }
    if (expiration.expiresAt === undefined) return;
    const wait = Math.min(Math.max(expiration.expiresAt - this.#now(), 0), this.#recheckMs);
    const timer = setTimeout(() => void this.#recheck(name), wait);
    timer.unref();
    this.#timers.set(name, timer);
  }

  async #recheck(name: string): Promise<void> {
    this.#timers.delete(name);
    try {
      const reply = await this.#client.call(
        "GET",
        `/api/v1/namespaces/${enc(this.#naming.systemNamespace)}/secrets/${enc(name)}`,
      );
      if (reply.status === 404) return;
      if (reply.status !== 200) throw new ApiError(reply.status, `reading ${name}: ${reply.status}`);
      await this.#evaluate(reply.body as InformerObject);
    } catch (err) {
      if (this.#signal?.aborted) return;
      this.#onError(err, `bootstrap token ${name}`);
      this.#retryLater(name);
    }
  }

  /** After a failure: look again soon rather than never. */
  #retryLater(name: string): void {
    if (this.#signal?.aborted) return;
    this.#cancel(name);
    const timer = setTimeout(() => void this.#recheck(name), Math.min(this.#recheckMs, 10_000));
    timer.unref();
    this.#timers.set(name, timer);
  }

  /** False when the deletion failed and should be tried again. */
  async #delete(name: string, uid: string | undefined): Promise<boolean> {
    try {
      const reply = await this.#client.call(
        "DELETE",
        `/api/v1/namespaces/${enc(this.#naming.systemNamespace)}/secrets/${enc(name)}`,
        { kind: "DeleteOptions", apiVersion: "v1", ...(uid ? { preconditions: { uid } } : {}) },
      );
      // 404: already gone; 409: replaced by a new Secret, which is evaluated on its own.
      if (reply.status >= 300 && reply.status !== 404 && reply.status !== 409) {
        throw new ApiError(reply.status, `deleting ${name}: ${reply.status} ${reply.body?.message}`);
      }
      return true;
    } catch (err) {
      if (!this.#signal?.aborted) this.#onError(err, `bootstrap token ${name}`);
      return false;
    }
  }
}
