// The approving controller (upstream's csrapproving): approves node client certificate requests
// (the kubelet client signer, a node's subject and usages) when a SubjectAccessReview says the
// requester may: `create` on certificatesigningrequests/selfnodeclient when a node renews its own
// certificate (requester = subject), else certificatesigningrequests/nodeclient (bootstrap).
// Anything else is left for people or other approvers; nothing is ever denied.
import type { Naming } from "../../../backends/naming/index.ts";
import { signerNames } from "../../authorization/rbac/index.ts";
import type { ControllerClient } from "../client.ts";
import { CsrWorker, rfc3339 } from "./csr-worker.ts";
import { type Csr, commonName, hasCondition, kubeletClientProblem, parseRequest } from "./rules.ts";

export class CsrApprovingController {
  readonly #client: ControllerClient;
  readonly #naming: Naming;
  readonly #worker: CsrWorker;

  constructor(client: ControllerClient, naming: Naming, onError: (err: unknown, context: string) => void) {
    this.#client = client;
    this.#naming = naming;
    this.#worker = new CsrWorker(client, naming, onError, (csr) => this.#approve(csr));
  }

  get synced(): boolean {
    return this.#worker.synced;
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#worker.run(signal);
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
      const reply = await this.#client.call("PUT", `${this.#worker.path(csr.metadata.name)}/approval`, {
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
