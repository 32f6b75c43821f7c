// Start-up as a user meets it: first start writes credentials, kubectl reaches the health
// endpoints with admin.kubeconfig, a second start reuses everything, SIGTERM stops cleanly,
// and bad settings fail fast with status 2.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { once } from "node:events";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { connect } from "node:tls";
import { promisify } from "node:util";
import { ApiClient } from "./support/api-client.ts";
import { kubectl, kubectlVersions, NO_KUBECTL, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const versions = kubectlVersions();
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("npm start", () => {
  it("generates credentials once and serves health to kubectl", {
    skip: versions.length === 0 && NO_KUBECTL,
  }, async () => {
    const gw = await startGateway();
    dirs.push(gw.dataDir);
    let second: Awaited<ReturnType<typeof startGateway>> | undefined;
    try {
      for (const file of [
        "ca.crt",
        "ca.key",
        "apiserver.crt",
        "apiserver.key",
        "sa.key",
        "sa.pub",
        "front-proxy-ca.crt",
        "front-proxy-ca.key",
        "front-proxy-client.crt",
        "front-proxy-client.key",
      ]) {
        assert.ok((await readFile(join(gw.dataDir, "pki", file), "utf8")).includes("-----BEGIN"), file);
      }
      assert.match(gw.output(), /try: kubectl --kubeconfig \S+admin\.kubeconfig/);
      for (const bin of [versions[0] as string, versions[versions.length - 1] as string]) {
        const ready = await kubectl(bin, gw.kubeconfig, ["get", "--raw=/readyz?verbose"]);
        assert.equal(ready.code, 0, ready.stdout);
        assert.equal(
          ready.stdout.trim(),
          "[+]ping ok\n[+]log ok\n[+]storage ok\n[+]cacher-sync ok\n[+]rbac-bootstrap-roles ok\n[+]controllers ok\n[+]shutdown ok\nreadyz check passed",
        );
      }
      const excluded = await kubectl(versions[0] as string, gw.kubeconfig, [
        "get",
        "--raw=/livez?verbose&exclude=storage&exclude=nope",
      ]);
      assert.match(excluded.stdout, /\[\+\]storage excluded: ok/);
      assert.match(excluded.stdout, /cannot be excluded: no matches for "nope"/);
      assert.equal(
        (await kubectl(versions[0] as string, gw.kubeconfig, ["get", "--raw=/livez/ping"])).stdout,
        "ok",
      );
      const unknownCheck = await kubectl(versions[0] as string, gw.kubeconfig, ["get", "--raw=/readyz/nope"]);
      assert.notEqual(unknownCheck.code, 0);
      assert.match(
        unknownCheck.stdout,
        /Error from server \(NotFound\): the server could not find the requested resource/,
      );

      const ca = await readFile(join(gw.dataDir, "pki", "ca.crt"), "utf8");
      const kubeconfig = await readFile(gw.kubeconfig, "utf8");
      assert.equal(await gw.stop(), 0, "SIGTERM stops cleanly");
      second = await startGateway([], { dataDir: gw.dataDir, port: gw.port });
      assert.doesNotMatch(second.output(), /"msg":"generated"/);
      assert.equal(await readFile(join(gw.dataDir, "pki", "ca.crt"), "utf8"), ca);
      assert.equal(await readFile(second.kubeconfig, "utf8"), kubeconfig);
      const ready = await kubectl(versions[0] as string, gw.kubeconfig, ["get", "--raw=/readyz"]);
      assert.equal(ready.stdout, "ok");
    } finally {
      await gw.stop();
      await second?.stop();
    }
  });

  it("rejects bad settings with status 2 and the usage", async () => {
    const run = promisify(execFile);
    const main = join(import.meta.dirname, "..", "gateway", "main.ts");
    for (const args of [
      ["--storage-backend=disk"],
      ["--nope"],
      ["--storage-backend=etcd"],
      ["--storage-backend=memory", "--etcd-prefix=registry"],
      ["--feature-gates=NoSuchGate=true"],
      ["-v=-1"],
    ]) {
      const err = await run(process.execPath, [main, ...args]).then(
        () => assert.fail(`${args} was accepted`),
        (e: { code: number; stderr: string }) => e,
      );
      assert.equal(err.code, 2);
      assert.match(err.stderr, /^error: /);
      if (!args[0]?.startsWith("--feature-gates")) assert.match(err.stderr, /Usage: npm start/);
    }
  });

  it("serves only what --runtime-config leaves on, and refuses keys that name nothing", async () => {
    const gw = await startGateway(["--storage-backend=memory", "--runtime-config=v1/secrets=false"]);
    dirs.push(gw.dataDir);
    try {
      const api = new ApiClient(gw.kubeconfig);
      const v1 = await api.call("GET", "/api/v1");
      const names = v1.body.resources.map((r: { name: string }) => r.name);
      assert.ok(names.includes("configmaps"));
      assert.ok(!names.includes("secrets"));
      assert.equal((await api.call("GET", "/api/v1/namespaces/default/secrets")).status, 404);
      await api.close();
    } finally {
      await gw.stop();
    }
    const bad = startGateway(["--storage-backend=memory", "--runtime-config=nope.example/v1=true"]);
    await assert.rejects(
      bad,
      /exited with 2[\s\S]*unknown api group version in runtime-config: nope.example\/v1/,
    );
  });

  it("exits 0 on SIGTERM right after start, while the controllers are still starting", async () => {
    // stop() sends SIGTERM and kills the process if it is still there 10 s later (code null): a
    // controller that misses the stop (the garbage collector did, when stopped before it ran) or
    // waits out its resync period fails this.
    for (const backend of ["embedded", "memory"]) {
      const gw = await startGateway([`--storage-backend=${backend}`], undefined, { waitReady: false });
      dirs.push(gw.dataDir);
      assert.equal(await gw.stop(), 0, `${backend}: SIGTERM right after start stops cleanly`);
    }
  });

  it("exits 0 on SIGTERM with a connection open that finished its TLS handshake and never sent a request", async () => {
    // Go's HTTP client keeps such spare connections; through a TCP balancer they reach one gateway.
    // The server's close waited for them until the client left (gw.stop() kills after 10 s: null).
    const gw = await startGateway(["--storage-backend=memory"]);
    dirs.push(gw.dataDir);
    const spare = connect({ host: "127.0.0.1", port: gw.port, rejectUnauthorized: false });
    await once(spare, "secureConnect");
    const closed = once(spare, "close");
    spare.on("error", () => {});
    try {
      assert.equal(await gw.stop(), 0, "SIGTERM stops cleanly");
      await closed;
    } finally {
      spare.destroy();
    }
  });

  it("on SIGTERM: readiness fails, requests are still served during the delay, then watches end and it exits 0", async () => {
    const gw = await startGateway(["--storage-backend=memory", "--shutdown-delay-duration=1500ms"]);
    dirs.push(gw.dataDir);
    const api = new ApiClient(gw.kubeconfig);
    try {
      const watch = await api.watch("/api/v1/namespaces/default/configmaps?watch=1");
      const ended = (async () => {
        for await (const _ of watch.events) {
          // drain until the server ends the stream
        }
        return true;
      })();
      const exited = new Promise<number | null>((resolve) => gw.child.once("exit", (code) => resolve(code)));
      gw.child.kill("SIGTERM");
      await eventually(
        async () => (await api.call("GET", "/readyz")).status === 500,
        5_000,
        "readiness to fail",
      );
      assert.equal(
        (await api.call("GET", "/api/v1/namespaces")).status,
        200,
        "still serving during the delay",
      );
      assert.equal(await ended, true, "the watch stream ended");
      assert.equal(await exited, 0);
    } finally {
      await api.close();
      await gw.stop();
    }
  });
});
