// A KMS v2 plugin of the test's own, run as its own process: `node kms-plugin.ts <socket> <key id>`.
// It serves upstream's KeyManagementService (Status, Encrypt, Decrypt) over gRPC on a unix
// socket, wrapping data keys with AES-GCM under a key-encryption key it makes at start, and
// writes one line per call to standard output so a test can see which calls the server made.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { Server, ServerCredentials, type ServiceDefinition } from "@grpc/grpc-js";
import { kmsCodecs } from "../../backends/encryption/kmsv2.ts";

const [socket, keyId = "key-1"] = process.argv.slice(2);
if (!socket) throw new Error("usage: kms-plugin.ts <socket> [key id]");
const kek = randomBytes(32);

function wrap(plaintext: Buffer): Buffer {
  const nonce = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", kek, nonce);
  const body = Buffer.concat([c.update(plaintext), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]);
}

function unwrap(ciphertext: Buffer): Buffer {
  const d = createDecipheriv("aes-256-gcm", kek, ciphertext.subarray(0, 12));
  d.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  return Buffer.concat([d.update(ciphertext.subarray(12, ciphertext.length - 16)), d.final()]);
}

const method = <Req, Res>(
  name: string,
  req: { serialize(v: Req): Buffer; deserialize(b: Buffer): Req },
  res: { serialize(v: Res): Buffer; deserialize(b: Buffer): Res },
) => ({
  path: `/v2.KeyManagementService/${name}`,
  requestStream: false,
  responseStream: false,
  requestSerialize: req.serialize,
  requestDeserialize: req.deserialize,
  responseSerialize: res.serialize,
  responseDeserialize: res.deserialize,
});

const service = {
  Status: method("Status", kmsCodecs.StatusRequest, kmsCodecs.StatusResponse),
  Encrypt: method("Encrypt", kmsCodecs.EncryptRequest, kmsCodecs.EncryptResponse),
  Decrypt: method("Decrypt", kmsCodecs.DecryptRequest, kmsCodecs.DecryptResponse),
} as unknown as ServiceDefinition;

type Call<T> = { request: T };
type Done<T> = (err: Error | null, value?: T) => void;

const server = new Server();
server.addService(service, {
  Status: (_call: Call<unknown>, done: Done<unknown>) => {
    process.stdout.write("status\n");
    done(null, { version: "v2beta1", healthz: "ok", keyId });
  },
  Encrypt: (call: Call<{ plaintext: Buffer }>, done: Done<unknown>) => {
    process.stdout.write("encrypt\n");
    done(null, { ciphertext: wrap(call.request.plaintext), keyId, annotations: {} });
  },
  Decrypt: (call: Call<{ ciphertext: Buffer; keyId: string }>, done: Done<unknown>) => {
    process.stdout.write("decrypt\n");
    try {
      done(null, { plaintext: unwrap(call.request.ciphertext) });
    } catch (err) {
      done(err as Error);
    }
  },
});
server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (err) => {
  if (err) throw err;
  process.stdout.write("listening\n");
});
process.on("SIGTERM", () => server.forceShutdown());
