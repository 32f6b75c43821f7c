// Extension API servers for the aggregation suites: a second gateway set up as upstream's
// extension servers are (request-header authentication from the main gateway's front-proxy CA,
// authorization asked back of the main gateway by SubjectAccessReview), and the objects that put
// a server on this machine behind an APIService (an ExternalName Service for `localhost`, since
// an EndpointSlice may not hold a loopback address).
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { load } from "js-yaml";
import type { ApiClient } from "./api-client.ts";
import { type GatewayProcess, startGateway } from "./gateway-process.ts";

interface Kubeconfig {
  readonly clusters: { readonly cluster: Record<string, string> }[];
  readonly users: { readonly user: Record<string, string> }[];
}

/**
 * A gateway serving as an extension of `main`: it trusts `main`'s proxy certificate, serves a
 * certificate for `<service>.<namespace>.svc`, and asks `main` (as `main`'s admin) about the
 * users it does not know. `dir` holds the webhook kubeconfig.
 */
export async function startExtensionGateway(
  main: GatewayProcess,
  options: {
    readonly preset: "cluster" | "kubernetes";
    /** `authorization.<domain>` under the preset. */
    readonly authorizationGroup: string;
    readonly dir: string;
    readonly serverName?: string;
    readonly args?: readonly string[];
  },
): Promise<GatewayProcess> {
  const mainConfig = load(await readFile(main.kubeconfig, "utf8")) as Kubeconfig;
  const webhookConfig = join(options.dir, "authz-webhook.kubeconfig");
  await writeFile(
    webhookConfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "main",
          cluster: {
            server: `https://127.0.0.1:${main.port}/apis/${options.authorizationGroup}/v1/subjectaccessreviews`,
            "certificate-authority-data": mainConfig.clusters[0]?.cluster["certificate-authority-data"],
          },
        },
      ],
      users: [{ name: "ext", user: mainConfig.users[0]?.user }],
      contexts: [{ name: "main", context: { cluster: "main", user: "ext" } }],
      "current-context": "main",
    }),
  );
  return startGateway([
    `--api-naming=${options.preset}`,
    `--tls-sans=${options.serverName ?? "ext.ext-system.svc"}`,
    `--requestheader-client-ca-file=${join(main.dataDir, "pki", "front-proxy-ca.crt")}`,
    "--requestheader-allowed-names=front-proxy-client",
    "--authorization-mode=RBAC,Webhook",
    `--authorization-webhook-config-file=${webhookConfig}`,
    "--authorization-webhook-version=v1",
    ...(options.args ?? []),
  ]);
}

export interface Registration {
  /** `apiregistration.<domain>` under the main gateway's preset. */
  readonly apiregistration: string;
  readonly group: string;
  readonly namespace: string;
  readonly service: string;
  /** The port the server on this machine listens on. */
  readonly port: number;
  readonly caPem: string;
  readonly versionPriority?: number;
}

/** An ExternalName Service for `localhost` in `namespace` (which must exist). */
export async function localService(admin: ApiClient, namespace: string, name: string): Promise<void> {
  const made = await admin.call("POST", `/api/v1/namespaces/${namespace}/services`, {
    body: { metadata: { name }, spec: { type: "ExternalName", externalName: "localhost" } },
  });
  assert.equal(made.status, 201, made.text);
}

/** An APIService for `group`/v1 served at the Service's `port`, trusting `caPem`. */
export async function apiService(admin: ApiClient, r: Registration): Promise<void> {
  const made = await admin.call("POST", `/apis/${r.apiregistration}/v1/apiservices`, {
    body: {
      metadata: { name: `v1.${r.group}` },
      spec: {
        group: r.group,
        version: "v1",
        service: { namespace: r.namespace, name: r.service, port: r.port },
        caBundle: Buffer.from(r.caPem).toString("base64"),
        groupPriorityMinimum: 1000,
        versionPriority: r.versionPriority ?? 15,
      },
    },
  });
  assert.equal(made.status, 201, made.text);
}

/** Both: a server on this machine behind an APIService. */
export async function registerLocalExtension(admin: ApiClient, r: Registration): Promise<void> {
  await localService(admin, r.namespace, r.service);
  await apiService(admin, r);
}
