// The gateway started as README says with `--storage-backend=etcd`, against a real etcd: the
// REST verbs and a watch over HTTPS, kubectl, an object over etcd's request limit (413, not a
// 500), the data outliving a gateway restart, and `--etcd-prefix` keeping gateways apart.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { createEtcdStorage } from "../backends/etcd/index.ts";
import { ApiClient } from "./support/api-client.ts";
import { type EtcdServer, etcdSkipReason, startEtcd } from "./support/etcd.ts";
import { type GatewayProcess, kubectl, kubectlVersions, startGateway } from "./support/gateway-process.ts";

const CM = "/api/v1/namespaces/default/configmaps";

describe("the gateway over etcd", { skip: etcdSkipReason() }, () => {
  let etcd: EtcdServer;
  let gw: GatewayProcess;
  let api: ApiClient;
  const args = () => ["--storage-backend=etcd", `--etcd-servers=${etcd.endpoint}`];

  before(async () => {
    // A 512 KiB request limit (etcd's default is 1.5 MiB), so that an object can pass the gateway's
    // own limits (a ConfigMap holds up to 1 MiB) and still be too large for etcd.
    etcd = await startEtcd({ args: ["--max-request-bytes=524288"] });
    gw = await startGateway(args());
    api = new ApiClient(gw.kubeconfig);
  });
  after(async () => {
    await api?.close();
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    await etcd?.stop();
  });

  it("creates, reads, updates, lists, watches and deletes", async () => {
    const created = await api.call("POST", CM, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "one" }, data: { a: "1" } },
    });
    assert.equal(created.status, 201, created.text);
    const rv = created.body.metadata.resourceVersion;
    const watch = await api.watch(`${CM}?watch=true&resourceVersion=${rv}`);
    const got = await api.call("GET", `${CM}/one`);
    assert.equal(got.body.data.a, "1");
    const updated = await api.call("PUT", `${CM}/one`, { body: { ...got.body, data: { a: "2" } } });
    assert.equal(updated.status, 200, updated.text);
    assert.ok(Number(updated.body.metadata.resourceVersion) > Number(rv));
    const stale = await api.call("PUT", `${CM}/one`, { body: { ...got.body, data: { a: "3" } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, "Conflict");
    const list = await api.call("GET", CM);
    assert.deepEqual(
      list.body.items.filter((o: { metadata: { name: string } }) => o.metadata.name === "one").length,
      1,
    );
    assert.equal((await api.call("DELETE", `${CM}/one`)).status, 200);
    const seen: string[] = [];
    for await (const event of watch.events) {
      seen.push(`${event.type} ${(event.object.data as Record<string, string> | undefined)?.a}`);
      if (event.type === "DELETED") break;
    }
    watch.close();
    assert.deepEqual(seen, ["MODIFIED 2", "DELETED 2"]);
  });

  it("answers an object over etcd's request limit with 413, and goes on serving", async () => {
    // 900 KiB: a valid ConfigMap, over this etcd's 512 KiB.
    const res = await api.call("POST", CM, {
      body: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "huge" },
        data: { big: "x".repeat(900 * 1024) },
      },
    });
    assert.equal(res.status, 413, res.text);
    assert.equal(res.body.kind, "Status");
    assert.equal(res.body.reason, "RequestEntityTooLarge");
    assert.match(
      res.body.message,
      /^Request entity too large: the object is larger than etcd accepts \(etcdserver: request is too large\)$/,
    );
    assert.equal((await api.call("GET", `${CM}/huge`)).status, 404);
    const ok = await api.call("POST", CM, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after-huge" } },
    });
    assert.equal(ok.status, 201);
  });

  it("serves kubectl, and keeps the objects in etcd across a gateway restart", async () => {
    const binaries = kubectlVersions();
    assert.ok(binaries.length > 0, "kubectl.1.NN binaries beside kubectl");
    const newest = binaries[binaries.length - 1] as string;
    const made = await kubectl(newest, gw.kubeconfig, ["create", "configmap", "kept", "--from-literal=k=v"]);
    assert.equal(made.code, 0, made.stdout);
    const dataDir = gw.dataDir;
    const port = gw.port;
    await api.close();
    assert.equal(await gw.stop(), 0);
    gw = await startGateway(args(), { dataDir, port });
    api = new ApiClient(gw.kubeconfig);
    const oldest = binaries[0] as string;
    const got = await kubectl(oldest, gw.kubeconfig, [
      "get",
      "configmap",
      "kept",
      "-o",
      "jsonpath={.data.k}",
    ]);
    assert.equal(got.code, 0, got.stdout);
    assert.equal(got.stdout, "v");
  });

  it("keeps objects under --etcd-prefix (default /registry), apart from another prefix", async () => {
    const raw = await createEtcdStorage({ endpoints: [etcd.endpoint], keyPrefix: "" });
    try {
      const keys = (await raw.list("/")).items.map((i) => i.key);
      assert.ok(keys.includes("/registry/core/configmaps/default/kept"), keys.join(" "));
      assert.ok(
        keys.every((k) => k.startsWith("/registry/")),
        "nothing outside the prefix",
      );
    } finally {
      await raw.close();
    }
    const other = await startGateway([...args(), "--etcd-prefix=/other"]);
    try {
      const otherApi = new ApiClient(other.kubeconfig);
      assert.equal((await otherApi.call("GET", `${CM}/kept`)).status, 404);
      const mine = await otherApi.call("POST", CM, {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept" }, data: { k: "other" } },
      });
      assert.equal(mine.status, 201, mine.text);
      await otherApi.close();
    } finally {
      await other.stop();
      await rm(other.dataDir, { recursive: true, force: true });
    }
    assert.equal(
      (await api.call("GET", `${CM}/kept`)).body.data.k,
      "v",
      "the first gateway's object is untouched",
    );
  });
});
