// The signing controller (upstream's csrsigning): for each approved, not failed, not yet issued
// request to one of the built-in signers, either fills status.certificate or, when the request is
// against the signer's rules, adds a Failed condition (reason SignerValidationFailure). Requests
// for other signers are left to their own signers. Writes go through the status subresource.
import type { Naming } from "../../../backends/naming/index.ts";
import type { ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";
import type { SigningAuthority } from "./authority.ts";
import {
  type BuiltinSigner,
  builtinSigner,
  type Csr,
  hasCondition,
  parseRequest,
  signerProblem,
} from "./rules.ts";

export interface CsrSignerOptions {
  readonly naming: Naming;
  /** The CA of each built-in signer (upstream's per-signer flags; usually one CA for all). */
  readonly authorities: Readonly<Record<BuiltinSigner, SigningAuthority | undefined>>;
  /** --cluster-signing-duration, milliseconds (default one year). */
  readonly durationMs?: number;
}

const YEAR_MS = 365 * 24 * 3_600_000;
/** Upstream's floor on a requested duration: twice the backdate. */
const MIN_DURATION_MS = 10 * 60_000;
const RETRY_MS = 1_000;
const enc = encodeURIComponent;

function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

export class CsrSigningController {
  readonly #client: ControllerClient;
  readonly #options: CsrSignerOptions;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #informer: Informer;
  readonly #base: string;
  #signal: AbortSignal | undefined;

  constructor(
    client: ControllerClient,
    options: CsrSignerOptions,
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#options = options;
    this.#onError = onError;
    this.#base = `/apis/${options.naming.group("certificates")}/v1/certificatesigningrequests`;
    this.#informer = new Informer(client, this.#base, { upsert: (csr) => this.#handle(csr as Csr) }, (err) =>
      onError(err, "certificatesigningrequest informer"),
    );
  }

  get synced(): boolean {
    return this.#informer.synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    await this.#informer.run(signal);
  }

  /** The certificate's lifetime: the cluster duration, or the shorter one the request asks for. */
  #duration(csr: Csr): number {
    const cluster = this.#options.durationMs ?? YEAR_MS;
    const asked = csr.spec?.expirationSeconds;
    if (asked === undefined) return cluster;
    return Math.max(Math.min(asked * 1000, cluster), MIN_DURATION_MS);
  }

  async #handle(csr: Csr): Promise<void> {
    try {
      await this.#sign(csr);
    } catch (err) {
      if (this.#signal?.aborted) return;
      this.#onError(err, `certificatesigningrequest ${csr.metadata.name}`);
      this.#retry(csr.metadata.name);
    }
  }

  #retry(name: string): void {
    const timer = setTimeout(async () => {
      if (this.#signal?.aborted) return;
      const reply = await this.#client.call("GET", `${this.#base}/${enc(name)}`).catch(() => undefined);
      if (reply?.status === 200) await this.#handle(reply.body as InformerObject as Csr);
      else if (reply?.status !== 404) this.#retry(name);
    }, RETRY_MS);
    timer.unref();
  }

  async #sign(csr: Csr): Promise<void> {
    if (!hasCondition(csr, "Approved") || hasCondition(csr, "Failed")) return;
    if (csr.status?.certificate) return;
    const signer = builtinSigner(this.#options.naming, csr.spec?.signerName ?? "");
    if (!signer) return;
    const authority = this.#options.authorities[signer];
    if (!authority) return;
    const request = parseRequest(csr);
    const usages = csr.spec?.usages ?? [];
    const problem = request ? signerProblem(signer, request, usages) : "unable to parse csr";
    const status = { ...(csr.status ?? {}) };
    if (problem !== undefined || !request) {
      const now = rfc3339(Date.now());
      status.conditions = [
        ...(status.conditions ?? []),
        {
          type: "Failed",
          status: "True",
          reason: "SignerValidationFailure",
          message: problem ?? "unable to parse csr",
          lastUpdateTime: now,
        },
      ];
    } else {
      const pem = await authority.issue(request, usages, this.#duration(csr));
      status.certificate = Buffer.from(pem).toString("base64");
    }
    const reply = await this.#client.call("PUT", `${this.#base}/${enc(csr.metadata.name)}/status`, {
      ...csr,
      status,
    });
    // 409: changed meanwhile, the informer brings the new state; 404: gone.
    if (reply.status === 409 || reply.status === 404) return;
    if (reply.status >= 300)
      throw new Error(`updating ${csr.metadata.name}/status: ${reply.status} ${reply.body?.message ?? ""}`);
  }
}
