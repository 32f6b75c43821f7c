// The KMS v2 provider: envelope encryption through a plugin reached by gRPC over a unix socket.
// As upstream 1.27: one data key (DEK, AES-256) is generated at start and encrypted by the plugin;
// each value is AES-GCM under the DEK and stored as an EncryptedObject (data, keyID, encrypted
// DEK, annotations). Reads decrypt DEKs through the plugin once and cache them. The plugin's
// Status is polled; a new key_id brings a new DEK, and values under the old one read as stale.
import { randomBytes, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Client, credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import protobuf from "protobufjs";
import { AesGcmTransformer } from "./aes.ts";
import { EncryptionConfigError } from "./config.ts";
import type { FromStorage, Transformer } from "./transformer.ts";

const root = protobuf.loadSync(fileURLToPath(new URL("./kmsv2.proto", import.meta.url)));

interface Codec<T> {
  serialize(value: T): Buffer;
  deserialize(bytes: Buffer): T;
}

function codec<T>(name: string): Codec<T> {
  const type = root.lookupType(`v2.${name}`);
  return {
    serialize: (value) =>
      Buffer.from(type.encode(type.fromObject(value as Record<string, unknown>)).finish()),
    deserialize: (bytes) => type.toObject(type.decode(bytes), { bytes: Buffer, defaults: true }) as T,
  };
}

type Annotations = Record<string, Buffer>;
export interface StatusResponse {
  version: string;
  healthz: string;
  keyId: string;
}
export interface EncryptResponse {
  ciphertext: Buffer;
  keyId: string;
  annotations: Annotations;
}
export interface EncryptedObject {
  encryptedData: Buffer;
  keyID: string;
  encryptedDEK: Buffer;
  annotations: Annotations;
}

export const kmsCodecs = {
  StatusRequest: codec<Record<string, never>>("StatusRequest"),
  StatusResponse: codec<StatusResponse>("StatusResponse"),
  EncryptRequest: codec<{ plaintext: Buffer; uid: string }>("EncryptRequest"),
  EncryptResponse: codec<EncryptResponse>("EncryptResponse"),
  DecryptRequest: codec<{ ciphertext: Buffer; uid: string; keyId: string; annotations: Annotations }>(
    "DecryptRequest",
  ),
  DecryptResponse: codec<{ plaintext: Buffer }>("DecryptResponse"),
  EncryptedObject: codec<EncryptedObject>("EncryptedObject"),
};

/** The plugin API versions whose Status this server accepts (1.27 speaks v2beta1; later, v2). */
const PLUGIN_VERSIONS = ["v2beta1", "v2"];
const STATUS_INTERVAL_MS = 60_000;
const MAX_KEY_ID = 1024;
const MAX_ENCRYPTED_DEK = 1024;

interface DataKey {
  readonly keyId: string;
  readonly encryptedDEK: Buffer;
  readonly annotations: Annotations;
  readonly gcm: AesGcmTransformer;
}

export class KmsV2Transformer implements Transformer {
  readonly #client: Client;
  readonly #timeoutMs: number;
  readonly #name: string;
  #current: DataKey | undefined;
  /** Decrypted DEKs by their encrypted form and key id. */
  readonly #cache = new Map<string, AesGcmTransformer>();
  #timer: NodeJS.Timeout | undefined;

  constructor(socket: string, name: string, timeoutMs: number) {
    this.#client = new Client(`unix://${socket}`, credentials.createInsecure());
    this.#name = name;
    this.#timeoutMs = timeoutMs;
  }

  #call<Req, Res>(method: string, req: Req, reqCodec: Codec<Req>, resCodec: Codec<Res>): Promise<Res> {
    return new Promise((resolve, reject) => {
      this.#client.makeUnaryRequest(
        `/v2.KeyManagementService/${method}`,
        reqCodec.serialize,
        resCodec.deserialize,
        req,
        new Metadata(),
        { deadline: Date.now() + this.#timeoutMs },
        (err: ServiceError | null, res?: Res) =>
          err || !res ? reject(err ?? new Error("empty response")) : resolve(res),
      );
    });
  }

  async status(): Promise<StatusResponse> {
    const res = await this.#call("Status", {}, kmsCodecs.StatusRequest, kmsCodecs.StatusResponse);
    const problems: string[] = [];
    if (res.healthz !== "ok") problems.push(`got unexpected healthz status: ${res.healthz}`);
    if (!PLUGIN_VERSIONS.includes(res.version))
      problems.push(`expected KMSv2 API version ${PLUGIN_VERSIONS[0]}, got ${res.version}`);
    const keyProblem = validateKeyId(res.keyId);
    if (keyProblem) problems.push(`got invalid KMSv2 KeyID "${res.keyId}": ${keyProblem}`);
    if (problems.length > 0)
      throw new Error(`kmsv2 Provider ${this.#name} is not healthy, error: ${problems.join(", ")}`);
    return res;
  }

  /** Check the plugin and make the first DEK; then keep polling for key rotation. */
  async start(): Promise<void> {
    const status = await this.status();
    await this.#rotate(status.keyId);
    this.#timer = setInterval(() => {
      this.status()
        .then((s) => (s.keyId !== this.#current?.keyId ? this.#rotate(s.keyId) : undefined))
        // An unhealthy plugin keeps the current DEK; the next poll tries again.
        .catch(() => {});
    }, STATUS_INTERVAL_MS);
    this.#timer.unref();
  }

  async #rotate(statusKeyId: string): Promise<void> {
    const dek = randomBytes(32);
    const res = await this.#call(
      "Encrypt",
      { plaintext: dek, uid: randomUUID() },
      kmsCodecs.EncryptRequest,
      kmsCodecs.EncryptResponse,
    );
    const problem =
      validateKeyId(res.keyId) ??
      (res.ciphertext.length === 0
        ? "encrypted DEK is empty"
        : res.ciphertext.length > MAX_ENCRYPTED_DEK
          ? `encrypted DEK is ${res.ciphertext.length} bytes, which exceeds the max size of ${MAX_ENCRYPTED_DEK}`
          : undefined);
    if (problem) throw new Error(`failed to encrypt DEK, error: ${problem}`);
    if (res.keyId !== statusKeyId)
      throw new Error(`keyID from Encrypt "${res.keyId}" differs from the Status keyID "${statusKeyId}"`);
    const gcm = new AesGcmTransformer(dek);
    this.#current = {
      keyId: res.keyId,
      encryptedDEK: res.ciphertext,
      annotations: res.annotations ?? {},
      gcm,
    };
    this.#cache.set(cacheKey(res.ciphertext, res.keyId), gcm);
  }

  async toStorage(data: Buffer, aad: Buffer): Promise<Buffer> {
    const current = this.#current;
    if (!current) throw new Error(`kmsv2 Provider ${this.#name} has no data key yet`);
    const encryptedData = await current.gcm.toStorage(data, aad);
    return kmsCodecs.EncryptedObject.serialize({
      encryptedData,
      keyID: current.keyId,
      encryptedDEK: current.encryptedDEK,
      annotations: current.annotations,
    });
  }

  async fromStorage(data: Buffer, aad: Buffer): Promise<FromStorage> {
    const object = kmsCodecs.EncryptedObject.deserialize(data);
    if (object.encryptedData.length === 0) throw new Error("encrypted data is empty");
    if (object.encryptedDEK.length === 0)
      throw new Error("failed to validate encrypted DEK: encrypted DEK is empty");
    const keyProblem = validateKeyId(object.keyID);
    if (keyProblem) throw new Error(`failed to validate key id: ${keyProblem}`);
    const id = cacheKey(object.encryptedDEK, object.keyID);
    let gcm = this.#cache.get(id);
    if (!gcm) {
      let res: { plaintext: Buffer };
      try {
        res = await this.#call(
          "Decrypt",
          {
            ciphertext: object.encryptedDEK,
            uid: randomUUID(),
            keyId: object.keyID,
            annotations: object.annotations,
          },
          kmsCodecs.DecryptRequest,
          kmsCodecs.DecryptResponse,
        );
      } catch (err) {
        throw Object.assign(new Error(`failed to decrypt DEK, error: ${(err as Error).message}`), {
          code: (err as { code?: unknown }).code,
        });
      }
      gcm = new AesGcmTransformer(res.plaintext);
      this.#cache.set(id, gcm);
    }
    const out = await gcm.fromStorage(object.encryptedData, aad);
    return { data: out.data, stale: object.keyID !== this.#current?.keyId };
  }

  close(): void {
    clearInterval(this.#timer);
    this.#client.close();
  }
}

function validateKeyId(keyId: string): string | undefined {
  if (keyId.length === 0) return "keyID is empty";
  if (keyId.length > MAX_KEY_ID)
    return `keyID is ${keyId.length} bytes, which exceeds the max size of ${MAX_KEY_ID}`;
  return undefined;
}

function cacheKey(encryptedDEK: Buffer, keyId: string): string {
  return `${keyId}\u0000${encryptedDEK.toString("base64")}`;
}

/** A started provider, or an error naming the configuration field when the plugin cannot serve. */
export async function connectKmsV2(
  config: { name: string; socket: string; timeoutMs: number },
  where: string,
): Promise<KmsV2Transformer> {
  const kms = new KmsV2Transformer(config.socket, config.name, config.timeoutMs);
  try {
    await kms.start();
  } catch (err) {
    kms.close();
    throw new EncryptionConfigError(
      `${where}.endpoint: KMS v2 plugin "${config.name}" at unix://${config.socket} cannot serve: ${(err as Error).message}`,
    );
  }
  return kms;
}
