// Service cluster IPs and node ports with three gateways over one real etcd (issue 23): 300
// concurrent creates spread over the replicas never share an address or a port, what one replica
// frees another may take at once, and the repair pass frees a leak (taken in the store's record by
// no Service) and marks what a Service holds that the record lost.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { NODE_PORT_RECORD, SERVICE_IP_RECORD } from "../backends/builtin/index.ts";
import { type Bitmap, RangeRecord } from "../backends/builtin/range-record.ts";
import { ConflictError, type Storage } from "../backends/contract/index.ts";
import { createEtcdStorage } from "../backends/etcd/index.ts";
import type { ApiClient } from "./support/api-client.ts";
import { type EtcdServer, etcdSkipReason, startEtcd } from "./support/etcd.ts";
import { type Replicas, startReplicas } from "./support/replica-gateways.ts";
import { eventually } from "./support/watch.ts";

const SVC = "/api/v1/namespaces/default/services";
const IP_RANGE = "10.96.0.0/16";
const PORT_RANGE = "30000-32767";
const SERVICES = 300;
// Short, so a leak is freed within the test (three passes); long enough that no create under
// way on a busy machine is taken for one.
const REPAIR_INTERVAL = "4s";

type Svc = { metadata: { name: string }; spec: { clusterIP: string; ports: { nodePort?: number }[] } };

function serviceBody(name: string, spec: Record<string, unknown>) {
  return { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } };
}

describe("Service allocation across replicas over one etcd", { skip: etcdSkipReason() }, () => {
  let etcd: EtcdServer;
  let replicas: Replicas;
  let raw: Storage;
  let api: (i: number) => ApiClient;

  before(async () => {
    etcd = await startEtcd();
    replicas = await startReplicas(3, [
      "--storage-backend=etcd",
      `--etcd-servers=${etcd.endpoint}`,
      `--service-cluster-ip-range=${IP_RANGE}`,
      `--service-node-port-range=${PORT_RANGE}`,
      `--service-allocation-repair-interval=${REPAIR_INTERVAL}`,
    ]);
    api = (i) => replicas.clients[i % replicas.clients.length] as ApiClient;
    raw = await createEtcdStorage({ endpoints: [etcd.endpoint], keyPrefix: "/registry" });
  });
  after(async () => {
    await raw?.close();
    await replicas?.stop();
    await etcd?.stop();
  });

  const ipRecord = () => new RangeRecord(raw, SERVICE_IP_RECORD, IP_RANGE, 65534);
  const portRecord = () => new RangeRecord(raw, NODE_PORT_RECORD, PORT_RANGE, 2768);

  it(`never gives two of ${SERVICES} concurrent creates over three replicas one address or node port`, async () => {
    const results = await Promise.all(
      Array.from({ length: SERVICES }, (_, i) =>
        api(i).call("POST", SVC, {
          body: serviceBody(
            `many-${i}`,
            i % 3 === 0 ? { type: "NodePort" } : i % 3 === 1 ? {} : { type: "LoadBalancer" },
          ),
        }),
      ),
    );
    for (const res of results) assert.equal(res.status, 201, res.text);
    for (const i of [0, 1, 2]) {
      // A consistent list on each replica: every Service, each address and port once.
      const list = await api(i).call("GET", SVC);
      assert.equal(list.status, 200, list.text);
      const items = (list.body.items as Svc[]).filter((s) => s.metadata.name.startsWith("many-"));
      assert.equal(items.length, SERVICES);
      const ips = items.map((s) => s.spec.clusterIP);
      assert.equal(new Set(ips).size, SERVICES, "no cluster IP twice");
      const ports = items.flatMap((s) => s.spec.ports.map((p) => p.nodePort)).filter((p) => p !== undefined);
      assert.equal(ports.length, (SERVICES / 3) * 2);
      assert.equal(new Set(ports).size, ports.length, "no node port twice");
    }
    // The records in etcd hold exactly what the Services hold (the kubernetes Service included).
    const all = (await api(0).call("GET", "/api/v1/services")).body.items as Svc[];
    const ipBits = [...(await ipRecord().read()).bits.items()].length;
    assert.equal(ipBits, all.filter((s) => s.spec.clusterIP && s.spec.clusterIP !== "None").length);
    const portBits = [...(await portRecord().read()).bits.items()].length;
    assert.equal(portBits, all.flatMap((s) => s.spec.ports.filter((p) => p.nodePort)).length);
    // Deleted through whichever replica: the records keep only the kubernetes Service's address.
    const deleted = await Promise.all(
      Array.from({ length: SERVICES }, (_, i) => api(i + 1).call("DELETE", `${SVC}/many-${i}`)),
    );
    for (const res of deleted) assert.equal(res.status, 200, res.text);
    assert.deepEqual([...(await ipRecord().read()).bits.items()], [0]);
    assert.deepEqual([...(await portRecord().read()).bits.items()], []);
  });

  it("frees on one replica what another deleted, and refuses it while held", async () => {
    const body = serviceBody("fixed", {
      type: "NodePort",
      clusterIP: "10.96.200.1",
      ports: [{ port: 80, nodePort: 31999 }],
    });
    assert.equal((await api(0).call("POST", SVC, { body })).status, 201);
    const other = serviceBody("other", {
      type: "NodePort",
      clusterIP: "10.96.200.1",
      ports: [{ port: 80, nodePort: 31999 }],
    });
    const refused = await api(1).call("POST", SVC, { body: other });
    assert.equal(refused.status, 422, refused.text);
    assert.match(
      refused.body.message,
      /failed to allocate IP 10\.96\.200\.1: provided IP is already allocated/,
    );
    const port = await api(2).call("POST", SVC, {
      body: serviceBody("port", { type: "NodePort", ports: [{ port: 80, nodePort: 31999 }] }),
    });
    assert.equal(port.status, 422, port.text);
    assert.match(port.body.message, /provided port is already allocated/);
    // A dry run on one replica holds nothing afterwards for the others.
    const dry = await api(2).call("POST", `${SVC}?dryRun=All`, {
      body: serviceBody("dry", { clusterIP: "10.96.200.2" }),
    });
    assert.equal(dry.status, 201, dry.text);
    assert.equal(
      (await api(1).call("POST", SVC, { body: serviceBody("after-dry", { clusterIP: "10.96.200.2" }) }))
        .status,
      201,
    );
    // Deleted through A: B may take both at once.
    assert.equal((await api(0).call("DELETE", `${SVC}/fixed`)).status, 200);
    const taken = await api(1).call("POST", SVC, { body: other });
    assert.equal(taken.status, 201, taken.text);
    // A type change on C drops the node port; A may take it at once.
    const current = (await api(2).call("GET", `${SVC}/other`)).body;
    const changed = await api(2).call("PUT", `${SVC}/other`, {
      body: { ...current, spec: { ...current.spec, type: "ClusterIP", ports: [{ port: 80 }] } },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(
      (
        await api(0).call("POST", SVC, {
          body: serviceBody("port", { type: "NodePort", ports: [{ port: 80, nodePort: 31999 }] }),
        })
      ).status,
      201,
    );
  });

  it("repairs a leak (taken in the record, held by no Service) and an address the record lost", async () => {
    // What a crash between taking and storing leaves behind: 10.96.201.1 and node port 32500.
    // Offsets count from the address after the network's (10.96.0.1).
    const leakIp = 201 * 256;
    const leakPort = 32500 - 30000;
    const kept = await api(0).call("POST", SVC, { body: serviceBody("kept", { clusterIP: "10.96.202.1" }) });
    assert.equal(kept.status, 201, kept.text);
    const lostIp = 202 * 256;
    const edit = async (record: RangeRecord, change: (bits: Bitmap) => void) => {
      for (;;) {
        const now = await record.read();
        change(now.bits);
        try {
          await record.write(now.bits, now.revision);
          return;
        } catch (err) {
          // A replica wrote in between: again on what it stored.
          if (!(err instanceof ConflictError)) throw err;
        }
      }
    };
    await edit(ipRecord(), (bits) => {
      bits.set(leakIp);
      bits.clear(lostIp);
    });
    await edit(portRecord(), (bits) => bits.set(leakPort));
    const wantIp = () =>
      api(1).call("POST", SVC, { body: serviceBody("leaked-ip", { clusterIP: "10.96.201.1" }) });
    const first = await wantIp();
    assert.equal(first.status, 422, first.text);
    assert.match(first.body.message, /provided IP is already allocated/);
    // The lost address is marked again by the next pass, and stays refused.
    await eventually(
      async () => (await ipRecord().read()).bits.has(lostIp),
      30_000,
      "the lost address marked",
    );
    const dup = await api(2).call("POST", SVC, { body: serviceBody("dup", { clusterIP: "10.96.202.1" }) });
    assert.equal(dup.status, 422, dup.text);
    // Three passes later the leaks are free for any replica.
    await eventually(async () => (await wantIp()).status === 201, 60_000, "the leaked address freed");
    await eventually(
      async () =>
        (
          await api(2).call("POST", SVC, {
            body: serviceBody("leaked-port", { type: "NodePort", ports: [{ port: 80, nodePort: 32500 }] }),
          })
        ).status === 201,
      60_000,
      "the leaked node port freed",
    );
  });
});
