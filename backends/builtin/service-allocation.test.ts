import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { JsonObject } from "../common/json.ts";
import { isStorageError, type Storage, UnavailableError } from "../contract/index.ts";
import { openEmbeddedStorage } from "../embedded/index.ts";
import { MemoryStorage } from "../memory/index.ts";
import { Bitmap } from "./range-record.ts";
import {
  NODE_PORT_RECORD,
  parseCidr,
  parseNodePortRange,
  SERVICE_IP_RECORD,
  ServiceAllocator,
  ServiceRangeError,
  type ServiceRanges,
} from "./service-allocation.ts";

function service(name: string, spec: JsonObject): JsonObject {
  return { metadata: { name, namespace: "default" }, spec };
}

const BACKENDS: [string, () => Promise<Storage>][] = [
  ["memory", async () => new MemoryStorage()],
  [
    "embedded",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "alloc-"));
      dirs.push(dir);
      return openEmbeddedStorage({ dir });
    },
  ],
];
const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const key = (svc: JsonObject) => `/core/services/default/${(svc.metadata as JsonObject).name}`;

/** An allocator with no periodic repair (tests run passes themselves) and its reports. */
function allocator(ranges?: ServiceRanges): { a: ServiceAllocator; reports: string[] } {
  const reports: string[] = [];
  return {
    a: new ServiceAllocator(ranges, { repairIntervalMs: 0, report: (m) => reports.push(m) }),
    reports,
  };
}

/** What the registry does for a create: allocate, store, settle. Returns the detail of each cause. */
async function create(a: ServiceAllocator, s: Storage, svc: JsonObject): Promise<string[]> {
  const { causes, settle } = await a.allocate(s, svc, undefined);
  if (causes.length > 0) return causes.map((c) => c.detail ?? "");
  const kv = await s.create(key(svc), JSON.stringify(svc));
  await settle(kv.modRevision);
  return [];
}

/** An update of a stored Service to `next`, as the registry does it. */
async function update(a: ServiceAllocator, s: Storage, next: JsonObject): Promise<string[]> {
  const current = await s.get(key(next));
  assert.ok(current);
  const { causes, settle } = await a.allocate(s, next, JSON.parse(current.value) as JsonObject);
  if (causes.length > 0) return causes.map((c) => c.detail ?? "");
  const kv = await s.update(key(next), JSON.stringify(next), current.modRevision);
  await settle(kv.modRevision);
  return [];
}

async function remove(a: ServiceAllocator, s: Storage, svc: JsonObject): Promise<void> {
  const { prev } = await s.delete(key(svc));
  await a.release(s, JSON.parse(prev.value) as JsonObject);
}

const spec = (svc: JsonObject) => svc.spec as JsonObject;
const nodePorts = (svc: JsonObject) => (spec(svc).ports as JsonObject[]).map((p) => p.nodePort);

async function record(s: Storage, k: string): Promise<{ range: string; data: string }> {
  const kv = await s.get(k);
  assert.ok(kv, k);
  return JSON.parse(kv.value) as { range: string; data: string };
}

describe("ServiceAllocator", () => {
  it("gives a ClusterIP Service an address in range, with its family and policy", async () => {
    const { a } = allocator({ clusterIpRange: "10.96.0.0/28", nodePortRange: "30000-30010" });
    const s = new MemoryStorage();
    const svc = service("a", { type: "ClusterIP", ports: [{ port: 80 }] });
    assert.deepEqual(await create(a, s, svc), []);
    const ip = spec(svc).clusterIP as string;
    assert.match(ip, /^10\.96\.0\.(\d+)$/);
    const last = Number(ip.split(".")[3]);
    assert.ok(last >= 1 && last <= 14, ip);
    assert.deepEqual(spec(svc).clusterIPs, [ip]);
    assert.deepEqual(spec(svc).ipFamilies, ["IPv4"]);
    assert.equal(spec(svc).ipFamilyPolicy, "SingleStack");
    assert.equal((spec(svc).ports as JsonObject[])[0]?.nodePort, undefined);
  });

  it("keeps allocations in upstream's RangeAllocation records (range and big-endian bitmap)", async () => {
    const { a } = allocator({ clusterIpRange: "10.96.0.0/24", nodePortRange: "30000-30100" });
    const s = new MemoryStorage();
    assert.deepEqual(await create(a, s, service("x", { clusterIP: "10.96.0.1" })), []);
    assert.deepEqual(await create(a, s, service("y", { clusterIP: "10.96.0.10" })), []);
    const ips = await record(s, SERVICE_IP_RECORD);
    assert.equal(ips.range, "10.96.0.0/24");
    // Offsets 0 and 9 (from the address after the network's): bits 0 and 9 of a big integer.
    assert.equal(ips.data, Buffer.from([0x02, 0x01]).toString("base64"));
    assert.equal((await record(s, NODE_PORT_RECORD)).range, "30000-30100");
    assert.equal(Bitmap.fromBase64(16, ips.data).has(9), true);
  });

  it("refuses a requested address that is taken or out of range, and frees it once the owner is deleted", async () => {
    const { a } = allocator({ clusterIpRange: "10.96.0.0/24", nodePortRange: "30000-32767" });
    const s = new MemoryStorage();
    const owner = service("owner", { clusterIP: "10.96.0.10" });
    assert.deepEqual(await create(a, s, owner), []);
    assert.deepEqual(await create(a, s, service("b", { clusterIP: "10.96.0.10" })), [
      "failed to allocate IP 10.96.0.10: provided IP is already allocated",
    ]);
    assert.deepEqual(await create(a, s, service("c", { clusterIP: "10.97.0.1" })), [
      "failed to allocate IP 10.97.0.1: the provided IP (10.97.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/24",
    ]);
    await remove(a, s, owner);
    assert.deepEqual(await create(a, s, service("b", { clusterIP: "10.96.0.10" })), []);
  });

  it("never hands out an address twice, and says when the range is full", async () => {
    const { a } = allocator({ clusterIpRange: "10.96.0.0/29", nodePortRange: "30000-30001" });
    const s = new MemoryStorage();
    const made = Array.from({ length: 6 }, (_, i) => service(`s${i}`, {}));
    // Concurrent allocations in one process go out together and still never collide.
    assert.deepEqual(
      await Promise.all(made.map((svc) => create(a, s, svc))),
      made.map(() => []),
    );
    assert.equal(new Set(made.map((svc) => spec(svc).clusterIP)).size, 6);
    assert.deepEqual(await create(a, s, service("s7", {})), [
      "failed to allocate a serviceIP: range is full",
    ]);
  });

  it("frees at once what a write that stored nothing took (dry run, failed write)", async () => {
    const { a } = allocator({ clusterIpRange: "10.96.0.0/24", nodePortRange: "30000-30010" });
    const s = new MemoryStorage();
    const want = () =>
      service("w", { type: "NodePort", clusterIP: "10.96.0.20", ports: [{ port: 80, nodePort: 30005 }] });
    const first = await a.allocate(s, want(), undefined);
    assert.deepEqual(first.causes, []);
    // Held while the write is under way.
    assert.equal((await a.allocate(s, want(), undefined)).causes.length, 1);
    await first.settle(undefined);
    assert.deepEqual(await create(a, s, want()), []);
  });

  it("a request refused for its node port holds no address", async () => {
    const { a } = allocator({ clusterIpRange: "10.96.0.0/24", nodePortRange: "30000-30010" });
    const s = new MemoryStorage();
    assert.deepEqual(
      await create(a, s, service("o", { type: "NodePort", ports: [{ port: 80, nodePort: 30001 }] })),
      [],
    );
    const bad = service("b", {
      type: "NodePort",
      clusterIP: "10.96.0.7",
      ports: [{ port: 80, nodePort: 30001 }],
    });
    assert.deepEqual(await create(a, s, bad), ["provided port is already allocated"]);
    assert.deepEqual(await create(a, s, service("c", { clusterIP: "10.96.0.7" })), []);
  });

  it("gives the address back when the node ports cannot be written", async () => {
    const { a } = allocator({ clusterIpRange: "10.96.0.0/24", nodePortRange: "30000-30010" });
    const inner = new MemoryStorage();
    let failPorts = false;
    const s = new Proxy(inner, {
      get(target, property) {
        if (property === "update" && failPorts)
          return (k: string, v: string, r: number) =>
            k === NODE_PORT_RECORD
              ? Promise.reject(new UnavailableError("etcd went away"))
              : target.update(k, v, r);
        const value: unknown = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    assert.deepEqual(await create(a, s, service("first", { type: "NodePort", ports: [{ port: 80 }] })), []);
    failPorts = true;
    const svc = service("n", { type: "NodePort", clusterIP: "10.96.0.9", ports: [{ port: 80 }] });
    await assert.rejects(a.allocate(s, svc, undefined), UnavailableError);
    failPorts = false;
    assert.deepEqual(await create(a, s, service("c", { clusterIP: "10.96.0.9" })), []);
  });

  it("keeps the address on update, frees what a type change drops, leaves headless and ExternalName without one", async () => {
    const { a } = allocator({ clusterIpRange: "10.0.0.0/24", nodePortRange: "30000-30003" });
    const s = new MemoryStorage();
    const svc = service("a", {
      type: "NodePort",
      clusterIP: "10.0.0.5",
      ports: [{ port: 80, nodePort: 30002 }],
    });
    assert.deepEqual(await create(a, s, svc), []);
    const same = service("a", { type: "NodePort", ports: [{ port: 80, nodePort: 30002 }] });
    assert.deepEqual(await update(a, s, same), []);
    assert.equal(spec(same).clusterIP, "10.0.0.5");
    // NodePort -> ClusterIP gives the node port back; -> ExternalName the address too.
    assert.deepEqual(
      await update(a, s, service("a", { type: "ClusterIP", clusterIP: "10.0.0.5", ports: [{ port: 80 }] })),
      [],
    );
    assert.deepEqual(
      await create(a, s, service("p", { type: "NodePort", ports: [{ port: 80, nodePort: 30002 }] })),
      [],
    );
    const external = service("a", { type: "ExternalName", externalName: "example.com", clusterIP: "" });
    assert.deepEqual(await update(a, s, external), []);
    assert.equal(spec(external).clusterIP, undefined);
    assert.deepEqual(await create(a, s, service("q", { clusterIP: "10.0.0.5" })), []);
    const headless = service("h", { clusterIP: "None" });
    assert.deepEqual(await create(a, s, headless), []);
    assert.deepEqual(spec(headless).clusterIPs, ["None"]);
  });

  it("allocates node ports for NodePort Services and checks requested ones", async () => {
    const { a } = allocator({ clusterIpRange: "10.0.0.0/24", nodePortRange: "30000-30002" });
    const s = new MemoryStorage();
    assert.deepEqual(
      await create(a, s, service("o", { type: "NodePort", ports: [{ port: 80, nodePort: 30000 }] })),
      [],
    );
    const clash = await a.allocate(
      s,
      service("n", { type: "NodePort", ports: [{ port: 80 }, { port: 81, nodePort: 30000 }] }),
      undefined,
    );
    assert.deepEqual(
      clash.causes.map((e) => [e.field, e.detail]),
      [["spec.ports[1].nodePort", "provided port is already allocated"]],
    );
    const ok = service("m", { type: "LoadBalancer", ports: [{ port: 80 }, { port: 443, nodePort: 30002 }] });
    assert.deepEqual(await create(a, s, ok), []);
    assert.deepEqual(nodePorts(ok), [30001, 30002]);
    assert.deepEqual(
      await create(a, s, service("x", { type: "NodePort", ports: [{ port: 1, nodePort: 80 }] })),
      ["provided port is not in the valid range. The range of valid ports is 30000-30002"],
    );
    assert.deepEqual(await create(a, s, service("f", { type: "NodePort", ports: [{ port: 1 }] })), [
      "failed to allocate a nodePort: range is full",
    ]);
  });

  it("gives a Local load balancer a health check node port, checks a requested one, keeps it on update", async () => {
    const { a } = allocator({ clusterIpRange: "10.0.0.0/24", nodePortRange: "30000-30003" });
    const s = new MemoryStorage();
    assert.deepEqual(
      await create(a, s, service("o", { type: "NodePort", ports: [{ port: 80, nodePort: 30000 }] })),
      [],
    );
    const local = {
      type: "LoadBalancer",
      externalTrafficPolicy: "Local",
      ports: [{ port: 80, nodePort: 30001 }],
    };
    const lb = service("lb", structuredClone(local));
    assert.deepEqual(await create(a, s, lb), []);
    const health = spec(lb).healthCheckNodePort as number;
    assert.ok(health === 30002 || health === 30003, String(health));
    assert.deepEqual(
      await create(
        a,
        s,
        service("t", { ...structuredClone(local), ports: [{ port: 80 }], healthCheckNodePort: 30000 }),
      ),
      ["failed to allocate requested HealthCheck NodePort 30000: provided port is already allocated"],
    );
    const own = allocator({ clusterIpRange: "10.0.0.0/24", nodePortRange: "30000-30003" }).a;
    assert.deepEqual(
      await create(
        own,
        new MemoryStorage(),
        service("u", { ...structuredClone(local), healthCheckNodePort: 30001 }),
      ),
      ["failed to allocate requested HealthCheck NodePort 30001: provided port is already allocated"],
    );
    const updated = service("lb", { ...structuredClone(local), healthCheckNodePort: health });
    assert.deepEqual(await update(a, s, updated), []);
    assert.equal(spec(updated).healthCheckNodePort, health);
    assert.deepEqual(
      await create(a, s, service("n", { type: "NodePort", ports: [{ port: 80, nodePort: health }] })),
      ["provided port is already allocated"],
    );
    // The Cluster policy needs no health check port: the update frees it.
    const cluster = service("lb", {
      type: "LoadBalancer",
      externalTrafficPolicy: "Cluster",
      ports: [{ port: 80, nodePort: 30001 }],
    });
    assert.deepEqual(await update(a, s, cluster), []);
    assert.deepEqual(
      await create(a, s, service("n", { type: "NodePort", ports: [{ port: 80, nodePort: health }] })),
      [],
    );
  });

  it("allocates no node ports for a load balancer that does without them", async () => {
    const { a } = allocator({ clusterIpRange: "10.0.0.0/24", nodePortRange: "30000-30003" });
    const svc = service("lb", {
      type: "LoadBalancer",
      allocateLoadBalancerNodePorts: false,
      ports: [{ port: 80 }, { port: 81, nodePort: 30003 }],
    });
    assert.deepEqual(await create(a, new MemoryStorage(), svc), []);
    assert.deepEqual(nodePorts(svc), [undefined, 30003]);
  });

  it("works with IPv6 ranges", async () => {
    const { a } = allocator({ clusterIpRange: "fd00:10::/120", nodePortRange: "30000-32767" });
    const svc = service("v6", {});
    assert.deepEqual(await create(a, new MemoryStorage(), svc), []);
    assert.match(spec(svc).clusterIP as string, /^fd00:10::[0-9a-f]{1,2}$/);
    assert.deepEqual(spec(svc).ipFamilies, ["IPv6"]);
    assert.equal(a.firstIp, "fd00:10::1");
  });
});

describe("ServiceAllocator over each local store", () => {
  for (const [backend, open] of BACKENDS) {
    it(`never hands out an address or port twice between two allocators over one store (${backend})`, async (t) => {
      const ranges = { clusterIpRange: "10.96.0.0/24", nodePortRange: "30000-30199" };
      const s = await open();
      t.after(() => s.close());
      const replicas = [allocator(ranges).a, allocator(ranges).a];
      const made = Array.from({ length: 200 }, (_, i) =>
        service(`s${i}`, i % 2 === 0 ? { type: "NodePort", ports: [{ port: 80 }] } : {}),
      );
      const results = await Promise.all(
        made.map((svc, i) => create(replicas[i % 2] as ServiceAllocator, s, svc)),
      );
      assert.deepEqual(
        results,
        made.map(() => []),
      );
      assert.equal(new Set(made.map((svc) => spec(svc).clusterIP)).size, 200);
      const ports = made.filter((_, i) => i % 2 === 0).map((svc) => nodePorts(svc)[0]);
      assert.equal(new Set(ports).size, 100);
      // One deletes, the other may take it at once.
      await remove(replicas[0] as ServiceAllocator, s, made[0] as JsonObject);
      const again = service("again", {
        type: "NodePort",
        clusterIP: spec(made[0] as JsonObject).clusterIP,
        ports: [{ port: 80, nodePort: ports[0] }],
      });
      assert.deepEqual(await create(replicas[1] as ServiceAllocator, s, again), []);
    });
  }
});

describe("ServiceAllocator repair", () => {
  const ranges = { clusterIpRange: "10.0.0.0/24", nodePortRange: "30000-30010" };

  it("initializes the records from the Services already stored", async () => {
    const s = new MemoryStorage();
    // Services stored before any record exists (an older server's store).
    const old = service("old", {
      type: "NodePort",
      clusterIP: "10.0.0.9",
      clusterIPs: ["10.0.0.9"],
      ports: [{ port: 80, nodePort: 30004 }],
    });
    await s.create(key(old), JSON.stringify(old));
    const { a } = allocator(ranges);
    assert.deepEqual(await create(a, s, service("n", { clusterIP: "10.0.0.9" })), [
      "failed to allocate IP 10.0.0.9: provided IP is already allocated",
    ]);
    assert.deepEqual(
      await create(a, s, service("p", { type: "NodePort", ports: [{ port: 80, nodePort: 30004 }] })),
      ["provided port is already allocated"],
    );
  });

  it("marks what a Service holds that the record misses, and frees a leak after three passes", async () => {
    const s = new MemoryStorage();
    const { a, reports } = allocator(ranges);
    const kept = service("kept", {
      type: "NodePort",
      clusterIP: "10.0.0.3",
      ports: [{ port: 80, nodePort: 30003 }],
    });
    assert.deepEqual(await create(a, s, kept), []);
    // A record that lost 10.0.0.3 (offset 2) and holds 10.0.0.4 (offset 3) for no Service; and
    // a crash after taking 30006 and before storing its Service.
    const ips = await s.get(SERVICE_IP_RECORD);
    assert.ok(ips);
    const bits = new Bitmap(254);
    bits.set(3);
    await s.update(
      SERVICE_IP_RECORD,
      JSON.stringify({ ...JSON.parse(ips.value), data: bits.toBase64() }),
      ips.modRevision,
    );
    const leaked = await a.allocate(
      s,
      service("lost", { type: "NodePort", ports: [{ port: 80, nodePort: 30006 }] }),
      undefined,
    );
    assert.deepEqual(leaked.causes, []);
    // The lost write's port is still taken, the address the record lost is not yet marked.
    assert.deepEqual(
      await create(a, s, service("x", { type: "NodePort", ports: [{ port: 80, nodePort: 30006 }] })),
      ["provided port is already allocated"],
    );
    await a.repair(s);
    assert.ok(
      reports.includes("the cluster IP 10.0.0.3 of Service default/kept was not allocated; repairing"),
      reports.join("\n"),
    );
    assert.ok(
      reports.includes("the node port 30006 may have leaked: flagging for later clean up"),
      reports.join("\n"),
    );
    assert.deepEqual(await create(a, s, service("y", { clusterIP: "10.0.0.3" })), [
      "failed to allocate IP 10.0.0.3: provided IP is already allocated",
    ]);
    assert.deepEqual(await create(a, s, service("z", { clusterIP: "10.0.0.4" })), [
      "failed to allocate IP 10.0.0.4: provided IP is already allocated",
    ]);
    await a.repair(s);
    assert.deepEqual(
      await create(a, s, service("x", { type: "NodePort", ports: [{ port: 80, nodePort: 30006 }] })),
      ["provided port is already allocated"],
    );
    await a.repair(s);
    assert.ok(
      reports.includes("the node port 30006 appears to have leaked: cleaning up"),
      reports.join("\n"),
    );
    // The freed address first: "x" takes a random one, which could otherwise be 10.0.0.4.
    assert.deepEqual(await create(a, s, service("z", { clusterIP: "10.0.0.4" })), []);
    assert.deepEqual(
      await create(a, s, service("x", { type: "NodePort", ports: [{ port: 80, nodePort: 30006 }] })),
      [],
    );
  });

  it("rebuilds a record removed by hand, or one of another range, from the Services", async () => {
    const s = new MemoryStorage();
    const { a, reports } = allocator(ranges);
    const kept = service("kept", { clusterIP: "10.0.0.7" });
    assert.deepEqual(await create(a, s, kept), []);
    await s.delete(SERVICE_IP_RECORD);
    // A write against the cached copy finds it gone: rebuilt, and the pick made again.
    const fresh = service("fresh", {});
    assert.deepEqual(await create(a, s, fresh), []);
    assert.notEqual(spec(fresh).clusterIP, "10.0.0.7");
    await s.delete(SERVICE_IP_RECORD);
    assert.deepEqual(await create(a, s, service("y", { clusterIP: "10.0.0.7" })), [
      "failed to allocate IP 10.0.0.7: provided IP is already allocated",
    ]);
    // Another server's range: a new allocator's first pass rewrites it for its own.
    const ipsKv = await s.get(SERVICE_IP_RECORD);
    assert.ok(ipsKv);
    await s.update(
      SERVICE_IP_RECORD,
      JSON.stringify({ ...JSON.parse(ipsKv.value), range: "10.1.0.0/24" }),
      ipsKv.modRevision,
    );
    const { a: b, reports: bReports } = allocator(ranges);
    assert.deepEqual(await create(b, s, service("z", { clusterIP: "10.0.0.7" })), [
      "failed to allocate IP 10.0.0.7: provided IP is already allocated",
    ]);
    assert.equal((await record(s, SERVICE_IP_RECORD)).range, "10.0.0.0/24");
    assert.ok(
      bReports.some((r) => r.startsWith("the cluster IP allocation record is for the range 10.1.0.0/24")),
      bReports.join("\n"),
    );
    // Another range again: until its own repair pass, the first allocator refuses to allocate.
    const again = await s.get(SERVICE_IP_RECORD);
    assert.ok(again);
    await s.update(
      SERVICE_IP_RECORD,
      JSON.stringify({ ...JSON.parse(again.value), range: "10.1.0.0/24" }),
      again.modRevision,
    );
    await assert.rejects(a.allocate(s, service("w", {}), undefined), (err: Error) => {
      assert.ok(isStorageError(err, "Internal"));
      assert.equal(
        err.message,
        "the allocation record /ranges/serviceips is for the range 10.1.0.0/24, not this server's 10.0.0.0/24",
      );
      return true;
    });
    await a.repair(s);
    assert.equal((await record(s, SERVICE_IP_RECORD)).range, "10.0.0.0/24");
    const other = service("o", {});
    assert.deepEqual(await create(a, s, other), []);
    assert.notEqual(spec(other).clusterIP, "10.0.0.7");
    assert.deepEqual(
      reports.filter((r) => r.includes("several")),
      [],
    );
  });
});

describe("range flags", () => {
  it("rejects malformed or tiny ranges", () => {
    for (const bad of ["10.0.0.0", "10.0.0.0/33", "300.0.0.0/24", "10.0.0.0/31", "x/24"]) {
      assert.throws(() => parseCidr(bad), ServiceRangeError, bad);
    }
    assert.equal(parseCidr("10.0.0.5/24").text, "10.0.0.0/24");
    assert.equal(parseCidr("fd00:10:0::7/120").text, "fd00:10::/120");
    assert.deepEqual(parseNodePortRange("30000-32767"), { first: 30000, last: 32767 });
    assert.deepEqual(parseNodePortRange("30000+10"), { first: 30000, last: 30010 });
    for (const bad of ["0-10", "300-200", "a-b", "1-70000"]) {
      assert.throws(() => parseNodePortRange(bad), ServiceRangeError, bad);
    }
  });
});
