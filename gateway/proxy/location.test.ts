import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../../backends/common/json.ts";
import type { ServiceDirectory } from "../../backends/services/index.ts";
import { ApiError } from "../request/api-error.ts";
import {
  isGlobalUnicast,
  nodeLocation,
  podLocation,
  serviceLocation,
  splitSchemeNamePort,
} from "./location.ts";

function refused(code: number, message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  };
}

const split = (id: string) => splitSchemeNamePort(id) ?? assert.fail(`${id} should split`);

describe("proxy locations", () => {
  it("split ids as upstream: name, name:port, scheme:name:port", () => {
    assert.deepEqual(splitSchemeNamePort("web"), { scheme: "", name: "web", port: "" });
    assert.deepEqual(splitSchemeNamePort("web:http"), { scheme: "", name: "web", port: "http" });
    assert.deepEqual(splitSchemeNamePort("https:web:"), { scheme: "https", name: "web", port: "" });
    for (const bad of ["", ":80", "ftp:web:80", "a:b:c:d", "https::443"])
      assert.equal(splitSchemeNamePort(bad), undefined, bad);
  });

  it("take only global unicast addresses", () => {
    for (const good of ["192.0.2.2", "10.1.2.3", "2001:db8::1", "fd00::7"])
      assert.ok(isGlobalUnicast(good), good);
    for (const bad of [
      "127.0.0.1",
      "127.9.9.9",
      "::1",
      "0.0.0.0",
      "::",
      "169.254.169.254",
      "fe80::1",
      "224.0.0.1",
      "ff02::1",
      "255.255.255.255",
      "::ffff:127.0.0.1",
      "localhost",
      "",
    ])
      assert.ok(!isGlobalUnicast(bad), bad);
  });

  it("reach a pod at its first IP, on the first container port or the scheme's", () => {
    const pod = (status: JsonObject, ports: unknown[] = []): JsonObject => ({
      spec: { containers: [{ name: "a" }, { name: "b", ports }] },
      status,
    });
    const running = { podIP: "10.0.0.1", podIPs: [{ ip: "10.0.0.1" }, { ip: "fd00::1" }] };
    assert.deepEqual(podLocation(pod(running, [{ containerPort: 8080 }]), split("p")), {
      protocol: "http:",
      host: "10.0.0.1:8080",
    });
    assert.deepEqual(podLocation(pod(running), split("https:p:")), {
      protocol: "https:",
      host: "10.0.0.1:443",
    });
    assert.deepEqual(podLocation(pod({ podIPs: [{ ip: "fd00::1" }] }), split("p:9000")), {
      protocol: "http:",
      host: "[fd00::1]:9000",
    });
    assert.throws(() => podLocation(pod({}), split("p")), refused(400, "address not allowed"));
    assert.throws(
      () => podLocation(pod({ podIP: "127.0.0.1" }), split("p")),
      refused(400, "address not allowed"),
    );
    assert.throws(
      () => podLocation(pod(running), split("p:http")),
      refused(400, 'invalid pod request "p:http"'),
    );
  });

  it("reach a node at its preferred address type, on the kubelet's port unless another is named", async () => {
    const node: JsonObject = {
      status: {
        addresses: [
          { type: "ExternalIP", address: "203.0.113.1" },
          { type: "InternalIP", address: "10.0.0.5" },
          { type: "Hostname", address: "node-a" },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10255 } },
      },
    };
    const asked: string[] = [];
    const resolve = async (name: string) => {
      asked.push(name);
      return ["10.0.0.5"];
    };
    // The Hostname comes first, resolved before it is used.
    // The kubelet's port is reached as the kubelet client; another port is not.
    assert.deepEqual(await nodeLocation(node, split("n"), resolve), {
      protocol: "https:",
      host: "node-a:10255",
      kubelet: true,
    });
    assert.deepEqual(asked, ["node-a"]);
    assert.deepEqual(await nodeLocation(node, split("n:10255"), resolve), {
      protocol: "https:",
      host: "node-a:10255",
      kubelet: true,
    });
    assert.deepEqual(await nodeLocation(node, split("http:n:8080"), resolve), {
      protocol: "http:",
      host: "node-a:8080",
    });
    const noPort: JsonObject = { status: { addresses: [{ type: "InternalIP", address: "10.0.0.5" }] } };
    assert.deepEqual(await nodeLocation(noPort, split("n")), {
      protocol: "https:",
      host: "10.0.0.5:10250",
      kubelet: true,
    });
    await assert.rejects(
      nodeLocation(node, split("n"), async () => ["127.0.0.1"]),
      refused(400, "address not allowed"),
    );
    await assert.rejects(
      nodeLocation({ status: { addresses: [{ type: "InternalIP", address: "::1" }] } }, split("n")),
      refused(400, "address not allowed"),
    );
    await assert.rejects(
      nodeLocation(node, split("n"), async () => []),
      refused(400, "no addresses for hostname"),
    );
    await assert.rejects(
      nodeLocation({ status: { addresses: [{ type: "Other", address: "x" }] } }, split("n")),
      refused(503, "no preferred addresses found; known addresses: [{Other x}]"),
    );
  });

  it("reach a Service's ready IP endpoints only, never an ExternalName's host", async () => {
    const services: Record<string, JsonObject> = {
      web: { spec: { ports: [{ name: "https", port: 443 }] } },
      far: {
        spec: { type: "ExternalName", externalName: "example.com", ports: [{ name: "https", port: 443 }] },
      },
      named: { spec: { ports: [{ name: "https", port: 443 }] } },
    };
    const slices: Record<string, JsonObject[]> = {
      web: [
        {
          endpoints: [{ addresses: ["10.1.0.1"] }, { addresses: ["10.1.0.2"], conditions: { ready: false } }],
          ports: [{ name: "https", port: 443 }],
        },
      ],
      named: [{ endpoints: [{ addresses: ["localhost"] }], ports: [{ name: "https", port: 8443 }] }],
    };
    const directory: ServiceDirectory = {
      service: async (_ns, name) => services[name],
      endpointSlices: async (_ns, name) => slices[name] ?? [],
    };
    // The endpoint's port 443 is kept although it is https's default.
    assert.deepEqual(await serviceLocation(directory, "ns", "web:https", split("web:https")), {
      protocol: "http:",
      host: "10.1.0.1:443",
    });
    assert.deepEqual(await serviceLocation(directory, "ns", "https:web:443", split("https:web:443")), {
      protocol: "https:",
      host: "10.1.0.1:443",
    });
    await assert.rejects(
      serviceLocation(directory, "ns", "far:https", split("far:https")),
      refused(503, 'no endpoints available for service "far"'),
    );
    // An FQDN endpoint could name anything, the gateway's own host included.
    await assert.rejects(
      serviceLocation(directory, "ns", "named:https", split("named:https")),
      refused(503, 'no endpoints available for service "named:https"'),
    );
    await assert.rejects(
      serviceLocation(directory, "ns", "web", split("web")),
      refused(503, 'no endpoints available for service "web"'),
    );
    await assert.rejects(
      serviceLocation(directory, "ns", "gone", split("gone")),
      refused(404, 'services "gone" not found'),
    );
  });
});
