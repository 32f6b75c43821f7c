import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../common/json.ts";
import { parseCidr, parseNodePortRange, ServiceAllocator, ServiceRangeError } from "./service-allocation.ts";

function service(name: string, spec: JsonObject): JsonObject {
  return { metadata: { name, namespace: "default" }, spec };
}

describe("ServiceAllocator", () => {
  it("gives a ClusterIP Service an address in range, with its family and policy", () => {
    const a = new ServiceAllocator({ clusterIpRange: "10.96.0.0/28", nodePortRange: "30000-30010" });
    const svc = service("a", { type: "ClusterIP", ports: [{ port: 80 }] });
    assert.deepEqual(a.allocate(svc, undefined, []), []);
    const spec = svc.spec as JsonObject;
    const ip = spec.clusterIP as string;
    assert.match(ip, /^10\.96\.0\.(\d+)$/);
    const last = Number(ip.split(".")[3]);
    assert.ok(last >= 1 && last <= 14, ip);
    assert.deepEqual(spec.clusterIPs, [ip]);
    assert.deepEqual(spec.ipFamilies, ["IPv4"]);
    assert.equal(spec.ipFamilyPolicy, "SingleStack");
    assert.equal((spec.ports as JsonObject[])[0]?.nodePort, undefined);
  });

  it("refuses a requested address that is taken or out of range, and frees it once the owner is gone", () => {
    const a = new ServiceAllocator({ clusterIpRange: "10.96.0.0/24", nodePortRange: "30000-32767" });
    const owner = service("owner", { clusterIP: "10.96.0.10", clusterIPs: ["10.96.0.10"] });
    const taken = a.allocate(service("b", { clusterIP: "10.96.0.10" }), undefined, [owner]);
    assert.deepEqual(
      taken.map((e) => e.detail),
      ["failed to allocate IP 10.96.0.10: provided IP is already allocated"],
    );
    const outside = a.allocate(service("c", { clusterIP: "10.97.0.1" }), undefined, [owner]);
    assert.equal(
      outside[0]?.detail,
      "failed to allocate IP 10.97.0.1: the provided IP (10.97.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/24",
    );
    assert.deepEqual(a.allocate(service("b", { clusterIP: "10.96.0.10" }), undefined, []), []);
  });

  it("never hands out an address twice while a write is not visible yet", () => {
    const a = new ServiceAllocator({ clusterIpRange: "10.96.0.0/29", nodePortRange: "30000-30001" });
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const svc = service(`s${i}`, {});
      assert.deepEqual(a.allocate(svc, undefined, []), []);
      seen.add((svc.spec as JsonObject).clusterIP as string);
    }
    assert.equal(seen.size, 6);
    const full = a.allocate(service("s7", {}), undefined, []);
    assert.equal(full[0]?.detail, "failed to allocate a serviceIP: range is full");
  });

  it("holds a write's picks until a list shows how the write ended", () => {
    const a = new ServiceAllocator({ clusterIpRange: "10.96.0.0/24", nodePortRange: "30000-30010" });
    const want = () =>
      service("w", { type: "NodePort", clusterIP: "10.96.0.20", ports: [{ port: 80, nodePort: 30005 }] });
    const clash = (listRevision: number) => a.reserve(want(), undefined, [], listRevision).causes.length;
    // Nothing stored (a dry run, a failed write): free at once.
    a.reserve(want(), undefined, [], 1).settle(undefined);
    const first = a.reserve(want(), undefined, [], 1);
    assert.deepEqual(first.causes, []);
    // In flight, or stored at revision 7 but listed before it: still held.
    assert.equal(clash(1), 1);
    first.settle(7);
    assert.equal(clash(6), 1);
    // A list at revision 7 or later shows the Service, or that it is gone since: the hold ends.
    assert.equal(clash(7), 0);
  });

  it("keeps the address on update, leaves headless and ExternalName Services without one", () => {
    const a = new ServiceAllocator();
    const old = service("a", { clusterIP: "10.0.0.5", clusterIPs: ["10.0.0.5"] });
    const updated = service("a", { type: "ClusterIP" });
    assert.deepEqual(a.allocate(updated, old, [old]), []);
    assert.equal((updated.spec as JsonObject).clusterIP, "10.0.0.5");
    const headless = service("h", { clusterIP: "None" });
    assert.deepEqual(a.allocate(headless, undefined, []), []);
    assert.deepEqual((headless.spec as JsonObject).clusterIPs, ["None"]);
    const external = service("e", { type: "ExternalName", externalName: "example.com", clusterIP: "" });
    assert.deepEqual(a.allocate(external, undefined, []), []);
    assert.equal((external.spec as JsonObject).clusterIP, undefined);
  });

  it("allocates node ports for NodePort Services and checks requested ones", () => {
    const a = new ServiceAllocator({ clusterIpRange: "10.0.0.0/24", nodePortRange: "30000-30002" });
    const owner = service("o", { type: "NodePort", ports: [{ port: 80, nodePort: 30000 }] });
    const svc = service("n", { type: "NodePort", ports: [{ port: 80 }, { port: 81, nodePort: 30000 }] });
    const errs = a.allocate(svc, undefined, [owner]);
    assert.deepEqual(
      errs.map((e) => [e.field, e.detail]),
      [["spec.ports[1].nodePort", "provided port is already allocated"]],
    );
    const ok = service("m", { type: "LoadBalancer", ports: [{ port: 80 }, { port: 443, nodePort: 30002 }] });
    assert.deepEqual(a.allocate(ok, undefined, [owner]), []);
    const ports = (ok.spec as JsonObject).ports as JsonObject[];
    assert.equal(ports[0]?.nodePort, 30001);
    assert.equal(ports[1]?.nodePort, 30002);
    const outside = a.allocate(
      service("x", { type: "NodePort", ports: [{ port: 1, nodePort: 80 }] }),
      undefined,
      [],
    );
    assert.equal(
      outside[0]?.detail,
      "provided port is not in the valid range. The range of valid ports is 30000-30002",
    );
  });

  it("gives a Local load balancer a health check node port, checks a requested one, keeps it on update", () => {
    const a = new ServiceAllocator({ clusterIpRange: "10.0.0.0/24", nodePortRange: "30000-30003" });
    const owner = service("o", { type: "NodePort", ports: [{ port: 80, nodePort: 30000 }] });
    const local = {
      type: "LoadBalancer",
      externalTrafficPolicy: "Local",
      ports: [{ port: 80, nodePort: 30001 }],
    };
    const lb = service("lb", { ...local });
    assert.deepEqual(a.allocate(lb, undefined, [owner]), []);
    const health = (lb.spec as JsonObject).healthCheckNodePort as number;
    assert.ok(health === 30002 || health === 30003, String(health));
    const taken = a.allocate(
      service("t", { ...local, ports: [{ port: 80 }], healthCheckNodePort: 30000 }),
      undefined,
      [owner],
    );
    assert.deepEqual(
      taken.map((e) => [e.field, e.detail]),
      [
        [
          "spec.healthCheckNodePort",
          "failed to allocate requested HealthCheck NodePort 30000: provided port is already allocated",
        ],
      ],
    );
    const own = new ServiceAllocator({
      clusterIpRange: "10.0.0.0/24",
      nodePortRange: "30000-30003",
    }).allocate(service("u", { ...local, healthCheckNodePort: 30001 }), undefined, []);
    assert.equal(
      own[0]?.detail,
      "failed to allocate requested HealthCheck NodePort 30001: provided port is already allocated",
    );
    // Stored, the Service holds its port; an update keeps it, and a Service without one frees it.
    const stored = structuredClone(lb);
    const updated = service("lb", { ...local, healthCheckNodePort: health });
    assert.deepEqual(a.allocate(updated, stored, [owner, stored]), []);
    assert.equal((updated.spec as JsonObject).healthCheckNodePort, health);
    const elsewhere = service("n", { type: "NodePort", ports: [{ port: 80, nodePort: health }] });
    assert.equal(a.allocate(elsewhere, undefined, [owner, stored]).length, 1);
    const cluster = service("lb", {
      type: "LoadBalancer",
      externalTrafficPolicy: "Cluster",
      ports: [{ port: 80, nodePort: 30001 }],
    });
    assert.deepEqual(
      a.allocate(service("n", { type: "NodePort", ports: [{ port: 80, nodePort: health }] }), undefined, [
        owner,
        cluster,
      ]),
      [],
    );
  });

  it("allocates no node ports for a load balancer that does without them", () => {
    const a = new ServiceAllocator({ clusterIpRange: "10.0.0.0/24", nodePortRange: "30000-30003" });
    const svc = service("lb", {
      type: "LoadBalancer",
      allocateLoadBalancerNodePorts: false,
      ports: [{ port: 80 }, { port: 81, nodePort: 30003 }],
    });
    assert.deepEqual(a.allocate(svc, undefined, []), []);
    const ports = (svc.spec as JsonObject).ports as JsonObject[];
    assert.deepEqual(
      ports.map((p) => p.nodePort),
      [undefined, 30003],
    );
  });

  it("works with IPv6 ranges", () => {
    const a = new ServiceAllocator({ clusterIpRange: "fd00:10::/120", nodePortRange: "30000-32767" });
    const svc = service("v6", {});
    assert.deepEqual(a.allocate(svc, undefined, []), []);
    assert.match((svc.spec as JsonObject).clusterIP as string, /^fd00:10::[0-9a-f]{1,2}$/);
    assert.deepEqual((svc.spec as JsonObject).ipFamilies, ["IPv6"]);
    assert.equal(a.firstIp, "fd00:10::1");
  });
});

describe("range flags", () => {
  it("rejects malformed or tiny ranges", () => {
    for (const bad of ["10.0.0.0", "10.0.0.0/33", "300.0.0.0/24", "10.0.0.0/31", "x/24"]) {
      assert.throws(() => parseCidr(bad), ServiceRangeError, bad);
    }
    assert.deepEqual(parseNodePortRange("30000-32767"), { first: 30000, last: 32767 });
    assert.deepEqual(parseNodePortRange("30000+10"), { first: 30000, last: 30010 });
    for (const bad of ["0-10", "300-200", "a-b", "1-70000"]) {
      assert.throws(() => parseNodePortRange(bad), ServiceRangeError, bad);
    }
  });
});
