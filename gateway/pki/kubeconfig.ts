// A kubeconfig file with embedded credentials, as kubectl and client libraries read it.
import { dump, load } from "js-yaml";

export interface KubeconfigInput {
  readonly clusterName: string;
  readonly userName: string;
  readonly server: string;
  readonly caPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
  /** Record `server` in a cluster extension, so a later start can tell its own URL from an edit. */
  readonly recordServer?: boolean;
}

/** The cluster extension that holds the server URL the gateway last wrote into the file. */
export const SERVER_RECORD = "cluster-gateway";

const b64 = (text: string) => Buffer.from(text).toString("base64");

export function renderKubeconfig(input: KubeconfigInput): string {
  const context = `${input.userName}@${input.clusterName}`;
  const extensions = input.recordServer
    ? { extensions: [{ name: SERVER_RECORD, extension: { server: input.server } }] }
    : {};
  return dump({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: input.clusterName,
        cluster: { server: input.server, "certificate-authority-data": b64(input.caPem), ...extensions },
      },
    ],
    users: [
      {
        name: input.userName,
        user: {
          "client-certificate-data": b64(input.clientCertPem),
          "client-key-data": b64(input.clientKeyPem),
        },
      },
    ],
    contexts: [{ name: context, context: { cluster: input.clusterName, user: input.userName } }],
    "current-context": context,
    preferences: {},
  });
}

export type ServerCheck =
  /** The file already names `url`. */
  | { readonly outcome: "current" }
  /** The file still held the URL the gateway wrote: `text` is the file pointed at `url`. */
  | { readonly outcome: "updated"; readonly previous: string; readonly text: string }
  /** Someone changed the server the gateway wrote (a load balancer, a tunnel): theirs to keep. */
  | { readonly outcome: "edited"; readonly server: string }
  /** No record of what the gateway wrote (a file from an older release, or hand-made). */
  | { readonly outcome: "unrecorded"; readonly server: string };

interface ClusterEntry {
  cluster?: { server?: unknown; extensions?: { name?: unknown; extension?: { server?: unknown } }[] };
}

/** Compares the server of a kubeconfig the gateway wrote with the URL it now serves on. */
export function checkServer(text: string, url: string): ServerCheck {
  const config = load(text) as { clusters?: ClusterEntry[] } | null;
  const clusters = Array.isArray(config?.clusters) ? config.clusters : [];
  for (const entry of clusters) {
    const cluster = entry?.cluster;
    const record = cluster?.extensions?.find?.((e) => e?.name === SERVER_RECORD)?.extension;
    if (!cluster || typeof record?.server !== "string") continue;
    const server = String(cluster.server ?? "");
    if (server === url) return { outcome: "current" };
    if (server !== record.server) return { outcome: "edited", server };
    cluster.server = url;
    record.server = url;
    return { outcome: "updated", previous: server, text: dump(config) };
  }
  const server = String(clusters[0]?.cluster?.server ?? "");
  return server === url ? { outcome: "current" } : { outcome: "unrecorded", server };
}
