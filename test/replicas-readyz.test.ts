// /readyz as a load balancer reads it (issue 23): a gateway whose etcd is gone fails the
// `storage` check with a 500 and recovers when etcd is back; after SIGTERM with
// --shutdown-delay-duration, /readyz fails its `shutdown` check while requests are still served,
// and the process then exits cleanly.
import assert from "node:assert/strict";
import { once } from "node:events";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { ApiClient } from "./support/api-client.ts";
import { type EtcdServer, etcdSkipReason, startEtcd } from "./support/etcd.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

describe("readiness for a load balancer", { skip: etcdSkipReason() }, () => {
  let etcd: EtcdServer;
  const gateways: GatewayProcess[] = [];
  const clients: ApiClient[] = [];
  const start = async (extra: string[] = []) => {
    const gw = await startGateway(["--storage-backend=etcd", `--etcd-servers=${etcd.endpoint}`, ...extra]);
    gateways.push(gw);
    const client = new ApiClient(gw.kubeconfig);
    clients.push(client);
    return { gw, client };
  };

  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    for (const c of clients) await c.close();
    for (const gw of gateways) {
      await gw.stop();
      await rm(gw.dataDir, { recursive: true, force: true });
    }
    await etcd?.stop();
  });

  it("fails /readyz on the storage check while etcd is down, and recovers", async () => {
    const { client } = await start();
    assert.equal((await client.call("GET", "/readyz")).status, 200);
    await etcd.restart({
      signal: "SIGKILL",
      whileDown: async () => {
        await eventually(
          async () => {
            const res = await client.call("GET", "/readyz?verbose");
            return res.status === 500 && res.text.includes("[-]storage failed");
          },
          30_000,
          "/readyz failing on storage",
        );
        const one = await client.call("GET", "/readyz/storage");
        assert.equal(one.status, 500);
      },
    });
    await eventually(async () => (await client.call("GET", "/readyz")).status === 200, 60_000, "ready again");
    const cm = await client.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { metadata: { name: "after-etcd-restart" } },
    });
    assert.equal(cm.status, 201, cm.text);
  });

  it("with --shutdown-delay-duration, fails /readyz after SIGTERM while still serving, then exits 0", async () => {
    // A key space of its own: this gateway's generated credentials are not the first one's.
    const { gw, client } = await start(["--shutdown-delay-duration=15s", "--etcd-prefix=/shutdown-delay"]);
    const exited = once(gw.child, "exit");
    gw.child.kill("SIGTERM");
    await eventually(
      async () => {
        const res = await client.call("GET", "/readyz?verbose");
        return res.status === 500 && res.text.includes("[-]shutdown failed");
      },
      10_000,
      "/readyz failing on shutdown",
    );
    // Still serving during the delay: reads, writes and /livez.
    assert.equal((await client.call("GET", "/livez")).status, 200);
    const cm = await client.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { metadata: { name: "during-delay" } },
    });
    assert.equal(cm.status, 201, cm.text);
    assert.equal(
      (await client.call("GET", "/api/v1/namespaces/default/configmaps/during-delay")).status,
      200,
    );
    assert.equal(gw.child.exitCode, null, "still running");
    const [code] = await exited;
    assert.equal(code, 0);
  });
});
