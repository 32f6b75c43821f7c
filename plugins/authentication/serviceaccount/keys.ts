// Keys of service-account tokens: PEM files of RSA or ECDSA keys (public, private, or inside a
// certificate), each known by the key id upstream derives from it, so that a token's `kid`
// header picks the key that verifies it and tokens stay valid across the two implementations.
import { createHash, createPrivateKey, createPublicKey, type KeyObject, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";

export type SigningAlgorithm = "RS256" | "ES256" | "ES384" | "ES512";

export interface VerificationKey {
  readonly keyId: string;
  readonly key: KeyObject;
  /** The JWS algorithms this key may verify. */
  readonly algorithms: readonly string[];
}

const RSA_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];

/** The curve's ECDSA algorithm; undefined for curves tokens are never signed with. */
function ecAlgorithm(key: KeyObject): SigningAlgorithm | undefined {
  switch (key.asymmetricKeyDetails?.namedCurve) {
    case "prime256v1":
    case "P-256":
      return "ES256";
    case "secp384r1":
    case "P-384":
      return "ES384";
    case "secp521r1":
    case "P-521":
      return "ES512";
    default:
      return undefined;
  }
}

/** Upstream's key id: unpadded base64url of the SHA-256 of the DER (PKIX) public key. */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("base64url");
}

/** The algorithm a private key signs with (RS256 for RSA, ES256/384/512 by curve). */
export function signingAlgorithmOf(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ec") {
    const alg = ecAlgorithm(key);
    if (alg) return alg;
    throw new Error("unknown private key curve, must be 256, 384, or 521");
  }
  throw new Error(`unsupported key type ${String(key.asymmetricKeyType)}, must be RSA or ECDSA`);
}

interface PemBlock {
  readonly label: string;
  readonly text: string;
}

function pemBlocks(pem: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
  for (const m of pem.matchAll(re)) out.push({ label: m[1] as string, text: m[0] });
  return out;
}

/** The first private key of a PEM text (PKCS#1, PKCS#8 or SEC 1); other blocks are skipped. */
export function parsePrivateKey(pem: string, source: string): KeyObject {
  for (const block of pemBlocks(pem)) {
    if (!block.label.endsWith("PRIVATE KEY") || block.label.includes("ENCRYPTED")) continue;
    try {
      const key = createPrivateKey(block.text);
      signingAlgorithmOf(key);
      return key;
    } catch (err) {
      throw new Error(`${source}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new Error(`${source}: data does not contain a valid RSA or ECDSA private key`);
}

function publicKeyOf(block: PemBlock): KeyObject | undefined {
  try {
    if (block.label === "CERTIFICATE") return new X509Certificate(block.text).publicKey;
    if (block.label === "PUBLIC KEY" || block.label === "RSA PUBLIC KEY") return createPublicKey(block.text);
    if (block.label.endsWith("PRIVATE KEY") && !block.label.includes("ENCRYPTED")) {
      return createPublicKey(createPrivateKey(block.text));
    }
  } catch {
    // A block that does not parse is skipped, as upstream skips it; no key at all is an error.
  }
  return undefined;
}

/** Every RSA or ECDSA public key of a PEM text; an error when there is none. */
export function parseVerificationKeys(pem: string, source: string): VerificationKey[] {
  const keys: VerificationKey[] = [];
  for (const block of pemBlocks(pem)) {
    const key = publicKeyOf(block);
    if (!key) continue;
    let algorithms: readonly string[];
    if (key.asymmetricKeyType === "rsa") algorithms = RSA_ALGORITHMS;
    else if (key.asymmetricKeyType === "ec") {
      const alg = ecAlgorithm(key);
      if (!alg) continue;
      algorithms = [alg];
    } else continue;
    keys.push({ keyId: keyIdOf(key), key, algorithms });
  }
  if (keys.length === 0)
    throw new Error(`${source}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

/** The keys of `--service-account-key-file` (each file may hold several). */
export async function readVerificationKeys(files: readonly string[]): Promise<VerificationKey[]> {
  const keys: VerificationKey[] = [];
  for (const file of files) keys.push(...parseVerificationKeys(await readFile(file, "utf8"), file));
  return keys;
}
