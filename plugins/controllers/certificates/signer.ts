// The signing controller (upstream's csrsigning): for each approved, not failed, not yet issued
// request to one of the built-in signers, either fills status.certificate or, when the request is
// against the signer's rules, adds a Failed condition (reason SignerValidationFailure). Requests
// for other signers are left to their own signers. Writes go through the status subresource.
import type { Naming } from "../../../backends/naming/index.ts";
import type { ControllerClient } from "../client.ts";
import type { SigningAuthority } from "./authority.ts";
import { CsrWorker, rfc3339 } from "./csr-worker.ts";
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

export class CsrSigningController {
  readonly #client: ControllerClient;
  readonly #options: CsrSignerOptions;
  readonly #worker: CsrWorker;

  constructor(
    client: ControllerClient,
    options: CsrSignerOptions,
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#options = options;
    this.#worker = new CsrWorker(client, options.naming, onError, (csr) => this.#sign(csr));
  }

  get synced(): boolean {
    return this.#worker.synced;
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#worker.run(signal);
  }

  /** The certificate's lifetime: the cluster duration, or the shorter one the request asks for. */
  #duration(csr: Csr): number {
    const cluster = this.#options.durationMs ?? YEAR_MS;
    const asked = csr.spec?.expirationSeconds;
    if (asked === undefined) return cluster;
    return Math.max(Math.min(asked * 1000, cluster), MIN_DURATION_MS);
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
    const reply = await this.#client.call("PUT", `${this.#worker.path(csr.metadata.name)}/status`, {
      ...csr,
      status,
    });
    // 409: changed meanwhile, the informer brings the new state; 404: gone.
    if (reply.status === 409 || reply.status === 404) return;
    if (reply.status >= 300)
      throw new Error(`updating ${csr.metadata.name}/status: ${reply.status} ${reply.body?.message ?? ""}`);
  }
}
