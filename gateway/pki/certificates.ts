// Issuing the certificates the server needs on first start: self-signed CAs and leaf
// certificates for serving and for clients. Keys are ECDSA P-256 (small, fast to make, and
// accepted by kubectl and client libraries); PEM everywhere.
import "reflect-metadata"; // @peculiar/x509's dependency injection needs the Reflect polyfill
import { randomBytes, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto);

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY_MS = 86_400_000;

export interface Issued {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface Authority extends Issued {
  readonly cert: x509.X509Certificate;
  readonly keys: CryptoKeyPair;
}

function serial(): string {
  // Positive 128-bit serial numbers: the top bit cleared keeps the DER integer positive.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] as number) & 0x7f;
  return bytes.toString("hex");
}

/** An X.500 name with a common name and organizations, e.g. CN=admin,O=system:masters. */
function distinguishedName(commonName: string, organizations: readonly string[] = []): x509.JsonName {
  return [{ CN: [commonName] }, ...organizations.map((o) => ({ O: [o] }))];
}

async function exportKey(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return x509.PemConverter.encode(der, "PRIVATE KEY");
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as CryptoKeyPair;
}

export async function createAuthority(commonName: string, validDays = 3650): Promise<Authority> {
  const keys = await newKeys();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: distinguishedName(commonName),
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + validDays * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys, certPem: cert.toString("pem"), keyPem: await exportKey(keys.privateKey) };
}

/** Load a CA written earlier (PEM certificate and PKCS#8 key). */
export async function loadAuthority(certPem: string, keyPem: string): Promise<Authority> {
  const cert = new x509.X509Certificate(certPem);
  const privateKey: CryptoKey = await webcrypto.subtle.importKey(
    "pkcs8",
    x509.PemConverter.decodeFirst(keyPem),
    ALGORITHM,
    true,
    ["sign"],
  );
  const publicKey = (await cert.publicKey.export(ALGORITHM, ["verify"], webcrypto)) as CryptoKey;
  return { cert, keys: { privateKey, publicKey }, certPem, keyPem };
}

export interface LeafRequest {
  readonly commonName: string;
  readonly organizations?: readonly string[];
  readonly usage: "server" | "client";
  /** DNS names and IP addresses for a serving certificate. */
  readonly altNames?: readonly string[];
  readonly validDays?: number;
}

export async function issueCertificate(ca: Authority, req: LeafRequest): Promise<Issued> {
  const keys = await newKeys();
  const now = Date.now();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
      true,
    ),
    new x509.ExtendedKeyUsageExtension(
      [req.usage === "server" ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth],
      false,
    ),
    await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
  ];
  if (req.altNames && req.altNames.length > 0) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension(
        req.altNames.map((n) => ({ type: isIP(n) ? ("ip" as const) : ("dns" as const), value: n })),
        false,
      ),
    );
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: distinguishedName(req.commonName, req.organizations),
    issuer: ca.cert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + (req.validDays ?? 365) * DAY_MS),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions,
  });
  return { certPem: cert.toString("pem"), keyPem: await exportKey(keys.privateKey) };
}
