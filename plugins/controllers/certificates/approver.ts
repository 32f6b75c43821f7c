// The approving controller (upstream's csrapproving): approves node client certificate requests
// (the kubelet client signer, a node's subject and usages) when a SubjectAccessReview says the
// requester may: `create` on certificatesigningrequests/selfnodeclient when a node renews its own
// certificate (requester = subject), else certificatesigningrequests/nodeclient (bootstrap).
// Anything else is left for people or other approvers; nothing is ever denied.
import type { Naming } from "../../../backends/naming/index.ts";
import { signerNames } from "../../authorization/rbac/index.ts";
import type { ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";
import { type Csr, commonName, hasCondition, kubeletClientProblem, parseRequest } from "./rules.ts";

const RETRY_MS = 1_000;
const enc = encodeURIComponent;

function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

export class CsrApprovingController {
  readonly #client: ControllerClient;
  readonly #naming: Naming;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #informer: Informer;
  readonly #base: string;
  #signal: AbortSignal | undefined;

  constructor(client: ControllerClient, naming: Naming, onError: (err: unknown, context: string) => void) {
    this.#client = client;
    this.#naming = naming;
    this.#onError = onError;
    this.#base = `/apis/${naming.group("certificates")}/v1/certificatesigningrequests`;
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

  async #handle(csr: Csr): Promise<void> {
    try {
      await this.#approve(csr);
    } catch (err) {
      if (this.#signal?.aborted) return;
      this.#onError(err, `certificatesigningrequest ${csr.metadata.name}`);
      const timer = setTimeout(async () => {
        if (this.#signal?.aborted) return;
        const reply = await this.#client
          .call("GET", `${this.#base}/${enc(csr.metadata.name)}`)
          .catch(() => undefined);
        if (reply?.status === 200) await this.#handle(reply.body as InformerObject as Csr);
      }, RETRY_MS);
      timer.unref();
    }
  }

  /** Whether the requester may `create` on the subresource, as the authorizer answers. */
  async #allowed(csr: Csr, subresource: string): Promise<boolean> {
    const spec = csr.spec ?? {};
    const reply = await this.#client.must(
      "POST",
      `/apis/${this.#naming.group("authorization")}/v1/subjectaccessreviews`,
      {
        apiVersion: `${this.#naming.group("authorization")}/v1`,
        kind: "SubjectAccessReview",
        spec: {
          user: spec.username ?? "",
          uid: spec.uid ?? "",
          groups: spec.groups ?? [],
          extra: spec.extra ?? {},
          resourceAttributes: {
            group: this.#naming.group("certificates"),
            version: "*",
            resource: "certificatesigningrequests",
            subresource,
            verb: "create",
          },
        },
      },
    );
    return reply.body?.status?.allowed === true;
  }

  async #approve(csr: Csr): Promise<void> {
    if (csr.status?.certificate) return;
    if (hasCondition(csr, "Approved") || hasCondition(csr, "Denied")) return;
    if (csr.spec?.signerName !== signerNames(this.#naming).apiserverClientKubelet) return;
    const request = parseRequest(csr);
    if (!request || kubeletClientProblem(request, csr.spec?.usages ?? []) !== undefined) return;
    const recognized: [string, string][] = [];
    // A node renewing its own certificate: the requester is the subject.
    if (csr.spec?.username === commonName(request))
      recognized.push([
        "selfnodeclient",
        "Auto approving self kubelet client certificate after SubjectAccessReview.",
      ]);
    recognized.push(["nodeclient", "Auto approving kubelet client certificate after SubjectAccessReview."]);
    for (const [subresource, message] of recognized) {
      if (!(await this.#allowed(csr, subresource))) continue;
      const now = rfc3339(Date.now());
      const status = {
        ...(csr.status ?? {}),
        conditions: [
          ...(csr.status?.conditions ?? []),
          { type: "Approved", status: "True", reason: "AutoApproved", message, lastUpdateTime: now },
        ],
      };
      const reply = await this.#client.call("PUT", `${this.#base}/${enc(csr.metadata.name)}/approval`, {
        ...csr,
        status,
      });
      if (reply.status === 409 || reply.status === 404) return;
      if (reply.status >= 300)
        throw new Error(`approving ${csr.metadata.name}: ${reply.status} ${reply.body?.message ?? ""}`);
      return;
    }
  }
}
