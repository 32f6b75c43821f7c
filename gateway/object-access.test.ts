import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinKinds } from "../backends/builtin/index.ts";
import { MemoryStorage } from "../backends/memory/index.ts";
import { naming } from "../backends/naming/index.ts";
import type { InformerEvent } from "../plugins/objects/index.ts";
import { startControlPlane } from "./control-plane.ts";
import { objectAccess } from "./object-access.ts";

test("object access reads from the caches and informers follow changes", async () => {
  const storage = new MemoryStorage();
  const names = naming("cluster");
  const plane = await startControlPlane({
    storage,
    naming: names,
    kinds: builtinKinds(names),
    historyWindowMs: 60_000,
    maxHistory: 1000,
    watchListEnabled: false,
    onError: (err) => assert.fail(String(err)),
  });
  const stop = new AbortController();
  try {
    const access = objectAccess(plane.resources, stop.signal, (err) => assert.fail(String(err)));
    const configmaps = plane.resources.byResource("", "configmaps");
    assert.ok(configmaps);
    await configmaps.registry.create("default", { metadata: { name: "a" }, data: { k: "1" } });
    const ref = { group: "", resource: "configmaps" };
    assert.equal(await access.get(ref, "default", "missing"), undefined);
    assert.equal(access.informer({ group: "nope", resource: "things" }), undefined);

    const informer = access.informer(ref);
    assert.ok(informer);
    assert.equal(access.informer(ref), informer, "one informer per resource");
    await informer.synced;
    assert.deepEqual(informer.get("default", "a")?.data, { k: "1" });
    assert.equal((await access.get(ref, "default", "a"))?.metadata.name, "a");

    const events: InformerEvent[] = [];
    const unsubscribe = informer.subscribe((e) => events.push(e));
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [["ADDED", "a"]],
    );
    await configmaps.registry.create("default", { metadata: { name: "b" } });
    await configmaps.registry.delete("default", "a");
    for (let i = 0; i < 100 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ["ADDED", "a"],
        ["ADDED", "b"],
        ["DELETED", "a"],
      ],
    );
    assert.equal(informer.get("default", "a"), undefined);
    assert.deepEqual(
      informer.list("default").map((o) => o.metadata.name),
      ["b"],
    );
    assert.deepEqual(informer.list("other"), []);
    unsubscribe();
  } finally {
    stop.abort();
    await plane.stop();
    await storage.close();
  }
});
