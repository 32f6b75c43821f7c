import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { serviceTargets } from "./service-target.ts";

let t: AdmissionTest;
before(async () => {
  t = await startAdmissionTest();
  await t.create("namespaces", undefined, { metadata: { name: "hooks" } });
  await t.create("services", "hooks", {
    metadata: { name: "api", namespace: "hooks" },
    spec: {
      ports: [
        { name: "metrics", port: 9090, targetPort: 9090 },
        { name: "https", port: 443, targetPort: 8443 },
      ],
    },
  });
  const slice = (name: string, endpoints: unknown[], ports: unknown[], addressType = "IPv4") =>
    t.create(
      "endpointslices",
      "hooks",
      {
        metadata: { name, namespace: "hooks", labels: { [t.naming.label("service-name")]: "api" } },
        addressType,
        endpoints,
        ports,
      },
      t.naming.group("discovery"),
    );
  await slice(
    "api-a",
    [
      { addresses: ["10.1.0.1"], conditions: { ready: true } },
      { addresses: ["10.1.0.2"], conditions: { ready: false } },
      { addresses: ["10.1.0.3"] },
    ],
    [
      { name: "https", port: 8443, protocol: "TCP" },
      { name: "metrics", port: 9090, protocol: "TCP" },
    ],
  );
  await slice(
    "api-b",
    [{ addresses: ["fd00::7"], conditions: { ready: true } }],
    [{ name: "https", port: 8443 }],
    "IPv6",
  );
});
after(() => t.stop());

test("a Service reference resolves to the ready addresses of its slices, at the port named like the Service's", async () => {
  const targets = await serviceTargets(t.objects, t.naming, {
    namespace: "hooks",
    name: "api",
    port: 443,
    path: "/admit",
  });
  assert.deepEqual(targets.map((x) => x.server).sort(), [
    "https://10.1.0.1:8443/admit",
    "https://10.1.0.3:8443/admit",
    "https://[fd00::7]:8443/admit",
  ]);
  assert.ok(targets.every((x) => x.tlsServerName === "api.hooks.svc"));
  const metrics = await serviceTargets(t.objects, t.naming, {
    namespace: "hooks",
    name: "api",
    port: 9090,
    path: "/",
  });
  assert.deepEqual(
    metrics.map((x) => x.server),
    ["https://10.1.0.1:9090/", "https://10.1.0.3:9090/"],
  );
});

test("a missing Service or port is a call failure naming it", async () => {
  await assert.rejects(
    serviceTargets(t.objects, t.naming, { namespace: "hooks", name: "nope", port: 443, path: "/" }),
    /service "hooks\/nope" not found/,
  );
  await assert.rejects(
    serviceTargets(t.objects, t.naming, { namespace: "hooks", name: "api", port: 444, path: "/" }),
    /no service port 444 found for service "api"/,
  );
});
