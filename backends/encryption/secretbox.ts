// The secretbox provider in upstream's byte layout: 24-byte random nonce | NaCl secretbox of the
// value (XSalsa20 and a 16-byte Poly1305 tag first). node:crypto has no XSalsa20, so NaCl's
// reference port (tweetnacl) does the sealing. Unlike the AES providers, nothing binds the value
// to its storage key, as upstream's secretbox does not.
import { randomBytes } from "node:crypto";
import nacl from "tweetnacl";
import type { FromStorage, Transformer } from "./transformer.ts";

const NONCE_SIZE = nacl.secretbox.nonceLength;
const OVERHEAD = nacl.secretbox.overheadLength;

export class SecretboxTransformer implements Transformer {
  readonly #key: Uint8Array;

  constructor(key: Buffer) {
    this.#key = new Uint8Array(key);
  }

  async fromStorage(data: Buffer): Promise<FromStorage> {
    if (data.length < NONCE_SIZE + OVERHEAD)
      throw new Error("the stored data was shorter than the required size");
    const opened = nacl.secretbox.open(data.subarray(NONCE_SIZE), data.subarray(0, NONCE_SIZE), this.#key);
    // Upstream's text for a value that does not open (a wrong key or altered bytes).
    if (!opened) throw new Error("output array was not large enough for encryption");
    return { data: Buffer.from(opened.buffer, opened.byteOffset, opened.byteLength), stale: false };
  }

  async toStorage(data: Buffer): Promise<Buffer> {
    const nonce = randomBytes(NONCE_SIZE);
    return Buffer.concat([nonce, nacl.secretbox(data, nonce, this.#key)]);
  }
}
