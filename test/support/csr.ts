// Certificate signing requests as a node or a user makes them: openssl writes the key and the
// PKCS#10 request, as kubeadm's or a person's tooling would.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

export interface CsrOptions {
  /** `/CN=.../O=...` as openssl's -subj takes it. */
  readonly subject: string;
  /** Key type: EC P-256 (default), RSA 2048 or Ed25519. */
  readonly key?: "ec" | "rsa" | "ed25519";
  /** subjectAltName entries, e.g. `DNS:n1.example`, `IP:10.0.0.1`. */
  readonly altNames?: readonly string[];
}

export interface MadeCsr {
  /** The PEM request. */
  readonly pem: string;
  /** The PEM private key. */
  readonly keyPem: string;
}

export async function makeCsr(options: CsrOptions): Promise<MadeCsr> {
  const dir = await mkdtemp(join(tmpdir(), "csr-"));
  try {
    const keyArgs =
      options.key === "rsa"
        ? ["-newkey", "rsa:2048"]
        : options.key === "ed25519"
          ? ["-newkey", "ed25519"]
          : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
    const extra: string[] = [];
    if (options.altNames && options.altNames.length > 0) {
      await writeFile(
        join(dir, "req.cnf"),
        `[req]\ndistinguished_name=dn\nreq_extensions=ext\n[dn]\n[ext]\nsubjectAltName=${options.altNames.join(",")}\n`,
      );
      extra.push("-config", join(dir, "req.cnf"));
    }
    await promisify(execFile)("openssl", [
      "req",
      "-new",
      ...keyArgs,
      "-nodes",
      "-keyout",
      join(dir, "key.pem"),
      "-subj",
      options.subject,
      ...extra,
      "-out",
      join(dir, "req.pem"),
    ]);
    return {
      pem: await readFile(join(dir, "req.pem"), "utf8"),
      keyPem: await readFile(join(dir, "key.pem"), "utf8"),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A CSR object asking `signerName` to sign `pem`. */
export function csrObject(
  name: string,
  group: string,
  pem: string,
  signerName: string,
  usages: readonly string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: `${group}/v1`,
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: { request: Buffer.from(pem).toString("base64"), signerName, usages: [...usages], ...extra },
  };
}
