// What the approving and signing controllers share: an informer on certificatesigningrequests
// whose every change is handed to the controller, and a retry (read again, handle again) after
// an error, until the request is handled or gone.
import type { Naming } from "../../../backends/naming/index.ts";
import type { ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";
import type { Csr } from "./rules.ts";

const RETRY_MS = 1_000;

/** A condition's timestamp: RFC 3339 to the second, as Go writes metav1.Time. */
export function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

export class CsrWorker {
  /** The collection's path; a request's own is `${base}/<name>`. */
  readonly base: string;
  readonly #client: ControllerClient;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #process: (csr: Csr) => Promise<void>;
  readonly #informer: Informer;
  #signal: AbortSignal | undefined;

  constructor(
    client: ControllerClient,
    naming: Naming,
    onError: (err: unknown, context: string) => void,
    process: (csr: Csr) => Promise<void>,
  ) {
    this.#client = client;
    this.#onError = onError;
    this.#process = process;
    this.base = `/apis/${naming.group("certificates")}/v1/certificatesigningrequests`;
    this.#informer = new Informer(client, this.base, { upsert: (csr) => this.#handle(csr as Csr) }, (err) =>
      onError(err, "certificatesigningrequest informer"),
    );
  }

  get synced(): boolean {
    return this.#informer.synced;
  }

  path(name: string): string {
    return `${this.base}/${encodeURIComponent(name)}`;
  }

  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    await this.#informer.run(signal);
  }

  async #handle(csr: Csr): Promise<void> {
    try {
      await this.#process(csr);
    } catch (err) {
      if (this.#signal?.aborted) return;
      this.#onError(err, `certificatesigningrequest ${csr.metadata.name}`);
      this.#retry(csr.metadata.name);
    }
  }

  #retry(name: string): void {
    const timer = setTimeout(async () => {
      if (this.#signal?.aborted) return;
      const reply = await this.#client.call("GET", this.path(name)).catch(() => undefined);
      if (reply?.status === 200) await this.#handle(reply.body as InformerObject as Csr);
      else if (reply?.status !== 404) this.#retry(name);
    }, RETRY_MS);
    timer.unref();
  }
}
