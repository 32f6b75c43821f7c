// The gateway started with `--storage-backend=mongodb` against a test-started jongodb: kubectl
// 1.27/1.33 create, get, watch and delete; the data outliving a SIGKILLed gateway; start refused
// for a URI that does not parse and for a server that is not a replica set; hand-edited documents
// failing only their own object with an InternalError naming the key; and a connection loss
// (the server frozen with SIGSTOP, then resumed) answered with 503 and a failing
// /readyz until the driver reconnects, with watches going on after it and the failed write counted
// in mongodb_request_errors_total.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { MongoClient } from "mongodb";
import { ApiClient } from "./support/api-client.ts";
import {
  type GatewayProcess,
  kubectl,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { jongodbSkipReason, type MongoServer, startJongodb } from "./support/mongodb.ts";
import { parsePrometheusText } from "./support/prom-text.ts";
import { eventually } from "./support/watch.ts";

const CM = "/api/v1/namespaces/default/configmaps";

/** The value of one sample on the gateway's /metrics (0 when the series has none yet). */
async function sample(client: ApiClient, name: string, labels: Record<string, string>): Promise<number> {
  const res = await client.call("GET", "/metrics");
  assert.equal(res.status, 200, res.text);
  const family = parsePrometheusText(res.text).get(name);
  const found = family?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found?.value ?? 0;
}
const skip = jongodbSkipReason();

describe("the gateway over MongoDB (jongodb)", { skip }, () => {
  let server: MongoServer;
  let gw: GatewayProcess;
  let api: ApiClient;
  const database = `e2e_${randomUUID().slice(0, 8)}`;
  const args = (uri = server.uri, db = database) => [
    "--storage-backend=mongodb",
    `--mongodb-uri=${uri}`,
    `--mongodb-database=${db}`,
  ];

  before(async () => {
    server = await startJongodb();
    gw = await startGateway(args());
    api = new ApiClient(gw.kubeconfig);
  });
  after(async () => {
    await api?.close();
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    await server?.stop();
  });

  it("serves kubectl 1.27 and 1.33: create, get, watch, delete", async () => {
    const bins = oldestAndNewestKubectl();
    assert.ok(bins.length > 0, "kubectl binaries");
    for (const bin of bins) {
      const name = `k-${bin.replace(/\W/g, "")}`;
      const watch = spawn(bin, [`--kubeconfig=${gw.kubeconfig}`, "get", "cm", "-w", "-o", "name"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      watch.stdout.on("data", (d) => {
        out += d;
      });
      try {
        const made = await kubectl(bin, gw.kubeconfig, ["create", "configmap", name, "--from-literal=k=v"]);
        assert.equal(made.code, 0, made.stdout);
        const got = await kubectl(bin, gw.kubeconfig, ["get", "configmap", name, "-o", "jsonpath={.data.k}"]);
        assert.equal(got.stdout, "v");
        await eventually(() => out.includes(`configmap/${name}`), 15_000, "the object in kubectl's watch");
        const del = await kubectl(bin, gw.kubeconfig, ["delete", "configmap", name]);
        assert.equal(del.code, 0, del.stdout);
        const gone = await kubectl(bin, gw.kubeconfig, ["get", "configmap", name]);
        assert.match(gone.stdout, /NotFound/);
      } finally {
        watch.kill("SIGTERM");
      }
    }
  });

  it("keeps every acknowledged write across a SIGKILLed gateway, with revisions continuing", async () => {
    const acked = new Map<string, string>();
    let stop = false;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let n = 0; !stop; n++) {
        const name = `crash-${w}-${n}`;
        const res = await api
          .call("POST", CM, {
            body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { n: `${n}` } },
          })
          .catch(() => undefined);
        if (res?.status === 201) acked.set(name, res.body.metadata.resourceVersion);
        else return;
      }
    });
    await eventually(() => acked.size >= 40, 30_000, "writes before the kill");
    gw.child.kill("SIGKILL");
    stop = true;
    await Promise.all(writers);
    await api.close();
    const { dataDir, port } = gw;
    gw = await startGateway(args(), { dataDir, port });
    api = new ApiClient(gw.kubeconfig);
    const list = await api.call("GET", CM);
    assert.equal(list.status, 200);
    const stored = new Map<string, string>(
      list.body.items.map((o: { metadata: { name: string; resourceVersion: string } }) => [
        o.metadata.name,
        o.metadata.resourceVersion,
      ]),
    );
    for (const [name, rv] of acked) assert.equal(stored.get(name), rv, `${name} kept at its revision`);
    const next = await api.call("POST", CM, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after-crash" } },
    });
    assert.equal(next.status, 201, next.text);
    assert.ok(Number(next.body.metadata.resourceVersion) > Number(list.body.metadata.resourceVersion));
    // The log has one entry per revision, none lost or doubled by the crash.
    const client = new MongoClient(server.uri);
    try {
      const revs = (
        await client
          .db(database)
          .collection<{ _id: number }>("registry_log")
          .find({}, { projection: { _id: 1 } })
          .sort({ _id: 1 })
          .toArray()
      ).map((d) => d._id);
      for (let i = 1; i < revs.length; i++)
        assert.equal(revs[i], (revs[i - 1] as number) + 1, "contiguous revisions");
    } finally {
      await client.close();
    }
  });

  it("fails a hand-edited object with an InternalError naming its key, and nothing else", async () => {
    for (const name of ["bad-type", "bad-missing", "good"]) {
      const res = await api.call("POST", CM, {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "1" } },
      });
      assert.equal(res.status, 201);
    }
    const client = new MongoClient(server.uri);
    const objects = client.db(database).collection<Record<string, unknown>>("registry_objects");
    try {
      const key = (n: string) => `/core/configmaps/default/${n}`;
      const wrongType = await objects.findOne({ _id: key("bad-type") } as Record<string, unknown>);
      assert.ok(wrongType, "objects are kept one document per key");
      await objects.updateOne({ _id: key("bad-type") } as Record<string, unknown>, { $set: { value: 42 } });
      await objects.updateOne({ _id: key("bad-missing") } as Record<string, unknown>, {
        $unset: { modRevision: "" },
      });
      // A write reads the stored document: it fails and overwrites nothing.
      const current = await api.call("GET", `${CM}/bad-type`);
      const put = await api.call("PUT", `${CM}/bad-type`, { body: { ...current.body, data: { a: "2" } } });
      assert.equal(put.status, 500, put.text);
      assert.equal(put.body.reason, "InternalError");
      assert.match(put.body.message, /\/core\/configmaps\/default\/bad-type/);
      assert.equal(
        (await objects.findOne({ _id: key("bad-type") } as Record<string, unknown>))?.value,
        42,
        "left as it was",
      );
      const del = await api.call("DELETE", `${CM}/bad-missing`);
      assert.equal(del.status, 500, del.text);
      assert.match(del.body.message, /\/core\/configmaps\/default\/bad-missing/);
      // A gateway reading the store afresh fails those reads only.
      await api.close();
      assert.equal(await gw.stop(), 0);
      gw = await startGateway(args(), { dataDir: gw.dataDir, port: gw.port });
      api = new ApiClient(gw.kubeconfig);
      for (const name of ["bad-type", "bad-missing"]) {
        const got = await api.call("GET", `${CM}/${name}`);
        assert.equal(got.status, 500, got.text);
        assert.equal(got.body.kind, "Status");
        assert.equal(got.body.reason, "InternalError");
        assert.match(got.body.message, new RegExp(`/core/configmaps/default/${name}`));
      }
      assert.equal((await api.call("GET", `${CM}/good`)).status, 200);
      assert.equal((await api.call("GET", CM)).status, 200);
      const more = await api.call("POST", CM, {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "more" } },
      });
      assert.equal(more.status, 201);
    } finally {
      await client.close();
    }
  });

  it("refuses to start on a URI that does not parse, or a server that is not a replica set", async () => {
    const bad = await startGateway(args("mongodb//nope")).then(
      () => assert.fail("started"),
      (err: Error) => err.message,
    );
    assert.match(bad, /--mongodb-uri does not parse/);
    const standalone = await startJongodb({ replicaSet: false });
    try {
      const refused = await startGateway(args(standalone.uri)).then(
        () => assert.fail("started"),
        (err: Error) => err.message,
      );
      assert.match(refused, /not a replica set/);
      assert.doesNotMatch(refused, /\n\s+at /, "a message, not a stack");
    } finally {
      await standalone.stop();
    }
  });

  it("answers 503 and fails /readyz while the server is unreachable, then recovers and watches go on", async () => {
    // Short timeouts, so that the frozen server is noticed within seconds.
    const uri = `${server.uri}&socketTimeoutMS=2000&connectTimeoutMS=2000&heartbeatFrequencyMS=500&serverSelectionTimeoutMS=1000`;
    // A database of its own: jongodb does not roll back a transaction that fails at commit, so
    // two gateways writing one database there can leave a write that reports a conflict
    // (README: several gateways over jongodb are not safe); this test is about losing the server.
    const other = await startGateway(args(uri, `${database}_cut`));
    const client = new ApiClient(other.kubeconfig);
    let paused = false;
    // A failed assertion must not leave the watch open: closing the client would wait for it.
    let stopWatch = () => {};
    try {
      const made = await client.call("POST", CM, {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "before-cut" } },
      });
      assert.equal(made.status, 201, made.text);
      const watch = await client.watch(
        `${CM}?watch=true&resourceVersion=${made.body.metadata.resourceVersion}`,
      );
      stopWatch = () => watch.close();
      const createErrors = { operation: "create", type: "configmaps" };
      assert.equal(await sample(client, "mongodb_request_errors_total", createErrors), 0);
      server.pause();
      paused = true;
      await eventually(
        async () => (await client.call("GET", "/readyz")).status !== 200,
        20_000,
        "/readyz to fail",
      );
      const during = await client.call("POST", CM, {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "during-cut" } },
      });
      assert.equal(during.status, 503, during.text);
      assert.equal(during.body.kind, "Status");
      assert.equal(during.body.reason, "ServiceUnavailable");
      // Controllers writing ConfigMaps during the cut may add their own failures.
      assert.ok((await sample(client, "mongodb_request_errors_total", createErrors)) >= 1);
      server.resume();
      paused = false;
      await eventually(
        async () => (await client.call("GET", "/readyz")).status === 200,
        30_000,
        "/readyz to pass again",
      );
      const later = await client.call("POST", CM, {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after-cut" } },
      });
      assert.equal(later.status, 201, later.text);
      const seen: string[] = [];
      for await (const event of watch.events) {
        const name = (event.object.metadata as { name?: string } | undefined)?.name ?? "";
        seen.push(`${event.type} ${name}`);
        if (name === "after-cut" || event.type === "ERROR") break;
      }
      watch.close();
      // Either the watch went on without a gap, or it ended (410, or closed) for the client to
      // relist from where it was.
      const last = seen[seen.length - 1] ?? "";
      assert.ok(last === "ADDED after-cut" || !last.startsWith("ADDED"), seen.join(", "));
      assert.ok(!seen.includes("ADDED during-cut"), "the refused write never happened");
    } finally {
      if (paused) server.resume();
      stopWatch();
      await client.close();
      await other.stop();
      await rm(other.dataDir, { recursive: true, force: true });
    }
  });
});
