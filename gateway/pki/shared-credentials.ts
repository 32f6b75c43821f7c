// Replicas over one store must share their credentials: a replica with another CA would reject
// client certificates the others accept, and one with other service-account keys would issue
// tokens the others reject. Upstream has no guard; here the first replica records fingerprints of
// what it trusts and signs with in a ConfigMap of the system namespace, and a replica whose
// fingerprints differ refuses to start, naming what differs.
import { createHash, createPublicKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { ControllerClient } from "../../plugins/controllers/index.ts";

/** The ConfigMap holding the fingerprints. */
export const SHARED_CREDENTIALS_CONFIG_MAP = "apiserver-shared-credentials";

export interface CredentialSources {
  readonly clientCaPem: string;
  readonly frontProxyCaPem: string;
  readonly serviceAccountSigningKeyFile: string;
  readonly serviceAccountKeyFiles: readonly string[];
}

export class SharedCredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SharedCredentialsError";
  }
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** PEM blocks without their whitespace, in a stable order: the same bundle in any layout. */
function pemBlocks(text: string): string {
  const blocks = text.match(/-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/g) ?? [];
  return blocks
    .map((b) => b.replace(/\s+/g, ""))
    .sort()
    .join("\n");
}

/** SHA-256 of each credential replicas must share. */
export async function credentialFingerprints(sources: CredentialSources): Promise<Record<string, string>> {
  const signing = createPublicKey(await readFile(sources.serviceAccountSigningKeyFile, "utf8"));
  const verifying = await Promise.all(sources.serviceAccountKeyFiles.map((f) => readFile(f, "utf8")));
  return {
    "client-ca": sha256(pemBlocks(sources.clientCaPem)),
    "requestheader-client-ca": sha256(pemBlocks(sources.frontProxyCaPem)),
    "service-account-signing-key": sha256(signing.export({ type: "spki", format: "der" })),
    "service-account-keys": sha256(pemBlocks(verifying.join("\n"))),
  };
}

const HELP: Record<string, string> = {
  "client-ca": "the client CA (--client-ca-file or <pki-dir>/ca.crt)",
  "requestheader-client-ca":
    "the front-proxy CA (--requestheader-client-ca-file or <pki-dir>/front-proxy-ca.crt)",
  "service-account-signing-key":
    "the service-account signing key (--service-account-signing-key-file or <pki-dir>/sa.key)",
  "service-account-keys":
    "the service-account verification keys (--service-account-key-file or <pki-dir>/sa.pub)",
};

/**
 * Records `fingerprints` when the store has none yet, else compares: a difference throws
 * SharedCredentialsError. Returns what happened.
 */
export async function checkSharedCredentials(
  client: ControllerClient,
  namespace: string,
  fingerprints: Record<string, string>,
): Promise<"recorded" | "matched"> {
  const ns = encodeURIComponent(namespace);
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  for (;;) {
    const current = await client.call("GET", `${path}/${SHARED_CREDENTIALS_CONFIG_MAP}`);
    if (current.status === 200) {
      const data = (current.body?.data ?? {}) as Record<string, unknown>;
      const differ = Object.keys(fingerprints).filter(
        (k) => typeof data[k] === "string" && data[k] !== fingerprints[k],
      );
      if (differ.length === 0) return "matched";
      throw new SharedCredentialsError(
        `this gateway's credentials differ from those of the gateways already serving this store: ${differ
          .map((k) => HELP[k] ?? k)
          .join(
            "; ",
          )} (fingerprints in ConfigMap ${namespace}/${SHARED_CREDENTIALS_CONFIG_MAP}). Start every replica with the same --pki-dir (see 'npm start -- init'); after rotating them on every replica, delete that ConfigMap`,
      );
    }
    if (current.status !== 404)
      throw new Error(`reading ${SHARED_CREDENTIALS_CONFIG_MAP}: ${current.status}`);
    const created = await client.call("POST", path, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: SHARED_CREDENTIALS_CONFIG_MAP, namespace },
      data: fingerprints,
    });
    if (created.status === 201) return "recorded";
    if (created.status === 409) continue; // another replica recorded first: compare with it
    if (created.status === 404) {
      // A fresh store: the system namespace comes later from the bootstrap objects; make it now.
      const made = await client.call("POST", "/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: namespace },
      });
      if (made.status === 201 || made.status === 409) continue;
      throw new Error(`creating namespace ${namespace}: ${made.status}`);
    }
    throw new Error(`recording ${SHARED_CREDENTIALS_CONFIG_MAP}: ${created.status}`);
  }
}
