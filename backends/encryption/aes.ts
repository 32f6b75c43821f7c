// The aesgcm and aescbc providers in upstream's byte layouts:
//   aesgcm: 12-byte random nonce | ciphertext | 16-byte tag, the storage key as additional data
//   aescbc: 16-byte random IV | ciphertext of the value padded with PKCS#7
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import type { FromStorage, Transformer } from "./transformer.ts";

const NONCE_SIZE = 12;
const TAG_SIZE = 16;
const BLOCK_SIZE = 16;

const algorithm = (mode: "gcm" | "cbc", key: Buffer) => `aes-${key.length * 8}-${mode}` as const;

export class AesGcmTransformer implements Transformer {
  // A KeyObject made once: handing the raw bytes to every cipher imports the key each time, which
  // was about two thirds of the cost of a 1 KB value.
  readonly #key: KeyObject;
  readonly #algorithm: string;

  constructor(key: Buffer) {
    this.#key = createSecretKey(key);
    this.#algorithm = algorithm("gcm", key);
  }

  async fromStorage(data: Buffer, aad: Buffer): Promise<FromStorage> {
    if (data.length < NONCE_SIZE + TAG_SIZE)
      throw new Error("the stored data was shorter than the required size");
    const decipher = createDecipheriv(
      this.#algorithm as "aes-256-gcm",
      this.#key,
      data.subarray(0, NONCE_SIZE),
      {
        authTagLength: TAG_SIZE,
      },
    );
    decipher.setAAD(aad);
    decipher.setAuthTag(data.subarray(data.length - TAG_SIZE));
    try {
      const out = Buffer.concat([
        decipher.update(data.subarray(NONCE_SIZE, data.length - TAG_SIZE)),
        decipher.final(),
      ]);
      return { data: out, stale: false };
    } catch {
      // Go's crypto/cipher says the same of a wrong key or altered bytes.
      throw new Error("cipher: message authentication failed");
    }
  }

  async toStorage(data: Buffer, aad: Buffer): Promise<Buffer> {
    const nonce = randomBytes(NONCE_SIZE);
    const cipher = createCipheriv(this.#algorithm as "aes-256-gcm", this.#key, nonce, {
      authTagLength: TAG_SIZE,
    });
    cipher.setAAD(aad);
    const body = cipher.update(data);
    const tail = cipher.final();
    return Buffer.concat([nonce, body, tail, cipher.getAuthTag()]);
  }
}

export class AesCbcTransformer implements Transformer {
  readonly #key: KeyObject;
  readonly #algorithm: string;

  constructor(key: Buffer) {
    this.#key = createSecretKey(key);
    this.#algorithm = algorithm("cbc", key);
  }

  async fromStorage(data: Buffer): Promise<FromStorage> {
    if (data.length < BLOCK_SIZE) throw new Error("the stored data was shorter than the required size");
    const body = data.subarray(BLOCK_SIZE);
    if (body.length % BLOCK_SIZE !== 0)
      throw new Error("the stored data is not a multiple of the block size");
    const decipher = createDecipheriv(this.#algorithm, this.#key, data.subarray(0, BLOCK_SIZE));
    // Padding is checked here, as upstream does, to give its messages.
    decipher.setAutoPadding(false);
    const plain = Buffer.concat([decipher.update(body), decipher.final()]);
    const pad = plain[plain.length - 1] ?? 0;
    if (pad === 0 || pad > plain.length) throw new Error("invalid PKCS7 data (empty or not padded)");
    for (let i = plain.length - pad; i < plain.length; i++) {
      if (plain[i] !== pad) throw new Error("invalid padding on input");
    }
    return { data: plain.subarray(0, plain.length - pad), stale: false };
  }

  async toStorage(data: Buffer): Promise<Buffer> {
    const iv = randomBytes(BLOCK_SIZE);
    // Node's default padding is PKCS#7, the layout upstream writes.
    const cipher = createCipheriv(this.#algorithm, this.#key, iv);
    return Buffer.concat([iv, cipher.update(data), cipher.final()]);
  }
}
