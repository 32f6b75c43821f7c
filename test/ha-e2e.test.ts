// Three gateways over a three-member etcd cluster behind haproxy (deploy/local-ha.sh), driven by
// real clients through the load balancer while one gateway and then one etcd member are SIGKILLed:
// every acknowledged write survives, watches resume without gaps, the controllers move to another
// replica, and Service addresses allocated concurrently by all replicas never collide.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { naming } from "../backends/naming/index.ts";
import { ApiClient, type ApiResponse } from "./support/api-client.ts";
import { kubectl, kubectlVersions, NO_KUBECTL } from "./support/gateway-process.ts";
import { type LocalHa, localHaSkipReason, running, startLocalHa, startTime } from "./support/local-ha.ts";
import { eventually } from "./support/watch.ts";

// kubectl 1.33, the newest tested release (kubectlVersions fails under REQUIRE_SERVICES=1 without it).
const kubectlBin = kubectlVersions().at(-1);
const skip = localHaSkipReason() || (kubectlBin === undefined ? NO_KUBECTL : false);
const n = naming("cluster");

// Enough cluster IPs for 300 Services (the default /24 has 254).
const GATEWAY_ARGS = ["--service-cluster-ip-range=10.96.0.0/16"];
const SERVICES = 300;
// Acknowledged creates wanted before the first kill, between the kills, and after the second.
const WRITES_PER_PHASE = 60;
const PHASE_TIMEOUT_MS = 90_000;
// A request the cluster has not answered in this long counts as failed (its outcome unknown).
const REQUEST_TIMEOUT_MS = 30_000;

type Meta = { name: string; resourceVersion: string };

/** One request with an upper bound; undefined when it failed at the connection or timed out. */
async function attempt(
  client: ApiClient,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResponse | undefined> {
  const ac = new AbortController();
  const timer = delay(REQUEST_TIMEOUT_MS, undefined, { signal: ac.signal }).catch(() => undefined);
  try {
    return await Promise.race([client.call(method, path, body === undefined ? {} : { body }), timer]);
  } catch {
    return undefined;
  } finally {
    ac.abort();
  }
}

/** The etcd member that leads the cluster now (1..3), from the members' own status. */
async function etcdLeader(ha: LocalHa): Promise<number> {
  for (const i of [1, 2, 3]) {
    try {
      const res = await fetch(`http://127.0.0.1:${ha.layout[`ETCD_CLIENT_${i}`]}/v3/maintenance/status`, {
        method: "POST",
        body: "{}",
        signal: AbortSignal.timeout(2000),
      });
      const status = (await res.json()) as { header?: { member_id?: string }; leader?: string };
      if (status.leader && status.leader === status.header?.member_id) return i;
    } catch {
      // a member that does not answer is not the leader
    }
  }
  throw new Error("no etcd member reports itself as leader");
}

/**
 * A watch that lists and starts on `first`, and whenever its stream ends resumes through `then`
 * (the load balancer) from the last resourceVersion it saw (relisting only if told that version is
 * gone), replaying events onto a name -> resourceVersion map. A missed event leaves the map
 * different from the store.
 */
class ResumingWatch {
  readonly state = new Map<string, string>();
  readonly problems: string[] = [];
  resumes = 0;
  relists = 0;
  #last = 0n;
  #stopped = false;
  #current: { close(): void } | undefined;
  readonly path: string;
  readonly done: Promise<void>;
  /** Where the next list or watch goes. */
  #client: ApiClient;
  readonly #then: ApiClient;

  constructor(first: ApiClient, then: ApiClient, path: string) {
    this.#client = first;
    this.#then = then;
    this.path = path;
    this.done = this.#run();
  }

  async #relist(): Promise<void> {
    for (;;) {
      const res = await attempt(this.#client, "GET", this.path);
      if (res?.status === 200) {
        this.state.clear();
        for (const item of res.body.items as { metadata: Meta }[])
          this.state.set(item.metadata.name, item.metadata.resourceVersion);
        this.#last = BigInt(res.body.metadata.resourceVersion);
        return;
      }
      if (this.#stopped) return;
      await delay(100);
    }
  }

  async #run(): Promise<void> {
    await this.#relist();
    while (!this.#stopped) {
      try {
        const w = await this.#client.watch(
          `${this.path}?watch=1&allowWatchBookmarks=true&resourceVersion=${this.#last}`,
        );
        this.#current = w;
        for await (const ev of w.events) {
          const meta = (ev.object as { metadata?: Meta }).metadata;
          if (ev.type === "ERROR") {
            const code = (ev.object as { code?: number }).code;
            if (code === 410) {
              this.relists++;
              await this.#relist();
            } else this.problems.push(`ERROR event ${JSON.stringify(ev.object)}`);
            break;
          }
          const rv = BigInt(meta?.resourceVersion ?? "0");
          if (ev.type === "BOOKMARK") {
            if (rv < this.#last) this.problems.push(`bookmark ${rv} went back from ${this.#last}`);
          } else if (rv <= this.#last) {
            this.problems.push(
              `${ev.type} ${meta?.name} at ${rv} after ${this.#last}: replayed or out of order`,
            );
          } else if (ev.type === "DELETED") this.state.delete(meta?.name as string);
          else this.state.set(meta?.name as string, String(rv));
          if (rv > this.#last) this.#last = rv;
        }
      } catch {
        // the replica behind the connection went away: resume below
      }
      this.#current = undefined;
      if (this.#stopped) break;
      this.#client = this.#then;
      this.resumes++;
      await delay(50);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#current?.close();
    await this.done;
  }
}

describe("three gateways and three etcd members behind haproxy (deploy/local-ha.sh)", { skip }, () => {
  let ha: LocalHa;
  const clients: ApiClient[] = [];
  let lb: ApiClient;

  before(async () => {
    ha = await startLocalHa(GATEWAY_ARGS);
    lb = new ApiClient(ha.kubeconfig);
    for (const i of [1, 2, 3]) clients.push(new ApiClient(ha.replicaKubeconfig(i)));
  });
  after(async () => {
    // The servers first: a client waits for its requests in flight before it closes.
    await ha?.stop();
    for (const c of [lb, ...clients]) await c?.close();
  });

  it("every replica and the load balancer answer with the shared identity", async () => {
    for (const c of [lb, ...clients]) {
      const res = await c.call("GET", "/readyz");
      assert.equal(res.status, 200, res.text);
    }
    const out = await kubectl(kubectlBin as string, ha.kubeconfig, ["get", "namespaces", "-o", "name"]);
    assert.equal(out.code, 0, out.stdout);
    assert.match(out.stdout, /namespace\/default/);
  });

  it(`${SERVICES} concurrent Service creates spread over the three replicas get distinct cluster IPs and node ports`, async () => {
    const ns = "ha-alloc";
    assert.equal(
      (await lb.call("POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } })).status,
      201,
    );
    const results = await Promise.all(
      Array.from({ length: SERVICES }, (_, i) =>
        (clients[i % 3] as ApiClient).call("POST", `/api/v1/namespaces/${ns}/services`, {
          body: {
            metadata: { name: `svc-${i}` },
            spec: { type: "NodePort", ports: [{ port: 80, targetPort: 8080 }] },
          },
        }),
      ),
    );
    const failed = results.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text.slice(0, 300)}`);
    assert.deepEqual(failed, [], "every create succeeds");
    const list = await lb.call("GET", `/api/v1/namespaces/${ns}/services`);
    assert.equal(list.status, 200);
    type Svc = { metadata: { name: string }; spec: { clusterIP: string; ports: { nodePort: number }[] } };
    const items = list.body.items as Svc[];
    assert.equal(items.length, SERVICES);
    const ips = items.map((s) => s.spec.clusterIP);
    const ports = items.map((s) => s.spec.ports[0]?.nodePort);
    const dup = <T>(xs: T[]) => xs.filter((x, i) => xs.indexOf(x) !== i);
    assert.deepEqual(dup(ips), [], "no cluster IP twice");
    assert.deepEqual(dup(ports), [], "no node port twice");
    // What each replica answered is what the store kept.
    for (const r of results) {
      const kept = items.find((s) => s.metadata.name === r.body.metadata.name);
      assert.equal(kept?.spec.clusterIP, r.body.spec.clusterIP);
      assert.equal(kept?.spec.ports[0]?.nodePort, r.body.spec.ports[0].nodePort);
    }
  });

  it("SIGKILL of the controller leader's gateway, then of the etcd leader, mid-run: no acknowledged write lost, watches resume without gaps, controllers move", async () => {
    const ns = "ha-writes";
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    assert.equal(
      (await lb.call("POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } })).status,
      201,
    );

    // client-node informer through haproxy, restarted after errors as its documentation says.
    const k8s = await import("@kubernetes/client-node");
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(ha.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, path, () => core.listNamespacedConfigMap({ namespace: ns }));
    let informerErrors = 0;
    let informerStopped = false;
    informer.on("error", () => {
      informerErrors++;
      if (!informerStopped) setTimeout(() => void informer.start().catch(() => undefined), 100);
    });
    await informer.start();
    // One watch through haproxy, and one started on each replica (resuming through haproxy), so
    // whichever replica dies, a watch it served has to resume on another.
    const watches = [lb, ...clients].map((first) => new ResumingWatch(first, lb, path));
    // Stopped whatever happens: an open watch would keep the clients (and the test) from closing.
    const stopWatchers = async () => {
      informerStopped = true;
      await informer.stop();
      for (const w of watches) await w.stop();
    };
    let store = new Map<string, string>(); // name -> resourceVersion at the end
    let victim = 0; // the replica killed
    try {
      // Writers through haproxy: creates, and now and then a delete of an earlier create.
      const acked = new Map<string, string>(); // name -> data written
      const ackedDeletes = new Set<string>();
      const uncertain = new Set<string>(); // a write whose answer never came: either outcome is fine
      const statuses = new Map<string, number>();
      let writing = true;
      let seq = 0;
      const writer = async (w: number) => {
        const mine: string[] = [];
        while (writing) {
          const i = seq++;
          const name = `cm-${w}-${i}`;
          const res = await attempt(lb, "POST", path, { metadata: { name }, data: { v: String(i) } });
          const key = res ? String(res.status) : "no answer";
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          if (res?.status === 201) {
            acked.set(name, String(i));
            mine.push(name);
          } else uncertain.add(name);
          if (i % 5 === 4 && mine.length > 0) {
            const doomed = mine.shift() as string;
            const del = await attempt(lb, "DELETE", `${path}/${doomed}`);
            if (del?.status === 200) ackedDeletes.add(doomed);
            else uncertain.add(doomed);
          }
        }
      };
      // kubectl 1.33 through haproxy too: creates (acknowledged when it exits 0) and lists.
      let kubectlRuns = 0;
      const kubectlWriter = async () => {
        for (let i = 0; writing; i++) {
          const name = `kubectl-${i}`;
          const r = await kubectl(kubectlBin as string, ha.kubeconfig, [
            "create",
            "configmap",
            name,
            "-n",
            ns,
            `--from-literal=v=${i}`,
          ]);
          if (r.code === 0) acked.set(name, String(i));
          else uncertain.add(name);
          kubectlRuns++;
        }
      };
      const workers = [0, 1, 2, 3].map(writer);
      workers.push(kubectlWriter());

      const waitForWrites = async (count: number, what: string) => {
        const target = acked.size + count;
        await eventually(
          () => acked.size >= target,
          PHASE_TIMEOUT_MS,
          `${count} acknowledged writes ${what}`,
        );
      };

      try {
        await waitForWrites(WRITES_PER_PHASE, "before any kill");
        const holderBefore = await controllerLeaseHolder(lb);
        assert.ok(holderBefore, "a replica holds the controllers' Lease");

        // The gateway running the controllers goes first, so they have to move.
        victim = await leaderGateway(clients);
        ha.kill(`gateway-${victim}`);
        await waitForWrites(WRITES_PER_PHASE, `after gateway-${victim} was killed`);

        const member = await etcdLeader(ha);
        ha.kill(`etcd-${member}`);
        await waitForWrites(WRITES_PER_PHASE, `after etcd-${member} was killed`);

        // Controllers keep working: a new namespace gets its default ServiceAccount.
        const fresh = "ha-after-failover";
        let created = await attempt(lb, "POST", "/api/v1/namespaces", { metadata: { name: fresh } });
        await eventually(
          async () => {
            if (created?.status !== 201 && created?.status !== 409)
              created = await attempt(lb, "POST", "/api/v1/namespaces", { metadata: { name: fresh } });
            const sa = await attempt(lb, "GET", `/api/v1/namespaces/${fresh}/serviceaccounts/default`);
            return sa?.status === 200;
          },
          PHASE_TIMEOUT_MS,
          "the default ServiceAccount in a namespace created after failover",
        );
        const holderAfter = await controllerLeaseHolder(lb);
        assert.notEqual(holderAfter, holderBefore, "the controller Lease moved to another replica");
      } finally {
        writing = false;
        await Promise.all(workers);
      }

      // Every acknowledged write is in the store, read through the balancer and through each
      // surviving replica; nothing is there that nobody wrote.
      const expected = new Map([...acked].filter(([name]) => !ackedDeletes.has(name)));
      const survivors = [1, 2, 3].filter((i) => running(ha.pid(`gateway-${i}`)));
      let final: { metadata: Meta; data: { v: string } }[] = [];
      for (const client of [lb, ...survivors.map((i) => clients[i - 1] as ApiClient)]) {
        const res = await attempt(client, "GET", path);
        assert.equal(res?.status, 200, res?.text);
        final = res?.body.items;
        const names = new Set(final.map((o) => o.metadata.name));
        const lost = [...expected.keys()].filter((name) => !names.has(name) && !uncertain.has(name));
        assert.deepEqual(lost, [], `acknowledged creates missing when read through ${client.server}`);
        const resurrected = [...ackedDeletes].filter((name) => names.has(name));
        assert.deepEqual(resurrected, [], "acknowledged deletes undone");
        // The root CA publisher's ConfigMap is the only one nobody here wrote.
        const phantoms = [...names].filter(
          (name) => !acked.has(name) && !uncertain.has(name) && name !== n.rootCaConfigMap,
        );
        assert.deepEqual(phantoms, [], "objects nobody wrote");
        for (const o of final)
          if (acked.has(o.metadata.name)) assert.equal(o.data.v, acked.get(o.metadata.name), o.metadata.name);
      }
      store = new Map(final.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
      assert.ok(
        store.size >= 3 * WRITES_PER_PHASE * 0.7,
        `expected most writes kept, store has ${store.size}: ${JSON.stringify([...statuses])}`,
      );

      // The watchers end with exactly the store's objects at the store's versions.
      const informerState = () =>
        new Map(informer.list(ns).map((o) => [o.metadata?.name ?? "", o.metadata?.resourceVersion ?? ""]));
      const same = (a: Map<string, string>) =>
        a.size === store.size && [...store].every(([k, v]) => a.get(k) === v);
      for (const [i, w] of watches.entries())
        await eventually(() => same(w.state), 60_000, `resuming watch ${i} to reach the store's state`);
      await eventually(() => same(informerState()), 60_000, "the informer to reach the store's state");
      await stopWatchers();
      for (const w of watches) assert.deepEqual(w.problems, [], "watch events in order, each once");
      assert.ok(
        (watches[victim] as ResumingWatch).resumes >= 1,
        "the watch started on the killed replica was cut and resumed on another",
      );
      assert.ok(kubectlRuns > 0);
      process.stdout.write(
        `# ${acked.size} acknowledged creates (${ackedDeletes.size} deleted), ${uncertain.size} unanswered; ` +
          `statuses ${JSON.stringify([...statuses])}; watches resumed ${watches.map((w) => w.resumes).join("/")}x, relisted ${watches.map((w) => w.relists).join("/")}x; ` +
          `informer errors ${informerErrors}\n`,
      );
    } finally {
      await stopWatchers();
    }

    // kubectl through haproxy lists the same objects.
    const listed = await kubectl(kubectlBin as string, ha.kubeconfig, [
      "get",
      "configmaps",
      "-n",
      ns,
      "-o",
      "name",
    ]);
    assert.equal(listed.code, 0, listed.stdout);
    const kubectlNames = new Set(
      listed.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.replace(/^configmap\//, "")),
    );
    assert.deepEqual(
      [...kubectlNames].filter((x) => !store.has(x)),
      [],
      "kubectl lists only stored objects",
    );
    assert.ok(
      [...store.keys()].every((name) => kubectlNames.has(name)),
      "kubectl lists every stored object",
    );
  });

  // These run after the test above killed a gateway and an etcd member.
  it("local-ha.sh start in the same directory brings back what was killed, with the data", async () => {
    const before = await lb.call("GET", "/api/v1/namespaces/ha-writes/configmaps");
    assert.equal(before.status, 200);
    await ha.start();
    for (const i of [1, 2, 3]) {
      const health = await fetch(`http://127.0.0.1:${ha.layout[`ETCD_CLIENT_${i}`]}/health`);
      assert.equal(health.status, 200, `etcd-${i}`);
      const res = await (clients[i - 1] as ApiClient).call("GET", "/api/v1/namespaces/ha-writes/configmaps");
      assert.equal(res.status, 200, `gateway-${i}`);
      assert.deepEqual(
        (res.body.items as { metadata: Meta }[]).map((o) => o.metadata.name).sort(),
        (before.body.items as { metadata: Meta }[]).map((o) => o.metadata.name).sort(),
      );
    }
  });

  it("local-ha.sh stop ends every process", async () => {
    ha.kill("gateway-1");
    const pids = ha.pids();
    assert.deepEqual([...pids.keys()].sort(), [
      "etcd-1",
      "etcd-2",
      "etcd-3",
      "gateway-1",
      "gateway-2",
      "gateway-3",
      "haproxy",
    ]);
    // A PID with its start time, so that a PID reused by another process later does not count.
    const started = new Map([...pids].map(([name, pid]) => [name, startTime(pid)]));
    await ha.stop();
    const left = [...pids].filter(([name, pid]) => {
      const t = started.get(name);
      return t !== undefined && startTime(pid) === t;
    });
    assert.deepEqual(left, [], "processes left after stop");
  });
});

/** holderIdentity of the controllers' Lease in the system namespace, undefined while there is none. */
async function controllerLeaseHolder(client: ApiClient): Promise<string | undefined> {
  const res = await attempt(
    client,
    "GET",
    `/apis/${n.group("coordination")}/v1/namespaces/${n.systemNamespace}/leases`,
  );
  if (res?.status !== 200) return undefined;
  const lease = (res.body.items as { metadata: { name: string }; spec: { holderIdentity?: string } }[]).find(
    (l) => l.metadata.name.endsWith("controller-manager"),
  );
  return lease?.spec.holderIdentity || undefined;
}

/** Successful Lease updates a replica has served (apiserver_request_total). */
async function leaseUpdates(client: ApiClient): Promise<number> {
  const res = await attempt(client, "GET", "/metrics");
  assert.equal(res?.status, 200, `/metrics of ${client.server}`);
  let sum = 0;
  for (const line of (res?.text ?? "").split("\n")) {
    if (!line.startsWith("apiserver_request_total{")) continue;
    if (line.includes('resource="leases"') && line.includes('verb="PUT"') && line.includes('code="200"'))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

/**
 * The replica (1..3) running the controllers. Holder identities name a host and a random id, not
 * a replica; but the leader renews its Lease every retry period through its own gateway (the
 * controllers' loopback client), so it is the one replica whose Lease updates keep growing.
 */
async function leaderGateway(clients: ApiClient[]): Promise<number> {
  const base = await Promise.all(clients.map(leaseUpdates));
  let renewing: number[] = [];
  await eventually(
    async () => {
      const now = await Promise.all(clients.map(leaseUpdates));
      renewing = [1, 2, 3].filter((i) => (now[i - 1] as number) - (base[i - 1] as number) >= 2);
      return renewing.length > 0;
    },
    30_000,
    "a replica renewing the controller Lease",
  );
  assert.equal(renewing.length, 1, `one replica renews the controller Lease, not ${renewing.join(", ")}`);
  return renewing[0] as number;
}
