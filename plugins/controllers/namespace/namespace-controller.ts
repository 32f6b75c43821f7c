// Empties namespaces that are being deleted: every namespaced object of every resource the
// server lists in discovery is deleted, and once none is left the namespace's own finalizer is
// removed through its `finalize` subresource, which lets the server remove the namespace.
import { setTimeout as delay } from "node:timers/promises";
import type { ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";

interface DiscoveredResource {
  readonly path: string;
  readonly name: string;
  readonly verbs: readonly string[];
}

const RETRY_MS = 1_000;
// As upstream's namespace deleter: dependents go with their owners (they are in the namespace
// too), and no kind's Orphan default leaves an `orphan` finalizer holding the namespace open.
const BACKGROUND = "propagationPolicy=Background";

export class NamespaceController {
  readonly #client: ControllerClient;
  /** The finalizer this controller owns (the product name). */
  readonly #finalizer: string;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #informer: Informer;
  readonly #working = new Set<string>();
  #signal: AbortSignal | undefined;

  constructor(client: ControllerClient, finalizer: string, onError: (err: unknown, context: string) => void) {
    this.#client = client;
    this.#finalizer = finalizer;
    this.#onError = onError;
    this.#informer = new Informer(
      client,
      "/api/v1/namespaces",
      { upsert: (ns) => this.#consider(ns) },
      (err) => onError(err, "namespace informer"),
    );
  }

  get synced(): boolean {
    return this.#informer.synced;
  }

  run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    return this.#informer.run(signal);
  }

  #consider(ns: InformerObject): void {
    const meta = ns.metadata as { name: string; deletionTimestamp?: string };
    const finalizers = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []) as string[];
    if (!meta.deletionTimestamp || !finalizers.includes(this.#finalizer) || this.#working.has(meta.name))
      return;
    this.#working.add(meta.name);
    void this.#finalize(meta.name).finally(() => this.#working.delete(meta.name));
  }

  async #discover(): Promise<DiscoveredResource[]> {
    const out: DiscoveredResource[] = [];
    const add = (
      groupVersionPath: string,
      resources: { name: string; namespaced: boolean; verbs: string[] }[],
    ) => {
      for (const r of resources) {
        if (!r.namespaced || r.name.includes("/") || !r.verbs.includes("list") || !r.verbs.includes("delete"))
          continue;
        out.push({ path: groupVersionPath, name: r.name, verbs: r.verbs });
      }
    };
    const core = await this.#client.must("GET", "/api/v1");
    add("/api/v1", core.body.resources);
    const groups = await this.#client.must("GET", "/apis");
    for (const g of groups.body.groups as { preferredVersion: { groupVersion: string } }[]) {
      const gv = g.preferredVersion.groupVersion;
      const list = await this.#client.must("GET", `/apis/${gv}`);
      add(`/apis/${gv}`, list.body.resources);
    }
    return out;
  }

  /** Delete what is in the namespace; true when nothing is left. */
  async #empty(namespace: string): Promise<boolean> {
    let left = 0;
    for (const r of await this.#discover()) {
      const collection = `${r.path}/namespaces/${encodeURIComponent(namespace)}/${r.name}`;
      if (r.verbs.includes("deletecollection")) {
        await this.#client.must("DELETE", `${collection}?${BACKGROUND}`);
      }
      const remaining = await this.#client.must("GET", collection);
      for (const item of remaining.body.items as InformerObject[]) {
        left++;
        const m = item.metadata as { name: string; deletionTimestamp?: string };
        if (m.deletionTimestamp) continue; // waiting for its own finalizers
        const reply = await this.#client.call(
          "DELETE",
          `${collection}/${encodeURIComponent(m.name)}?${BACKGROUND}`,
        );
        if (reply.status >= 300 && reply.status !== 404) {
          throw new Error(`deleting ${collection}/${m.name}: ${reply.status} ${JSON.stringify(reply.body)}`);
        }
      }
    }
    return left === 0;
  }

  async #finalize(namespace: string): Promise<void> {
    const signal = this.#signal;
    while (!signal?.aborted) {
      try {
        if (await this.#empty(namespace)) {
          const current = await this.#client.call(
            "GET",
            `/api/v1/namespaces/${encodeURIComponent(namespace)}`,
          );
          if (current.status === 404) return;
          const ns = current.body as { spec?: { finalizers?: string[] } };
          const spec = {
            ...(ns.spec ?? {}),
            finalizers: (ns.spec?.finalizers ?? []).filter((f) => f !== this.#finalizer),
          };
          const reply = await this.#client.call(
            "PUT",
            `/api/v1/namespaces/${encodeURIComponent(namespace)}/finalize`,
            { ...current.body, spec },
          );
          if (reply.status < 300 || reply.status === 404) return;
          if (reply.status !== 409)
            throw new Error(`finalizing ${namespace}: ${reply.status} ${JSON.stringify(reply.body)}`);
        }
      } catch (err) {
        this.#onError(err, `emptying namespace ${namespace}`);
      }
      await delay(RETRY_MS, undefined, signal ? { signal } : {}).catch(() => {});
    }
  }
}
