// Paths whose shape does not fit the resource's scope are not routes (issue 17, item 1). A user
// whose only rights are `*` in one namespace walks every cluster-scoped resource the server
// lists in discovery, custom ones and subresources included, under that namespace's path, with
// every verb: authorization allows each request (it sees the user's namespace), and routing must
// still answer 404 and change nothing. Namespaced resources at the all-namespaces path take list
// and watch only, as upstream's routes do.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ApiClient, type ApiResponse } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";

const TOKEN = "tenant-token-0123456789";
let gw: GatewayProcess;
let dir: string;
let admin: ApiClient;
let tenantClient: ApiClient;
let rbacGroup: string;
let crdGroup: string;

interface DiscoveredResource {
  readonly groupVersion: string;
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
}

const tenant = (method: string, path: string, options: Parameters<ApiClient["call"]>[2] = {}) =>
  tenantClient.call(method, path, { ...options, headers: { authorization: `Bearer ${TOKEN}` } });

function base(groupVersion: string): string {
  return groupVersion === "v1" ? "/api/v1" : `/apis/${groupVersion}`;
}

async function ok(response: Promise<ApiResponse>, ...codes: number[]): Promise<ApiResponse> {
  const r = await response;
  assert.ok((codes.length ? codes : [200, 201]).includes(r.status), `${r.status}: ${r.text}`);
  return r;
}

/** Every resource of every served group version, as discovery lists it. */
async function discover(): Promise<DiscoveredResource[]> {
  const versions = ["v1"];
  const groups = (await ok(admin.call("GET", "/apis"))).body as {
    groups: { versions: { groupVersion: string }[] }[];
  };
  for (const g of groups.groups) for (const v of g.versions) versions.push(v.groupVersion);
  const out: DiscoveredResource[] = [];
  for (const gv of versions) {
    const list = (await ok(admin.call("GET", base(gv)))).body as {
      resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[];
    };
    for (const r of list.resources) out.push({ groupVersion: gv, ...r });
  }
  return out;
}

/** name -> resourceVersion of every object of every listable cluster-scoped resource. */
async function snapshot(resources: readonly DiscoveredResource[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const r of resources) {
    if (r.name.includes("/") || r.namespaced || !r.verbs.includes("list")) continue;
    const list = (await ok(admin.call("GET", `${base(r.groupVersion)}/${r.name}`))).body as {
      items: { metadata: { name: string; resourceVersion: string } }[];
    };
    for (const item of list.items)
      out.set(`${r.groupVersion}/${r.name}/${item.metadata.name}`, item.metadata.resourceVersion);
  }
  return out;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "cg-scope-"));
  const tokens = join(dir, "tokens.csv");
  await writeFile(tokens, `${TOKEN},tenant-admin,tenant-uid\n`);
  gw = await startGateway([`--token-auth-file=${tokens}`]);
  admin = new ApiClient(gw.kubeconfig);
  tenantClient = new ApiClient(gw.kubeconfig, { anonymous: true });

  const groups = (await ok(admin.call("GET", "/apis"))).body as { groups: { name: string }[] };
  const named = (prefix: string) => groups.groups.find((g) => g.name.startsWith(prefix))?.name as string;
  rbacGroup = named("rbac.authorization.");
  const apiextensions = named("apiextensions.");
  crdGroup = "scope-test.example.com";

  for (const ns of ["tenant-a", "victim"]) {
    await ok(admin.call("POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } }));
  }
  await ok(
    admin.call("POST", "/api/v1/namespaces/victim/configmaps", {
      body: { metadata: { name: "precious" }, data: { a: "b" } },
    }),
  );
  await ok(
    admin.call("POST", `/apis/${rbacGroup}/v1/namespaces/tenant-a/roles`, {
      body: {
        metadata: { name: "everything" },
        rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }],
      },
    }),
  );
  await ok(
    admin.call("POST", `/apis/${rbacGroup}/v1/namespaces/tenant-a/rolebindings`, {
      body: {
        metadata: { name: "tenant-admin" },
        roleRef: { apiGroup: rbacGroup, kind: "Role", name: "everything" },
        subjects: [{ apiGroup: rbacGroup, kind: "User", name: "tenant-admin" }],
      },
    }),
  );
  // A cluster-scoped custom resource with both subresources, and one object of it.
  const widgets = await createServedCrd(admin, {
    apiextensions,
    group: crdGroup,
    kind: "Widget",
    scope: "Cluster",
    schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    subresources: {
      status: {},
      scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
    },
  });
  await ok(
    admin.call("POST", widgets, {
      body: { apiVersion: `${crdGroup}/v1`, kind: "Widget", metadata: { name: "w1" }, spec: { replicas: 1 } },
    }),
  );
  const deadline = Date.now() + 30_000;
  // The tenant's rights are in place once it can write in its own namespace.
  for (;;) {
    const r = await tenant("POST", "/api/v1/namespaces/tenant-a/configmaps", {
      body: { metadata: { name: "mine" } },
    });
    if (r.status === 201) break;
    if (Date.now() > deadline) throw new Error(`the tenant never got its rights: ${r.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

after(async () => {
  await admin?.close();
  await tenantClient?.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("resource scope and path shape", () => {
  it("every cluster-scoped resource under a namespace path is 404 for every verb, and nothing changes", async () => {
    const resources = await discover();
    const cluster = resources.filter((r) => !r.name.includes("/") && !r.namespaced);
    const names = new Set(cluster.map((r) => r.name));
    for (const expected of ["namespaces", "nodes", "clusterroles", "customresourcedefinitions", "widgets"])
      assert.ok(names.has(expected), `discovery lists ${expected}`);
    const subresources = resources.filter((r) => {
      const [parent] = r.name.split("/");
      return (
        r.name.includes("/") && cluster.some((c) => c.groupVersion === r.groupVersion && c.name === parent)
      );
    });
    assert.ok(subresources.some((r) => r.name === "namespaces/status"));
    assert.ok(subresources.some((r) => r.name === "namespaces/finalize"));
    assert.ok(subresources.some((r) => r.name === "widgets/scale"));

    // A name that exists where there is one, so a wrongly served request would find its object.
    const existing = async (r: DiscoveredResource): Promise<string> => {
      if (r.name === "namespaces") return "victim";
      if (!r.verbs.includes("list")) return "any";
      const list = (await admin.call("GET", `${base(r.groupVersion)}/${r.name}`)).body as {
        items?: { metadata: { name: string } }[];
      };
      return list.items?.[0]?.metadata.name ?? "any";
    };

    const before = await snapshot(resources);
    const answers: string[] = [];
    const expect404 = async (
      method: string,
      path: string,
      options: Parameters<ApiClient["call"]>[2] = {},
    ) => {
      const r = await tenant(method, path, options);
      if (r.status !== 404 || r.body?.kind !== "Status" || r.body?.reason !== "NotFound")
        answers.push(`${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
    };
    const patch = { metadata: { labels: { escaped: "yes" } } };
    for (const r of cluster) {
      const ns = `${base(r.groupVersion)}/namespaces/tenant-a/${r.name}`;
      const name = await existing(r);
      const [group = "", version = "v1"] = r.groupVersion.includes("/")
        ? r.groupVersion.split("/")
        : ["", "v1"];
      const body = {
        apiVersion: group ? `${group}/${version}` : version,
        kind: r.kind,
        metadata: { name: name === "any" ? "escaped" : name },
      };
      await expect404("GET", ns);
      await expect404("GET", `${ns}?watch=1&timeoutSeconds=1`);
      await expect404("GET", `${base(r.groupVersion)}/watch/namespaces/tenant-a/${r.name}?timeoutSeconds=1`);
      await expect404("POST", ns, { body });
      await expect404("DELETE", ns);
      await expect404("GET", `${ns}/${name}`);
      await expect404("PUT", `${ns}/${name}`, { body });
      await expect404("PATCH", `${ns}/${name}`, { body: patch, contentType: "application/merge-patch+json" });
      await expect404("DELETE", `${ns}/${name}`);
    }
    for (const r of subresources) {
      const [parent, sub] = r.name.split("/") as [string, string];
      const owner = cluster.find((c) => c.groupVersion === r.groupVersion && c.name === parent);
      const name = owner ? await existing(owner) : "any";
      const path = `${base(r.groupVersion)}/namespaces/tenant-a/${parent}/${name}/${sub}`;
      await expect404("GET", path);
      await expect404("PUT", path, { body: { metadata: { name } } });
      await expect404("PATCH", path, { body: patch, contentType: "application/merge-patch+json" });
      await expect404("POST", path, { body: { metadata: { name } } });
    }
    assert.deepEqual(answers, [], "requests that were served");

    assert.deepEqual(await snapshot(resources), before);
    const victim = await ok(admin.call("GET", "/api/v1/namespaces/victim"));
    assert.equal(victim.body.metadata.deletionTimestamp, undefined);
    await ok(admin.call("GET", "/api/v1/namespaces/victim/configmaps/precious"));
  });

  it("the tenant's own namespace path is 404 too where it would address the Namespace", async () => {
    // Same namespace, resource and name as `namespaces/tenant-a`; only the path shape differs.
    // (The plain path is upstream's too: a Role in a namespace may grant rights on the
    // Namespace object itself, since authorization sees its name as the namespace.)
    const r = await tenant("DELETE", "/api/v1/namespaces/tenant-a/namespaces/tenant-a");
    assert.equal(r.status, 404, r.text);
    assert.equal((await ok(admin.call("GET", "/api/v1/namespaces/tenant-a"))).body.status.phase, "Active");
  });

  it("the Namespace's own subresources are served at the cluster path, and nothing below them", async () => {
    const status = await ok(admin.call("GET", "/api/v1/namespaces/victim/status"));
    assert.equal(status.body.kind, "Namespace");
    assert.equal(status.body.metadata.name, "victim");
    for (const [method, path] of [
      ["GET", "/api/v1/namespaces/victim/status/extra"],
      ["PUT", "/api/v1/namespaces/victim/finalize/extra"],
      ["GET", "/api/v1/namespaces/victim/configmaps/precious/status/extra"],
    ] as const) {
      const r = await admin.call(method, path, method === "PUT" ? { body: status.body } : {});
      assert.equal(r.status, 404, `${method} ${path}: ${r.text}`);
    }
  });

  it("namespaced resources across all namespaces: list and watch only; no instance paths", async () => {
    await ok(admin.call("GET", "/api/v1/configmaps"));
    const pinned = await ok(admin.call("GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Dprecious"));
    assert.deepEqual(
      pinned.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["precious"],
    );
    for (const [method, body] of [
      ["POST", { metadata: { name: "x", namespace: "victim" } }],
      ["DELETE", undefined],
      ["PUT", { metadata: { name: "x", namespace: "victim" } }],
    ] as const) {
      const r = await admin.call(method, "/api/v1/configmaps", body ? { body } : {});
      assert.equal(r.status, 405, `${method}: ${r.text}`);
      assert.equal(r.body.reason, "MethodNotAllowed");
      assert.equal(r.body.message, "the server does not allow this method on the requested resource");
    }
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      const r = await admin.call(method, "/api/v1/configmaps/precious", {
        body: { metadata: { name: "precious" } },
        contentType: method === "PATCH" ? "application/merge-patch+json" : "application/json",
      });
      assert.equal(r.status, 404, `${method}: ${r.text}`);
    }
    assert.equal((await admin.call("GET", "/api/v1/watch/configmaps/precious")).status, 404);
    assert.equal((await admin.call("GET", "/api/v1/namespaces//configmaps")).status, 404);
    // Nothing was written by any of them.
    const all = await ok(admin.call("GET", "/api/v1/namespaces/victim/configmaps"));
    assert.ok(!all.body.items.some((i: { metadata: { name: string } }) => i.metadata.name === "x"));
  });

  it("a computed resource is served only at the path of its own scope", async () => {
    const authorization = (
      (await ok(admin.call("GET", "/apis"))).body as { groups: { name: string }[] }
    ).groups.find((g) => g.name.startsWith("authorization."))?.name as string;
    const review = {
      spec: { user: "someone", resourceAttributes: { verb: "get", resource: "pods", namespace: "tenant-a" } },
    };
    const inNs = await tenant("POST", `/apis/${authorization}/v1/namespaces/tenant-a/subjectaccessreviews`, {
      body: review,
    });
    assert.equal(inNs.status, 404, inNs.text);
    const local = await admin.call("POST", `/apis/${authorization}/v1/localsubjectaccessreviews`, {
      body: review,
    });
    assert.equal(local.status, 404, local.text);
  });

  it("a field selector that pins two names authorizes the first in byte order, as upstream", async () => {
    await ok(
      admin.call("POST", `/apis/${rbacGroup}/v1/namespaces/victim/roles`, {
        body: {
          metadata: { name: "read-b" },
          rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["list"], resourceNames: ["b"] }],
        },
      }),
    );
    await ok(
      admin.call("POST", `/apis/${rbacGroup}/v1/namespaces/victim/rolebindings`, {
        body: {
          metadata: { name: "read-b" },
          roleRef: { apiGroup: rbacGroup, kind: "Role", name: "read-b" },
          subjects: [{ apiGroup: rbacGroup, kind: "User", name: "tenant-admin" }],
        },
      }),
    );
    const list = (selector: string) =>
      tenant("GET", `/api/v1/namespaces/victim/configmaps?fieldSelector=${encodeURIComponent(selector)}`);
    const deadline = Date.now() + 10_000;
    let allowed = await list("metadata.name=b");
    while (allowed.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      allowed = await list("metadata.name=b");
    }
    assert.equal(allowed.status, 200, allowed.text);
    // Terms sort as "metadata.name=a" < "metadata.name=b": the request is about "a".
    const denied = await list("metadata.name=b,metadata.name=a");
    assert.equal(denied.status, 403, denied.text);
    // "==" sorts before "=a": the request is about "b", and matches nothing.
    const both = await list("metadata.name=a,metadata.name==b");
    assert.equal(both.status, 200, both.text);
    assert.deepEqual(both.body.items, []);
  });
});
