// Replicas' shared identity (issue 23) against one real etcd: `init` writes the credentials once
// and an admin.kubeconfig naming --server; two gateways started with that --pki-dir accept the
// same admin certificate and each other's service-account tokens; a gateway with other
// credentials (its own PKI, or only other service-account keys) refuses to start, naming what
// differs, and leaves the recorded fingerprints alone.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { naming as namingPreset } from "../backends/naming/index.ts";
import { ApiClient } from "./support/api-client.ts";
import { type EtcdServer, etcdSkipReason, startEtcd } from "./support/etcd.ts";
import { freePort, type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const ROOT = resolve(import.meta.dirname, "..");
const naming = namingPreset("cluster");
const run = promisify(execFile);

/** `npm start -- init ...` as README says, with the Node that runs the tests. */
function init(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return run(process.execPath, [join(ROOT, "gateway/main.ts"), "init", ...args], { cwd: ROOT }).then(
    ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
    (err: { stdout: string; stderr: string; code: number }) => ({ ...err }),
  );
}

describe("replicas sharing one PKI over one etcd", { skip: etcdSkipReason() }, () => {
  let etcd: EtcdServer;
  let shared: string;
  const gateways: GatewayProcess[] = [];
  const clients: ApiClient[] = [];
  const ports: number[] = [];
  const args = () => ["--storage-backend=etcd", `--etcd-servers=${etcd.endpoint}`];

  before(async () => {
    etcd = await startEtcd();
    shared = await mkdtemp(join(tmpdir(), "cg-shared-"));
    ports.push(await freePort(), await freePort());
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const gw of gateways) {
      await gw.stop();
      await rm(gw.dataDir, { recursive: true, force: true });
    }
    await rm(shared, { recursive: true, force: true });
    await etcd?.stop();
  });

  it("init refuses a missing or non-https --server", async () => {
    const missing = await init([`--data-dir=${shared}`]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--server=https:\/\/HOST:PORT is needed/);
    const plain = await init([`--data-dir=${shared}`, "--server=http://127.0.0.1:1"]);
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /--server must be https/);
  });

  it("init writes the shared credentials and an admin.kubeconfig naming --server", async () => {
    const done = await init([
      `--data-dir=${shared}`,
      `--server=https://127.0.0.1:${ports[0]}`,
      "--tls-sans=replicas.example",
    ]);
    assert.equal(done.code, 0, done.stderr);
    for (const file of ["ca.crt", "ca.key", "apiserver.crt", "sa.key", "sa.pub", "front-proxy-ca.crt"])
      assert.ok((await readFile(join(shared, "pki", file), "utf8")).includes("-----BEGIN"), file);
    const kubeconfig = await readFile(join(shared, "admin.kubeconfig"), "utf8");
    assert.match(kubeconfig, new RegExp(`server: https://127.0.0.1:${ports[0]}\\n`));
    // Run again: the files are kept as they are.
    const ca = await readFile(join(shared, "pki", "ca.crt"), "utf8");
    assert.equal((await init([`--data-dir=${shared}`, `--server=https://127.0.0.1:${ports[0]}`])).code, 0);
    assert.equal(await readFile(join(shared, "pki", "ca.crt"), "utf8"), ca);
  });

  it("two replicas started with --pki-dir accept the admin certificate and each other's tokens", async () => {
    for (const port of ports) {
      const dataDir = await mkdtemp(join(tmpdir(), "cg-replica-"));
      gateways.push(await startGateway([...args(), `--pki-dir=${join(shared, "pki")}`], { dataDir, port }));
    }
    // init's admin.kubeconfig, pointed at each replica in turn.
    const text = await readFile(join(shared, "admin.kubeconfig"), "utf8");
    for (const [i, port] of ports.entries()) {
      const file = join(shared, `replica-${i}.kubeconfig`);
      await writeFile(file, text.replaceAll(`127.0.0.1:${ports[0]}`, `127.0.0.1:${port}`), { mode: 0o600 });
      clients.push(new ApiClient(file));
    }
    const [a, b] = clients;
    assert.ok(a && b);
    for (const c of clients) assert.equal((await c.call("GET", "/api/v1/namespaces/default")).status, 200);

    // A token issued by replica A...
    await eventually(
      async () => (await a.call("GET", "/api/v1/namespaces/default/serviceaccounts/default")).status === 200,
      30_000,
      "the default ServiceAccount",
    );
    const issued = await a.call("POST", "/api/v1/namespaces/default/serviceaccounts/default/token", {
      body: {
        apiVersion: `${naming.group("authentication")}/v1`,
        kind: "TokenRequest",
        spec: { expirationSeconds: 3600 },
      },
    });
    assert.equal(issued.status, 201, issued.text);
    const token = issued.body.status.token as string;
    // ...is accepted by replica B, both in a TokenReview and as a caller's bearer token.
    const review = await b.call("POST", `/apis/${naming.group("authentication")}/v1/tokenreviews`, {
      body: {
        apiVersion: `${naming.group("authentication")}/v1`,
        kind: "TokenReview",
        spec: { token },
      },
    });
    assert.equal(review.status, 201, review.text);
    assert.equal(review.body.status.authenticated, true, review.text);
    assert.equal(review.body.status.user.username, "system:serviceaccount:default:default");
    const anonymousB = new ApiClient(join(shared, "replica-1.kubeconfig"), { anonymous: true });
    clients.push(anonymousB);
    const asAccount = await anonymousB.call("GET", "/api/v1/namespaces/default/configmaps", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(asAccount.status, 403, asAccount.text);
    assert.match(asAccount.body.message, /User "system:serviceaccount:default:default" cannot list/);
    const forged = await anonymousB.call("GET", "/api/v1/namespaces/default/configmaps", {
      headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` },
    });
    assert.equal(forged.status, 401);
  });

  it("a replica with its own PKI refuses to start, naming every credential that differs", async () => {
    const recorded = await clients[0]?.call(
      "GET",
      `/api/v1/namespaces/${naming.systemNamespace}/configmaps/apiserver-shared-credentials`,
    );
    assert.equal(recorded?.status, 200);
    const own = await mkdtemp(join(tmpdir(), "cg-stranger-"));
    try {
      await assert.rejects(startGateway(args(), { dataDir: own, port: await freePort() }), (err: Error) => {
        assert.match(err.message, /gateway exited with 1/);
        assert.match(err.message, /credentials differ from those of the gateways already serving this store/);
        assert.match(err.message, /the client CA/);
        assert.match(err.message, /the service-account signing key/);
        return true;
      });
    } finally {
      await rm(own, { recursive: true, force: true });
    }
    const after = await clients[0]?.call(
      "GET",
      `/api/v1/namespaces/${naming.systemNamespace}/configmaps/apiserver-shared-credentials`,
    );
    assert.deepEqual(after?.body.data, recorded?.body.data, "the recorded fingerprints are left alone");
  });

  it("a replica with the shared CAs but other service-account keys refuses to start", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "cg-other-sa-"));
    try {
      await cp(join(shared, "pki"), join(dataDir, "pki"), { recursive: true });
      const { privateKey, publicKey } = generateKeyPairSync("rsa", {
        modulusLength: 2048,
        publicKeyEncoding: { type: "spki", format: "pem" },
        privateKeyEncoding: { type: "pkcs1", format: "pem" },
      });
      await writeFile(join(dataDir, "pki", "sa.key"), privateKey, { mode: 0o600 });
      await writeFile(join(dataDir, "pki", "sa.pub"), publicKey, { mode: 0o600 });
      await assert.rejects(startGateway(args(), { dataDir, port: await freePort() }), (err: Error) => {
        assert.match(err.message, /the service-account signing key/);
        assert.match(err.message, /the service-account verification keys/);
        assert.doesNotMatch(err.message, /the client CA/);
        return true;
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    // The replicas keep serving.
    for (const c of clients.slice(0, 2)) assert.equal((await c.call("GET", "/readyz")).status, 200);
  });
});
