// The informer against a real gateway process that is restarted while the informer is busy: an
// object deleted while no watch is open must still reach the `deleted` handler (from the re-list).
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, it } from "node:test";
import { type GatewayProcess, startGateway } from "../../test/support/gateway-process.ts";
import { eventually } from "../../test/support/watch.ts";
import { ControllerClient } from "./client.ts";
import { Informer, type InformerObject } from "./informer.ts";

let gw: GatewayProcess | undefined;
after(async () => {
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

it("reports objects deleted during a watch gap as deleted after the re-list", async () => {
  gw = await startGateway();
  const path = "/api/v1/namespaces/default/configmaps";
  const client = ControllerClient.fromKubeconfig(gw.kubeconfig);
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
    const busy = await client.must("POST", path, { metadata: { name: "busy" } });
    await eventually(() => blocked, 10_000, "handler busy");

    const { dataDir, port } = gw;
    await gw.stop();
    // A short history: by the time the informer watches again, its revision is compacted away
    // and it must list.
    gw = await startGateway(["--compaction-interval=1s"], { dataDir, port });
    const fresh = ControllerClient.fromKubeconfig(gw.kubeconfig);
    await fresh.must("DELETE", `${path}/gone`);
    for (let i = 0; i < 5; i++) await fresh.must("POST", path, { metadata: { name: `later-${i}` } });
    // The informer stopped at or before "busy". Wait until that revision is Gone: the watch cache
    // drops what is older than its window when a change arrives, so each look makes one.
    await fresh.must("POST", path, { metadata: { name: "trigger" } });
    const rv = busy.body.metadata.resourceVersion as string;
    let n = 0;
    await eventually(
      async () => {
        await fresh.must(
          "PATCH",
          `${path}/trigger`,
          { data: { n: String(n++) } },
          "application/merge-patch+json",
        );
        return (
          (await fresh.call("GET", `${path}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status === 410
        );
      },
      20_000,
      "the informer's revision compacted away",
    );
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
