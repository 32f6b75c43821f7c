// The `cluster-info` ConfigMap of the public namespace: how a joining node finds the server and
// its CA before it trusts either (the bootstrap signer vouches for it per token). Written once,
// when missing, as kubeadm's init writes it: a kubeconfig with a single cluster entry whose name
// is empty, holding the CA and the server URL; an existing one is left as it is. Anonymous
// callers may get it through kubeadm's Role and RoleBinding, part of the bootstrap RBAC policy.
import { setTimeout as delay } from "node:timers/promises";
import type { ControllerClient } from "../client.ts";

/** Upstream's names (cluster-bootstrap's token api), the same under both presets. */
export const CLUSTER_INFO = "cluster-info";
export const KUBECONFIG_KEY = "kubeconfig";
export const JWS_KEY_PREFIX = "jws-kubeconfig-";

/** The kubeconfig as client-go's clientcmd.Write prints kubeadm's one-cluster Config. */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return [
    "apiVersion: v1",
    "clusters:",
    "- cluster:",
    `    certificate-authority-data: ${Buffer.from(caPem).toString("base64")}`,
    `    server: ${server}`,
    '  name: ""',
    "contexts: null",
    'current-context: ""',
    "kind: Config",
    "preferences: {}",
    "users: null",
    "",
  ].join("\n");
}

export interface ClusterInfoOptions {
  readonly namespace: string;
  readonly server: string;
  readonly caPem: string;
}

/** Creates cluster-info when it is missing, retrying until the API takes it. */
export class ClusterInfoPublisher {
  readonly #client: ControllerClient;
  readonly #options: ClusterInfoOptions;
  readonly #onError: (err: unknown, context: string) => void;
  #synced = false;

  constructor(
    client: ControllerClient,
    options: ClusterInfoOptions,
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#options = options;
    this.#onError = onError;
  }

  get synced(): boolean {
    return this.#synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    const { namespace, server, caPem } = this.#options;
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps`;
    while (!signal.aborted) {
      try {
        const reply = await this.#client.call("POST", path, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: CLUSTER_INFO, namespace },
          data: { [KUBECONFIG_KEY]: clusterInfoKubeconfig(server, caPem) },
        });
        // 409: it exists already (an earlier start, or an operator's own), and stays as it is.
        if (reply.status < 300 || reply.status === 409) {
          this.#synced = true;
          return;
        }
        this.#onError(
          new Error(`creating ${CLUSTER_INFO}: ${reply.status} ${reply.body?.message}`),
          CLUSTER_INFO,
        );
      } catch (err) {
        if (signal.aborted) return;
        this.#onError(err, CLUSTER_INFO);
      }
      await delay(1000, undefined, { signal }).catch(() => {});
    }
  }
}
