// The garbage collector when its view of the server breaks (issue 20, bad input): a collector
// running as a separate client (the gateway's own is off) reaches the gateway through a proxy
// that the test cuts. While cut it is out of step and decides nothing; changes made meanwhile are
// picked up when it comes back, and an owner it has never seen keeps its dependents. Then the
// gateway and its embedded store restart under it, and it carries on. A custom resource that
// goes away is dropped from what it watches without stopping the rest.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Registry } from "prom-client";
import { naming } from "../backends/naming/naming.ts";
import { ApiClient as LibraryClient } from "../plugins/client/index.ts";
import { ControllerClient, GarbageCollector } from "../plugins/controllers/index.ts";
import { ApiClient } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { freePort, type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const WAIT = 30_000;
const CM = "/api/v1/namespaces/default/configmaps";

/** A TCP relay to the gateway that can be cut (every connection dropped, new ones refused). */
class Relay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #cut = false;
  constructor(target: number) {
    this.#server = createServer((client) => {
      if (this.#cut) {
        client.destroy();
        return;
      }
      const upstream = connect(target, "127.0.0.1");
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on("close", () => this.#sockets.delete(s));
        s.on("error", () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  }
  listen(port: number): Promise<void> {
    return new Promise((resolve) => this.#server.listen(port, "127.0.0.1", resolve));
  }
  cut(): void {
    this.#cut = true;
    for (const s of this.#sockets) s.destroy();
  }
  restore(): void {
    this.#cut = false;
  }
  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

describe("garbage collector: lost watches and a restarted store", () => {
  let gw: GatewayProcess;
  let api: ApiClient;
  let relay: Relay;
  let gc: GarbageCollector;
  let client: ControllerClient;
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  const errors: string[] = [];
  const logs: { v: number; message: string; item?: unknown }[] = [];
  const metrics = new Registry();
  const syncErrors = async () =>
    Number(
      /garbagecollector_controller_resources_sync_error_total (\d+)/.exec(await metrics.metrics())?.[1] ?? -1,
    );
  const args = ["--enable-garbage-collector=false"];

  before(async () => {
    gw = await startGateway(args);
    api = new ApiClient(gw.kubeconfig);
    relay = new Relay(gw.port);
    const relayPort = await freePort();
    await relay.listen(relayPort);
    const config = (await readFile(gw.kubeconfig, "utf8")).replace(
      `https://127.0.0.1:${gw.port}`,
      `https://127.0.0.1:${relayPort}`,
    );
    const relayed = join(gw.dataDir, "relayed.kubeconfig");
    await writeFile(relayed, config);
    assert.ok(config.includes(`:${relayPort}`), "the kubeconfig names the relay");
    client = new ControllerClient(LibraryClient.fromKubeconfig(relayed, { timeoutMs: 5_000 }));
    gc = new GarbageCollector(client, {
      ignored: (group, resource) =>
        resource === "events" && (group === "" || group === naming().group("events")),
      workers: 4,
      resyncMs: 1_000,
      onError: (err, context) => errors.push(`${context}: ${err}`),
      log: (v, message, fields) => logs.push({ v, message, item: fields?.item }),
      metrics,
    });
    running = gc.run(stop.signal);
    await eventually(() => gc.synced, WAIT, "the collector synced");
  });
  after(async () => {
    stop.abort();
    await relay?.close();
    await running;
    await client?.close();
    await api?.close();
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  });

  async function cm(name: string, owner?: { name: string; uid: string }) {
    const ownerReferences = owner
      ? [{ apiVersion: "v1", kind: "ConfigMap", name: owner.name, uid: owner.uid }]
      : [];
    const r = await api.call("POST", CM, { body: { metadata: { name, ownerReferences } } });
    assert.equal(r.status, 201, r.text);
    return { name, uid: r.body.metadata.uid as string };
  }
  const status = async (name: string) => (await api.call("GET", `${CM}/${name}`)).status;
  const gone = (name: string) => eventually(async () => (await status(name)) === 404, WAIT, `${name} gone`);

  it("a cut connection pauses it; what changed meanwhile is handled on return, nothing else", async () => {
    const o1 = await cm("o1");
    await cm("d1", o1);
    await eventually(async () => gc.trackedObjects > 0 && (await status("d1")) === 200, WAIT, "d1 seen");
    assert.equal(await syncErrors(), 0);
    relay.cut();
    await eventually(() => !gc.synced, WAIT, "the collector out of step");
    await eventually(async () => (await syncErrors()) > 0, WAIT, "sync errors counted");
    // Made while the collector cannot see: an owner it has never seen, with a dependent.
    assert.equal((await api.call("DELETE", `${CM}/o1`)).status, 200);
    // Its owner is of another resource, whose monitor may list after the dependent's.
    const secret = await api.call("POST", "/api/v1/namespaces/default/secrets", {
      body: { metadata: { name: "o2" } },
    });
    assert.equal(secret.status, 201, secret.text);
    const d2 = await api.call("POST", CM, {
      body: {
        metadata: {
          name: "d2",
          ownerReferences: [{ apiVersion: "v1", kind: "Secret", name: "o2", uid: secret.body.metadata.uid }],
        },
      },
    });
    assert.equal(d2.status, 201, d2.text);
    await cm("d3", { name: "nobody", uid: randomUUID() });
    assert.equal(await status("d1"), 200, "nothing can be collected while cut");
    relay.restore();
    await eventually(() => gc.synced, WAIT, "the collector back in step");
    await gone("d1");
    await gone("d3");
    assert.equal(await status("d2"), 200, "an owner the collector had not seen keeps its dependent");
    // Each deletion decision is logged at upstream's verbosity 2.
    const decisions = logs.filter((l) => l.message === "Deleting object");
    assert.ok(
      decisions.some((l) => l.v === 2 && String(l.item).includes("name: d1")),
      JSON.stringify(decisions),
    );
  });

  it("the gateway and its store restart under it: it resyncs and carries on", async () => {
    assert.equal(await gw.stop(), 0);
    await eventually(() => !gc.synced, WAIT, "the collector out of step");
    gw = await startGateway(args, { dataDir: gw.dataDir, port: gw.port });
    await eventually(() => gc.synced, WAIT, "the collector back in step");
    assert.equal(await status("d2"), 200);
    assert.equal((await api.call("DELETE", "/api/v1/namespaces/default/secrets/o2")).status, 200);
    await gone("d2");
  });

  it("a custom resource that appears is watched; once its definition goes it is dropped and the rest goes on", async () => {
    const path = await createServedCrd(api, {
      apiextensions: naming().group("apiextensions"),
      group: "gc.example.com",
      kind: "Gadget",
      schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    });
    await eventually(() => gc.watchedResources.includes("gc.example.com/gadgets"), WAIT, "gadgets watched");
    const made = await api.call("POST", path, {
      body: { apiVersion: "gc.example.com/v1", kind: "Gadget", metadata: { name: "g" } },
    });
    assert.equal(made.status, 201, made.text);
    await cm("gadget-dep", { name: "g", uid: made.body.metadata.uid });
    const del = await api.call(
      "DELETE",
      `/apis/${naming().group("apiextensions")}/v1/customresourcedefinitions/gadgets.gc.example.com`,
    );
    assert.equal(del.status, 200, del.text);
    await eventually(() => !gc.watchedResources.includes("gc.example.com/gadgets"), WAIT, "gadgets dropped");
    await eventually(() => gc.synced, WAIT, "in step");
    await cm("after-crd", { name: "nobody", uid: randomUUID() });
    await gone("after-crd");
  });
});
