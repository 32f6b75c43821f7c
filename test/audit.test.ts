// Audit through the real gateway: a policy's rules choose the level and stages per request
// (kubectl 1.27 and 1.33, client-node, python3-kubernetes as the callers), request and response
// bodies appear at the levels upstream puts them, credentials never do, the log backend's
// formats, rotation and modes (a full disk via /dev/full), the metrics, and the refusals to
// start on a bad policy, under both naming presets.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { ApiClient } from "./support/api-client.ts";
import { type GatewayProcess, oldestAndNewestKubectl, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const run = promisify(execFile);
// biome-ignore lint/suspicious/noExplicitAny: audit events are free-form JSON read back
type Event = Record<string, any>;

async function events(path: string): Promise<Event[]> {
  const text = existsSync(path) ? await readFile(path, "utf8") : "";
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Event);
}

async function eventsOf(path: string, id: string, count: number): Promise<Event[]> {
  let found: Event[] = [];
  await eventually(
    async () => {
      found = (await events(path)).filter((e) => e.auditID === id);
      return found.length >= count;
    },
    10_000,
    `${count} audit event(s) of ${id}`,
  );
  return found;
}

/** A counter's value from the text exposition (sum over the series that carry `labels`). */
async function counter(api: ApiClient, name: string, labels = ""): Promise<number> {
  const res = await api.call("GET", "/metrics");
  let sum = 0;
  for (const line of res.text.split("\n")) {
    if (line.startsWith("#")) continue;
    const [series, value] = line.split(" ");
    if (!series || (series !== name && !series.startsWith(`${name}{`))) continue;
    if (labels && !series.includes(labels)) continue;
    sum += Number(value);
  }
  return sum;
}

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "cg-audit-"));
  dirs.push(dir);
  return dir;
}
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function policy(group: string, rules: string, extra = ""): string {
  return `apiVersion: ${group}/v1\nkind: Policy\n${extra}rules:\n${rules}`;
}

describe("audit policy and the log backend (cluster naming)", () => {
  let gw: GatewayProcess;
  let api: ApiClient;
  let logPath: string;
  before(async () => {
    const dir = await tempDir();
    logPath = join(dir, "audit.log");
    const file = join(dir, "policy.yaml");
    await writeFile(
      file,
      policy(
        "audit.cluster.io",
        `  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/metrics"]
  - level: RequestResponse
    namespaces: ["audit-rr"]
    resources: [{group: "", resources: ["configmaps"]}]
    omitManagedFields: true
  - level: RequestResponse
    resources: [{group: "", resources: ["serviceaccounts/token"]}, {group: "authentication.cluster.io", resources: ["tokenreviews"]}]
  - level: Request
    namespaces: ["audit-rr"]
    resources: [{group: "", resources: ["secrets"]}]
  - level: None
    resources: [{group: "", resources: ["secrets"], resourceNames: ["unaudited"]}]
  - level: None
    verbs: ["create"]
    resources: [{group: "", resources: ["secrets"]}]
  - level: Metadata
    verbs: ["get", "list", "watch"]
    omitStages: ["RequestReceived"]
  - level: Metadata
`,
        "omitStages: []\n",
      ),
    );
    gw = await startGateway([`--audit-policy-file=${file}`, `--audit-log-path=${logPath}`]);
    api = new ApiClient(gw.kubeconfig);
    await api.call("POST", "/api/v1/namespaces", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "audit-rr" } },
    });
  });
  after(async () => {
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  });

  it("kubectl 1.27 and 1.33: RequestResponse bodies, both stages, managedFields left out, the authorization decision", async () => {
    for (const kubectl of oldestAndNewestKubectl()) {
      const name = `cm-${kubectl.replace(/\W/g, "")}`;
      await run(kubectl, [
        `--kubeconfig=${gw.kubeconfig}`,
        "-n",
        "audit-rr",
        "create",
        "configmap",
        name,
        "--from-literal=k=v",
      ]);
      let complete: Event | undefined;
      let received: Event | undefined;
      await eventually(
        async () => {
          // RequestReceived comes before the body is read: only the ID ties it to the object.
          const all = await events(logPath);
          complete = all.find(
            (e) => e.objectRef?.name === name && e.verb === "create" && e.stage === "ResponseComplete",
          );
          received = all.find((e) => e.auditID === complete?.auditID && e.stage === "RequestReceived");
          return complete !== undefined && received !== undefined;
        },
        10_000,
        `the events of ${name}`,
      );
      assert.equal(complete?.level, "RequestResponse");
      assert.equal(complete?.auditID, received?.auditID);
      assert.equal(received?.responseStatus, undefined, "RequestReceived has no response yet");
      assert.deepEqual(complete?.requestObject?.data, { k: "v" });
      assert.equal(complete?.responseObject?.metadata?.name, name);
      assert.ok(complete?.responseObject?.metadata?.uid, "the response is the created object");
      assert.equal(complete?.responseObject?.metadata?.managedFields, undefined);
      assert.equal(complete?.responseStatus?.code, 201);
      assert.equal(complete?.annotations?.["authorization.cluster.io/decision"], "allow");
      assert.ok(complete?.annotations?.["authorization.cluster.io/reason"] !== undefined);
      assert.match(String(complete?.userAgent), /kubectl/);
    }
  });

  it("client-node: Secrets at Request level only where the rule names them; others not at all", async () => {
    const k8s = await import("@kubernetes/client-node");
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(gw.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    for (const [namespace, name] of [
      ["audit-rr", "audited"],
      ["default", "unaudited"],
    ] as const)
      await core.createNamespacedSecret({
        namespace,
        body: { metadata: { name }, stringData: { password: `${name}-s3cret` } },
      });
    // resourceNames match the name in the path: this read is not audited (a create has none).
    await core.readNamespacedSecret({ namespace: "default", name: "unaudited" });
    let create: Event | undefined;
    await eventually(async () => {
      create = (await events(logPath)).find(
        (e) => e.objectRef?.name === "audited" && e.verb === "create" && e.stage === "ResponseComplete",
      );
      return create !== undefined;
    }, 10_000);
    assert.equal(create?.level, "Request");
    assert.equal(create?.requestObject?.stringData?.password, "audited-s3cret");
    assert.equal(create?.responseObject, undefined, "no response body below RequestResponse");
    const text = await readFile(logPath, "utf8");
    assert.ok(!text.includes("unaudited-s3cret"), "a level None secret's data never reaches the log");
    assert.ok(!text.includes('"name":"unaudited"'), "nor any event of it");
  });

  it("python3-kubernetes: a read at Metadata, its RequestReceived left out by the rule's omitStages", async (t) => {
    try {
      await run("/usr/bin/python3", ["-c", "import kubernetes"]);
    } catch {
      t.skip("install python3-kubernetes");
      return;
    }
    const script = `
import kubernetes, sys
kubernetes.config.load_kube_config(config_file=sys.argv[1])
print(kubernetes.client.CoreV1Api().read_namespace("audit-rr").metadata.name)`;
    const { stdout } = await run("/usr/bin/python3", ["-c", script, gw.kubeconfig]);
    assert.equal(stdout.trim(), "audit-rr");
    let read: Event[] = [];
    await eventually(async () => {
      read = (await events(logPath)).filter(
        (e) =>
          e.verb === "get" && e.objectRef?.resource === "namespaces" && /OpenAPI|python/i.test(e.userAgent),
      );
      return read.length > 0;
    }, 10_000);
    assert.deepEqual(
      read.map((e) => [e.stage, e.level]),
      [["ResponseComplete", "Metadata"]],
    );
    assert.equal(read[0]?.requestObject, undefined);
  });

  it("a watch has ResponseStarted when its headers go out, then ResponseComplete", async () => {
    const res = await api.call("GET", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1");
    const id = String(res.headers["audit-id"]);
    const stages = (await eventsOf(logPath, id, 2)).map((e) => e.stage);
    assert.deepEqual(stages, ["ResponseStarted", "ResponseComplete"]);
  });

  it("impersonation and denial: the authenticated user is the policy's subject; the 403 is recorded with its Status", async () => {
    const res = await api.call("GET", "/api/v1/namespaces/default/pods", {
      headers: { "impersonate-user": "nobody" },
    });
    assert.equal(res.status, 403);
    const [event] = await eventsOf(logPath, String(res.headers["audit-id"]), 1);
    assert.equal(event?.user?.username, "cluster-admin");
    assert.equal(event?.impersonatedUser?.username, "nobody");
    assert.equal(event?.annotations?.["authorization.cluster.io/decision"], "forbid");
    assert.equal(event?.responseStatus?.reason, "Forbidden");
    assert.equal(event?.responseStatus?.code, 403);
    assert.match(String(event?.responseStatus?.message), /User "nobody" cannot list/);
  });

  it("never a credential: TokenRequest answers and TokenReview tokens are blanked even at RequestResponse", async () => {
    await api.call("POST", "/api/v1/namespaces/default/serviceaccounts", {
      body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "auditee" } },
    });
    const issued = await api.call("POST", "/api/v1/namespaces/default/serviceaccounts/auditee/token", {
      body: { apiVersion: "authentication.cluster.io/v1", kind: "TokenRequest", spec: {} },
    });
    assert.equal(issued.status, 201, issued.text);
    const token = String((issued.body as Event).status.token);
    const review = await api.call("POST", "/apis/authentication.cluster.io/v1/tokenreviews", {
      body: { apiVersion: "authentication.cluster.io/v1", kind: "TokenReview", spec: { token } },
    });
    assert.equal(review.status, 201, review.text);
    const [issueEvent] = (await eventsOf(logPath, String(issued.headers["audit-id"]), 2)).filter(
      (e) => e.stage === "ResponseComplete",
    );
    assert.equal(issueEvent?.level, "RequestResponse");
    assert.equal(issueEvent?.responseObject?.status?.token, "");
    const [reviewEvent] = (await eventsOf(logPath, String(review.headers["audit-id"]), 2)).filter(
      (e) => e.stage === "ResponseComplete",
    );
    assert.equal(reviewEvent?.requestObject?.spec?.token, "");
    assert.ok(!(await readFile(logPath, "utf8")).includes(token), "the token appears nowhere in the log");
  });

  it("a request refused by authentication (401): one ResponseStarted event at the policy's level, no user, no credential", async () => {
    const token = "not-a-token-the-gateway-knows-0123456789";
    const stranger = new ApiClient(gw.kubeconfig, { anonymous: true });
    const res = await stranger.call("GET", "/api/v1/namespaces/default/configmaps/refused", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 401);
    const id = String(res.headers["audit-id"]);
    assert.ok(res.headers["audit-id"], "the refusal carries its Audit-Id too");
    const [ev] = await eventsOf(logPath, id, 1);
    assert.equal(ev?.stage, "ResponseStarted");
    assert.equal(ev?.level, "Metadata", "the get rule (its RequestReceived omitted) applies");
    assert.equal(ev?.verb, "get");
    assert.deepEqual(ev?.user, {});
    assert.deepEqual(ev?.responseStatus, {
      metadata: {},
      message: "Authentication failed, attempted: bearer",
      code: 401,
    });
    assert.deepEqual(ev?.objectRef, {
      resource: "configmaps",
      namespace: "default",
      name: "refused",
      apiGroup: "",
      apiVersion: "v1",
    });
    assert.equal(ev?.requestURI, "/api/v1/namespaces/default/configmaps/refused");
    // Under the catch-all rule (RequestReceived kept) a refused create is still one event:
    // upstream audits the refusal only, not the stages of a request that never ran.
    const post = await stranger.call("POST", "/api/v1/namespaces/default/configmaps", {
      headers: { authorization: `Bearer ${token}` },
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "refused" } },
    });
    assert.equal(post.status, 401);
    const postID = String(post.headers["audit-id"]);
    const [created] = await eventsOf(logPath, postID, 1);
    assert.equal(created?.level, "Metadata");
    assert.equal(created?.stage, "ResponseStarted");
    // The log backend writes in order (blocking): a later request's event means these are complete.
    const later = await api.call("GET", "/api/v1/namespaces/default/configmaps");
    await eventsOf(logPath, String(later.headers["audit-id"]), 1);
    const all = await events(logPath);
    assert.equal(all.filter((e) => e.auditID === id || e.auditID === postID).length, 2);
    assert.ok(!(await readFile(logPath, "utf8")).includes(token), "no credential in the audit log");
  });

  it("non-resource URLs the policy sets to None are not audited; the level and event counters move", async () => {
    const health = await api.call("GET", "/healthz");
    const id = String(health.headers["audit-id"]);
    assert.ok(id, "every request still gets an Audit-Id");
    const version = await api.call("GET", "/version");
    await eventsOf(logPath, String(version.headers["audit-id"]), 1);
    assert.equal((await events(logPath)).filter((e) => e.auditID === id).length, 0);
    assert.ok((await counter(api, "apiserver_audit_level_total", 'level="RequestResponse"')) > 0);
    assert.ok((await counter(api, "apiserver_audit_level_total", 'level="None"')) > 0);
    assert.ok((await counter(api, "apiserver_audit_event_total")) > 0);
  });
});

describe("audit under the kubernetes naming: stdout in the legacy format", () => {
  it("audit.k8s.io/v1 policies are read; each event is one upstream legacy line on standard output", async () => {
    const dir = await tempDir();
    const file = join(dir, "policy.yaml");
    await writeFile(
      file,
      policy(
        "audit.k8s.io",
        '  - level: Metadata\n    resources: [{group: "", resources: ["configmaps"]}]\n',
      ),
    );
    const gw = await startGateway([
      "--api-naming=kubernetes",
      `--audit-policy-file=${file}`,
      "--audit-log-path=-",
      "--audit-log-format=legacy",
    ]);
    try {
      const api = new ApiClient(gw.kubeconfig);
      const res = await api.call("GET", "/api/v1/namespaces/kube-system/configmaps");
      const id = String(res.headers["audit-id"]);
      await eventually(
        () => gw.output().includes(`id="${id}" stage="ResponseComplete"`),
        10_000,
        "the legacy line",
      );
      const line = gw
        .output()
        .split("\n")
        .find((l) => l.includes(`id="${id}" stage="ResponseComplete"`));
      assert.match(
        String(line),
        /^\d{4}-\d\d-\d\dT[\d:.]+Z AUDIT: id="[^"]+" stage="ResponseComplete" ip="[^"]+" method="list" user="kubernetes-admin|cluster-admin" groups="\\"system:masters\\".*" as="<self>" asgroups="<lookup>" user-agent="[^"]*" namespace="kube-system" uri="\/api\/v1\/namespaces\/kube-system\/configmaps" response="200"$/,
      );
      assert.ok(gw.output().includes(`id="${id}" stage="RequestReceived"`));
      assert.ok(
        !gw.output().includes('uri="/api/v1/namespaces/kube-system/secrets'),
        "other resources are not audited",
      );
    } finally {
      await gw.stop();
      await rm(gw.dataDir, { recursive: true, force: true });
    }
  });
});

describe("log rotation", () => {
  it("--audit-log-maxsize rotates into lumberjack-named backups; --audit-log-maxbackup keeps that many", async () => {
    const dir = await tempDir();
    const file = join(dir, "policy.yaml");
    await writeFile(
      file,
      policy(
        "audit.cluster.io",
        '  - level: Request\n    resources: [{group: "", resources: ["configmaps"]}]\n',
      ),
    );
    const logPath = join(dir, "logs", "audit.log");
    const gw = await startGateway([
      "--storage-backend=memory",
      `--audit-policy-file=${file}`,
      `--audit-log-path=${logPath}`,
      "--audit-log-maxsize=1",
      "--audit-log-maxbackup=1",
    ]);
    try {
      const api = new ApiClient(gw.kubeconfig);
      // 300 KB bodies at Request level: about 1.2 MB of log, past 1 MB once.
      const big = "x".repeat(300_000);
      for (let i = 0; i < 8; i++) {
        const res = await api.call("POST", "/api/v1/namespaces/default/configmaps", {
          body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `big-${i}` }, data: { big } },
        });
        assert.equal(res.status, 201);
      }
      await eventually(
        async () =>
          (await readdir(join(dir, "logs"))).some((f) =>
            /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/.test(f),
          ),
        10_000,
        "a rotated file",
      );
      const files = await readdir(join(dir, "logs"));
      assert.equal(files.filter((f) => f !== "audit.log").length, 1, `one backup kept: ${files.join(", ")}`);
      for (const f of files) {
        const text = await readFile(join(dir, "logs", f), "utf8");
        assert.ok(text.length <= 1024 * 1024, `${f} stays within 1 MB`);
        for (const l of text.split("\n").filter(Boolean)) JSON.parse(l);
      }
    } finally {
      await gw.stop();
      await rm(gw.dataDir, { recursive: true, force: true });
    }
  });
});

describe("--audit-log-compress", () => {
  it("rotated files are gzipped beside the log (<backup>.log.gz), the uncompressed backup removed", async () => {
    const dir = await tempDir();
    const file = join(dir, "policy.yaml");
    await writeFile(
      file,
      policy(
        "audit.cluster.io",
        '  - level: Request\n    resources: [{group: "", resources: ["configmaps"]}]\n',
      ),
    );
    const logPath = join(dir, "logs", "audit.log");
    const gw = await startGateway([
      "--storage-backend=memory",
      `--audit-policy-file=${file}`,
      `--audit-log-path=${logPath}`,
      "--audit-log-maxsize=1",
      "--audit-log-compress",
    ]);
    try {
      const api = new ApiClient(gw.kubeconfig);
      const big = "x".repeat(300_000);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await api.call("POST", "/api/v1/namespaces/default/configmaps", {
          body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `gz-${i}` }, data: { big } },
        });
        assert.equal(res.status, 201);
        ids.push(String(res.headers["audit-id"]));
      }
      const backup = /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/;
      await eventually(
        async () => {
          const files = await readdir(join(dir, "logs"));
          return files.some((f) => backup.test(f)) && files.every((f) => f === "audit.log" || backup.test(f));
        },
        10_000,
        "a compressed backup and no uncompressed one",
      );
      const files = (await readdir(join(dir, "logs"))).filter((f) => backup.test(f));
      const rotated = files.flatMap((f) =>
        gunzipSync(readFileSync(join(dir, "logs", f)))
          .toString("utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Event),
      );
      assert.ok(rotated.length > 0);
      assert.ok(
        rotated.some((e) => e.auditID === ids[0] && e.stage === "ResponseComplete"),
        "the first request's event is in the compressed backup",
      );
      const current = await events(logPath);
      assert.ok(
        current.some((e) => e.auditID === ids.at(-1)),
        "the newest events in the live file",
      );
    } finally {
      await gw.stop();
      await rm(gw.dataDir, { recursive: true, force: true });
    }
  });
});

describe("a rotation that fails, in each mode", () => {
  // The log's directory becomes a plain file after the start, so the rotation can neither move
  // the log nor make a new one (a permission change would not stop a root-run test).
  const audited = policy(
    "audit.cluster.io",
    '  - level: Request\n    namespaces: ["audited"]\n    resources: [{group: "", resources: ["configmaps"]}]\n',
  );
  for (const mode of ["blocking", "batch", "blocking-strict"]) {
    it(`--audit-log-mode=${mode}`, async () => {
      const dir = await tempDir();
      const file = join(dir, "policy.yaml");
      await writeFile(file, audited);
      const logDir = join(dir, "logs");
      const gw = await startGateway([
        "--storage-backend=memory",
        `--audit-policy-file=${file}`,
        `--audit-log-path=${join(logDir, "audit.log")}`,
        "--audit-log-maxsize=1",
        `--audit-log-mode=${mode}`,
        "--audit-log-batch-max-wait=100ms",
      ]);
      try {
        const api = new ApiClient(gw.kubeconfig);
        await api.call("POST", "/api/v1/namespaces", {
          body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "audited" } },
        });
        await rm(logDir, { recursive: true });
        await writeFile(logDir, "not a directory");
        const big = "x".repeat(300_000);
        const statuses: number[] = [];
        // About 1.2 MB of events by the fourth: past the 1 MB at which the log rotates.
        for (let i = 0; i < 8; i++) {
          const res = await api.call("POST", "/api/v1/namespaces/audited/configmaps", {
            body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `rot-${i}` }, data: { big } },
          });
          statuses.push(res.status);
          if (res.status === 500)
            assert.equal((res.body as Event).message, "Internal error occurred: failed to store audit event");
        }
        await eventually(
          async () => (await counter(api, "apiserver_audit_error_total", 'plugin="log"')) >= 1,
          10_000,
          "the failed rotation counted",
        );
        if (mode === "blocking-strict")
          assert.ok(statuses.includes(500), `requests fail once events cannot be stored: ${statuses}`);
        else assert.deepEqual(new Set(statuses), new Set([201]), "requests continue");
        const other = await api.call("GET", "/api/v1/namespaces/default/configmaps");
        assert.equal(other.status, 200, "requests the policy does not audit are unaffected");
      } finally {
        await gw.stop();
        await rm(gw.dataDir, { recursive: true, force: true });
      }
    });
  }
});

describe("a full disk (/dev/full) in each mode", () => {
  const configmapsOnly = policy(
    "audit.cluster.io",
    // Only what the test asks: the server's own start-up writes (ConfigMaps in its system
    // namespaces) stay unaudited, so a strict gateway still gets ready.
    '  - level: Metadata\n    namespaces: ["audited"]\n    resources: [{group: "", resources: ["configmaps"]}]\n',
  );
  for (const mode of ["blocking", "batch", "blocking-strict"]) {
    it(`--audit-log-mode=${mode}`, async () => {
      const dir = await tempDir();
      const file = join(dir, "policy.yaml");
      await writeFile(file, configmapsOnly);
      const gw = await startGateway([
        "--storage-backend=memory",
        `--audit-policy-file=${file}`,
        "--audit-log-path=/dev/full",
        `--audit-log-mode=${mode}`,
      ]);
      try {
        const api = new ApiClient(gw.kubeconfig);
        const res = await api.call("GET", "/api/v1/namespaces/audited/configmaps");
        const other = await api.call("GET", "/api/v1/namespaces/default/secrets");
        assert.equal(other.status, 200, "requests the policy does not audit are unaffected");
        if (mode === "blocking-strict") {
          assert.equal(res.status, 500);
          assert.equal((res.body as Event).message, "Internal error occurred: failed to store audit event");
          assert.ok((await counter(api, "apiserver_audit_requests_rejected_total")) >= 1);
        } else assert.equal(res.status, 200, res.text);
        await eventually(
          async () => (await counter(api, "apiserver_audit_error_total", 'plugin="log"')) >= 1,
          10_000,
          "the error counted",
        );
      } finally {
        await gw.stop();
        await rm(gw.dataDir, { recursive: true, force: true });
      }
    });
  }
});

describe("--audit-log-truncate-*", () => {
  it("an event over the max size loses its bodies (annotated truncated); one still too big is dropped and counted", async () => {
    const dir = await tempDir();
    const file = join(dir, "policy.yaml");
    await writeFile(
      file,
      policy(
        "audit.cluster.io",
        '  - level: RequestResponse\n    namespaces: ["trunc"]\n    resources: [{group: "", resources: ["configmaps"]}]\n',
      ),
    );
    const logPath = join(dir, "audit.log");
    const gw = await startGateway([
      "--storage-backend=memory",
      `--audit-policy-file=${file}`,
      `--audit-log-path=${logPath}`,
      "--audit-log-truncate-enabled",
      "--audit-log-truncate-max-event-size=8000",
      "--audit-log-truncate-max-batch-size=8000",
    ]);
    try {
      const api = new ApiClient(gw.kubeconfig);
      await api.call("POST", "/api/v1/namespaces", {
        body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "trunc" } },
      });
      const create = async (name: string, size: number) => {
        const res = await api.call("POST", "/api/v1/namespaces/trunc/configmaps", {
          body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v".repeat(size) } },
        });
        assert.equal(res.status, 201);
        return String(res.headers["audit-id"]);
      };
      const small = (await eventsOf(logPath, await create("small", 100), 2)).find(
        (e) => e.stage === "ResponseComplete",
      );
      assert.equal(small?.requestObject?.data?.k.length, 100, "a small event keeps its bodies");
      assert.equal(small?.responseObject?.metadata?.name, "small");
      assert.equal(small?.annotations?.["audit.cluster.io/truncated"], undefined);

      const big = (await eventsOf(logPath, await create("big", 10_000), 2)).find(
        (e) => e.stage === "ResponseComplete",
      );
      assert.equal(big?.requestObject, undefined);
      assert.equal(big?.responseObject, undefined);
      assert.equal(big?.annotations?.["audit.cluster.io/truncated"], "true");
      assert.equal(big?.objectRef?.name, "big", "the metadata stays");
      assert.equal(big?.responseStatus?.code, 201);

      // Nothing to leave out of a URI: past the size even without bodies, the event is dropped.
      const before = await counter(api, "apiserver_audit_error_total", 'plugin="truncate"');
      const long = await api.call("GET", `/api/v1/namespaces/trunc/configmaps/small?pad=${"p".repeat(9000)}`);
      assert.equal(long.status, 200);
      await eventually(
        async () => (await counter(api, "apiserver_audit_error_total", 'plugin="truncate"')) >= before + 2,
        10_000,
        "both stages of the long request counted as dropped",
      );
      const later = await api.call("GET", "/api/v1/namespaces/trunc/configmaps/small");
      await eventsOf(logPath, String(later.headers["audit-id"]), 2);
      assert.ok(!(await events(logPath)).some((e) => e.auditID === long.headers["audit-id"]));
    } finally {
      await gw.stop();
      await rm(gw.dataDir, { recursive: true, force: true });
    }
  });
});

describe("refusing to start", () => {
  const cases: [string, (dir: string) => Promise<string[]>, RegExp][] = [
    [
      "a missing policy file",
      async (d) => [`--audit-policy-file=${join(d, "nope.yaml")}`],
      /--audit-policy-file: .*failed to read file path ".*nope\.yaml"/,
    ],
    [
      "a malformed policy",
      async (d) => {
        await writeFile(join(d, "p.yaml"), "rules: [ {level: \n");
        return [`--audit-policy-file=${join(d, "p.yaml")}`];
      },
      /--audit-policy-file: .*failed decoding.*from file .*p\.yaml/,
    ],
    [
      "the other preset's apiVersion",
      async (d) => {
        await writeFile(join(d, "p.yaml"), policy("audit.k8s.io", "  - level: Metadata\n"));
        return [`--audit-policy-file=${join(d, "p.yaml")}`];
      },
      /unknown group version field "audit\.k8s\.io\/v1".*apiVersion: want audit\.cluster\.io\/v1.*p\.yaml/,
    ],
    [
      "an unknown level and stage",
      async (d) => {
        await writeFile(
          join(d, "p.yaml"),
          policy("audit.cluster.io", "  - level: Everything\n    omitStages: [Sometimes]\n"),
        );
        return [`--audit-policy-file=${join(d, "p.yaml")}`];
      },
      /rules\[0\]\.level: Unsupported value: "Everything".*rules\[0\]\.omitStages\[0\]: Invalid value: "Sometimes".*p\.yaml/,
    ],
    [
      "a policy with no rules",
      async (d) => {
        await writeFile(
          join(d, "p.yaml"),
          policy("audit.cluster.io", "  []\n").replace("rules:\n  []", "rules: []"),
        );
        return [`--audit-policy-file=${join(d, "p.yaml")}`];
      },
      /loaded illegal policy with 0 rules/,
    ],
    [
      "a missing webhook kubeconfig",
      async (d) => {
        await writeFile(join(d, "p.yaml"), policy("audit.cluster.io", "  - level: Metadata\n"));
        return [
          `--audit-policy-file=${join(d, "p.yaml")}`,
          `--audit-webhook-config-file=${join(d, "kc.yaml")}`,
        ];
      },
      /--audit-webhook-config-file: .*kc\.yaml/,
    ],
    [
      "a webhook kubeconfig without a cluster server",
      async (d) => {
        await writeFile(join(d, "p.yaml"), policy("audit.cluster.io", "  - level: Metadata\n"));
        await writeFile(
          join(d, "kc.yaml"),
          "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {}}]\ncurrent-context: x\n",
        );
        return [
          `--audit-policy-file=${join(d, "p.yaml")}`,
          `--audit-webhook-config-file=${join(d, "kc.yaml")}`,
        ];
      },
      /--audit-webhook-config-file: .*kc\.yaml.*server/,
    ],
    ["an unknown log format", async () => ["--audit-log-format=xml"], /audit-log-format/],
    [
      "a truncate batch size below the event size",
      async (d) => {
        await writeFile(join(d, "p.yaml"), policy("audit.cluster.io", "  - level: Metadata\n"));
        return [
          `--audit-policy-file=${join(d, "p.yaml")}`,
          `--audit-log-path=${join(d, "audit.log")}`,
          "--audit-log-truncate-max-event-size=2000",
          "--audit-log-truncate-max-batch-size=1000",
        ];
      },
      /--audit-log-truncate-max-batch-size: invalid audit truncate log max batch size 1000, must be greater than max event size \(2000\)/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const dir = await tempDir();
      await assert.rejects(startGateway(await args(dir)), (err: Error) => {
        assert.match(err.message.replace(/\n/g, " "), message);
        return true;
      });
    });
  }
});
