import assert from "node:assert/strict";
import { createHash, createPublicKey, generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { createAuthority } from "../../../gateway/pki/certificates.ts";
import { keyIdOf, parseVerificationKeys, readVerificationKeys } from "./keys.ts";
import { ServiceAccountTokenSigner } from "./signer.ts";

function ecKeys(namedCurve: string) {
  return generateKeyPairSync("ec", {
    namedCurve,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "sec1", format: "pem" },
  });
}

test("the key id is upstream's: base64url SHA-256 of the DER public key, whatever form the key takes", async () => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "pkcs1", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  });
  const der = createPublicKey(publicKey).export({ type: "spki", format: "der" });
  const expected = createHash("sha256").update(der).digest("base64url");
  assert.equal(keyIdOf(createPublicKey(publicKey)), expected);
  assert.doesNotMatch(expected, /[=+/]/);
  const signer = ServiceAccountTokenSigner.fromPem(privateKey);
  assert.equal(signer.keyId, expected);
  assert.equal(signer.algorithm, "RS256");
  const [fromPublic] = parseVerificationKeys(publicKey, "pub");
  const [fromPrivate] = parseVerificationKeys(privateKey, "key");
  assert.equal(fromPublic?.keyId, expected);
  assert.equal(fromPrivate?.keyId, expected);

  // A certificate's key has the same id as the key itself.
  const ca = await createAuthority("sa-test");
  const [fromCert] = parseVerificationKeys(ca.certPem, "cert");
  const caSigner = ServiceAccountTokenSigner.fromPem(ca.keyPem);
  assert.equal(fromCert?.keyId, caSigner.keyId);
  assert.deepEqual(fromCert?.algorithms, ["ES256"]);
});

test("ECDSA keys sign with the algorithm of their curve, and tokens verify with the public key", async () => {
  for (const [curve, alg] of [
    ["prime256v1", "ES256"],
    ["secp384r1", "ES384"],
    ["secp521r1", "ES512"],
  ] as const) {
    const { privateKey, publicKey } = ecKeys(curve);
    const signer = ServiceAccountTokenSigner.fromPem(privateKey);
    assert.equal(signer.algorithm, alg);
    const token = await signer.sign({ iss: "me", sub: "x" });
    assert.deepEqual(decodeProtectedHeader(token), { alg, kid: signer.keyId });
    const [key] = parseVerificationKeys(publicKey, "pub");
    assert.ok(key);
    assert.deepEqual(key.algorithms, [alg]);
    const { payload } = await jwtVerify(token, key.key, { algorithms: [...key.algorithms] });
    assert.deepEqual(payload, { iss: "me", sub: "x" });
  }
});

test("a key file may hold several blocks; blocks that are no key are skipped", async () => {
  const a = ecKeys("prime256v1");
  const b = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const params = "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n";
  const dir = await mkdtemp(join(tmpdir(), "sa-keys-"));
  try {
    await writeFile(join(dir, "both.pem"), `${params}${a.publicKey}${b.publicKey}`);
    await writeFile(join(dir, "key.pem"), `${params}${a.privateKey}`);
    const keys = await readVerificationKeys([join(dir, "both.pem"), join(dir, "key.pem")]);
    assert.equal(keys.length, 3);
    assert.equal(keys[0]?.keyId, keys[2]?.keyId, "a private key verifies like its public key");
    assert.notEqual(keys[0]?.keyId, keys[1]?.keyId);
    // A signing key file with parameters before the key (as `openssl ecparam -genkey` writes).
    assert.equal(ServiceAccountTokenSigner.fromPem(`${params}${a.privateKey}`).algorithm, "ES256");
    assert.equal((await ServiceAccountTokenSigner.fromFile(join(dir, "key.pem"))).keyId, keys[0]?.keyId);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("files without RSA or ECDSA keys are refused", () => {
  assert.throws(
    () => parseVerificationKeys("not a pem", "junk.pem"),
    /junk\.pem: data does not contain any valid/,
  );
  const ed = generateKeyPairSync("ed25519", {
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  assert.throws(
    () => parseVerificationKeys(ed.publicKey, "ed.pub"),
    /does not contain any valid RSA or ECDSA/,
  );
  assert.throws(
    () => ServiceAccountTokenSigner.fromPem(ed.privateKey, "ed.key"),
    /ed\.key: unsupported key type/,
  );
  assert.throws(
    () => ServiceAccountTokenSigner.fromPem(ed.publicKey, "ed.pub"),
    /no.*private key|does not contain/,
  );
  const broken = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
  assert.throws(() => parseVerificationKeys(broken, "broken.pem"), /does not contain any valid/);
});
