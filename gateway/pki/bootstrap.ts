// First-start credentials in kubeadm's layout under <data-dir>: the cluster CA, the serving
// certificate, the service-account key pair, the front-proxy CA and its client, and an admin
// kubeconfig. Later starts reuse whatever files exist, and keep the kubeconfig's server URL
// current with the flags. Every directory is created 0700 and every file 0600.
import { generateKeyPairSync } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { type Authority, createAuthority, issueCertificate, loadAuthority } from "./certificates.ts";
import { type Notice, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./data-dir.ts";
import { checkServer, renderKubeconfig } from "./kubeconfig.ts";

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

/** `pkiDir` (`--pki-dir`) defaults to `<dataDir>/pki`; admin.kubeconfig stays in the data dir. */
export function pkiPaths(dataDir: string, pkiDir = join(dataDir, "pki")): PkiPaths {
  const pki = pkiDir;
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
  /** Where the shared credentials live (`--pki-dir`); default `<dataDir>/pki`. */
  readonly pkiDir?: string;
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
  /** What became of admin.kubeconfig's server URL, when anything is worth saying. */
  readonly notices: Notice[];
}

async function writePrivate(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: PRIVATE_FILE_MODE });
  await chmod(path, PRIVATE_FILE_MODE);
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
  await writePrivate(certPath, ca.certPem);
  await writePrivate(keyPath, ca.keyPem);
  created.push(certPath, keyPath);
  return ca;
}

export async function bootstrapPki(options: BootstrapOptions): Promise<BootstrapResult> {
  const paths = pkiPaths(options.dataDir, options.pkiDir);
  await mkdir(dirname(paths.caCert), { recursive: true, mode: PRIVATE_DIR_MODE });
  await mkdir(options.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const created: string[] = [];

  const ca = await ensureAuthority(paths.caCert, paths.caKey, "cluster-ca", created);

  if (!options.servingProvided && !(existsSync(paths.servingCert) && existsSync(paths.servingKey))) {
    const names = new Set(["localhost", "127.0.0.1", "::1", hostname(), ...(options.tlsSans ?? [])]);
    const serving = await issueCertificate(ca, {
      commonName: "cluster-apiserver",
      usage: "server",
      altNames: [...names].filter((n) => n !== ""),
    });
    await writePrivate(paths.servingCert, serving.certPem);
    await writePrivate(paths.servingKey, serving.keyPem);
    created.push(paths.servingCert, paths.servingKey);
  }

  if (!(existsSync(paths.saKey) && existsSync(paths.saPub))) {
    // RSA for service-account tokens: RS256 is what token consumers expect by default.
    const { privateKey, publicKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
    });
    await writePrivate(paths.saKey, privateKey);
    await writePrivate(paths.saPub, publicKey);
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
    await writePrivate(paths.frontProxyClientCert, client.certPem);
    await writePrivate(paths.frontProxyClientKey, client.keyPem);
    created.push(paths.frontProxyClientCert, paths.frontProxyClientKey);
  }

  const notices: Notice[] = [];
  if (!existsSync(paths.adminKubeconfig)) {
    const admin = await issueCertificate(ca, {
      commonName: "cluster-admin",
      organizations: ["system:masters"],
      usage: "client",
    });
    await writePrivate(
      paths.adminKubeconfig,
      renderKubeconfig({
        clusterName: "cluster",
        userName: "cluster-admin",
        server: options.serverUrl,
        caPem: ca.certPem,
        clientCertPem: admin.certPem,
        clientKeyPem: admin.keyPem,
        recordServer: true,
      }),
    );
    created.push(paths.adminKubeconfig);
  } else {
    notices.push(...(await keepServerCurrent(paths.adminKubeconfig, options.serverUrl)));
  }
  return { paths, created, notices };
}

/**
 * After a restart on another --secure-port or --bind-address, kubectl would otherwise present the
 * admin certificate to whatever now listens at the old address. The URL is rewritten only while
 * it is still the one the gateway wrote; a server someone put there is kept, and the log says so.
 */
async function keepServerCurrent(file: string, url: string): Promise<Notice[]> {
  let check: ReturnType<typeof checkServer>;
  try {
    check = checkServer(await readFile(file, "utf8"), url);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return [{ level: "warn", msg: `cannot read it as a kubeconfig (${why}); left as it is`, file, url }];
  }
  switch (check.outcome) {
    case "current":
      return [];
    case "updated":
      // Through a new file and a rename, so a crash leaves the old file or the new one.
      await writePrivate(`${file}.new`, check.text);
      await rename(`${file}.new`, file);
      return [{ level: "info", msg: "server URL updated to the flags", file, from: check.previous, to: url }];
    case "edited":
      return [
        {
          level: "info",
          msg: "server URL was edited, so it is kept",
          file,
          server: check.server,
          serving: url,
        },
      ];
    case "unrecorded":
      return [
        {
          level: "warn",
          msg: "names another server than this gateway's, and was not written by this release, so it is left as it is; delete it to have a new one written",
          file,
          server: check.server,
          serving: url,
        },
      ];
  }
}
