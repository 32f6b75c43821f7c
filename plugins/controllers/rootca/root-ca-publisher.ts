// Keeps a ConfigMap holding the API server's CA (`ca.crt`) in every active namespace, under the
// naming preset's name (upstream's `kube-root-ca.crt`): pods' service-account volumes project it
// so workloads can verify the server. Restored when deleted or changed.

import { isActiveNamespace } from "../active-namespace.ts";
import type { ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";

export class RootCaPublisher {
  readonly #client: ControllerClient;
  readonly #name: string;
  readonly #caPem: string;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #namespaces: Informer;
  readonly #configMaps: Informer;

  constructor(
    client: ControllerClient,
    options: { readonly name: string; readonly caPem: string },
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#name = options.name;
    this.#caPem = options.caPem;
    this.#onError = onError;
    this.#namespaces = new Informer(
      client,
      "/api/v1/namespaces",
      { upsert: (ns) => this.#ensure(ns.metadata.name, ns) },
      (err) => onError(err, "namespace informer"),
    );
    this.#configMaps = new Informer(
      client,
      `/api/v1/configmaps?fieldSelector=metadata.name%3D${encodeURIComponent(options.name)}`,
      {
        upsert: (cm) => {
          if ((cm.data as Record<string, string> | undefined)?.["ca.crt"] !== this.#caPem)
            return this.#ensure(cm.metadata.namespace ?? "", undefined);
        },
        deleted: (cm) => this.#ensure(cm.metadata.namespace ?? "", undefined),
      },
      (err) => onError(err, "root CA config map informer"),
    );
  }

  get synced(): boolean {
    return this.#namespaces.synced && this.#configMaps.synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#namespaces.run(signal), this.#configMaps.run(signal)]);
  }

  async #ensure(namespace: string, ns: InformerObject | undefined): Promise<void> {
    if (!namespace) return;
    try {
      if (!(await isActiveNamespace(this.#client, namespace, ns))) return;
      const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps`;
      const body = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: this.#name },
        data: { "ca.crt": this.#caPem },
      };
      const existing = await this.#client.call("GET", `${path}/${encodeURIComponent(this.#name)}`);
      if (existing.status === 200) {
        const found = existing.body as {
          data?: Record<string, string>;
          metadata: { resourceVersion?: string };
        };
        if (found.data?.["ca.crt"] === this.#caPem && Object.keys(found.data).length === 1) return;
        const replaced = await this.#client.call("PUT", `${path}/${encodeURIComponent(this.#name)}`, {
          ...body,
          metadata: { ...body.metadata, resourceVersion: found.metadata.resourceVersion },
        });
        // 409: changed meanwhile; the informer brings it back here.
        if (replaced.status >= 300 && ![403, 404, 409].includes(replaced.status))
          throw new Error(
            `replacing ${this.#name} in ${namespace}: ${replaced.status} ${JSON.stringify(replaced.body)}`,
          );
        return;
      }
      const created = await this.#client.call("POST", path, body);
      // 409: someone made it meanwhile; 403/404: the namespace went away meanwhile.
      if (created.status >= 300 && ![403, 404, 409].includes(created.status))
        throw new Error(
          `creating ${this.#name} in ${namespace}: ${created.status} ${JSON.stringify(created.body)}`,
        );
    } catch (err) {
      this.#onError(err, `root CA config map for ${namespace}`);
    }
  }
}
