import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../common/json.ts";
import type { ServiceDirectory } from "./directory.ts";
import { ServiceUnreachableError, serviceTargets } from "./targets.ts";

/** Services and slices as the gateway's caches would hold them. */
function directory(
  services: Record<string, JsonObject>,
  slices: Record<string, JsonObject[]> = {},
): ServiceDirectory {
  return {
    service: async (ns, name) => services[`${ns}/${name}`],
    endpointSlices: async (ns, name) => slices[`${ns}/${name}`] ?? [],
  };
}

const api: JsonObject = {
  spec: {
    clusterIP: "10.96.0.10",
    ports: [
      { name: "metrics", port: 9090 },
      { name: "https", port: 443 },
    ],
  },
};
const slice = (endpoints: unknown[], ports: unknown[]): JsonObject => ({ endpoints, ports });

async function refused(d: ServiceDirectory, reason: string, message: string, port = 443): Promise<void> {
  await assert.rejects(serviceTargets(d, { namespace: "ext", name: "api", port }), (err: unknown) => {
    assert.ok(err instanceof ServiceUnreachableError);
    assert.equal(err.reason, reason);
    assert.equal(err.message, message);
    return true;
  });
}

describe("Service targets", () => {
  it("are the ready addresses of the slices, at the port named like the Service port", async () => {
    const d = directory(
      { "ext/api": api },
      {
        "ext/api": [
          slice(
            [
              { addresses: ["10.1.0.1"], conditions: { ready: true } },
              { addresses: ["10.1.0.2"], conditions: { ready: false } },
              { addresses: ["10.1.0.3"] },
            ],
            [
              { name: "https", port: 8443 },
              { name: "metrics", port: 9090 },
            ],
          ),
          slice([{ addresses: ["fd00::7"] }], [{ name: "https", port: 8443 }]),
        ],
      },
    );
    const targets = await serviceTargets(d, { namespace: "ext", name: "api", port: 443, path: "/x" });
    assert.deepEqual(
      targets.map((t) => t.url),
      ["https://10.1.0.1:8443/x", "https://10.1.0.3:8443/x", "https://[fd00::7]:8443/x"],
    );
    assert.ok(targets.every((t) => t.serverName === "api.ext.svc"));
  });

  it("are the cluster IP when asked, and an ExternalName's host", async () => {
    const d = directory({
      "ext/api": api,
      "ext/far": { spec: { type: "ExternalName", externalName: "api.example.com" } },
    });
    assert.deepEqual(
      await serviceTargets(d, { namespace: "ext", name: "api", port: 443 }, { clusterIp: true }),
      [{ url: "https://10.96.0.10:443", serverName: "api.ext.svc" }],
    );
    assert.deepEqual(await serviceTargets(d, { namespace: "ext", name: "far", port: 8443 }), [
      { url: "https://api.example.com:8443", serverName: "far.ext.svc" },
    ]);
  });

  it("fail with upstream's availability reasons", async () => {
    await refused(directory({}), "ServiceNotFound", 'service/api in "ext" is not present');
    await refused(
      directory({ "ext/api": api }),
      "ServicePortError",
      'service/api in "ext" is not listening on port 444',
      444,
    );
    await refused(
      directory({ "ext/api": api }),
      "EndpointsNotFound",
      'cannot find endpoints for service/api in "ext"',
    );
    await refused(
      directory(
        { "ext/api": api },
        {
          "ext/api": [
            slice(
              [{ addresses: ["10.1.0.2"], conditions: { ready: false } }],
              [{ name: "https", port: 8443 }],
            ),
          ],
        },
      ),
      "MissingEndpoints",
      'endpoints for service/api in "ext" have no addresses with port name "https"',
    );
    await refused(
      directory(
        { "ext/api": api },
        { "ext/api": [slice([{ addresses: ["10.1.0.1"] }], [{ name: "other", port: 1 }])] },
      ),
      "MissingEndpoints",
      'endpoints for service/api in "ext" have no addresses with port name "https"',
    );
  });
});
