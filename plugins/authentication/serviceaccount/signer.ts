// Signs service-account tokens with `--service-account-signing-key-file`: compact JWS whose
// header names the algorithm and the upstream-derived key id of the key.
import { createPublicKey, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { type JWTPayload, SignJWT } from "jose";
import { keyIdOf, parsePrivateKey, type SigningAlgorithm, signingAlgorithmOf } from "./keys.ts";

export class ServiceAccountTokenSigner {
  readonly keyId: string;
  readonly algorithm: SigningAlgorithm;
  readonly #key: KeyObject;

  constructor(privateKey: KeyObject) {
    this.algorithm = signingAlgorithmOf(privateKey);
    this.keyId = keyIdOf(createPublicKey(privateKey));
    this.#key = privateKey;
  }

  static fromPem(pem: string, source = "service account signing key"): ServiceAccountTokenSigner {
    return new ServiceAccountTokenSigner(parsePrivateKey(pem, source));
  }

  static async fromFile(path: string): Promise<ServiceAccountTokenSigner> {
    return ServiceAccountTokenSigner.fromPem(await readFile(path, "utf8"), path);
  }

  /** A signed token carrying exactly `claims` (issuer, audiences and times included). */
  sign(claims: Readonly<Record<string, unknown>>): Promise<string> {
    return new SignJWT(claims as JWTPayload)
      .setProtectedHeader({ alg: this.algorithm, kid: this.keyId })
      .sign(this.#key);
  }
}
