// A signing CA for CertificateSigningRequests: its certificate (and any chain above it) and private
// key from PEM, checked to belong together, and issuance of leaf certificates for a request's
// public key and names. node:crypto cannot build certificates; @peculiar/x509 (which makes the
// cluster CA at first start) does, over WebCrypto.
import "reflect-metadata"; // @peculiar/x509's dependency injection needs the Reflect polyfill
import { createPrivateKey, X509Certificate as NodeX509, randomBytes, webcrypto } from "node:crypto";
import { readFile } from "node:fs/promises";
import * as x509 from "@peculiar/x509";
import { subjectAltNames } from "./rules.ts";

x509.cryptoProvider.set(webcrypto);

type SigningAlgorithm = webcrypto.RsaHashedImportParams | webcrypto.EcdsaParams;

/** A CA that cannot be used, with a message that says why (the server refuses to start). */
export class SigningAuthorityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SigningAuthorityError";
  }
}

// Upstream's mapping of a request's usages to key usage bits and extended key usages.
const KEY_USAGES: Readonly<Record<string, number>> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  "digital signature": x509.KeyUsageFlags.digitalSignature,
  "content commitment": x509.KeyUsageFlags.nonRepudiation,
  "key encipherment": x509.KeyUsageFlags.keyEncipherment,
  "key agreement": x509.KeyUsageFlags.keyAgreement,
  "data encipherment": x509.KeyUsageFlags.dataEncipherment,
  "cert sign": x509.KeyUsageFlags.keyCertSign,
  "crl sign": x509.KeyUsageFlags.cRLSign,
  "encipher only": x509.KeyUsageFlags.encipherOnly,
  "decipher only": x509.KeyUsageFlags.decipherOnly,
};
const EXTENDED_KEY_USAGES: Readonly<Record<string, string>> = {
  any: "2.5.29.37.0",
  "server auth": x509.ExtendedKeyUsage.serverAuth,
  "client auth": x509.ExtendedKeyUsage.clientAuth,
  "code signing": x509.ExtendedKeyUsage.codeSigning,
  "email protection": x509.ExtendedKeyUsage.emailProtection,
  "s/mime": x509.ExtendedKeyUsage.emailProtection,
  "ipsec end system": "1.3.6.1.5.5.7.3.5",
  "ipsec tunnel": "1.3.6.1.5.5.7.3.6",
  "ipsec user": "1.3.6.1.5.5.7.3.7",
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  "ocsp signing": x509.ExtendedKeyUsage.ocspSigning,
  "microsoft sgc": "1.3.6.1.4.1.311.10.3.3",
  "netscape sgc": "2.16.840.1.113730.4.1",
};

/** Issued certificates start this long before now, for clocks a little behind (upstream's backdate). */
const BACKDATE_MS = 5 * 60_000;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

export class SigningAuthority {
  readonly certPem: string;
  /** Certificates above the CA in its file, sent after every issued certificate. */
  readonly chainPem: string;
  readonly #cert: x509.X509Certificate;
  readonly #key: webcrypto.CryptoKey;
  readonly #algorithm: SigningAlgorithm;

  private constructor(
    certPem: string,
    chainPem: string,
    cert: x509.X509Certificate,
    key: webcrypto.CryptoKey,
    algorithm: SigningAlgorithm,
  ) {
    this.certPem = certPem;
    this.chainPem = chainPem;
    this.#cert = cert;
    this.#key = key;
    this.#algorithm = algorithm;
  }

  /** The CA's expiry: nothing it issues outlives it. */
  get notAfter(): Date {
    return this.#cert.notAfter;
  }

  /**
   * Loads a CA from its PEM certificate (the first block; further blocks are its chain) and PEM
   * private key (PKCS#8, PKCS#1 RSA or SEC 1 EC). `source` names the files in errors.
   */
  static async load(certText: string, keyText: string, source = "the signing CA"): Promise<SigningAuthority> {
    const blocks = certText.match(PEM_CERTIFICATE) ?? [];
    const [first, ...rest] = blocks;
    if (!first)
      throw new SigningAuthorityError(`${source}: no PEM CERTIFICATE block in the certificate file`);
    let nodeCert: NodeX509;
    try {
      nodeCert = new NodeX509(first);
    } catch (err) {
      throw new SigningAuthorityError(`${source}: the certificate does not parse: ${(err as Error).message}`);
    }
    let privateKey: ReturnType<typeof createPrivateKey>;
    try {
      privateKey = createPrivateKey(keyText);
    } catch (err) {
      throw new SigningAuthorityError(`${source}: the private key does not parse: ${(err as Error).message}`);
    }
    if (!nodeCert.checkPrivateKey(privateKey))
      throw new SigningAuthorityError(
        `${source}: the private key does not match the certificate's public key`,
      );
    let algorithm: webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams;
    let signing: SigningAlgorithm;
    if (privateKey.asymmetricKeyType === "rsa") {
      algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
      signing = algorithm;
    } else if (privateKey.asymmetricKeyType === "ec") {
      const curve = privateKey.asymmetricKeyDetails?.namedCurve;
      const named =
        curve === "prime256v1"
          ? "P-256"
          : curve === "secp384r1"
            ? "P-384"
            : curve === "secp521r1"
              ? "P-521"
              : undefined;
      if (!named) throw new SigningAuthorityError(`${source}: unsupported EC curve ${curve}`);
      algorithm = { name: "ECDSA", namedCurve: named };
      signing = {
        name: "ECDSA",
        hash: named === "P-256" ? "SHA-256" : named === "P-384" ? "SHA-384" : "SHA-512",
      };
    } else {
      throw new SigningAuthorityError(
        `${source}: unsupported key type ${privateKey.asymmetricKeyType} (RSA or ECDSA)`,
      );
    }
    const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
    const key = await webcrypto.subtle.importKey("pkcs8", pkcs8, algorithm, false, ["sign"]);
    return new SigningAuthority(
      first,
      rest.map((b) => `${b}\n`).join(""),
      new x509.X509Certificate(first),
      key,
      signing,
    );
  }

  /**
   * A leaf certificate for `request`'s subject, names and public key with `usages`, valid from a
   * little before now for `ttlMs`, never past the CA's own expiry. PEM, followed by the chain.
   */
  async issue(
    request: x509.Pkcs10CertificateRequest,
    usages: readonly string[],
    ttlMs: number,
    now: number = Date.now(),
  ): Promise<string> {
    let keyUsage = 0;
    const extended: string[] = [];
    for (const u of usages) {
      if (KEY_USAGES[u] !== undefined) keyUsage |= KEY_USAGES[u];
      const oid = EXTENDED_KEY_USAGES[u];
      if (oid && !extended.includes(oid)) extended.push(oid);
    }
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      await x509.AuthorityKeyIdentifierExtension.create(this.#cert, false, webcrypto),
    ];
    if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
    if (extended.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(extended, false));
    const san = subjectAltNames(request);
    if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san.names.toJSON(), false));
    const notAfter = Math.min(now + ttlMs, this.#cert.notAfter.getTime());
    const serial = randomBytes(16);
    serial[0] = (serial[0] as number) & 0x7f;
    const cert = await x509.X509CertificateGenerator.create(
      {
        serialNumber: serial.toString("hex"),
        subject: request.subjectName,
        issuer: this.#cert.subjectName,
        notBefore: new Date(now - BACKDATE_MS),
        notAfter: new Date(notAfter),
        signingAlgorithm: this.#algorithm,
        publicKey: request.publicKey,
        signingKey: this.#key,
        extensions,
      },
      webcrypto,
    );
    return `${cert.toString("pem")}\n${this.chainPem}`;
  }
}

/** Where the built-in signers' CAs come from: kube-controller-manager's --cluster-signing-* flags. */
export interface ClusterSigningFiles {
  readonly clusterSigningCertFile: string | undefined;
  readonly clusterSigningKeyFile: string | undefined;
  readonly clusterSigningKubeletServingCertFile: string | undefined;
  readonly clusterSigningKubeletServingKeyFile: string | undefined;
  readonly clusterSigningKubeletClientCertFile: string | undefined;
  readonly clusterSigningKubeletClientKeyFile: string | undefined;
  readonly clusterSigningKubeApiserverClientCertFile: string | undefined;
  readonly clusterSigningKubeApiserverClientKeyFile: string | undefined;
}

async function readPem(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw new SigningAuthorityError(`${flag}: cannot read ${path}: ${(err as Error).message}`);
  }
}

/**
 * The CA of each built-in signer: its own files when given, else --cluster-signing-{cert,key}-file,
 * else `fallback` (the generated cluster CA). Throws SigningAuthorityError for a file that cannot
 * be read or a key that does not match its certificate.
 */
export async function loadClusterSigners(
  files: ClusterSigningFiles,
  fallback: { readonly cert: string; readonly key: string },
): Promise<Record<"apiserverClient" | "apiserverClientKubelet" | "kubeletServing", SigningAuthority>> {
  const load = async (infix: string, cert: string | undefined, key: string | undefined) => {
    const certPath = cert ?? files.clusterSigningCertFile ?? fallback.cert;
    const keyPath = key ?? files.clusterSigningKeyFile ?? fallback.key;
    const flag = cert
      ? `--cluster-signing-${infix}`
      : files.clusterSigningCertFile
        ? "--cluster-signing-"
        : "";
    const certText = await readPem(certPath, flag ? `${flag}cert-file` : "cluster CA certificate");
    const keyText = await readPem(keyPath, flag ? `${flag}key-file` : "cluster CA key");
    return SigningAuthority.load(certText, keyText, `${certPath} / ${keyPath}`);
  };
  return {
    apiserverClient: await load(
      "kube-apiserver-client-",
      files.clusterSigningKubeApiserverClientCertFile,
      files.clusterSigningKubeApiserverClientKeyFile,
    ),
    apiserverClientKubelet: await load(
      "kubelet-client-",
      files.clusterSigningKubeletClientCertFile,
      files.clusterSigningKubeletClientKeyFile,
    ),
    kubeletServing: await load(
      "kubelet-serving-",
      files.clusterSigningKubeletServingCertFile,
      files.clusterSigningKubeletServingKeyFile,
    ),
  };
}
