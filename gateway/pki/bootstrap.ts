// First-start credentials in kubeadm's layout under <data-dir>: the cluster CA, the serving
// certificate, the service-account key pair, the front-proxy CA and its client, and an admin
// kubeconfig. Later starts reuse whatever files exist.
import { generateKeyPairSync } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { type Authority, createAuthority, issueCertificate, loadAuthority } from "./certificates.ts";
import { renderKubeconfig } from "./kubeconfig.ts";

export interface PkiPaths {
  readonly caCert: string;
  readonly caKey: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly saKey: string;
  readonly saPub: string;
  readonly frontProxyCaCert: string;
  readonly frontProxyCaKey: string;
  readonly frontProxyClientCert: string;
  readonly frontProxyClientKey: string;
  readonly adminKubeconfig: string;
}

export function pkiPaths(dataDir: string): PkiPaths {
  const pki = join(dataDir, "pki");
  return {
    caCert: join(pki, "ca.crt"),
    caKey: join(pki, "ca.key"),
    servingCert: join(pki, "apiserver.crt"),
    servingKey: join(pki, "apiserver.key"),
    saKey: join(pki, "sa.key"),
    saPub: join(pki, "sa.pub"),
    frontProxyCaCert: join(pki, "front-proxy-ca.crt"),
    frontProxyCaKey: join(pki, "front-proxy-ca.key"),
    frontProxyClientCert: join(pki, "front-proxy-client.crt"),
    frontProxyClientKey: join(pki, "front-proxy-client.key"),
    adminKubeconfig: join(dataDir, "admin.kubeconfig"),
  };
}

export interface BootstrapOptions {
  readonly dataDir: string;
  /** Extra subject alternative names for the serving certificate (`--tls-sans`). */
  readonly tlsSans?: readonly string[];
  /** The URL written into admin.kubeconfig. */
  readonly serverUrl: string;
  /** Skip the serving certificate (the operator supplies one). */
  readonly servingProvided?: boolean;
}

export interface BootstrapResult {
  readonly paths: PkiPaths;
  /** Files written by this call (empty on a later start). */
  readonly created: string[];
}

async function writeSecret(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
  await chmod(path, 0o600);
}

async function ensureAuthority(
  certPath: string,
  keyPath: string,
  name: string,
  created: string[],
): Promise<Authority> {
  if (existsSync(certPath) && existsSync(keyPath)) {
    return loadAuthority(await readFile(certPath, "utf8"), await readFile(keyPath, "utf8"));
  }
  const ca = await createAuthority(name);
  await writeFile(certPath, ca.certPem);
  await writeSecret(keyPath, ca.keyPem);
  created.push(certPath, keyPath);
  return ca;
}

export async function bootstrapPki(options: BootstrapOptions): Promise<BootstrapResult> {
  const paths = pkiPaths(options.dataDir);
  await mkdir(join(options.dataDir, "pki"), { recursive: true, mode: 0o700 });
  const created: string[] = [];

  const ca = await ensureAuthority(paths.caCert, paths.caKey, "cluster-ca", created);

  if (!options.servingProvided && !(existsSync(paths.servingCert) && existsSync(paths.servingKey))) {
    const names = new Set(["localhost", "127.0.0.1", "::1", hostname(), ...(options.tlsSans ?? [])]);
    const serving = await issueCertificate(ca, {
      commonName: "cluster-apiserver",
      usage: "server",
      altNames: [...names].filter((n) => n !== ""),
    });
    await writeFile(paths.servingCert, serving.certPem);
    await writeSecret(paths.servingKey, serving.keyPem);
    created.push(paths.servingCert, paths.servingKey);
  }

  if (!(existsSync(paths.saKey) && existsSync(paths.saPub))) {
    // RSA for service-account tokens: RS256 is what token consumers expect by default.
    const { privateKey, publicKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
    });
    await writeSecret(paths.saKey, privateKey);
    await writeFile(paths.saPub, publicKey);
    created.push(paths.saKey, paths.saPub);
  }

  const frontProxyCa = await ensureAuthority(
    paths.frontProxyCaCert,
    paths.frontProxyCaKey,
    "front-proxy-ca",
    created,
  );
  if (!(existsSync(paths.frontProxyClientCert) && existsSync(paths.frontProxyClientKey))) {
    const client = await issueCertificate(frontProxyCa, {
      commonName: "front-proxy-client",
      usage: "client",
    });
    await writeFile(paths.frontProxyClientCert, client.certPem);
    await writeSecret(paths.frontProxyClientKey, client.keyPem);
    created.push(paths.frontProxyClientCert, paths.frontProxyClientKey);
  }

  if (!existsSync(paths.adminKubeconfig)) {
    const admin = await issueCertificate(ca, {
      commonName: "cluster-admin",
      organizations: ["system:masters"],
      usage: "client",
    });
    await writeSecret(
      paths.adminKubeconfig,
      renderKubeconfig({
        clusterName: "cluster",
        userName: "cluster-admin",
        server: options.serverUrl,
        caPem: ca.certPem,
        clientCertPem: admin.certPem,
        clientKeyPem: admin.keyPem,
      }),
    );
    created.push(paths.adminKubeconfig);
  }
  return { paths, created };
}
