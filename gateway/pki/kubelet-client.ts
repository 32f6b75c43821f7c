// How the gateway reaches kubelets (pod logs, exec, attach, port-forward, the Node proxy at the
// kubelet port): upstream's --kubelet-certificate-authority, --kubelet-client-certificate and
// --kubelet-client-key. Without a CA the kubelet's certificate is not checked, and without a client
// pair none is presented, as upstream does when the flags are unset.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { TlsIdentity } from "../../backends/services/index.ts";

export interface KubeletClientFiles {
  readonly certificateAuthority?: string | undefined;
  readonly clientCertificate?: string | undefined;
  readonly clientKey?: string | undefined;
}

/** Kubelet client files that cannot be used; the server refuses to start with this message. */
export class KubeletClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KubeletClientConfigError";
  }
}

async function readPem(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw new KubeletClientConfigError(`--${flag}: cannot read ${path}: ${(err as Error).message}`);
  }
}

function parseCertificate(flag: string, path: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new KubeletClientConfigError(`--${flag}: ${path} holds no PEM certificate`);
  }
}

/**
 * The TLS identity for kubelet connections. The server name is left empty so that the kubelet's
 * certificate is checked against the address dialed (an IP or a host name), as Go's transport does.
 */
export async function loadKubeletClient(files: KubeletClientFiles): Promise<TlsIdentity> {
  const { certificateAuthority, clientCertificate, clientKey } = files;
  if ((clientCertificate === undefined) !== (clientKey === undefined)) {
    throw new KubeletClientConfigError(
      "--kubelet-client-certificate and --kubelet-client-key must be given together",
    );
  }
  let caPem: string | undefined;
  if (certificateAuthority !== undefined) {
    caPem = await readPem("kubelet-certificate-authority", certificateAuthority);
    parseCertificate("kubelet-certificate-authority", certificateAuthority, caPem);
  }
  let client: TlsIdentity["client"];
  if (clientCertificate !== undefined && clientKey !== undefined) {
    const certPem = await readPem("kubelet-client-certificate", clientCertificate);
    const keyPem = await readPem("kubelet-client-key", clientKey);
    const cert = parseCertificate("kubelet-client-certificate", clientCertificate, certPem);
    let matches: boolean;
    try {
      matches = cert.checkPrivateKey(createPrivateKey(keyPem));
    } catch {
      throw new KubeletClientConfigError(`--kubelet-client-key: ${clientKey} holds no PEM private key`);
    }
    if (!matches) {
      throw new KubeletClientConfigError(
        `--kubelet-client-key: ${clientKey} does not match the certificate in ${clientCertificate}`,
      );
    }
    client = { certPem, keyPem };
  }
  return {
    serverName: "",
    ...(caPem === undefined ? { insecure: true } : { caPem }),
    ...(client ? { client } : {}),
  };
}

/** The same identity without checking the kubelet's certificate (a log's insecureSkipTLSVerifyBackend). */
export function skippingVerification(identity: TlsIdentity): TlsIdentity {
  const { caPem: _ignored, ...rest } = identity;
  return { ...rest, insecure: true };
}
