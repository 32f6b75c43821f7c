// Watch caches with two gateways over one real etcd (issue 23): each replica's cache follows
// etcd's change feed, so a write through one reaches watchers on the other, and resourceVersion
// means the same on both: a consistent read (resourceVersion unset) on either sees every write
// acknowledged before it by either, and a resourceVersion one replica returned is a valid start
// or bound on the other.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "./support/api-client.ts";
import { type EtcdServer, etcdSkipReason, startEtcd } from "./support/etcd.ts";
import { type Replicas, startReplicas } from "./support/replica-gateways.ts";
import { nextWithin } from "./support/watch.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const WRITERS = 8;
const ROUNDS = 50;

function configMap(name: string, data: Record<string, string>) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

describe("watch caches across replicas over one etcd", { skip: etcdSkipReason() }, () => {
  let etcd: EtcdServer;
  let replicas: Replicas;
  let a: ApiClient;
  let b: ApiClient;

  before(async () => {
    etcd = await startEtcd();
    replicas = await startReplicas(2, ["--storage-backend=etcd", `--etcd-servers=${etcd.endpoint}`]);
    [a, b] = replicas.clients as [ApiClient, ApiClient];
  });
  after(async () => {
    await replicas?.stop();
    await etcd?.stop();
  });

  it("delivers a write through one replica to a watcher on the other, with the writer's resourceVersion", async () => {
    const start = await b.call("GET", CM);
    // This object's events only: controllers write ConfigMaps here too (the root CA bundle).
    const watch = await b.watch(
      `${CM}?watch=true&fieldSelector=metadata.name%3Dfed&resourceVersion=${start.body.metadata.resourceVersion}`,
    );
    try {
      const created = await a.call("POST", CM, { body: configMap("fed", { v: "1" }) });
      assert.equal(created.status, 201, created.text);
      const updated = await a.call("PUT", `${CM}/fed`, {
        body: { ...created.body, data: { v: "2" } },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await a.call("DELETE", `${CM}/fed`)).status, 200);
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        const next = await nextWithin(watch.events, 10_000);
        assert.ok(next && !next.done, `event ${i} arrived`);
        const event = next.value;
        const m = event.object.metadata as { name: string; resourceVersion: string };
        seen.push(`${event.type} ${m.name} ${m.resourceVersion}`);
      }
      assert.deepEqual(seen.slice(0, 2), [
        `ADDED fed ${created.body.metadata.resourceVersion}`,
        `MODIFIED fed ${updated.body.metadata.resourceVersion}`,
      ]);
      assert.match(seen[2] as string, /^DELETED fed \d+$/);
    } finally {
      watch.close();
    }
  });

  it("a consistent GET and LIST on either replica sees every write the other acknowledged", async () => {
    // Several writers at once, so that the change feed has something to carry while the reads come.
    const worker = async (w: number) => {
      for (let i = 0; i < ROUNDS; i++) {
        const [writer, reader] = (i + w) % 2 === 0 ? [a, b] : [b, a];
        const name = `c-${w}-${i}`;
        const created = await writer.call("POST", CM, { body: configMap(name, { round: String(i) }) });
        assert.equal(created.status, 201, created.text);
        const got = await reader.call("GET", `${CM}/${name}`);
        assert.equal(got.status, 200, `${name}: ${got.text}`);
        assert.equal(got.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
        const updated = await writer.call("PUT", `${CM}/${name}`, {
          body: { ...created.body, data: { round: "x" } },
        });
        assert.equal(updated.status, 200, updated.text);
        const list = await reader.call("GET", CM);
        assert.ok(
          Number(list.body.metadata.resourceVersion) >= Number(updated.body.metadata.resourceVersion),
        );
        const item = (list.body.items as { metadata: { name: string }; data: { round: string } }[]).find(
          (o) => o.metadata.name === name,
        );
        assert.equal(item?.data.round, "x", `${name}: the list holds the update`);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => worker(w)));
  });

  it("takes a resourceVersion from one replica as a bound and a start on the other", async () => {
    const created = await a.call("POST", CM, { body: configMap("bound", { v: "1" }) });
    const rv = created.body.metadata.resourceVersion as string;
    // Not older than: the other replica waits for the revision rather than answering older.
    const got = await b.call("GET", `${CM}/bound?resourceVersion=${rv}`);
    assert.equal(got.status, 200, got.text);
    const exact = await b.call("GET", `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 200, exact.text);
    assert.equal(exact.body.metadata.resourceVersion, rv);
    assert.ok(
      (exact.body.items as { metadata: { name: string } }[]).some((o) => o.metadata.name === "bound"),
    );
    // A watch on B from A's revision replays what came after it, whoever wrote it.
    const updated = await a.call("PUT", `${CM}/bound`, { body: { ...created.body, data: { v: "2" } } });
    const watch = await b.watch(`${CM}?watch=true&fieldSelector=metadata.name%3Dbound&resourceVersion=${rv}`);
    try {
      const next = await nextWithin(watch.events, 10_000);
      assert.ok(next && !next.done, "the event arrived");
      const event = next.value;
      assert.equal(event.type, "MODIFIED");
      const m = event.object.metadata as { name: string; resourceVersion: string };
      assert.equal(`${m.name} ${m.resourceVersion}`, `bound ${updated.body.metadata.resourceVersion}`);
    } finally {
      watch.close();
    }
  });
});
