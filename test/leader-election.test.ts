// Leader election across real gateways over one real etcd (issue 23), in both naming presets: one
// replica holds the controller Lease and reports it in leader_election_master_status, its
// controllers act (a new namespace gets its default ServiceAccount); SIGKILL it and the other
// takes the Lease and the controllers keep working through it; a replica stopped cleanly gives
// the Lease up, so a successor with a far longer lease duration need not wait for it to expire.
// Every replica probes APIServices; the one that takes over writes every status.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { naming as namingPreset } from "../backends/naming/index.ts";
import { ApiClient } from "./support/api-client.ts";
import { type EtcdServer, etcdSkipReason, startEtcd } from "./support/etcd.ts";
import { freePort, type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const SHORT = [
  "--leader-elect-lease-duration=4s",
  "--leader-elect-renew-deadline=3s",
  "--leader-elect-retry-period=500ms",
];

/** The identity a gateway logged when it started leading, if it did. */
function leaderIdentity(gw: GatewayProcess): string | undefined {
  for (const line of gw.output().split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { msg?: string; identity?: string };
    if (entry.msg === "leading") return entry.identity;
  }
  return undefined;
}

async function masterStatus(client: ApiClient): Promise<string | undefined> {
  const reply = await client.call("GET", "/metrics");
  return /^leader_election_master_status\{name="kube-controller-manager"\} (\d)$/m.exec(reply.text)?.[1];
}

/** The port the `kubernetes` Service's Endpoints point at. */
async function endpointsPort(client: ApiClient): Promise<number | undefined> {
  const reply = await client.call("GET", "/api/v1/namespaces/default/endpoints/kubernetes");
  return reply.body?.subsets?.[0]?.ports?.[0]?.port;
}

/** Open watches of CertificateSigningRequests: only the CSR controllers (and the GC) hold any. */
async function csrWatches(client: ApiClient): Promise<number> {
  const reply = await client.call("GET", "/metrics");
  let sum = 0;
  for (const m of reply.text.matchAll(/^apiserver_longrunning_requests\{([^}]*)\} (\d+)$/gm)) {
    const labels = m[1] ?? "";
    if (labels.includes('verb="WATCH"') && labels.includes('resource="certificatesigningrequests"'))
      sum += Number(m[2]);
  }
  return sum;
}

it("--leader-elect=false runs the controllers without a Lease", async () => {
  const gw = await startGateway(["--storage-backend=memory", "--leader-elect=false"]);
  const api = new ApiClient(gw.kubeconfig);
  try {
    const naming = namingPreset("cluster");
    assert.equal(
      (await api.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "solo" } } })).status,
      201,
    );
    await eventually(
      async () => (await api.call("GET", "/api/v1/namespaces/solo/serviceaccounts/default")).status === 200,
      30_000,
      "the default ServiceAccount",
    );
    const leases = await api.call(
      "GET",
      `/apis/${naming.group("coordination")}/v1/namespaces/${naming.systemNamespace}/leases`,
    );
    assert.deepEqual(leases.body.items, []);
    assert.equal(await masterStatus(api), undefined, "no election, no series (as upstream)");
  } finally {
    await api.close();
    await gw.stop();
    await rm(gw.dataDir, { recursive: true, force: true });
  }
});

for (const preset of ["cluster", "kubernetes"] as const) {
  const naming = namingPreset(preset);
  const leasePath = `/apis/${naming.group("coordination")}/v1/namespaces/${naming.systemNamespace}/leases/kube-controller-manager`;

  describe(`leader election over one etcd (${preset} naming)`, { skip: etcdSkipReason() }, () => {
    let etcd: EtcdServer;
    let shared: string;
    const gateways: GatewayProcess[] = [];
    const clients = new Map<GatewayProcess, ApiClient>();
    const args = () => [
      "--storage-backend=etcd",
      `--etcd-servers=${etcd.endpoint}`,
      `--api-naming=${preset}`,
      `--pki-dir=${join(shared, "pki")}`,
    ];
    const start = async (extra: string[]) => {
      const dataDir = await mkdtemp(join(tmpdir(), "cg-elect-"));
      const gw = await startGateway([...args(), ...extra], { dataDir, port: await freePort() });
      gateways.push(gw);
      // The shared admin certificate, pointed at this replica.
      const text = (await readFile(join(shared, "admin.kubeconfig"), "utf8")).replace(
        /server: https:\/\/127\.0\.0\.1:\d+/,
        `server: https://127.0.0.1:${gw.port}`,
      );
      const file = join(dataDir, "shared-admin.kubeconfig");
      await writeFile(file, text, { mode: 0o600 });
      clients.set(gw, new ApiClient(file));
      return gw;
    };
    const client = (gw: GatewayProcess) => clients.get(gw) as ApiClient;
    const holder = async (via: GatewayProcess) => (await client(via).call("GET", leasePath)).body?.spec;

    before(async () => {
      etcd = await startEtcd();
      shared = await mkdtemp(join(tmpdir(), "cg-elect-pki-"));
      // The replicas' shared credentials, as README says to make them.
      execFileSync(
        process.execPath,
        ["gateway/main.ts", "init", `--data-dir=${shared}`, "--server=https://127.0.0.1:6443"],
        { cwd: join(import.meta.dirname, "..") },
      );
    });
    after(async () => {
      for (const c of clients.values()) await c.close();
      for (const gw of gateways) {
        await gw.stop();
        await rm(gw.dataDir, { recursive: true, force: true });
      }
      await rm(shared, { recursive: true, force: true });
      await etcd?.stop();
    });

    it("one replica leads; killed, the other takes over and the controllers keep working", async () => {
      const [a, b] = [await start(SHORT), await start(SHORT)];
      assert.ok(a && b);
      await eventually(
        () => [a, b].filter((gw) => leaderIdentity(gw) !== undefined).length === 1,
        30_000,
        "one leader",
      );
      const leader = leaderIdentity(a) ? a : b;
      const follower = leader === a ? b : a;
      const lease = await holder(follower);
      assert.equal(lease.holderIdentity, leaderIdentity(leader));
      assert.equal(lease.leaseDurationSeconds, 4);
      assert.equal(await masterStatus(client(leader)), "1");
      assert.equal(await masterStatus(client(follower)), "0");
      // The kubernetes Service's endpoints name the leader alone, every time they are read (replicas
      // each writing their own would rewrite them back and forth).
      await eventually(
        async () => (await endpointsPort(client(follower))) === leader.port,
        30_000,
        "endpoints",
      );
      for (let i = 0; i < 20; i++) assert.equal(await endpointsPort(client(follower)), leader.port);
      // The elected controllers run in the leader alone (each watches through its own replica).
      await eventually(
        async () => (await csrWatches(client(leader))) > 0,
        30_000,
        "the leader's CSR controllers",
      );
      assert.equal(await csrWatches(client(follower)), 0, "no CSR controller in the follower");

      // The leader's controllers act.
      assert.equal(
        (
          await client(follower).call("POST", "/api/v1/namespaces", {
            body: { metadata: { name: "before" } },
          })
        ).status,
        201,
      );
      await eventually(
        async () =>
          (await client(follower).call("GET", "/api/v1/namespaces/before/serviceaccounts/default")).status ===
          200,
        30_000,
        "the default ServiceAccount in a namespace made before the kill",
      );

      // An extension whose Service is missing: the leader writes its Available condition. Edited
      // by hand, it stays (a verdict that did not change is not written again) until a new
      // leader takes over and writes every status.
      const apiService = `/apis/${naming.group("apiregistration")}/v1/apiservices/v1.probe.example.com`;
      const created = await client(leader).call(
        "POST",
        `/apis/${naming.group("apiregistration")}/v1/apiservices`,
        {
          body: {
            metadata: { name: "v1.probe.example.com" },
            spec: {
              group: "probe.example.com",
              version: "v1",
              service: { namespace: "default", name: "missing", port: 443 },
              insecureSkipTLSVerify: true,
              groupPriorityMinimum: 100,
              versionPriority: 10,
            },
          },
        },
      );
      assert.equal(created.status, 201, created.text);
      const available = async () =>
        ((await client(follower).call("GET", apiService)).body?.status?.conditions ?? []).find(
          (c: { type: string }) => c.type === "Available",
        ) as { status: string; reason: string } | undefined;
      await eventually(async () => (await available())?.status === "False", 30_000, "Available=False");
      const edited = await client(follower).call("PATCH", `${apiService}/status`, {
        body: {
          status: {
            conditions: [
              {
                type: "Available",
                status: "True",
                reason: "HandEdited",
                message: "by a test",
                lastTransitionTime: "2020-01-01T00:00:00Z",
              },
            ],
          },
        },
        contentType: "application/merge-patch+json",
      });
      assert.equal(edited.status, 200, edited.text);
      assert.equal((await available())?.reason, "HandEdited");

      leader.child.kill("SIGKILL");
      assert.equal(
        (await client(follower).call("POST", "/api/v1/namespaces", { body: { metadata: { name: "after" } } }))
          .status,
        201,
      );
      await eventually(
        async () =>
          (await client(follower).call("GET", "/api/v1/namespaces/after/serviceaccounts/default")).status ===
          200,
        30_000,
        "the default ServiceAccount made by the new leader",
      );
      const taken = await holder(follower);
      assert.equal(taken.holderIdentity, leaderIdentity(follower));
      assert.equal(taken.leaseTransitions, lease.leaseTransitions + 1);
      assert.equal(await masterStatus(client(follower)), "1");
      await eventually(
        async () => (await endpointsPort(client(follower))) === follower.port,
        30_000,
        "endpoints moved",
      );
      await eventually(
        async () => (await csrWatches(client(follower))) > 0,
        30_000,
        "the new leader's CSR controllers",
      );
      await eventually(
        async () => (await available())?.reason !== "HandEdited",
        30_000,
        "the new leader writing the APIService's status",
      );
      assert.equal((await available())?.status, "False");
      assert.equal((await client(follower).call("DELETE", apiService)).status, 200);
    });

    it("a leader stopped cleanly releases the Lease: a successor with a 60 s lease duration takes it at once", async () => {
      const current = gateways.find((gw) => gw.child.exitCode === null && gw.child.signalCode === null);
      assert.ok(current && leaderIdentity(current));
      const successor = await start([
        "--leader-elect-lease-duration=60s",
        "--leader-elect-renew-deadline=40s",
        "--leader-elect-retry-period=500ms",
      ]);
      assert.equal(await masterStatus(client(successor)), "0");
      assert.equal(await current.stop(), 0);
      // Held, the Lease would keep the successor out for its own 60 s; released, it waits 1 s.
      await eventually(
        async () => (await holder(successor))?.holderIdentity === leaderIdentity(successor),
        30_000,
        "the successor holding the Lease",
      );
      assert.equal(await masterStatus(client(successor)), "1");
    });
  });
}
