// The REST core over real HTTPS, against the server started as README says: verbs, watch,
// discovery, errors and namespaces, with the Status bodies clients depend on.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect } from "node:tls";
import { ApiClient } from "./support/api-client.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

let gw: GatewayProcess;
let auditPath: string;
let api: ApiClient;
const CM = "/api/v1/namespaces/default/configmaps";

before(async () => {
  // A short replay window, so a watch from an early revision meets 410.
  auditPath = join(await mkdtemp(join(tmpdir(), "cg-audit-")), "audit.log");
  gw = await startGateway([
    "--storage-backend=memory",
    "--watch-cache-history=5",
    `--audit-log-path=${auditPath}`,
    "--audit-policy-file=config/audit-policy.yaml",
  ]);
  api = new ApiClient(gw.kubeconfig);
});
after(async () => {
  await api?.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  if (auditPath) await rm(join(auditPath, ".."), { recursive: true, force: true });
});

const cm = (
  name: string,
  data: Record<string, string> = { a: "1" },
  extra: Record<string, unknown> = {},
) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...extra },
  data,
});

function assertStatus(
  res: { status: number; body: Record<string, unknown> },
  code: number,
  reason: string,
  message?: RegExp,
) {
  assert.equal(res.status, code, JSON.stringify(res.body));
  assert.equal(res.body.kind, "Status");
  assert.equal(res.body.apiVersion, "v1");
  assert.equal(res.body.status, "Failure");
  assert.equal(res.body.reason, reason);
  assert.equal(res.body.code, code);
  if (message) assert.match(String(res.body.message), message);
}

describe("REST verbs over HTTPS", () => {
  it("creates, reads, replaces, patches and deletes", async () => {
    const created = await api.call("POST", CM, { body: cm("one") });
    assert.equal(created.status, 201);
    const rv = created.body.metadata.resourceVersion;
    assert.match(rv, /^\d+$/);
    assert.match(created.body.metadata.uid, /^[0-9a-f-]{36}$/);

    const got = await api.call("GET", `${CM}/one`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, { a: "1" });

    const replaced = await api.call("PUT", `${CM}/one`, { body: { ...got.body, data: { a: "2" } } });
    assert.equal(replaced.status, 200);
    assert.notEqual(replaced.body.metadata.resourceVersion, rv);

    const stale = await api.call("PUT", `${CM}/one`, { body: { ...got.body, data: { a: "3" } } });
    assertStatus(
      stale,
      409,
      "Conflict",
      /Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again/,
    );

    const merged = await api.call("PATCH", `${CM}/one`, {
      body: { data: { b: "x" } },
      contentType: "application/merge-patch+json",
    });
    assert.deepEqual(merged.body.data, { a: "2", b: "x" });
    const jsonPatched = await api.call("PATCH", `${CM}/one`, {
      body: [{ op: "remove", path: "/data/a" }],
      contentType: "application/json-patch+json",
    });
    assert.deepEqual(jsonPatched.body.data, { b: "x" });
    const badPatch = await api.call("PATCH", `${CM}/one`, {
      body: [{ op: "remove", path: "/data/zz" }],
      contentType: "application/json-patch+json",
    });
    // A patch that fails while applying is upstream's 422 with its generic message.
    assertStatus(badPatch, 422, "Invalid");
    const strategic = await api.call("PATCH", `${CM}/one`, {
      body: { data: { c: "y" } },
      contentType: "application/strategic-merge-patch+json",
    });
    assert.deepEqual(strategic.body.data, { b: "x", c: "y" });
    assertStatus(
      await api.call("PATCH", `${CM}/one`, { raw: "{}", contentType: "application/apply-patch+yaml" }),
      422,
      "Invalid",
    );
    assertStatus(
      await api.call("PATCH", `${CM}/one`, { raw: "{}", contentType: "application/unknown-patch+json" }),
      415,
      "UnsupportedMediaType",
    );

    const deleted = await api.call("DELETE", `${CM}/one`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, "Status");
    assert.equal(deleted.body.status, "Success");
    assert.equal(deleted.body.details.name, "one");
    assertStatus(await api.call("GET", `${CM}/one`), 404, "NotFound", /^configmaps "one" not found$/);
    assertStatus(await api.call("DELETE", `${CM}/one`), 404, "NotFound");
    assert.equal((await api.call("POST", CM, { body: cm("one") })).status, 201, "the name is reusable");
  });

  it("sends a large list in pieces that make one valid body, paged or not", async () => {
    const ns = "big-list";
    assert.equal(
      (await api.call("POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } })).status,
      201,
    );
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const filler = (i: number) => `${"ü✓".repeat(200)}${"x".repeat(3000)}${i}`;
    for (let i = 0; i < 40; i++) {
      const res = await api.call("POST", path, {
        body: cm(`big-${String(i).padStart(2, "0")}`, { v: filler(i) }),
      });
      assert.equal(res.status, 201);
    }
    const all = await api.call("GET", path);
    assert.equal(all.status, 200);
    assert.equal(all.headers["transfer-encoding"], "chunked", "over 64 KiB, so written in pieces");
    assert.match(String(all.headers["content-type"]), /^application\/json/);
    assert.equal(all.body.kind, "ConfigMapList");
    assert.ok(all.body.metadata.resourceVersion);
    type Item = { metadata: { name: string }; data: { v: string } };
    // The namespace also holds the published root CA bundle.
    const total = all.body.items.length;
    const big = all.body.items.filter((o: Item) => o.metadata.name.startsWith("big-"));
    assert.equal(big.length, 40);
    assert.deepEqual(
      big.map((o: Item) => o.data.v),
      Array.from({ length: 40 }, (_, i) => filler(i)),
    );
    const page = await api.call("GET", `${path}?limit=30`);
    assert.equal(page.headers["transfer-encoding"], "chunked");
    assert.equal(page.body.items.length, 30);
    assert.equal(page.body.metadata.remainingItemCount, total - 30);
    const rest = await api.call(
      "GET",
      `${path}?limit=30&continue=${encodeURIComponent(page.body.metadata.continue)}`,
    );
    assert.equal(rest.body.items.length, total - 30);
    assert.equal(rest.body.metadata.continue, undefined);
    const small = await api.call("GET", `${path}?limit=2`);
    assert.equal(small.headers["transfer-encoding"], undefined, "a small page is one body");
    assert.equal(small.body.items.length, 2);
    const pretty = await api.call("GET", `${path}?pretty=true`);
    assert.equal(pretty.body.items.length, total);
    assert.match(pretty.text, /^{\n {2}"kind": "ConfigMapList"/);
  });

  it("keeps an empty Secret value, as base64 of nothing", async () => {
    const path = "/api/v1/namespaces/default/secrets";
    const created = await api.call("POST", path, {
      body: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "empty-value" },
        data: { a: "", b: "eA==" },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.data, { a: "", b: "eA==" });
    assertStatus(
      await api.call("POST", path, {
        body: { apiVersion: "v1", kind: "Secret", metadata: { name: "bad-value" }, data: { a: "e" } },
      }),
      400,
      "BadRequest",
    );
  });

  it("frees a Service's address and node port after a dry run and at once after a delete", async () => {
    const path = "/api/v1/namespaces/default/services";
    const svc = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "fixed" },
      spec: { type: "NodePort", clusterIP: "10.0.0.77", ports: [{ port: 80, nodePort: 30077 }] },
    };
    const dry = await api.call("POST", `${path}?dryRun=All`, { body: svc });
    assert.equal(dry.status, 201, JSON.stringify(dry.body));
    for (let round = 0; round < 2; round++) {
      const created = await api.call("POST", path, { body: svc });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const deleted = await api.call("DELETE", `${path}/fixed`);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    }
  });

  it("lists page by page with a consistent snapshot, selectors and remainingItemCount", async () => {
    for (let i = 0; i < 7; i++) {
      await api.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: cm(
          `page-${i}`,
          { i: String(i) },
          { labels: { parity: i % 2 ? "odd" : "even", set: "paging" } },
        ),
      });
    }
    const first = await api.call("GET", `${CM}?labelSelector=set%3Dpaging&limit=3`);
    assert.equal(first.body.kind, "ConfigMapList");
    assert.equal(first.body.items.length, 3);
    assert.ok(first.body.metadata.continue);
    assert.equal(first.body.metadata.remainingItemCount, undefined, "no count with a selector");
    const names: string[] = first.body.items.map((o: { metadata: { name: string } }) => o.metadata.name);
    let token = first.body.metadata.continue;
    while (token) {
      const page = await api.call(
        "GET",
        `${CM}?labelSelector=set%3Dpaging&limit=3&continue=${encodeURIComponent(token)}`,
      );
      assert.equal(page.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
      names.push(...page.body.items.map((o: { metadata: { name: string } }) => o.metadata.name));
      token = page.body.metadata.continue;
    }
    assert.deepEqual(
      names,
      Array.from({ length: 7 }, (_, i) => `page-${i}`),
    );
    const counted = await api.call("GET", "/api/v1/namespaces/default/configmaps?limit=2");
    assert.equal(
      counted.body.metadata.remainingItemCount,
      counted.body.items.length === 2 ? (await api.call("GET", CM)).body.items.length - 2 : undefined,
    );
    const odd = await api.call("GET", `${CM}?labelSelector=parity%3Dodd`);
    assert.equal(odd.body.items.length, 3);
    const byName = await api.call("GET", `${CM}?fieldSelector=metadata.name%3Dpage-4`);
    assert.deepEqual(
      byName.body.items.map((o: { metadata: { name: string } }) => o.metadata.name),
      ["page-4"],
    );
    assertStatus(
      await api.call("GET", `${CM}?fieldSelector=data.i%3D1`),
      400,
      "BadRequest",
      /field label not supported/,
    );
    assertStatus(await api.call("GET", `${CM}?labelSelector=a%20in`), 400, "BadRequest");
  });

  it("watches: initial state, changes, bookmarks and 410 for a compacted start", async () => {
    const start = await api.call("GET", CM);
    const rv = start.body.metadata.resourceVersion;
    const w = await api.watch(`${CM}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`);
    await api.call("POST", CM, { body: cm("watched") });
    await api.call("DELETE", `${CM}/watched`);
    const seen: string[] = [];
    for await (const e of w.events) {
      if (e.type === "BOOKMARK") continue;
      seen.push(`${e.type} ${(e.object.metadata as { name: string }).name}`);
      if (seen.length === 2) break;
    }
    w.close();
    assert.deepEqual(seen, ["ADDED watched", "DELETED watched"]);

    const initial = await api.watch(`${CM}?watch=true&labelSelector=parity%3Dodd`);
    const added: string[] = [];
    for await (const e of initial.events) {
      added.push(e.type);
      if (added.length === 3) break;
    }
    initial.close();
    assert.deepEqual(added, ["ADDED", "ADDED", "ADDED"]);

    const old = await api.watch(`${CM}?watch=1&resourceVersion=1`);
    const first = await old.events.next();
    old.close();
    assert.ok(first.value, "an event arrives");
    assert.equal(first.value.type, "ERROR");
    assert.equal((first.value.object as { code: number }).code, 410);
  });

  it("honours dryRun and fieldValidation", async () => {
    const dry = await api.call("POST", `${CM}?dryRun=All`, { body: cm("dry") });
    assert.equal(dry.status, 201);
    assert.equal((await api.call("GET", `${CM}/dry`)).status, 404);
    const warned = await api.call("POST", CM, { body: { ...cm("warned"), bogus: 1 } });
    assert.equal(warned.status, 201);
    assert.match(String(warned.headers.warning), /299 - "unknown field \\"bogus\\""/);
    assert.equal(warned.body.bogus, undefined, "unknown fields are dropped");
    assertStatus(
      await api.call("POST", `${CM}?fieldValidation=Strict`, { body: { ...cm("strict"), bogus: 1 } }),
      400,
      "BadRequest",
      /strict decoding error: unknown field "bogus"/,
    );
    assert.equal((await api.call("GET", `${CM}/strict`)).status, 404);
  });
});

const MIB = 1024 * 1024;

/**
 * Send requests on one TLS connection (each head, then `bodyBytes` of "x" in 64 KiB writes) and
 * collect the status codes of the answers until every request has one (`untilClosed`: and the
 * server has closed the connection), or the server closes it, or 10 s pass.
 */
async function rawExchange(
  server: GatewayProcess,
  requests: { head: string; bodyBytes: number }[],
  untilClosed = false,
): Promise<{ responses: number[]; closed: boolean }> {
  const ca = await readFile(join(server.dataDir, "pki", "ca.crt"), "utf8");
  const socket = connect({ host: "127.0.0.1", port: server.port, ca, servername: "localhost" });
  await once(socket, "secureConnect");
  const responses: number[] = [];
  let text = "";
  let closed = false;
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    const finish = () => {
      clearTimeout(timer);
      resolve();
    };
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      for (const m of text.matchAll(/HTTP\/1\.1 (\d{3}) /g)) responses.push(Number(m[1]));
      text = text.slice(text.lastIndexOf("HTTP/1.1 ") + 9);
      if (responses.length >= requests.length && !untilClosed) finish();
    });
    socket.on("close", () => {
      closed = true;
      finish();
    });
    socket.on("error", () => {});
  });
  const piece = Buffer.alloc(64 * 1024, "x");
  for (const r of requests) {
    if (closed) break;
    socket.write(r.head);
    for (let sent = 0; sent < r.bodyBytes && !closed; sent += piece.length) {
      if (!socket.write(piece.subarray(0, Math.min(piece.length, r.bodyBytes - sent))))
        // A reset while writing is an outcome here, not a test error: `once` rejects on it.
        await Promise.race([once(socket, "drain"), once(socket, "close")]).catch(() => {});
    }
  }
  await done;
  socket.destroy();
  return { responses, closed };
}

describe("feature-gated fields", () => {
  it("webhook matchConditions are dropped on create while AdmissionWebhookMatchConditions is off (its default)", async () => {
    const path = "/apis/admissionregistration.cluster.io/v1/validatingwebhookconfigurations";
    const created = await api.call("POST", path, {
      body: {
        apiVersion: "admissionregistration.cluster.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "gated" },
        webhooks: [
          {
            name: "gated.example.com",
            clientConfig: { url: "https://127.0.0.1:9/check" },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            matchConditions: [{ name: "always", expression: "true" }],
          },
        ],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const stored = await api.call("GET", `${path}/gated`);
    const webhook = (stored.body.webhooks as Record<string, unknown>[])[0];
    assert.equal(webhook?.name, "gated.example.com");
    assert.equal(webhook?.matchConditions, undefined);
    assert.equal((await api.call("DELETE", `${path}/gated`)).status, 200);
  });
});

describe("bad input gets a 4xx Status and changes nothing", () => {
  it("malformed bodies, wrong types, oversized bodies, unknown resources", async () => {
    assertStatus(await api.call("POST", CM, { raw: "{not json" }), 400, "BadRequest");
    assertStatus(await api.call("POST", CM, { raw: "[1,2]" }), 400, "BadRequest");
    assertStatus(
      await api.call("POST", CM, { body: { apiVersion: "v1", kind: "Secret", metadata: { name: "x" } } }),
      400,
      "BadRequest",
    );
    assertStatus(
      await api.call("POST", CM, { body: cm("Bad_Name") }),
      422,
      "Invalid",
      /metadata.name: Invalid value: "Bad_Name"/,
    );
    assertStatus(
      await api.call("POST", CM, { raw: "x".repeat(3 * 1024 * 1024 + 10) }),
      413,
      "RequestEntityTooLarge",
    );
    assertStatus(
      await api.call("POST", CM, { raw: "a=b", contentType: "text/plain" }),
      415,
      "UnsupportedMediaType",
    );
    assertStatus(await api.call("GET", "/api/v1/namespaces/default/widgets"), 404, "NotFound");
    assertStatus(await api.call("GET", "/apis/nope.example.com/v1/things"), 404, "NotFound");
    assertStatus(await api.call("GET", CM, { accept: "application/xml" }), 406, "NotAcceptable");
  });

  it("a refused oversized body is read and dropped: the 413 arrives and the connection serves the next request", async () => {
    const { responses, closed } = await rawExchange(gw, [
      {
        head: `POST ${CM} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${4 * MIB}\r\n\r\n`,
        bodyBytes: 4 * MIB,
      },
      { head: "GET /version HTTP/1.1\r\nhost: x\r\n\r\n", bodyBytes: 0 },
    ]);
    assert.deepEqual(responses, [413, 200]);
    assert.equal(closed, false);
  });

  it("a refused body going on past the discard bound ends in a closed connection", async () => {
    const { responses, closed } = await rawExchange(
      gw,
      [
        {
          head: `POST ${CM} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${64 * MIB}\r\n\r\n`,
          bodyBytes: 24 * MIB,
        },
      ],
      true,
    );
    assert.deepEqual(responses, [413]);
    assert.equal(closed, true);
  });

  it("resourceVersion, resourceVersionMatch and continue combinations", async () => {
    assertStatus(
      await api.call("GET", `${CM}?resourceVersionMatch=Exact`),
      400,
      "BadRequest",
      /resourceVersionMatch is forbidden unless resourceVersion is provided/,
    );
    assertStatus(
      await api.call("GET", `${CM}?continue=garbage!&limit=1`),
      400,
      "BadRequest",
      /continue key is not valid/,
    );
    const page = await api.call("GET", `${CM}?limit=1`);
    assertStatus(
      await api.call("GET", `${CM}?limit=1&continue=${page.body.metadata.continue}&resourceVersion=5`),
      400,
      "BadRequest",
      /not allowed when using continue/,
    );
    assertStatus(await api.call("GET", `${CM}?resourceVersion=abc`), 400, "BadRequest");
    const future = Number(page.body.metadata.resourceVersion) + 1000;
    const tooLarge = await api.call("GET", `${CM}/nothing?resourceVersion=${future}`);
    assertStatus(tooLarge, 504, "Timeout", /Too large resource version/);
    assert.equal(tooLarge.headers["retry-after"], "1");
  });
});

describe("namespaces", () => {
  it("exist from the start, protect themselves and gate creation", async () => {
    const list = await api.call("GET", "/api/v1/namespaces");
    const names = list.body.items.map((n: { metadata: { name: string } }) => n.metadata.name);
    for (const n of ["default", "cluster-system", "cluster-public", "cluster-node-lease"])
      assert.ok(names.includes(n), n);
    assertStatus(
      await api.call("DELETE", "/api/v1/namespaces/default"),
      403,
      "Forbidden",
      /this namespace may not be deleted/,
    );
    assertStatus(
      await api.call("POST", "/api/v1/namespaces/missing/configmaps", { body: cm("x") }),
      404,
      "NotFound",
      /namespaces "missing" not found/,
    );
  });
});

describe("discovery and version", () => {
  it("serves the core group and version", async () => {
    const v1 = await api.call("GET", "/api/v1");
    const cms = v1.body.resources.find((r: { name: string }) => r.name === "configmaps");
    assert.deepEqual(cms.verbs, [
      "create",
      "delete",
      "deletecollection",
      "get",
      "list",
      "patch",
      "update",
      "watch",
    ]);
    assert.equal(cms.storageVersionHash, "qFsyl6wFWjQ=");
    // The subresources served by the connection handlers are listed as upstream lists them.
    const subresources = (v1.body.resources as { name: string; kind: string; verbs: string[] }[])
      .filter((r) => /^(pods|nodes|services)\/(attach|exec|log|portforward|proxy)$/.test(r.name))
      .map((r) => `${r.name} ${r.kind} ${r.verbs.join(",")}`);
    assert.deepEqual(subresources, [
      "nodes/proxy NodeProxyOptions create,delete,get,patch,update",
      "pods/attach PodAttachOptions create,get",
      "pods/exec PodExecOptions create,get",
      "pods/log Pod get",
      "pods/portforward PodPortForwardOptions create,get",
      "pods/proxy PodProxyOptions create,delete,get,patch,update",
      "services/proxy ServiceProxyOptions create,delete,get,patch,update",
    ]);
    const version = await api.call("GET", "/version");
    assert.equal(version.body.major, "1");
    assert.equal(version.body.minor, "27");
  });
});

describe("authentication", () => {
  it("lets requests without credentials in as anonymous; RBAC lets them read health and version only", async () => {
    const anon = new ApiClient(gw.kubeconfig, { anonymous: true });
    try {
      const denied = await anon.call("GET", "/api/v1/namespaces");
      assert.equal(denied.status, 403);
      assert.match(denied.body.message, /User "system:anonymous" cannot list resource "namespaces"/);
      assert.equal((await anon.call("GET", "/version")).status, 200);
      assert.equal((await anon.call("GET", "/healthz")).status, 200);
    } finally {
      await anon.close();
    }
  });
});

describe("audit", () => {
  it("gives a watch, whose handler writes its own head, the request's Audit-Id too", async () => {
    const watch = await api.watch(`${CM}?watch=1`);
    const id = String(watch.headers["audit-id"]);
    // The policy keeps only ResponseComplete, written when the watch ends.
    watch.close();
    assert.match(id, /^[0-9a-f-]{36}$/);
    await eventually(
      async () =>
        (await readFile(auditPath, "utf8"))
          .trim()
          .split("\n")
          .some((l) => (JSON.parse(l) as { auditID?: string }).auditID === id),
      5_000,
      "the watch's audit event",
    );
  });

  it("records who did what to which object, under the request's Audit-Id", async () => {
    const created = await api.call("POST", CM, { body: cm("audited") });
    const id = String(created.headers["audit-id"]);
    assert.match(id, /^[0-9a-f-]{36}$/);
    let event: Record<string, unknown> | undefined;
    await eventually(
      async () => {
        const lines = (await readFile(auditPath, "utf8")).trim().split("\n");
        event = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e.auditID === id);
        return event !== undefined;
      },
      5_000,
      "the audit event",
    );
    assert.equal(event?.kind, "Event");
    assert.ok(event, "the audit event was found");
    assert.equal(event.apiVersion, "audit.cluster.io/v1");
    assert.equal(event?.verb, "create");
    // The name comes from the created object's metadata, as upstream completes the reference.
    assert.deepEqual(event?.objectRef, {
      resource: "configmaps",
      namespace: "default",
      name: "audited",
      apiGroup: "",
      apiVersion: "v1",
    });
    assert.equal((event.user as { username: string }).username, "cluster-admin");
    assert.equal((event.responseStatus as { code: number }).code, 201);
  });
});
