// Encryption at rest through the real gateway and real clients: what reaches the store (the
// embedded lmdb files, etcd's keys) holds no plain text, key rotation as upstream documents it
// with kubectl, automatic reload, a KMS v2 plugin process, and the refusals and failures of bad
// input.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { createEtcdStorage } from "../backends/etcd/index.ts";
import { naming } from "../backends/naming/index.ts";
import { ApiClient } from "./support/api-client.ts";
import { etcdSkipReason, startEtcd } from "./support/etcd.ts";
import { kubectl, kubectlRun, oldestAndNewestKubectl, startGateway } from "./support/gateway-process.ts";
import { PYTHON, pythonSkip } from "./support/python.ts";
import { eventually } from "./support/watch.ts";

const ROOT = resolve(import.meta.dirname, "..");
const work = mkdtemp(join(tmpdir(), "cg-encryption-"));
after(async () => rm(await work, { recursive: true, force: true }));

const key = (bytes = 32) => randomBytes(bytes).toString("base64");
const KEY1 = key();
const KEY2 = key();
const PLAIN = "S3cr3t-Pl41n-Value";
const PLAIN_B64 = Buffer.from(PLAIN).toString("base64");

type Provider = Record<string, unknown>;
const aes = (type: "aesgcm" | "aescbc", ...keys: [string, string][]): Provider => ({
  [type]: { keys: keys.map(([name, secret]) => ({ name, secret })) },
});

async function configFile(
  name: string,
  providers: Provider[],
  preset: "cluster" | "kubernetes" = "kubernetes",
) {
  const path = join(await work, name);
  await writeConfig(path, providers, preset);
  return path;
}

async function writeConfig(
  path: string,
  providers: Provider[],
  preset: "cluster" | "kubernetes" = "kubernetes",
) {
  const doc = {
    kind: "EncryptionConfiguration",
    apiVersion: `${naming(preset).group("apiserver.config")}/v1`,
    resources: [{ resources: ["secrets"], providers }],
  };
  await writeFile(path, JSON.stringify(doc));
}

/** Every byte of the embedded store's files. */
function rawStore(dataDir: string): Buffer {
  const parts: Buffer[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else parts.push(readFileSync(p));
    }
  };
  walk(join(dataDir, "store"));
  return Buffer.concat(parts);
}

const [binary] = oldestAndNewestKubectl();
const kubectls = oldestAndNewestKubectl();

describe("encryption at rest, end to end", { skip: binary === undefined ? "no kubectl" : false }, () => {
  for (const preset of ["kubernetes", "cluster"] as const) {
    it(`keeps no plain-text secret in the embedded store's files (${preset} naming, ${kubectls.map((k) => k.split("/").pop()).join(", ")})`, async () => {
      const n = naming(preset);
      const cfg = await configFile(`embedded-${preset}.yaml`, [aes("aesgcm", ["key1", KEY1])], preset);
      const gw = await startGateway([`--encryption-provider-config=${cfg}`, `--api-naming=${preset}`]);
      try {
        for (const [i, k] of kubectls.entries()) {
          const r = await kubectl(k, gw.kubeconfig, [
            "create",
            "secret",
            "generic",
            `s${i}`,
            `--from-literal=password=${PLAIN}`,
          ]);
          assert.equal(r.code, 0, r.stdout);
          const got = await kubectl(k, gw.kubeconfig, [
            "get",
            "secret",
            `s${i}`,
            "-o",
            "jsonpath={.data.password}",
          ]);
          assert.equal(got.stdout, PLAIN_B64);
        }
        // A ConfigMap (not named in the configuration) is stored as it is.
        await kubectl(binary as string, gw.kubeconfig, [
          "create",
          "configmap",
          "plain",
          "--from-literal=visible=InTheClear123",
        ]);
        const raw = rawStore(gw.dataDir);
        assert.ok(
          raw.includes(`${n.encryptedValuePrefix}aesgcm:v1:key1:`),
          "the encrypted prefix is on disk",
        );
        assert.ok(!raw.includes(PLAIN), "the secret's value is not on disk");
        assert.ok(!raw.includes(PLAIN_B64), "nor its base64 form");
        assert.ok(raw.includes("InTheClear123"), "a resource the configuration does not name stays plain");
      } finally {
        await gw.stop();
      }
    });
  }

  it("python3-kubernetes writes a Secret under secretbox and @kubernetes/client-node reads it; the store holds neither value", {
    skip: pythonSkip,
  }, async () => {
    const secretbox = { secretbox: { keys: [{ name: "box", secret: KEY2 }] } };
    const cfg = await configFile("clients.yaml", [secretbox]);
    const gw = await startGateway([`--encryption-provider-config=${cfg}`, "--api-naming=kubernetes"]);
    try {
      const script = `
import sys
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
core = client.CoreV1Api()
core.create_namespaced_secret("default", client.V1Secret(metadata=client.V1ObjectMeta(name="from-python"), string_data={"password": sys.argv[2]}))
print(core.read_namespaced_secret("from-python", "default").data["password"])
`;
      const { stdout } = await promisify(execFile)(PYTHON, ["-c", script, gw.kubeconfig, PLAIN]);
      assert.equal(stdout.trim(), PLAIN_B64, "python reads back what it wrote");
      const k8s = await import("@kubernetes/client-node");
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(gw.kubeconfig);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const read = await core.readNamespacedSecret({ name: "from-python", namespace: "default" });
      assert.equal(read.data?.password, PLAIN_B64);
      const other = "Cl13nt-N0de-Value";
      await core.createNamespacedSecret({
        namespace: "default",
        body: { metadata: { name: "from-node" }, stringData: { token: other } },
      });
      const listed = await core.listNamespacedSecret({ namespace: "default" });
      assert.deepEqual(
        listed.items
          .filter((s) => s.metadata?.name?.startsWith("from-"))
          .map((s) => Object.values(s.data ?? {})),
        [[Buffer.from(other).toString("base64")], [PLAIN_B64]],
      );
      const raw = rawStore(gw.dataDir);
      assert.ok(
        raw.includes(`${naming("kubernetes").encryptedValuePrefix}secretbox:v1:box:`),
        "secretbox's prefix is on disk",
      );
      for (const plain of [PLAIN, PLAIN_B64, other, Buffer.from(other).toString("base64")])
        assert.ok(!raw.includes(plain), `${plain} is not on disk`);
    } finally {
      await gw.stop();
    }
  });

  it("rotates keys as upstream documents it: add a key, restart, replace every secret, remove the old key", async () => {
    const cfg = await configFile("rotation.yaml", [aes("aescbc", ["old", KEY1])]);
    let gw = await startGateway([`--encryption-provider-config=${cfg}`, "--api-naming=kubernetes"]);
    const reuse = { dataDir: gw.dataDir, port: gw.port };
    try {
      await kubectl(binary as string, gw.kubeconfig, ["create", "namespace", "other"]);
      for (const ns of ["default", "other"]) {
        const r = await kubectl(binary as string, gw.kubeconfig, [
          "create",
          "secret",
          "generic",
          "rot",
          "-n",
          ns,
          `--from-literal=password=${PLAIN}`,
        ]);
        assert.equal(r.code, 0, r.stdout);
      }
      await gw.stop();
      // The new key first (it writes), the old one still read.
      await writeConfig(cfg, [aes("aesgcm", ["new", KEY2]), aes("aescbc", ["old", KEY1])]);
      gw = await startGateway([`--encryption-provider-config=${cfg}`, "--api-naming=kubernetes"], reuse);
      for (const k of kubectls) {
        const all = await kubectlRun(k, gw.kubeconfig, ["get", "secrets", "-A", "-o", "json"]);
        assert.equal(all.code, 0, all.stderr);
        const replaced = await kubectlRun(k, gw.kubeconfig, ["replace", "-f", "-"], all.stdout);
        assert.equal(replaced.code, 0, replaced.stderr);
        assert.match(replaced.stdout, /secret\/rot replaced/);
      }
      await gw.stop();
      await writeConfig(cfg, [aes("aesgcm", ["new", KEY2])]);
      gw = await startGateway([`--encryption-provider-config=${cfg}`, "--api-naming=kubernetes"], reuse);
      for (const ns of ["default", "other"]) {
        const got = await kubectl(binary as string, gw.kubeconfig, [
          "get",
          "secret",
          "rot",
          "-n",
          ns,
          "-o",
          "jsonpath={.data.password}",
        ]);
        assert.equal(got.code, 0, got.stdout);
        assert.equal(got.stdout, PLAIN_B64);
      }
      const listed = await kubectl(binary as string, gw.kubeconfig, ["get", "secrets", "-A", "-o", "name"]);
      assert.equal(listed.code, 0, listed.stdout);
    } finally {
      await gw.stop();
    }
  });

  it("a secret whose key is gone fails its own read with InternalError naming it; the rest goes on and nothing is overwritten", async () => {
    const cfg = await configFile("lost.yaml", [aes("aesgcm", ["key1", KEY1])]);
    let gw = await startGateway([`--encryption-provider-config=${cfg}`, "--api-naming=kubernetes"]);
    const reuse = { dataDir: gw.dataDir, port: gw.port };
    try {
      await kubectl(binary as string, gw.kubeconfig, [
        "create",
        "secret",
        "generic",
        "lost",
        `--from-literal=password=${PLAIN}`,
      ]);
      await gw.stop();
      await writeConfig(cfg, [aes("aesgcm", ["key2", KEY2])]);
      gw = await startGateway([`--encryption-provider-config=${cfg}`, "--api-naming=kubernetes"], reuse);
      await kubectl(binary as string, gw.kubeconfig, [
        "create",
        "secret",
        "generic",
        "fresh",
        `--from-literal=password=${PLAIN}`,
      ]);
      for (const k of kubectls) {
        const get = await kubectlRun(k, gw.kubeconfig, ["get", "secret", "lost"]);
        assert.notEqual(get.code, 0);
        assert.match(
          get.stderr,
          /Internal error occurred: unable to transform key "\/core\/secrets\/default\/lost": no matching key was found/,
        );
        const list = await kubectlRun(k, gw.kubeconfig, ["get", "secrets", "-o", "name"]);
        assert.equal(list.code, 0, list.stderr);
        assert.match(list.stdout, /secret\/fresh/);
        assert.doesNotMatch(list.stdout, /secret\/lost/);
      }
      const api = new ApiClient(gw.kubeconfig);
      try {
        const res = await api.call("GET", "/api/v1/namespaces/default/secrets/lost");
        assert.equal(res.status, 500);
        const status = res.body as { kind?: string; reason?: string; message?: string };
        assert.equal(status.kind, "Status");
        assert.equal(status.reason, "InternalError");
        assert.match(status.message ?? "", /unable to transform key "\/core\/secrets\/default\/lost"/);
        // A write to it fails too, rather than replacing what cannot be read.
        const put = await api.call("PATCH", "/api/v1/namespaces/default/secrets/lost", {
          raw: JSON.stringify({ metadata: { labels: { a: "b" } } }),
          contentType: "application/merge-patch+json",
        });
        assert.equal(put.status, 500);
      } finally {
        await api.close();
      }
      // The old key back: the value was left as it was.
      await gw.stop();
      await writeConfig(cfg, [aes("aesgcm", ["key2", KEY2]), aes("aesgcm", ["key1", KEY1])]);
      gw = await startGateway([`--encryption-provider-config=${cfg}`, "--api-naming=kubernetes"], reuse);
      const back = await kubectl(binary as string, gw.kubeconfig, [
        "get",
        "secret",
        "lost",
        "-o",
        "jsonpath={.data.password}",
      ]);
      assert.equal(back.stdout, PLAIN_B64);
    } finally {
      await gw.stop();
    }
  });

  it("--encryption-provider-config-automatic-reload applies a changed file and keeps the running one when the new one is bad", async () => {
    const cfg = await configFile("reload.yaml", [aes("aescbc", ["key1", KEY1])]);
    const gw = await startGateway([
      `--encryption-provider-config=${cfg}`,
      "--encryption-provider-config-automatic-reload",
      "--api-naming=kubernetes",
    ]);
    const api = new ApiClient(gw.kubeconfig);
    const writes = async (prefix: string) => {
      const metrics = await api.call("GET", "/metrics");
      const line = metrics.text
        .split("\n")
        .find((l) =>
          l.startsWith(
            `apiserver_storage_transformation_operations_total{transformation_type="to_storage",transformer_prefix="${prefix}",status="OK"}`,
          ),
        );
      return line ? Number(line.split(" ").pop()) : 0;
    };
    try {
      await kubectl(binary as string, gw.kubeconfig, [
        "create",
        "secret",
        "generic",
        "before",
        `--from-literal=password=${PLAIN}`,
      ]);
      assert.ok((await writes("k8s:enc:aescbc:v1:")) >= 1);
      assert.equal(await writes("k8s:enc:aesgcm:v1:"), 0);
      await writeConfig(cfg, [aes("aesgcm", ["key2", KEY2]), aes("aescbc", ["key1", KEY1])]);
      let i = 0;
      await eventually(
        async () => {
          await kubectl(binary as string, gw.kubeconfig, [
            "create",
            "secret",
            "generic",
            `after${i++}`,
            `--from-literal=password=${PLAIN}`,
          ]);
          return (await writes("k8s:enc:aesgcm:v1:")) >= 1;
        },
        30_000,
        "writes under the reloaded aesgcm key",
      );
      const old = await kubectl(binary as string, gw.kubeconfig, [
        "get",
        "secret",
        "before",
        "-o",
        "jsonpath={.data.password}",
      ]);
      assert.equal(old.stdout, PLAIN_B64);
      // A broken file is refused and logged; the server goes on with what it had.
      await writeFile(
        cfg,
        "kind: EncryptionConfiguration\napiVersion: apiserver.config.k8s.io/v1\nresources: [{resources: [secrets], providers: [{aesgcm: {keys: [{name: k, secret: c2hvcnQ=}]}}]}]\n",
      );
      await eventually(() => gw.output().includes("reload failed"), 30_000, "the refused reload in the log");
      assert.match(gw.output(), /secret is not of the expected length, got 5/);
      const still = await kubectl(binary as string, gw.kubeconfig, [
        "create",
        "secret",
        "generic",
        "still",
        `--from-literal=password=${PLAIN}`,
      ]);
      assert.equal(still.code, 0, still.stdout);
    } finally {
      await api.close();
      await gw.stop();
    }
  });

  it("refuses to start on a bad configuration, naming the file and the field", async () => {
    const wrongLength = await configFile("short.yaml", [
      aes("aesgcm", ["k", randomBytes(7).toString("base64")]),
    ]);
    await assert.rejects(
      startGateway([`--encryption-provider-config=${wrongLength}`, "--api-naming=kubernetes"]),
      /short\.yaml.*resources\[0\]\.providers\[0\]\.aesgcm\.keys\[0\]\.secret: Invalid value: "REDACTED": secret is not of the expected length, got 7/,
    );
    const unknown = await configFile("unknown.yaml", [{ rot13: {} }]);
    await assert.rejects(
      startGateway([`--encryption-provider-config=${unknown}`, "--api-naming=kubernetes"]),
      /unknown\.yaml.*resources\[0\]\.providers\[0\]: Invalid value: "rot13": provider does not contain any of the expected providers/,
    );
    // Under the cluster naming, upstream's group is another kind of file.
    await assert.rejects(
      startGateway([`--encryption-provider-config=${unknown}`]),
      /unknown\.yaml.*expected EncryptionConfiguration apiserver\.config\.cluster\.io\/v1/,
    );
    await assert.rejects(
      startGateway([`--encryption-provider-config=${join(await work, "absent.yaml")}`]),
      /error opening encryption provider configuration file ".*absent\.yaml"/,
    );
    const kms = await configFile("nokms.yaml", [
      {
        kms: {
          apiVersion: "v2",
          name: "vault",
          endpoint: `unix://${join(await work, "no.sock")}`,
          timeout: "1s",
        },
      },
    ]);
    await assert.rejects(
      startGateway([`--encryption-provider-config=${kms}`, "--api-naming=kubernetes"]),
      /nokms\.yaml: resources\[0\]\.providers\[0\]\.kms\.endpoint: KMS v2 plugin "vault" at unix:\/\/.*no\.sock cannot serve/,
    );
  });
});

describe("KMS v2 through a plugin process of the test's own", {
  skip: binary === undefined ? "no kubectl" : false,
}, () => {
  it("stores the EncryptedObject envelope under k8s:enc:kms:v2:<name>: and reads it back after a restart", async () => {
    const socket = join(await work, "kms.sock");
    const plugin: ChildProcess = spawn(
      process.execPath,
      [join(ROOT, "test/support/kms-plugin.ts"), socket, "kek-1"],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let calls = "";
    plugin.stdout?.on("data", (d) => {
      calls += d;
    });
    try {
      await eventually(() => calls.includes("listening"), 20_000, "the KMS plugin to listen");
      const cfg = await configFile("kms.yaml", [
        { kms: { apiVersion: "v2", name: "testkms", endpoint: `unix://${socket}` } },
      ]);
      let gw = await startGateway([`--encryption-provider-config=${cfg}`, "--api-naming=kubernetes"]);
      const reuse = { dataDir: gw.dataDir, port: gw.port };
      try {
        assert.match(calls, /status\nencrypt\n/);
        const r = await kubectl(binary as string, gw.kubeconfig, [
          "create",
          "secret",
          "generic",
          "k",
          `--from-literal=password=${PLAIN}`,
        ]);
        assert.equal(r.code, 0, r.stdout);
        await gw.stop();
        const raw = rawStore(reuse.dataDir);
        assert.ok(raw.includes("k8s:enc:kms:v2:testkms:"));
        assert.ok(raw.includes("kek-1"), "the envelope carries the plugin's key id");
        assert.ok(!raw.includes(PLAIN) && !raw.includes(PLAIN_B64));
        const before = calls.split("decrypt").length;
        gw = await startGateway([`--encryption-provider-config=${cfg}`, "--api-naming=kubernetes"], reuse);
        const got = await kubectl(binary as string, gw.kubeconfig, [
          "get",
          "secret",
          "k",
          "-o",
          "jsonpath={.data.password}",
        ]);
        assert.equal(got.stdout, PLAIN_B64);
        // The data key written before the restart came back through the plugin.
        assert.ok(calls.split("decrypt").length > before);
      } finally {
        await gw.stop();
      }
    } finally {
      plugin.kill("SIGTERM");
      await once(plugin, "exit");
    }
  });
});

describe("encryption on the etcd backend", {
  skip: etcdSkipReason() || (binary === undefined ? "no kubectl" : false),
}, () => {
  it("etcd's keys hold the encrypted value, not the plain secret", async () => {
    const etcd = await startEtcd();
    const cfg = await configFile("etcd.yaml", [aes("aescbc", ["key1", KEY1])]);
    const gw = await startGateway([
      `--encryption-provider-config=${cfg}`,
      "--api-naming=kubernetes",
      "--storage-backend=etcd",
      `--etcd-servers=${etcd.endpoint}`,
    ]);
    // A plain client of etcd, without the gateway's transformers: the raw keys.
    const raw = await createEtcdStorage({ endpoints: [etcd.endpoint], keyPrefix: "/registry" });
    try {
      const r = await kubectl(binary as string, gw.kubeconfig, [
        "create",
        "secret",
        "generic",
        "e",
        `--from-literal=password=${PLAIN}`,
      ]);
      assert.equal(r.code, 0, r.stdout);
      const stored = await raw.get("/core/secrets/default/e");
      assert.ok(stored?.value.startsWith("k8s:enc:aescbc:v1:key1:"));
      assert.ok(!stored?.value.includes(PLAIN) && !stored?.value.includes(PLAIN_B64));
      const all = await raw.list("/");
      for (const kv of all.items)
        assert.ok(!kv.value.includes(PLAIN_B64), `${kv.key} holds the secret in plain text`);
      const got = await kubectl(binary as string, gw.kubeconfig, [
        "get",
        "secret",
        "e",
        "-o",
        "jsonpath={.data.password}",
      ]);
      assert.equal(got.stdout, PLAIN_B64);
    } finally {
      await raw.close();
      await gw.stop();
      await etcd.stop();
    }
  });
});
