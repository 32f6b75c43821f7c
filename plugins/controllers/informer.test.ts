// The informer against a real gateway process that is restarted while the informer is busy: an
// object deleted while no watch is open must still reach the `deleted` handler (from the re-list).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { after, it } from "node:test";
import { load } from "js-yaml";
import { type GatewayProcess, startGateway } from "../../test/support/gateway-process.ts";
import { eventually } from "../../test/support/watch.ts";
import { ControllerClient } from "./client.ts";
import { Informer, type InformerObject } from "./informer.ts";

interface Kubeconfig {
  clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
  users: { user: { "client-certificate-data": string; "client-key-data": string } }[];
}

function adminClient(gw: GatewayProcess): ControllerClient {
  const config = load(readFileSync(gw.kubeconfig, "utf8")) as Kubeconfig;
  const b64 = (s: string | undefined) => Buffer.from(s ?? "", "base64").toString("utf8");
  return new ControllerClient({
    server: config.clusters[0]?.cluster.server ?? "",
    caPem: b64(config.clusters[0]?.cluster["certificate-authority-data"]),
    certPem: b64(config.users[0]?.user["client-certificate-data"]),
    keyPem: b64(config.users[0]?.user["client-key-data"]),
  });
}

let gw: GatewayProcess | undefined;
after(async () => {
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

it("reports objects deleted during a watch gap as deleted after the re-list", async () => {
  gw = await startGateway();
  const path = "/api/v1/namespaces/default/configmaps";
  const client = adminClient(gw);
  for (const name of ["keep", "gone"]) await client.must("POST", path, { metadata: { name } });

  const upserts: string[] = [];
  const deleted: string[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let blocked = false;
  const stop = new AbortController();
  const informer = new Informer(
    client,
    path,
    {
      async upsert(o: InformerObject) {
        upserts.push(o.metadata.name);
        // The handler is busy with "busy" while the server goes away and "gone" is deleted.
        if (o.metadata.name === "busy" && !blocked) {
          blocked = true;
          await gate;
        }
      },
      deleted(o) {
        deleted.push(o.metadata.name);
      },
    },
    () => {},
  );
  const run = informer.run(stop.signal);
  try {
    await eventually(() => informer.synced, 10_000, "first list");
    await client.must("POST", path, { metadata: { name: "busy" } });
    await eventually(() => blocked, 10_000, "handler busy");

    const { dataDir, port } = gw;
    await gw.stop();
    // A short history: by the time the informer watches again, its revision is compacted away
    // and it must list.
    gw = await startGateway(["--compaction-interval=1s"], { dataDir, port });
    const fresh = adminClient(gw);
    await fresh.must("DELETE", `${path}/gone`);
    for (let i = 0; i < 5; i++) await fresh.must("POST", path, { metadata: { name: `later-${i}` } });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // A change after the wait makes the watch cache drop what is older than its window.
    await fresh.must("POST", path, { metadata: { name: "trigger" } });
    await fresh.close();
    release();

    await eventually(() => deleted.includes("gone"), 15_000, "deletion seen");
    assert.deepEqual(deleted, ["gone"]);
    assert.ok(upserts.filter((n) => n === "keep").length >= 2, "keep was listed again");
  } finally {
    release();
    stop.abort();
    await run;
    await client.close();
  }
});
