// The elector against a real gateway's Lease API, with short durations: acquiring a free Lease at
// once, renewing, waiting out a dead holder, taking over from a candidate cut off from the server,
// a Lease deleted or edited by hand, releasing on stop, and never two terms at once.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import { type GatewayProcess, startGateway } from "../../../test/support/gateway-process.ts";
import { eventually } from "../../../test/support/watch.ts";
import { ApiClient, loadKubeconfig } from "../../client/index.ts";
import { ControllerClient } from "../client.ts";
import { LeaderElector, microTime } from "./leader-elector.ts";

const TIMING = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 400 };
const GROUP = naming("cluster").group("coordination");
const LEASES = `/apis/${GROUP}/v1/namespaces/default/leases`;

let gw: GatewayProcess;
const clients: ControllerClient[] = [];
const proxies: Server[] = [];
before(async () => {
  gw = await startGateway(["--storage-backend=memory"]);
});
after(async () => {
  for (const c of clients) await c.destroy();
  for (const p of proxies) p.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

function client(): ControllerClient {
  const c = ControllerClient.fromKubeconfig(gw.kubeconfig);
  clients.push(c);
  return c;
}

let leaseCount = 0;

/**
 * A client reaching the gateway through a TCP relay; `cut()` is a network partition: open
 * connections drop and new ones are accepted but never answered.
 */
async function partitionable(): Promise<{ client: ControllerClient; cut(): void }> {
  let cut = false;
  const sockets = new Set<Socket>();
  const relay = createServer((inbound) => {
    sockets.add(inbound);
    inbound.on("close", () => sockets.delete(inbound));
    inbound.on("error", () => {});
    if (cut) return;
    const outbound = createConnection({ host: "127.0.0.1", port: gw.port });
    sockets.add(outbound);
    outbound.on("close", () => sockets.delete(outbound));
    outbound.on("error", () => inbound.destroy());
    inbound.pipe(outbound).pipe(inbound);
  });
  proxies.push(relay);
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const { port } = relay.address() as { port: number };
  const config = loadKubeconfig(gw.kubeconfig);
  const c = new ControllerClient(
    new ApiClient({ ...config, cluster: { ...config.cluster, server: `https://127.0.0.1:${port}` } }),
  );
  clients.push(c);
  return {
    client: c,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** Candidates on one fresh Lease; `terms` counts terms running now and the most ever at once. */
async function election(n: number) {
  const name = `lease-${++leaseCount}`;
  const terms = { now: 0, most: 0, started: [] as string[] };
  const errors: string[] = [];
  const links = await Promise.all(Array.from({ length: n }, () => partitionable()));
  const candidates = links.map((link, i) => {
    const c = link.client;
    const elector = new LeaderElector({
      client: c,
      group: GROUP,
      namespace: "default",
      name,
      identity: `candidate-${i}`,
      ...TIMING,
      onError: (err) => errors.push(String(err)),
    });
    const stop = new AbortController();
    const done = elector.run(stop.signal, async (term) => {
      terms.now++;
      terms.most = Math.max(terms.most, terms.now);
      terms.started.push(elector.identity);
      await new Promise<void>((resolve) => term.addEventListener("abort", () => resolve(), { once: true }));
      terms.now--;
    });
    return { elector, client: c, cut: link.cut, stop, done };
  });
  const reader = client();
  const lease = async () => {
    const reply = await reader.call("GET", `${LEASES}/${name}`);
    return reply?.status === 200 ? reply.body : undefined;
  };
  return { name, candidates, terms, errors, lease };
}

const leaders = (e: Awaited<ReturnType<typeof election>>) => e.candidates.filter((c) => c.elector.leading);

/** One more candidate on Lease `name`; `ledAt` is when its first term began (0 until then). */
function lateCandidate(writer: ControllerClient, name: string, identity: string) {
  const elector = new LeaderElector({
    client: writer,
    group: GROUP,
    namespace: "default",
    name,
    identity,
    ...TIMING,
    onError: () => {},
  });
  const stop = new AbortController();
  let began = 0;
  const done = elector.run(stop.signal, async (term) => {
    began = performance.now();
    await new Promise((resolve) => term.addEventListener("abort", resolve, { once: true }));
  });
  return { elector, stop, done, ledAt: () => began };
}

describe("LeaderElector", () => {
  it("takes a free Lease at once, records itself and renews", async () => {
    const e = await election(1);
    const [only] = e.candidates;
    assert.ok(only);
    await eventually(() => only.elector.leading, 10_000, "leading");
    const first = await e.lease();
    assert.equal(first.spec.holderIdentity, "candidate-0");
    assert.equal(first.spec.leaseDurationSeconds, 3);
    assert.equal(first.spec.leaseTransitions, 0);
    assert.match(first.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(first.spec.acquireTime, first.spec.renewTime);
    // Renewed: a later renewTime, same acquireTime and holder.
    await eventually(
      async () => (await e.lease()).spec.renewTime !== first.spec.renewTime,
      10_000,
      "renewal",
    );
    const renewed = await e.lease();
    assert.equal(renewed.spec.holderIdentity, "candidate-0");
    assert.equal(renewed.spec.acquireTime, first.spec.acquireTime);
    only.stop.abort();
    await only.done;
  });

  it("elects one of several candidates; a leader cut off from the server stops before another takes over", async () => {
    const e = await election(3);
    await eventually(() => leaders(e).length === 1, 10_000, "a leader");
    const leader = leaders(e)[0];
    assert.ok(leader);
    // Cut off: every request of the leader fails from now on, and it cannot release the Lease.
    leader.cut();
    await eventually(
      () => leaders(e).length === 1 && leaders(e)[0] !== leader,
      20_000,
      "another candidate leading",
    );
    assert.equal(e.terms.most, 1, "never two terms at once");
    const lease = await e.lease();
    assert.notEqual(lease.spec.holderIdentity, leader.elector.identity);
    assert.equal(lease.spec.leaseTransitions, 1);
    for (const c of e.candidates) c.stop.abort();
    await Promise.all(e.candidates.map((c) => c.done));
    assert.equal(e.terms.most, 1);
  });

  it("waits out a Lease held by a replica that died, measured from its own observation", async () => {
    const e = await election(0);
    const writer = client();
    await writer.must("POST", LEASES, {
      metadata: { name: e.name },
      spec: {
        holderIdentity: "dead_0",
        leaseDurationSeconds: 3,
        acquireTime: microTime(new Date()),
        renewTime: microTime(new Date()),
        leaseTransitions: 4,
      },
    });
    const written = performance.now();
    const { stop, done, ledAt } = lateCandidate(writer, e.name, "successor");
    await eventually(() => ledAt() > 0, 20_000, "taking over");
    assert.ok(ledAt() - written >= TIMING.leaseDurationMs, "not before the dead holder's lease ran out");
    const lease = (await writer.must("GET", `${LEASES}/${e.name}`)).body as { spec: Record<string, unknown> };
    assert.equal(lease.spec.holderIdentity, "successor");
    assert.equal(lease.spec.leaseTransitions, 5);
    stop.abort();
    await done;
  });

  it("a Lease deleted by hand is recreated by its leader; the others do not step in", async () => {
    const e = await election(2);
    await eventually(() => leaders(e).length === 1, 10_000, "a leader");
    const leader = leaders(e)[0];
    assert.ok(leader);
    // The others must have seen the holder before the deletion for it to count.
    await eventually(() => e.candidates.every((c) => c.elector.holder === leader.elector.identity), 10_000);
    const deleter = client();
    await deleter.must("DELETE", `${LEASES}/${e.name}`);
    await eventually(async () => (await e.lease()) !== undefined, 10_000, "the Lease recreated");
    assert.equal((await e.lease()).spec.holderIdentity, leader.elector.identity);
    // A few retry periods later the same term still runs and nobody else started one.
    const renewed = (await e.lease()).spec.renewTime;
    await eventually(async () => (await e.lease()).spec.renewTime !== renewed, 10_000, "renewals go on");
    assert.deepEqual(e.terms.started, [leader.elector.identity]);
    for (const c of e.candidates) c.stop.abort();
    await Promise.all(e.candidates.map((c) => c.done));
  });

  it("a Lease deleted by hand while another held it is taken only a lease duration after the deletion was seen", async () => {
    const e = await election(0);
    const writer = client();
    const spec = () => ({
      holderIdentity: "live_0",
      leaseDurationSeconds: 3,
      acquireTime: microTime(new Date()),
      renewTime: microTime(new Date()),
      leaseTransitions: 0,
    });
    await writer.must("POST", LEASES, { metadata: { name: e.name }, spec: spec() });
    const { elector, stop, done, ledAt } = lateCandidate(writer, e.name, "candidate");
    await eventually(() => elector.holder === "live_0", 10_000, "the holder observed");
    await writer.must("DELETE", `${LEASES}/${e.name}`);
    const deleted = performance.now();
    await eventually(() => ledAt() > 0, 20_000, "taking over");
    assert.ok(
      ledAt() - deleted >= TIMING.leaseDurationMs,
      "the holder may still act until its lease would run out",
    );
    stop.abort();
    await done;
  });

  it("a holder edited by hand: the leader stops, a candidate takes over after expiry, never two terms", async () => {
    const e = await election(2);
    await eventually(() => leaders(e).length === 1, 10_000, "a leader");
    const leader = leaders(e)[0];
    assert.ok(leader);
    const editor = client();
    const current = await e.lease();
    // Edited to someone else with a short duration: nobody may start before the old leader stopped.
    await editor.must("PUT", `${LEASES}/${e.name}`, {
      ...current,
      spec: {
        ...current.spec,
        holderIdentity: "intruder",
        leaseDurationSeconds: 1,
        renewTime: microTime(new Date()),
      },
    });
    await eventually(() => !leader.elector.leading, 10_000, "the old leader stepping down");
    await eventually(() => leaders(e).length === 1, 20_000, "a new leader");
    assert.equal(e.terms.most, 1);
    assert.notEqual((await e.lease()).spec.holderIdentity, "intruder");
    for (const c of e.candidates) c.stop.abort();
    await Promise.all(e.candidates.map((c) => c.done));
    assert.equal(e.terms.most, 1);
  });

  it("releases the Lease when stopped, so the next candidate need not wait a lease duration", async () => {
    const e = await election(1);
    const [first] = e.candidates;
    assert.ok(first);
    await eventually(() => first.elector.leading, 10_000, "leading");
    first.stop.abort();
    await first.done;
    const lease = await e.lease();
    assert.equal(lease.spec.holderIdentity ?? "", "");
    assert.equal(lease.spec.leaseDurationSeconds, 1);
    assert.equal(lease.spec.leaseTransitions, 0);
    // A new candidate with a lease duration far beyond the test's deadline still gets it.
    const next = new LeaderElector({
      client: client(),
      group: GROUP,
      namespace: "default",
      name: e.name,
      identity: "next",
      leaseDurationMs: 600_000,
      renewDeadlineMs: 2_000,
      retryPeriodMs: 400,
      onError: () => {},
    });
    const stop = new AbortController();
    const done = next.run(
      stop.signal,
      (term) => new Promise((resolve) => term.addEventListener("abort", () => resolve(), { once: true })),
    );
    await eventually(() => next.leading, 20_000, "the next candidate leading");
    assert.equal((await e.lease()).spec.leaseTransitions, 1);
    stop.abort();
    await done;
  });
});
