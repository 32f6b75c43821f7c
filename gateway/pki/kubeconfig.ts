// A kubeconfig file with embedded credentials, as kubectl and client libraries read it.
import { dump } from "js-yaml";

export interface KubeconfigInput {
  readonly clusterName: string;
  readonly userName: string;
  readonly server: string;
  readonly caPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
}

const b64 = (text: string) => Buffer.from(text).toString("base64");

export function renderKubeconfig(input: KubeconfigInput): string {
  const context = `${input.userName}@${input.clusterName}`;
  return dump({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: input.clusterName,
        cluster: { server: input.server, "certificate-authority-data": b64(input.caPem) },
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
