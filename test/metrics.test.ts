// /metrics as an operator scrapes it: parsed with a strict Prometheus text-format parser, with
// upstream's series names, types, labels and buckets, the request series broken out as upstream's
// (a 403 is not counted), stability annotations, hidden series only with
// --show-hidden-metrics-for-version, and access only for system:monitoring.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect } from "node:tls";
import { promisify } from "node:util";
import { Agent, request } from "undici";
import {
  type GatewayProcess,
  kubectl,
  kubectlRun,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { type MetricFamily, parsePrometheusText } from "./support/prom-text.ts";
import { eventually } from "./support/watch.ts";

const KUBECTL = oldestAndNewestKubectl().at(-1) ?? "kubectl";
const REQUEST_LABELS = [
  "verb",
  "dry_run",
  "group",
  "version",
  "resource",
  "subresource",
  "scope",
  "component",
];

async function scrape(gw: GatewayProcess, ...as: string[]): Promise<Map<string, MetricFamily>> {
  // Every series of a running server is more than execFile's default buffer holds.
  const { stdout } = await promisify(execFile)(
    KUBECTL,
    [`--kubeconfig=${gw.kubeconfig}`, "get", "--raw", "/metrics", ...as],
    { maxBuffer: 256 * 1024 * 1024, timeout: 30_000 },
  );
  return parsePrometheusText(stdout);
}

function family(families: Map<string, MetricFamily>, name: string, type: string): MetricFamily {
  const f = families.get(name);
  assert.ok(f, `${name} is served`);
  assert.equal(f.type, type, `${name} is a ${type}`);
  return f;
}

/** The label names of a family's series (a histogram's without `le`). */
function labelNames(f: MetricFamily): string[] {
  const names = new Set<string>();
  for (const s of f.samples) for (const k of Object.keys(s.labels)) if (k !== "le") names.add(k);
  return [...names].sort();
}

const matches = (labels: Readonly<Record<string, string>>, want: Record<string, string>) =>
  Object.entries(want).every(([k, v]) => labels[k] === v);

function value(f: MetricFamily | undefined, want: Record<string, string>, sample = f?.name): number {
  return (f?.samples ?? [])
    .filter((s) => s.name === sample && matches(s.labels, want))
    .reduce((a, s) => a + s.value, 0);
}

describe("/metrics", { timeout: 240_000 }, () => {
  let gw: GatewayProcess;
  let k8s: GatewayProcess;
  before(async () => {
    [gw, k8s] = await Promise.all([
      startGateway(),
      startGateway(["--api-naming=kubernetes", "--show-hidden-metrics-for-version=1.26"]),
    ]);
  });
  after(async () => {
    await Promise.all([gw?.stop(), k8s?.stop()]);
  });

  it("serves upstream's request series with their labels and buckets, counting what passed authorization", async () => {
    const run = (...args: string[]) => kubectlRun(KUBECTL, gw.kubeconfig, args);
    assert.equal((await run("create", "namespace", "metrics")).code, 0);
    assert.equal((await run("-n", "metrics", "create", "configmap", "one", "--from-literal=a=b")).code, 0);
    assert.equal((await run("-n", "metrics", "get", "configmap", "one")).code, 0);
    assert.equal((await run("-n", "metrics", "get", "configmaps")).code, 0);
    const apply = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"two","namespace":"metrics"}}`;
    assert.equal(
      (
        await kubectlRun(
          KUBECTL,
          gw.kubeconfig,
          ["apply", "--server-side", "--dry-run=server", "-f", "-"],
          apply,
        )
      ).code,
      0,
    );
    // Forbidden: not counted, as upstream counts only requests that reach a handler.
    const denied = await run("-n", "metrics", "get", "secrets", "--as=nobody");
    assert.notEqual(denied.code, 0);

    const m = await scrape(gw);
    const total = family(m, "apiserver_request_total", "counter");
    assert.match(total.help ?? "", /^\[STABLE\] Counter of apiserver requests/);
    assert.deepEqual(labelNames(total), [...REQUEST_LABELS, "code"].sort());
    const cm = { group: "", version: "v1", resource: "configmaps", component: "apiserver", subresource: "" };
    assert.ok(value(total, { ...cm, verb: "POST", scope: "resource", code: "201", dry_run: "" }) >= 1);
    assert.ok(value(total, { ...cm, verb: "GET", scope: "resource", code: "200" }) >= 1);
    assert.ok(value(total, { ...cm, verb: "LIST", scope: "namespace", code: "200" }) >= 1);
    assert.ok(value(total, { ...cm, verb: "APPLY", scope: "resource", dry_run: "All" }) >= 1);
    assert.equal(value(total, { resource: "secrets", code: "403" }), 0);
    assert.ok(value(total, { resource: "namespaces", verb: "POST", scope: "resource", code: "201" }) >= 1);

    const duration = family(m, "apiserver_request_duration_seconds", "histogram");
    assert.deepEqual(labelNames(duration), [...REQUEST_LABELS].sort());
    const les = duration.samples
      .filter((s) => s.name.endsWith("_bucket") && matches(s.labels, { ...cm, verb: "POST" }))
      .map((s) => s.labels.le);
    assert.deepEqual(les, [
      ...["0.005", "0.025", "0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "1.25", "1.5", "2", "3", "4"],
      ...["5", "6", "8", "10", "15", "20", "30", "45", "60", "+Inf"],
    ]);
    const sizes = family(m, "apiserver_response_sizes", "histogram");
    assert.deepEqual(labelNames(sizes), REQUEST_LABELS.filter((l) => l !== "dry_run").sort());
    assert.deepEqual(
      [...new Set(sizes.samples.filter((s) => s.name.endsWith("_bucket")).map((s) => s.labels.le))],
      ["1000", "10000", "100000", "1000000", "10000000", "100000000", "1000000000", "+Inf"],
    );
    // Only reads are sized.
    assert.ok(sizes.samples.every((s) => s.labels.verb === "GET" || s.labels.verb === "LIST"));
    assert.ok(value(sizes, { ...cm, verb: "GET" }, "apiserver_response_sizes_sum") > 0);

    const slo = family(m, "apiserver_request_slo_duration_seconds", "histogram");
    assert.match(slo.help ?? "", /^\[ALPHA\] \(Deprecated since 1\.27\.0\) Response latency/);
    family(m, "apiserver_current_inflight_requests", "gauge");
    family(m, "apiserver_longrunning_requests", "gauge");
    // Node's process series.
    family(m, "process_cpu_seconds_total", "counter");
    family(m, "process_start_time_seconds", "gauge");
    family(m, "process_resident_memory_bytes", "gauge");
  });

  it("counts watches, their events, long-running requests and stored objects", async () => {
    const longRunning = { verb: "WATCH", resource: "configmaps", scope: "namespace", component: "apiserver" };
    // Controllers may watch too: the change this client makes is what counts.
    const watching = async () => value((await scrape(gw)).get("apiserver_longrunning_requests"), longRunning);
    const baseline = await watching();
    const watch = spawn(
      KUBECTL,
      [`--kubeconfig=${gw.kubeconfig}`, "-n", "default", "get", "configmaps", "--watch"],
      {
        stdio: "ignore",
      },
    );
    try {
      await eventually(
        async () => (await watching()) === baseline + 1,
        30_000,
        "the watch counted as long-running",
      );
      const m = await scrape(gw);
      const events = family(m, "apiserver_watch_events_total", "counter");
      assert.deepEqual(labelNames(events), ["group", "kind", "version"]);
      assert.ok(value(events, { group: "", version: "v1", kind: "ConfigMap" }) >= 1);
      family(m, "apiserver_watch_events_sizes", "histogram");
      // Hidden unless asked for.
      assert.equal(m.get("apiserver_registered_watchers"), undefined);
    } finally {
      watch.kill();
      await once(watch, "exit");
    }
    await eventually(async () => (await watching()) === baseline, 30_000, "the watch's end");
    const m = await scrape(gw);
    const objects = family(m, "apiserver_storage_objects", "gauge");
    assert.match(objects.help ?? "", /^\[STABLE\] /);
    assert.ok(value(objects, { resource: "namespaces" }) >= 4);
    assert.ok(value(objects, { resource: "clusterroles.rbac.authorization.cluster.io" }) > 10);
    const store = family(m, "embedded_request_duration_seconds", "histogram");
    assert.deepEqual(labelNames(store), ["operation", "type"]);
    assert.ok(
      value(store, { operation: "create", type: "configmaps" }, "embedded_request_duration_seconds_count") >=
        1,
    );
    const lists = family(m, "apiserver_storage_list_total", "counter");
    assert.ok(value(lists, { resource: "configmaps" }) >= 1);
    family(m, "apiserver_storage_list_returned_objects_total", "counter");
  });

  it("counts failed TLS handshakes", async () => {
    const before = value((await scrape(gw)).get("apiserver_tls_handshake_errors_total"), {});
    // A client that refuses the server's certificate aborts the handshake.
    const socket = connect({ host: "127.0.0.1", port: gw.port, rejectUnauthorized: true });
    await once(socket, "error").catch(() => {});
    socket.destroy();
    await eventually(
      async () => value((await scrape(gw)).get("apiserver_tls_handshake_errors_total"), {}) > before,
      10_000,
      "the handshake error counted",
    );
  });

  it("labels groups with the naming preset, and serves hidden series with --show-hidden-metrics-for-version", async () => {
    const listed = await kubectlRun(KUBECTL, k8s.kubeconfig, ["get", "clusterroles"]);
    assert.equal(listed.code, 0, `kubectl get clusterroles: ${listed.stdout}${listed.stderr}`);
    // The controllers watch too: one more than before is this client's.
    const namespaceWatchers = async () =>
      value((await scrape(k8s)).get("apiserver_registered_watchers"), { version: "v1", kind: "Namespace" });
    const baseline = await namespaceWatchers();
    const watch = spawn(KUBECTL, [`--kubeconfig=${k8s.kubeconfig}`, "get", "namespaces", "--watch"], {
      stdio: "ignore",
    });
    try {
      await eventually(
        async () => (await namespaceWatchers()) === baseline + 1,
        30_000,
        "the hidden watcher gauge",
      );
    } finally {
      watch.kill();
      await once(watch, "exit");
    }
    const m = await scrape(k8s);
    const total = family(m, "apiserver_request_total", "counter");
    assert.ok(
      value(total, { group: "rbac.authorization.k8s.io", resource: "clusterroles", verb: "LIST" }) >= 1,
    );
    assert.match(
      family(m, "apiserver_registered_watchers", "gauge").help ?? "",
      /^\[ALPHA\] \(Deprecated since 1\.26\.0\) /,
    );
  });

  it("refuses a --show-hidden-metrics-for-version other than the previous minor release", async () => {
    const child = spawn(
      process.execPath,
      [resolve(import.meta.dirname, "../gateway/main.ts"), "--show-hidden-metrics-for-version=1.25"],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let err = "";
    child.stderr?.on("data", (d) => {
      err += d;
    });
    const [code] = await once(child, "exit");
    assert.equal(code, 2);
    assert.match(err, /--show-hidden-metrics-for-version must be omitted or have the value '1\.26'/);
  });

  it("is readable by system:monitoring only", async () => {
    const monitor = await scrape(gw, "--as=prom", "--as-group=system:monitoring");
    assert.ok(monitor.has("apiserver_request_total"));
    const other = await kubectl(KUBECTL, gw.kubeconfig, ["get", "--raw", "/metrics", "--as=prom"]);
    assert.notEqual(other.code, 0);
    assert.match(other.stdout, /forbidden/i);
    // Anonymous: a 403 Status.
    const agent = new Agent({ connect: { ca: readFileSync(join(gw.dataDir, "pki", "ca.crt"), "utf8") } });
    try {
      const res = await request(`https://127.0.0.1:${gw.port}/metrics`, { dispatcher: agent });
      const body = (await res.body.json()) as { kind: string; code: number; reason: string };
      assert.equal(res.statusCode, 403);
      assert.equal(body.kind, "Status");
      assert.equal(body.reason, "Forbidden");
    } finally {
      await agent.close();
    }
  });
});
