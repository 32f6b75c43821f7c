import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Attributes } from "../../authorization/index.ts";
import { reconcileBootstrapPolicy } from "../../authorization/rbac/index.ts";
import { startTestGateway, type TestGateway } from "../../authorization/rbac/test-gateway.ts";
import type { ControllerClient } from "../client.ts";
import { ApiServiceRegistrationController } from "./apiservice-registration-controller.ts";
import { automanagedLabel } from "./registration.ts";

type Json = Record<string, unknown>;

const IDENTITY = "system:controller:apiservice-registration-controller";

describe("APIService registration controller", () => {
  let gw: TestGateway;
  let admin: ControllerClient;
  let base: string;
  let crdBase: string;
  let label: string;
  let stop = new AbortController();
  let run: Promise<void> = Promise.resolve();
  const errors: string[] = [];

  const until = async (what: string, check: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 1500; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`timed out waiting for ${what}`);
  };
  const get = async (name: string): Promise<Json | undefined> => {
    const reply = await admin.call("GET", `${base}/${encodeURIComponent(name)}`);
    return reply.status === 200 ? (reply.body as Json) : undefined;
  };
  const spec = (o: Json | undefined) => o?.spec as Json | undefined;
  const available = (o: Json | undefined) =>
    ((o?.status as { conditions?: Json[] } | undefined)?.conditions ?? []).find(
      (c) => c.type === "Available",
    );
  const apiService = (name: string, group: string, version: string, extra: Json = {}): Json => ({
    metadata: { name, ...((extra.metadata as Json) ?? {}) },
    spec: {
      group,
      version,
      groupPriorityMinimum: 1000,
      versionPriority: 100,
      ...((extra.spec as Json) ?? {}),
    },
  });
  const managed = (value: string) => ({ metadata: { labels: { [label]: value } } });
  const putStatus = async (name: string, condition: Json) => {
    const current = (await get(name)) as Json;
    await admin.must("PUT", `${base}/${encodeURIComponent(name)}/status`, {
      ...current,
      status: {
        conditions: [{ type: "Available", lastTransitionTime: "2024-01-01T00:00:00Z", ...condition }],
      },
    });
  };
  const editSpec = async (name: string, change: Json) => {
    const current = (await get(name)) as Json;
    await admin.must("PUT", `${base}/${encodeURIComponent(name)}`, {
      ...current,
      spec: { ...spec(current), ...change },
    });
  };
  const start = async () => {
    stop = new AbortController();
    const controller = new ApiServiceRegistrationController(
      await gw.client(IDENTITY),
      {
        naming: gw.naming,
        // The in-process test server answers no discovery; the served set is given here.
        servedGroupVersions: async () => [
          { group: "", version: "v1" },
          { group: "apps", version: "v1" },
          { group: "batch", version: "v1" },
          { group: gw.naming.group("apiregistration"), version: "v1" },
        ],
      },
      (err, context) => errors.push(`${context}: ${String(err)}`),
    );
    run = controller.run(stop.signal);
    await until("the controller's first pass", () => controller.synced);
  };
  const authorized = (verb: string, resource: string, apiGroup: string, subresource = "") =>
    gw.rbac.authorize({
      user: { username: IDENTITY, uid: "", groups: ["system:authenticated"], extra: {} },
      verb,
      isResourceRequest: true,
      path: "",
      namespace: "",
      apiGroup,
      apiVersion: "v1",
      resource,
      subresource,
      name: "",
    } satisfies Attributes).decision === "allow";

  before(async () => {
    gw = await startTestGateway("cluster");
    admin = await gw.client("admin", ["system:masters"]);
    base = `/apis/${gw.naming.group("apiregistration")}/v1/apiservices`;
    crdBase = `/apis/${gw.naming.group("apiextensions")}/v1/customresourcedefinitions`;
    label = automanagedLabel(gw.naming);
    await reconcileBootstrapPolicy(admin, gw.naming);
    await until("the controller's permissions", () =>
      authorized("watch", "customresourcedefinitions", gw.naming.group("apiextensions")),
    );
    // What the store holds before the controller starts.
    await admin.must(
      "POST",
      base,
      apiService("v1.batch", "batch", "v1", { ...managed("onstart"), spec: { groupPriorityMinimum: 17400 } }),
    );
    await admin.must(
      "POST",
      base,
      apiService("v1.gone.example.com", "gone.example.com", "v1", managed("onstart")),
    );
    await admin.must(
      "POST",
      base,
      apiService("v1.stale.example.com", "stale.example.com", "v1", managed("true")),
    );
    await admin.must("POST", base, apiService("v1.mine.example.com", "mine.example.com", "v1"));
    await admin.must(
      "POST",
      base,
      apiService("v1.remote.example.com", "remote.example.com", "v1", {
        spec: { service: { namespace: "default", name: "ext" }, insecureSkipTLSVerify: true },
      }),
    );
    await start();
  });
  after(async () => {
    stop.abort();
    await run;
    await gw?.stop();
    assert.deepEqual(errors, []);
  });

  it("has the permissions it needs under its own identity, and no more", () => {
    const registration = gw.naming.group("apiregistration");
    const extensions = gw.naming.group("apiextensions");
    for (const verb of ["get", "list", "watch", "create", "update", "delete"])
      assert.ok(authorized(verb, "apiservices", registration), verb);
    assert.ok(authorized("update", "apiservices", registration, "status"));
    assert.ok(authorized("list", "customresourcedefinitions", extensions));
    assert.ok(!authorized("create", "customresourcedefinitions", extensions));
    assert.ok(!authorized("deletecollection", "apiservices", registration));
    assert.ok(!authorized("create", "configmaps", ""));
  });

  it("registers the served group versions of upstream's table, labelled onstart, local and available", async () => {
    const list = (await admin.must("GET", base)).body.items as Json[];
    const ours = list
      .filter((o) => ((o.metadata as Json).labels as Json | undefined)?.[label] !== undefined)
      .map((o) => (o.metadata as Json).name)
      .sort();
    assert.deepEqual(ours, ["v1.", "v1.apps", "v1.batch"]);
    const core = await get("v1.");
    // The core group's empty name is left out (omitempty), as upstream stores it.
    assert.deepEqual(spec(core), {
      version: "v1",
      groupPriorityMinimum: 18000,
      versionPriority: 1,
    });
    assert.deepEqual(((core as Json).metadata as Json).labels, { [label]: "onstart" });
    assert.equal(available(core)?.status, "True");
    assert.equal(available(core)?.reason, "Local");
    assert.equal(await get(`v1.${gw.naming.group("apiregistration")}`), undefined, "not in upstream's table");
  });

  it("at start puts an onstart spec back and deletes automanaged APIServices nobody wants", async () => {
    assert.equal(spec(await get("v1.batch"))?.groupPriorityMinimum, 17400);
    assert.equal(spec(await get("v1.batch"))?.versionPriority, 15);
    await until(
      "stale ones deleted",
      async () => !(await get("v1.gone.example.com")) && !(await get("v1.stale.example.com")),
    );
  });

  it("leaves APIServices without its label alone, but keeps local ones available", async () => {
    await putStatus("v1.remote.example.com", { status: "False", reason: "Testing", message: "remote" });
    await putStatus("v1.mine.example.com", { status: "False", reason: "Testing", message: "mine" });
    await until(
      "the local one available again",
      async () => available(await get("v1.mine.example.com"))?.status === "True",
    );
    const mine = await get("v1.mine.example.com");
    assert.equal(available(mine)?.reason, "Local");
    assert.equal(available(mine)?.message, "Local APIServices are always available");
    assert.equal(spec(mine)?.versionPriority, 100);
    // The remote one was changed first, so it was looked at before the local one was fixed.
    assert.equal(available(await get("v1.remote.example.com"))?.reason, "Testing");
  });

  it("creates a deleted APIService again, and keeps an edit to an onstart one until the next start", async () => {
    const uid = ((await get("v1.apps"))?.metadata as Json | undefined)?.uid;
    await admin.must("DELETE", `${base}/v1.apps`);
    await until("v1.apps back", async () => {
      const again = await get("v1.apps");
      return again !== undefined && (again.metadata as Json).uid !== uid;
    });
    assert.equal(spec(await get("v1.apps"))?.versionPriority, 15);

    await editSpec("v1.apps", { versionPriority: 2 });
    // A status change made after the edit: once it is undone, the edit has been seen too.
    await putStatus("v1.apps", { status: "Unknown", reason: "Testing", message: "edited" });
    await until("v1.apps available again", async () => available(await get("v1.apps"))?.status === "True");
    assert.equal(spec(await get("v1.apps"))?.versionPriority, 2, "kept while running");

    stop.abort();
    await run;
    await start();
    await until("v1.apps put back at start", async () => spec(await get("v1.apps"))?.versionPriority === 15);
  });

  it("follows custom resource definitions: established and served versions, kept continuously", async () => {
    const group = "widgets.example.com";
    const crd = {
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [
          { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } },
          { name: "v2", served: false, storage: false, schema: { openAPIV3Schema: { type: "object" } } },
        ],
      },
    };
    const path = `${crdBase}/widgets.${group}`;
    await admin.must("POST", crdBase, crd);
    const establish = async () => {
      const current = (await admin.must("GET", path)).body as Json;
      await admin.must("PUT", `${path}/status`, {
        ...current,
        status: {
          ...(current.status as Json),
          conditions: [
            {
              type: "Established",
              status: "True",
              reason: "InitialNamesAccepted",
              message: "the initial names have been accepted",
            },
          ],
        },
      });
    };
    // Not yet established: the unrelated change below is a sync point.
    await putStatus("v1.mine.example.com", { status: "False", reason: "Testing", message: "sync" });
    await until("sync", async () => available(await get("v1.mine.example.com"))?.status === "True");
    assert.equal(await get(`v1.${group}`), undefined, "not before the definition is established");

    await establish();
    await until("the definition's APIService", async () => (await get(`v1.${group}`)) !== undefined);
    const made = await get(`v1.${group}`);
    assert.deepEqual(((made as Json).metadata as Json).labels, { [label]: "true" });
    assert.deepEqual(spec(made), { group, version: "v1", groupPriorityMinimum: 1000, versionPriority: 100 });
    assert.equal(available(made)?.reason, "Local");
    assert.equal(await get(`v2.${group}`), undefined, "v2 is not served");

    await editSpec(`v1.${group}`, { groupPriorityMinimum: 5 });
    await until(
      "the spec put back",
      async () => spec(await get(`v1.${group}`))?.groupPriorityMinimum === 1000,
    );

    const served = (await admin.must("GET", path)).body as Json;
    const versions = (served.spec as { versions: Json[] }).versions;
    await admin.must("PUT", path, {
      ...served,
      spec: {
        ...(served.spec as Json),
        versions: [
          { ...versions[0], served: false },
          { ...versions[1], served: true },
        ],
      },
    });
    await until(
      "v1's APIService gone and v2's made",
      async () => !(await get(`v1.${group}`)) && !!(await get(`v2.${group}`)),
    );

    await admin.must("DELETE", path);
    const terminating = (await admin.must("GET", path)).body as Json;
    await admin.must("PUT", path, {
      ...terminating,
      metadata: { ...(terminating.metadata as Json), finalizers: [] },
    });
    await until("the definition's APIServices gone", async () => !(await get(`v2.${group}`)));
  });
});
