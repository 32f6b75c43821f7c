// The data directory holds the cluster's keys, the admin credentials and every Secret: the gateway
// keeps it to its own user, on a first start into a directory the operator made with the usual
// umask, and again on a later start after something loosened it. Checked by mode, and by reading
// as an unprivileged user (nobody) where the test runs as root.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ApiClient } from "./support/api-client.ts";
import { freePort, startGateway } from "./support/gateway-process.ts";

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Every path under `dir` (itself included) with its permission bits. */
async function modes(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>([[dir, (await lstat(dir)).mode & 0o777]]);
  for (const name of await readdir(dir, { recursive: true })) {
    const path = join(dir, name);
    out.set(path, (await lstat(path)).mode & 0o777);
  }
  return out;
}

/** Whether the unprivileged user can read `path`. */
async function nobodyReads(path: string): Promise<boolean> {
  const child = spawn("cat", [path], { uid: NOBODY, gid: NOBODY, stdio: "ignore" });
  const [code] = await once(child, "exit");
  return code === 0;
}

function assertPrivate(found: Map<string, number>): void {
  for (const [path, mode] of found) assert.equal(mode & 0o077, 0, `${path} is ${mode.toString(8)}`);
}

describe("the data directory", () => {
  it("is private to the gateway's user on first start and after something loosened it", async () => {
    // As an operator would: `mkdir data` under a world-readable parent, umask 022.
    const parent = await mkdtemp(join(tmpdir(), "cg-modes-"));
    dirs.push(parent);
    await chmod(parent, 0o755);
    const dataDir = join(parent, "data");
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    const control = join(parent, "readable-by-all");
    await writeFile(control, "x", { mode: 0o644 });
    await chmod(control, 0o644);

    const port = await freePort();
    const secretValue = Buffer.from("s3cr3t-value-for-the-mode-test").toString("base64");
    let gw = await startGateway([], { dataDir, port });
    try {
      const api = new ApiClient(gw.kubeconfig);
      const created = await api.call("POST", "/api/v1/namespaces/default/secrets", {
        body: { apiVersion: "v1", kind: "Secret", metadata: { name: "modes" }, data: { v: secretValue } },
      });
      await api.close();
      assert.equal(created.status, 201, created.text);
    } finally {
      await gw.stop();
    }
    const store = join(dataDir, "store", "data.mdb");
    assert.ok((await readFile(store)).includes(secretValue), "the Secret sits in store/data.mdb");
    const first = await modes(dataDir);
    for (const path of ["", "pki", "store"]) assert.equal(first.get(join(dataDir, path)), 0o700, path);
    for (const path of ["store/data.mdb", "store/lock.mdb", "admin.kubeconfig", "pki/ca.key", "pki/ca.crt"]) {
      assert.equal(first.get(join(dataDir, path)), 0o600, path);
    }
    assertPrivate(first);
    if (asRoot) {
      assert.ok(await nobodyReads(control), "control: nobody reads a file that allows it");
      for (const path of [store, join(dataDir, "admin.kubeconfig"), join(dataDir, "pki", "ca.key")]) {
        assert.equal(await nobodyReads(path), false, path);
      }
    }

    // What an older release, a restore or `chmod -R go+rX` leaves: the next start takes it back.
    for (const [path] of first) {
      await chmod(path, (await lstat(path)).isDirectory() ? 0o755 : 0o644);
    }
    if (asRoot) assert.ok(await nobodyReads(store), "loosened: nobody reads the store");
    gw = await startGateway([], { dataDir, port });
    try {
      const api = new ApiClient(gw.kubeconfig);
      const read = await api.call("GET", "/api/v1/namespaces/default/secrets/modes");
      await api.close();
      assert.equal(read.body?.data?.v, secretValue);
      assert.match(
        gw.output(),
        /"msg":"removed group and other access","v":0,"file":"[^"]*data\.mdb","from":"0644","to":"0600"/,
      );
    } finally {
      await gw.stop();
    }
    const second = await modes(dataDir);
    assert.deepEqual([...second.keys()].sort(), [...first.keys()].sort());
    assertPrivate(second);
    if (asRoot) {
      for (const path of [store, join(dataDir, "admin.kubeconfig"), join(dataDir, "pki", "sa.key")]) {
        assert.equal(await nobodyReads(path), false, path);
      }
    }
  });
});
