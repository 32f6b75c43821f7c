import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { advertiseAddress, type HostNetwork, isUnusableEndpointIp } from "./advertise-address.ts";

const host = (
  routes: { IPv4?: string[]; IPv6?: string[] } | undefined,
  interfaces: Record<string, { address: string; family: string; internal: boolean }[]>,
): HostNetwork => ({
  defaultRouteInterfaces: (family) => (routes === undefined ? undefined : (routes[family] ?? [])),
  interfaces: () => interfaces,
});

const machine = {
  lo: [
    { address: "127.0.0.1", family: "IPv4", internal: true },
    { address: "::1", family: "IPv6", internal: true },
  ],
  eth0: [
    { address: "fe80::1", family: "IPv6", internal: false },
    { address: "192.0.2.7", family: "IPv4", internal: false },
    { address: "2001:db8::7", family: "IPv6", internal: false },
  ],
  eth1: [{ address: "198.51.100.3", family: "IPv4", internal: false }],
};

describe("the advertised address", () => {
  it("is --advertise-address when given, else a bind address that is neither loopback nor unspecified", () => {
    const net = host({ IPv4: ["eth0"] }, machine);
    assert.equal(advertiseAddress("127.0.0.1", "203.0.113.5", net), "203.0.113.5");
    assert.equal(advertiseAddress("198.51.100.3", undefined, net), "198.51.100.3");
  });

  it("is the default route's interface address for a loopback or unspecified bind", () => {
    const net = host({ IPv4: ["eth1"], IPv6: ["eth0"] }, machine);
    assert.equal(advertiseAddress("127.0.0.1", undefined, net), "198.51.100.3");
    assert.equal(advertiseAddress("0.0.0.0", undefined, net), "198.51.100.3");
    assert.equal(advertiseAddress("127.0.0.1", "0.0.0.0", net), "198.51.100.3");
    // An IPv6 bind address prefers the IPv6 default route (skipping link-local addresses).
    assert.equal(advertiseAddress("::1", undefined, net), "2001:db8::7");
  });

  it("falls back to any interface's global address without a route table, and to none", () => {
    assert.equal(advertiseAddress("127.0.0.1", undefined, host(undefined, machine)), "192.0.2.7");
    assert.equal(advertiseAddress("127.0.0.1", undefined, host({ IPv4: [] }, machine)), undefined);
    assert.equal(advertiseAddress("127.0.0.1", undefined, host(undefined, { lo: machine.lo })), undefined);
  });

  it("tells the addresses an endpoint may not carry", () => {
    for (const ip of ["127.0.0.1", "0.0.0.0", "169.254.1.1", "224.0.0.1", "::1", "::", "fe80::1", "nonsense"])
      assert.equal(isUnusableEndpointIp(ip), true, ip);
    for (const ip of ["10.0.0.1", "192.0.2.7", "2001:db8::7"])
      assert.equal(isUnusableEndpointIp(ip), false, ip);
  });
});
