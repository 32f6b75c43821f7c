// Keeps a ServiceAccount named `default` in every active namespace: created when a namespace
// appears, and again if someone deletes it.

import { isActiveNamespace } from "../active-namespace.ts";
import type { ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";

export class ServiceAccountController {
  readonly #client: ControllerClient;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #namespaces: Informer;
  readonly #accounts: Informer;

  constructor(client: ControllerClient, onError: (err: unknown, context: string) => void) {
    this.#client = client;
    this.#onError = onError;
    this.#namespaces = new Informer(
      client,
      "/api/v1/namespaces",
      { upsert: (ns) => this.#ensure(ns.metadata.name, ns) },
      (err) => onError(err, "namespace informer"),
    );
    this.#accounts = new Informer(
      client,
      "/api/v1/serviceaccounts?fieldSelector=metadata.name%3Ddefault",
      {
        upsert: () => {},
        deleted: (sa) => this.#ensure(sa.metadata.namespace ?? "", undefined),
      },
      (err) => onError(err, "service account informer"),
    );
  }

  get synced(): boolean {
    return this.#namespaces.synced && this.#accounts.synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#namespaces.run(signal), this.#accounts.run(signal)]);
  }

  async #ensure(namespace: string, ns: InformerObject | undefined): Promise<void> {
    if (!namespace) return;
    try {
      if (!(await isActiveNamespace(this.#client, namespace, ns))) return;
      const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts`;
      const existing = await this.#client.call("GET", `${path}/default`);
      if (existing.status === 200) return;
      const created = await this.#client.call("POST", path, {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "default" },
      });
      // 409: someone made it meanwhile; 403/404: the namespace went away meanwhile.
      if (created.status >= 300 && ![403, 404, 409].includes(created.status)) {
        throw new Error(
          `creating the default service account in ${namespace}: ${created.status} ${JSON.stringify(created.body)}`,
        );
      }
    } catch (err) {
      this.#onError(err, `service account for ${namespace}`);
    }
  }
}
