// admin.kubeconfig follows the flags: after a restart on another --secure-port, kubectl reaches
// the gateway with it, not whatever now listens on the old port; a server an operator put in the
// file instead is kept across restarts, and the log says so.
import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { after, describe, it } from "node:test";
import { dump, load } from "js-yaml";
import { freePort, kubectl, kubectlVersions, startGateway } from "./support/gateway-process.ts";

const versions = kubectlVersions();
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

interface Config {
  clusters: { cluster: { server: string } }[];
}
const serverOf = async (file: string) =>
  (load(await readFile(file, "utf8")) as Config).clusters[0]?.cluster.server;

describe("admin.kubeconfig", () => {
  it("names the port the gateway serves on after a restart, unless an operator set the server", {
    skip: versions.length === 0 && "kubectl not installed",
  }, async () => {
    const bin = versions.at(-1) as string;
    const first = await startGateway(["--storage-backend=memory"]);
    dirs.push(first.dataDir);
    await first.stop();
    assert.equal(await serverOf(first.kubeconfig), `https://127.0.0.1:${first.port}`);

    const port = await freePort();
    let gw = await startGateway(["--storage-backend=memory"], { dataDir: first.dataDir, port });
    try {
      assert.equal(await serverOf(gw.kubeconfig), `https://127.0.0.1:${port}`);
      assert.match(gw.output(), /"msg":"server URL updated to the flags"/);
      const ready = await kubectl(bin, gw.kubeconfig, ["get", "--raw=/readyz"]);
      assert.equal(ready.stdout, "ok");
    } finally {
      await gw.stop();
    }

    // The operator points the file elsewhere (here: the same gateway by its name).
    const config = load(await readFile(gw.kubeconfig, "utf8")) as Config;
    const edited = `https://localhost:${port}`;
    (config.clusters[0] as Config["clusters"][0]).cluster.server = edited;
    await writeFile(gw.kubeconfig, dump(config));
    const other = await freePort();
    gw = await startGateway(["--storage-backend=memory"], { dataDir: first.dataDir, port: other });
    try {
      assert.equal(await serverOf(gw.kubeconfig), edited);
      assert.match(
        gw.output(),
        /"msg":"server URL was edited, so it is kept","v":0,"file":"[^"]*","server":"https:\/\/localhost:\d+","serving":"https:\/\/127\.0\.0\.1:\d+"/,
      );
    } finally {
      await gw.stop();
    }
  });
});
