// Watchers that stop reading, over real sockets: a client whose receive buffer is small and that
// never reads must not make the gateway hold every change for it. Its watch is ended once its
// queued bytes pass the bound, the end is counted in a metric, and other watchers go on.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { load } from "js-yaml";
import { ApiClient } from "./support/api-client.ts";
import type { GatewayProcess } from "./support/gateway-process.ts";
import { settledRss, startGatewayWithInspector } from "./support/process-memory.ts";
import { eventually, take } from "./support/watch.ts";

const PYTHON = "/usr/bin/python3";
const OBJECT_BYTES = 512 * 1024;
const UPDATES = 200;
/** The history budget the gateway runs with here, so that RSS shows the watcher's share. */
const HISTORY_BYTES = 16 * 1024 * 1024;
/**
 * RSS growth allowed over the updates, after a full GC: the history budget (16 MiB), the stalled
 * watcher's queue bound (8 MiB), one frame in its socket, and allocator slack. Observed ~40 MiB;
 * before the byte bounds, 226 MiB (every change pinned, with its frame, for the stalled watcher).
 */
const RSS_GROWTH_BOUND = 80 * 1024 * 1024;
/** What the stalled client may still get: the socket buffers' worth and one frame (it was 105 MB). */
const STALLED_BYTES_BOUND = 8 * 1024 * 1024;

// A watch client that sets a 4 KiB receive buffer before connecting, reads the response head and
// then nothing until told to on stdin; it then reads to the end and reports what it got.
const STALLED_CLIENT = String.raw`
import json, socket, ssl, sys
host, port, path, ca, cert, key = sys.argv[1:7]
raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
raw.connect((host, int(port)))
ctx = ssl.create_default_context(cafile=ca)
ctx.load_cert_chain(cert, key)
s = ctx.wrap_socket(raw, server_hostname=host)
s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nAccept: application/json\r\n\r\n" % (path, host)).encode())
head = b""
while b"\r\n\r\n" not in head:
    head += s.recv(1)
print(json.dumps({"status": int(head.split(b" ")[1]), "rcvbuf": s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)}), flush=True)
sys.stdin.readline()
s.settimeout(60)
body = bytearray()
error = None
try:
    while True:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        body += chunk
        if body.endswith(b"\r\n0\r\n\r\n"):
            break
except Exception as e:
    error = repr(e)
print(json.dumps({"bytes": len(body), "ended": body.endswith(b"\r\n0\r\n\r\n"), "error": error}), flush=True)
`;

/** A stalled watch client; `lines` yields its JSON reports in order. */
function startStalledClient(gw: GatewayProcess, path: string) {
  const config = load(readFileSync(gw.kubeconfig, "utf8")) as {
    users: { user: Record<string, string> }[];
  };
  const user = config.users[0]?.user ?? {};
  const cert = join(gw.dataDir, "stalled-client.crt");
  const key = join(gw.dataDir, "stalled-client.key");
  writeFileSync(cert, Buffer.from(user["client-certificate-data"] ?? "", "base64"));
  writeFileSync(key, Buffer.from(user["client-key-data"] ?? "", "base64"));
  const ca = join(gw.dataDir, "pki", "ca.crt");
  const child = spawn(PYTHON, ["-c", STALLED_CLIENT, "127.0.0.1", String(gw.port), path, ca, cert, key], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const report = async (n: number, timeoutMs: number) => {
    await eventually(
      () => out.split("\n").filter((l) => l !== "").length >= n || child.exitCode !== null,
      timeoutMs,
      `stalled client report ${n}`,
    );
    const line = out.split("\n").filter((l) => l !== "")[n - 1];
    if (line === undefined) throw new Error(`stalled client exited with ${child.exitCode}: ${err}`);
    return JSON.parse(line) as Record<string, unknown>;
  };
  return { child, report, read: () => child.stdin.write("read\n") };
}

async function metricValue(api: ApiClient, name: string, labels: string): Promise<number> {
  const res = await api.call("GET", "/metrics");
  assert.equal(res.status, 200, res.text);
  const line = res.text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

let gw: GatewayProcess;
let api: ApiClient;
let inspector: number;

before(async () => {
  // Its inspector, on loopback, lets the test collect garbage.
  ({ gw, inspector } = await startGatewayWithInspector([`--watch-cache-history-bytes=${HISTORY_BYTES}`]));
  api = new ApiClient(gw.kubeconfig);
});

after(async () => {
  await api?.close();
  await gw?.stop();
});

it("a watcher that never reads is ended once its queued bytes pass the bound; RSS stays bounded and other watchers go on", {
  skip: (!existsSync(PYTHON) || !existsSync("/proc/self/status")) && "needs /usr/bin/python3 and /proc",
}, async () => {
  const blob = "x".repeat(OBJECT_BYTES);
  const created = await api.call("POST", "/api/v1/namespaces/default/configmaps", {
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big" }, data: { blob, n: "0" } },
  });
  assert.equal(created.status, 201, created.text);
  const rv = created.body.metadata.resourceVersion as string;
  const path = `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dbig`;

  const healthy = await api.watch(path);
  let seen = 0;
  let lastN = "0";
  const reading = (async () => {
    for await (const event of healthy.events) {
      if (event.type !== "MODIFIED") continue;
      seen++;
      lastN = (event.object.data as Record<string, string>).n ?? "";
    }
  })();

  const stalled = startStalledClient(gw, path);
  try {
    const head = await stalled.report(1, 20_000);
    assert.equal(head.status, 200);
    const rssBefore = await settledRss(inspector, gw);

    for (let i = 1; i <= UPDATES; i++) {
      const res = await api.call("PATCH", "/api/v1/namespaces/default/configmaps/big", {
        body: { data: { n: String(i) } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(res.status, 200, res.text);
    }
    await eventually(() => seen === UPDATES, 60_000, "the reading watcher's events");
    assert.equal(lastN, String(UPDATES));
    const growth = (await settledRss(inspector, gw)) - rssBefore;
    console.log(
      `RSS growth ${(growth / 2 ** 20).toFixed(1)} MiB over ${UPDATES} updates of a 512 KiB object`,
    );
    assert.ok(growth < RSS_GROWTH_BOUND, `RSS grew ${(growth / 2 ** 20).toFixed(1)} MiB`);
    await eventually(
      async () =>
        (await metricValue(api, "apiserver_terminated_watchers_total", 'resource="configmaps"')) >= 1,
      20_000,
      "the stalled watcher to be ended",
    );

    stalled.read();
    const end = await stalled.report(2, 60_000);
    console.log(`stalled client received ${end.bytes} bytes, ended ${end.ended}`);
    assert.equal(end.ended, true, JSON.stringify(end));
    assert.ok((end.bytes as number) < STALLED_BYTES_BOUND, JSON.stringify(end));

    // The reading watcher is still open and current.
    const res = await api.call("PATCH", "/api/v1/namespaces/default/configmaps/big", {
      body: { data: { n: "last" } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(res.status, 200, res.text);
    await eventually(() => lastN === "last", 20_000, "the reading watcher's last event");
  } finally {
    stalled.child.kill();
    healthy.close();
    await reading.catch(() => {});
  }
});

it("changes past the history byte budget are gone: a watch or an exact list from before them gets 410", async () => {
  const blob = "y".repeat(OBJECT_BYTES);
  const path = "/api/v1/namespaces/default/configmaps";
  const created = await api.call("POST", path, {
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "churn" }, data: { blob, n: "0" } },
  });
  assert.equal(created.status, 201, created.text);
  const rv = created.body.metadata.resourceVersion as string;
  // Twice the budget's worth of changes.
  let last = rv;
  for (let i = 1; i <= (2 * HISTORY_BYTES) / OBJECT_BYTES; i++) {
    const res = await api.call("PATCH", `${path}/churn`, {
      body: { data: { n: String(i) } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(res.status, 200, res.text);
    last = res.body.metadata.resourceVersion;
  }
  const exact = await api.call("GET", `${path}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
  assert.equal(exact.status, 410, exact.text);
  assert.equal(exact.body.reason, "Expired");
  const old = await api.watch(`${path}?watch=1&resourceVersion=${rv}`);
  const [error] = await take(old.events, 1, 20_000);
  old.close();
  assert.ok(error);
  assert.equal(error.type, "ERROR");
  assert.equal((error.object as { code?: number }).code, 410);
  // The newest change is still in the window.
  const before = Number(last) - 1;
  const recent = await api.watch(`${path}?watch=1&resourceVersion=${before}`);
  const [change] = await take(recent.events, 1, 20_000);
  recent.close();
  assert.ok(change);
  assert.equal(change.type, "MODIFIED");
  assert.equal((change.object.metadata as { resourceVersion: string }).resourceVersion, last);
});
