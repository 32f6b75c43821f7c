import assert from "node:assert/strict";
import { createDecipheriv, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Registry } from "prom-client";
import { Cacher } from "../cacher/index.ts";
import { isStorageError } from "../contract/index.ts";
import { MemoryStorage } from "../memory/index.ts";
import { naming } from "../naming/index.ts";
import {
  buildTransformers,
  EncryptionConfigError,
  loadEncryptionConfig,
  parseEncryptionConfig,
  transformationMetrics,
  withEncryption,
} from "./index.ts";
import { noRecorder } from "./transformer.ts";

const k8s = naming("kubernetes");
const cluster = naming("cluster");
const key16 = randomBytes(16);
const key32 = randomBytes(32);
const b64 = (b: Buffer) => b.toString("base64");

function yaml(resources: unknown[], apiVersion = "apiserver.config.k8s.io/v1"): Buffer {
  return Buffer.from(JSON.stringify({ kind: "EncryptionConfiguration", apiVersion, resources }));
}

async function transformersFor(resources: unknown[], n = k8s, registry?: Registry) {
  const config = parseEncryptionConfig(yaml(resources, `${n.group("apiserver.config")}/v1`), "enc.yaml", n);
  return buildTransformers(config, {
    encryptedPrefix: n.encryptedValuePrefix,
    recorder: registry ? transformationMetrics(registry) : noRecorder,
    path: "enc.yaml",
  });
}

const SECRET_KEY = "/core/secrets/default/s1";
const plain = Buffer.from('{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}');

describe("providers in upstream's byte layouts", () => {
  it("aesgcm: prefix with key name, then 12-byte nonce | ciphertext | 16-byte tag, the key as additional data", async () => {
    const t = await transformersFor([
      { resources: ["secrets"], providers: [{ aesgcm: { keys: [{ name: "key1", secret: b64(key32) }] } }] },
    ]);
    const aad = Buffer.from(SECRET_KEY);
    const out = await t.forKey(SECRET_KEY)?.toStorage(plain, aad);
    assert.ok(out);
    const prefix = Buffer.from("k8s:enc:aesgcm:v1:key1:");
    assert.deepEqual(out.subarray(0, prefix.length), prefix);
    const body = out.subarray(prefix.length);
    assert.equal(body.length, 12 + plain.length + 16);
    const d = createDecipheriv("aes-256-gcm", key32, body.subarray(0, 12));
    d.setAAD(aad);
    d.setAuthTag(body.subarray(body.length - 16));
    assert.deepEqual(Buffer.concat([d.update(body.subarray(12, body.length - 16)), d.final()]), plain);
    // Bound to its key: the same bytes under another key do not decrypt.
    await assert.rejects(
      t.forKey(SECRET_KEY)?.fromStorage(out, Buffer.from("/core/secrets/default/other")) as Promise<unknown>,
      /message authentication failed/,
    );
    const back = await t.forKey(SECRET_KEY)?.fromStorage(out, aad);
    assert.deepEqual(back, { data: plain, stale: false });
  });

  it("aescbc: prefix, then a 16-byte IV and the value padded with PKCS#7", async () => {
    const t = await transformersFor([
      { resources: ["secrets"], providers: [{ aescbc: { keys: [{ name: "k", secret: b64(key16) }] } }] },
    ]);
    const out = await t.forKey(SECRET_KEY)?.toStorage(plain, Buffer.from(SECRET_KEY));
    assert.ok(out);
    const body = out.subarray("k8s:enc:aescbc:v1:k:".length);
    assert.equal(out.subarray(0, 20).toString(), "k8s:enc:aescbc:v1:k:");
    assert.equal(body.length, 16 + (Math.floor(plain.length / 16) + 1) * 16);
    const d = createDecipheriv("aes-128-cbc", key16, body.subarray(0, 16));
    assert.deepEqual(Buffer.concat([d.update(body.subarray(16)), d.final()]), plain);
    // A value cut short is refused with upstream's message.
    await assert.rejects(
      t.forKey(SECRET_KEY)?.fromStorage(out.subarray(0, out.length - 3), Buffer.alloc(0)) as Promise<unknown>,
      /not a multiple of the block size/,
    );
  });

  it("secretbox: prefix, then a 24-byte nonce and NaCl's secretbox (tag first), as libsodium seals it", async () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
    const t = await transformersFor([
      { resources: ["secrets"], providers: [{ secretbox: { keys: [{ name: "sb", secret: b64(key) }] } }] },
    ]);
    // Sealed by libsodium's crypto_secretbox_easy (an independent implementation), key 00..1f,
    // nonce 64..7b.
    const message = Buffer.from('{"kind":"Secret","data":{"a":"c2VjcmV0"}}');
    const sealed = Buffer.from(
      "640e994969fec4bf6e22427495c63786799bf2a054d2ecd392ae46f745e1d73a12885cc690c76921dd2e23b630a9aabafe0597751907b99988",
      "hex",
    );
    const nonce = Buffer.from(Array.from({ length: 24 }, (_, i) => 100 + i));
    const stored = Buffer.concat([Buffer.from("k8s:enc:secretbox:v1:sb:"), nonce, sealed]);
    const aad = Buffer.from(SECRET_KEY);
    assert.deepEqual(await t.forKey(SECRET_KEY)?.fromStorage(stored, aad), { data: message, stale: false });
    const out = await t.forKey(SECRET_KEY)?.toStorage(plain, aad);
    assert.ok(out);
    assert.equal(out.length, "k8s:enc:secretbox:v1:sb:".length + 24 + 16 + plain.length);
    assert.deepEqual(await t.forKey(SECRET_KEY)?.fromStorage(out, aad), { data: plain, stale: false });
    const altered = Buffer.from(out);
    altered[altered.length - 1] = (altered[altered.length - 1] ?? 0) ^ 1;
    await assert.rejects(
      t.forKey(SECRET_KEY)?.fromStorage(altered, aad) as Promise<unknown>,
      /output array was not large enough for encryption/,
    );
  });

  it("the first provider writes, every provider reads, and a value read by any but the first is stale", async () => {
    const old = await transformersFor([
      { resources: ["secrets"], providers: [{ aescbc: { keys: [{ name: "old", secret: b64(key16) }] } }] },
    ]);
    const stored = await old.forKey(SECRET_KEY)?.toStorage(plain, Buffer.from(SECRET_KEY));
    assert.ok(stored);
    const rotated = await transformersFor([
      {
        resources: ["secrets"],
        providers: [
          { aesgcm: { keys: [{ name: "new", secret: b64(key32) }] } },
          { aescbc: { keys: [{ name: "old", secret: b64(key16) }] } },
          { identity: {} },
        ],
      },
    ]);
    const t = rotated.forKey(SECRET_KEY);
    assert.deepEqual(await t?.fromStorage(stored, Buffer.from(SECRET_KEY)), { data: plain, stale: true });
    // Plain text written before encryption was turned on reads through identity, also stale.
    assert.deepEqual(await t?.fromStorage(plain, Buffer.from(SECRET_KEY)), { data: plain, stale: true });
    const written = await t?.toStorage(plain, Buffer.from(SECRET_KEY));
    assert.ok(written?.toString("latin1").startsWith("k8s:enc:aesgcm:v1:new:"));
    // The old key removed: its values no longer read.
    const without = await transformersFor([
      { resources: ["secrets"], providers: [{ aesgcm: { keys: [{ name: "new", secret: b64(key32) }] } }] },
    ]);
    await assert.rejects(
      without.forKey(SECRET_KEY)?.fromStorage(stored, Buffer.from(SECRET_KEY)) as Promise<unknown>,
      /no matching prefix found/,
    );
    // A key name the provider does not know.
    const renamed = Buffer.from(stored.toString("latin1").replace(":old:", ":gone:"), "latin1");
    await assert.rejects(
      rotated.forKey(SECRET_KEY)?.fromStorage(renamed, Buffer.from(SECRET_KEY)) as Promise<unknown>,
      /no matching key was found for the provided AES transformer/,
    );
  });

  it("chooses by resource: exact, then *.group, then *.*; unnamed resources stay plain and refuse encrypted values", async () => {
    const t = await transformersFor([
      { resources: ["configmaps"], providers: [{ identity: {} }] },
      { resources: ["*.apps"], providers: [{ aescbc: { keys: [{ name: "apps", secret: b64(key16) }] } }] },
      { resources: ["secrets"], providers: [{ aesgcm: { keys: [{ name: "s", secret: b64(key32) }] } }] },
    ]);
    const enc = async (key: string) =>
      (await t.forKey(key)?.toStorage(plain, Buffer.from(key)))?.toString("latin1");
    assert.match((await enc("/apps/deployments/ns/d")) ?? "", /^k8s:enc:aescbc:v1:apps:/);
    assert.match((await enc(SECRET_KEY)) ?? "", /^k8s:enc:aesgcm:v1:s:/);
    assert.equal(await enc("/core/configmaps/ns/c"), plain.toString());
    assert.equal(t.forKey("/core/pods/ns/p"), undefined);
    await assert.rejects(
      t.fallback.fromStorage(Buffer.from("k8s:enc:aesgcm:v1:s:xx"), Buffer.alloc(0)),
      /identity transformer tried to read encrypted data/,
    );
    const all = await transformersFor([
      { resources: ["*.*"], providers: [{ aesgcm: { keys: [{ name: "a", secret: b64(key32) }] } }] },
    ]);
    assert.ok(all.forKey("/core/pods/ns/p"));
    assert.ok(all.forKey("/stable.example.com/crontabs/ns/c"));
  });

  it("counts transformations in apiserver_storage_transformation_* with upstream's labels", async () => {
    const registry = new Registry();
    const t = await transformersFor(
      [{ resources: ["secrets"], providers: [{ aesgcm: { keys: [{ name: "k", secret: b64(key32) }] } }] }],
      k8s,
      registry,
    );
    const out = await t.forKey(SECRET_KEY)?.toStorage(plain, Buffer.from(SECRET_KEY));
    assert.ok(out);
    await t.forKey(SECRET_KEY)?.fromStorage(out, Buffer.from(SECRET_KEY));
    await t
      .forKey(SECRET_KEY)
      ?.fromStorage(Buffer.from("{}"), Buffer.from(SECRET_KEY))
      .catch(() => {});
    const text = await registry.metrics();
    assert.match(
      text,
      /apiserver_storage_transformation_operations_total\{transformation_type="to_storage",transformer_prefix="k8s:enc:aesgcm:v1:",status="OK"\} 1/,
    );
    assert.match(
      text,
      /apiserver_storage_transformation_operations_total\{transformation_type="from_storage",transformer_prefix="k8s:enc:aesgcm:v1:",status="OK"\} 1/,
    );
    assert.match(
      text,
      /apiserver_storage_transformation_operations_total\{transformation_type="from_storage",transformer_prefix="unknown",status="Unknown"\} 1/,
    );
    assert.match(
      text,
      /apiserver_storage_transformation_duration_seconds_bucket\{le="0.000005",transformation_type="to_storage"/,
    );
    assert.match(text, /# TYPE apiserver_storage_transformation_duration_seconds histogram/);
  });
});

describe("EncryptionConfiguration: a bad file names itself and the field", () => {
  const dir = mkdtemp(join(tmpdir(), "enc-config-"));
  after(async () => rm(await dir, { recursive: true, force: true }));

  const refuse = (resources: unknown[], pattern: RegExp, apiVersion?: string) =>
    assert.throws(
      () => parseEncryptionConfig(yaml(resources, apiVersion), "/etc/enc.yaml", k8s),
      (err: unknown) => {
        assert.ok(err instanceof EncryptionConfigError);
        assert.match(err.message, /\/etc\/enc\.yaml/);
        assert.match(err.message, pattern);
        return true;
      },
    );

  it("refuses a key of the wrong length, not base64, or without a name", () => {
    refuse(
      [
        {
          resources: ["secrets"],
          providers: [{ aesgcm: { keys: [{ name: "k", secret: b64(randomBytes(10)) }] } }],
        },
      ],
      /resources\[0\]\.providers\[0\]\.aesgcm\.keys\[0\]\.secret: Invalid value: "REDACTED": secret is not of the expected length, got 10, expected one of \[16 24 32\]/,
    );
    refuse(
      [{ resources: ["secrets"], providers: [{ aescbc: { keys: [{ name: "k", secret: "not base64!" }] } }] }],
      /providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value: "REDACTED": secrets must be base64 encoded/,
    );
    refuse(
      [{ resources: ["secrets"], providers: [{ aescbc: { keys: [{ secret: b64(key16) }] } }] }],
      /keys\[0\]\.name: Required value: name is a mandatory field for a key/,
    );
    refuse(
      [{ resources: ["secrets"], providers: [{ aescbc: { keys: [] } }] }],
      /aescbc\.keys: Required value/,
    );
  });

  it("refuses an unknown provider, two in one element, and a secretbox key of the wrong length", () => {
    refuse(
      [{ resources: ["secrets"], providers: [{ aesctr: {} }] }],
      /resources\[0\]\.providers\[0\]: Invalid value: "aesctr": provider does not contain any of the expected providers/,
    );
    refuse(
      [{ resources: ["secrets"], providers: [{ identity: {}, aesgcm: { keys: [] } }] }],
      /more than one provider specified in a single element/,
    );
    refuse(
      [{ resources: ["secrets"], providers: [{ secretbox: { keys: [{ name: "k", secret: b64(key16) }] } }] }],
      /resources\[0\]\.providers\[0\]\.secretbox\.keys\[0\]\.secret/,
    );
  });

  it("refuses bad resource lists as upstream does", () => {
    refuse([{ resources: [], providers: [{ identity: {} }] }], /resources\[0\]\.resources: Required value/);
    refuse([{ resources: ["secrets"], providers: [] }], /resources\[0\]\.providers: Required value/);
    refuse([{ resources: ["*"], providers: [{ identity: {} }] }], /use '\*\.' to encrypt all the resources/);
    refuse([{ resources: ["Secrets"], providers: [{ identity: {} }] }], /should not contain capital letters/);
    refuse([{ resources: ["secrets", "*."], providers: [{ identity: {} }] }], /overlapping resources/);
    refuse([{ resources: ["secrets.*"], providers: [{ identity: {} }] }], /across groups is not supported/);
    refuse(
      [
        { resources: ["*.*"], providers: [{ identity: {} }] },
        { resources: ["secrets"], providers: [{ identity: {} }] },
      ],
      /resource "secrets" is masked by earlier rule "\*\.\*"/,
    );
    refuse([], /resources: Required value/);
  });

  it("refuses a KMS provider that is not v2 over a unix socket", () => {
    refuse(
      [
        {
          resources: ["secrets"],
          providers: [{ kms: { apiVersion: "v2", name: "k", endpoint: "tcp://127.0.0.1:1" } }],
        },
      ],
      /providers\[0\]\.kms\.endpoint: Invalid value: "tcp:\/\/127\.0\.0\.1:1": unsupported scheme "tcp" for KMS provider, only unix is supported/,
    );
    refuse(
      [
        {
          resources: ["secrets"],
          providers: [{ kms: { apiVersion: "v2", name: "a:b", endpoint: "unix:///x" } }],
        },
      ],
      /kms\.name: Invalid value: "a:b": invalid KMS provider name a:b, must not contain ':'/,
    );
    refuse(
      [
        {
          resources: ["secrets"],
          providers: [{ kms: { apiVersion: "v3", name: "k", endpoint: "unix:///x" } }],
        },
      ],
      /kms\.apiVersion: Invalid value: "v3"/,
    );
    refuse(
      [
        {
          resources: ["secrets"],
          providers: [{ kms: { apiVersion: "v2", name: "k", endpoint: "unix:///x", cachesize: 10 } }],
        },
      ],
      /cachesize is not supported in v2/,
    );
  });

  it("refuses a missing, empty or malformed file and an unknown kind or version, under either naming", async () => {
    const d = await dir;
    await assert.rejects(
      loadEncryptionConfig(join(d, "absent.yaml"), k8s),
      /error opening encryption provider configuration file ".*absent\.yaml"/,
    );
    await writeFile(join(d, "empty.yaml"), "");
    await assert.rejects(loadEncryptionConfig(join(d, "empty.yaml"), k8s), /empty\.yaml" is empty/);
    await writeFile(join(d, "bad.yaml"), "kind: [unclosed");
    await assert.rejects(
      loadEncryptionConfig(join(d, "bad.yaml"), k8s),
      /error decoding encryption provider configuration file ".*bad\.yaml"/,
    );
    refuse(
      [{ resources: ["secrets"], providers: [{ identity: {} }] }],
      /expected EncryptionConfiguration apiserver\.config\.k8s\.io\/v1, got "EncryptionConfiguration" "apiserver\.config\.k8s\.io\/v2"/,
      "apiserver.config.k8s.io/v2",
    );
    // The cluster preset reads its own group's spelling, and not upstream's.
    const ok = parseEncryptionConfig(
      yaml([{ resources: ["secrets"], providers: [{ identity: {} }] }], "apiserver.config.cluster.io/v1"),
      "f",
      cluster,
    );
    assert.equal(ok.rules.length, 1);
    assert.throws(
      () =>
        parseEncryptionConfig(
          yaml([{ resources: ["secrets"], providers: [{ identity: {} }] }]),
          "f",
          cluster,
        ),
      /expected EncryptionConfiguration apiserver\.config\.cluster\.io\/v1/,
    );
  });
});

describe("EncryptedStorage over a backend, under the watch cache", () => {
  const dir = mkdtemp(join(tmpdir(), "enc-storage-"));
  after(async () => rm(await dir, { recursive: true, force: true }));

  async function configFile(name: string, resources: unknown[], n = k8s): Promise<string> {
    const path = join(await dir, name);
    await writeFile(path, yaml(resources, `${n.group("apiserver.config")}/v1`));
    return path;
  }

  for (const n of [k8s, cluster]) {
    it(`stores ciphertext with the ${n.encryptedValuePrefix} prefix and serves plain objects (${n.preset} naming)`, async () => {
      const inner = new MemoryStorage();
      const path = await configFile(
        `${n.preset}.yaml`,
        [{ resources: ["secrets"], providers: [{ aesgcm: { keys: [{ name: "k1", secret: b64(key32) }] } }] }],
        n,
      );
      const storage = await withEncryption({ configFile: path, naming: n }, async () => inner);
      const value = JSON.stringify({
        metadata: { name: "s1", namespace: "default" },
        data: { p: "c2VjcmV0LXZhbHVl" },
        note: "héllo",
      });
      const created = await storage.create(SECRET_KEY, value);
      assert.equal(created.value, value);
      const raw = await inner.get(SECRET_KEY);
      assert.ok(raw?.value.startsWith(`${n.encryptedValuePrefix}aesgcm:v1:k1:`));
      assert.ok(!raw?.value.includes("c2VjcmV0LXZhbHVl"));
      assert.equal((await storage.get(SECRET_KEY))?.value, value);
      assert.equal((await storage.list("/core/secrets/")).items[0]?.value, value);
      // Other resources pass through untouched.
      await storage.create("/core/configmaps/default/c", value);
      assert.equal((await inner.get("/core/configmaps/default/c"))?.value, value);
      await storage.close();
    });
  }

  it("an unreadable value fails its own read with the key named; the rest of list and watch go on; nothing is overwritten", async () => {
    const inner = new MemoryStorage();
    const path = await configFile("rot.yaml", [
      { resources: ["secrets"], providers: [{ aesgcm: { keys: [{ name: "k1", secret: b64(key32) }] } }] },
    ]);
    const storage = await withEncryption({ configFile: path, naming: k8s }, async () => inner);
    const obj = (name: string) => JSON.stringify({ metadata: { name, namespace: "default" } });
    await storage.create("/core/secrets/default/good", obj("good"));
    // Written under a key this configuration does not have.
    const other = await transformersFor([
      {
        resources: ["secrets"],
        providers: [{ aesgcm: { keys: [{ name: "lost", secret: b64(randomBytes(32)) }] } }],
      },
    ]);
    const lostKey = "/core/secrets/default/lost";
    const lostBytes = await other.forKey(lostKey)?.toStorage(Buffer.from(obj("lost")), Buffer.from(lostKey));
    await inner.create(lostKey, lostBytes?.toString("latin1") ?? "");
    const rawBefore = (await inner.get(lostKey))?.value;

    await assert.rejects(storage.get(lostKey), (err: unknown) => {
      assert.ok(isStorageError(err, "Internal"));
      assert.match(
        err.message,
        /unable to transform key "\/core\/secrets\/default\/lost": no matching key was found for the provided AES transformer/,
      );
      return true;
    });
    const cacher = new Cacher({ storage, prefix: "/core/secrets/" });
    await cacher.start();
    try {
      const listed = await cacher.list({ keyPrefix: "/core/secrets/" });
      assert.deepEqual(
        listed.items.map((i) => JSON.parse(i.json).metadata.name),
        ["good"],
      );
      assert.ok(await cacher.get("/core/secrets/default/good"));
      await assert.rejects(cacher.get(lostKey), /unable to transform key/);
      // A new unreadable write arrives through the watch; the good ones keep flowing.
      const lost2 = "/core/secrets/default/lost2";
      const bytes2 = await other.forKey(lost2)?.toStorage(Buffer.from(obj("lost2")), Buffer.from(lost2));
      await inner.create(lost2, bytes2?.toString("latin1") ?? "");
      await storage.create("/core/secrets/default/after", obj("after"));
      const revision = await storage.currentRevision();
      const fresh = await cacher.list({
        keyPrefix: "/core/secrets/",
        resourceVersion: String(revision),
        resourceVersionMatch: "NotOlderThan",
      });
      assert.deepEqual(
        fresh.items.map((i) => JSON.parse(i.json).metadata.name),
        ["after", "good"],
      );
      await assert.rejects(cacher.get(lost2), /unable to transform key "\/core\/secrets\/default\/lost2"/);
    } finally {
      await cacher.stop();
    }
    assert.equal((await inner.get(lostKey))?.value, rawBefore);
    await storage.close();
  });
});
