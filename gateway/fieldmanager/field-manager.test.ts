import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { kindSchema } from "../../backends/builtin/typed.ts";
import { builtinCatalog } from "../../backends/catalog/index.ts";
import type { StructuralSchema } from "../../backends/schema/structural/types.ts";
import { ApplyConflictError, FieldManagerError } from "./errors.ts";
import { FieldManager, type VersionView } from "./field-manager.ts";

type Obj = Record<string, unknown>;
const catalog = builtinCatalog();
const ANNOTATION = "kubectl.example/last-applied-configuration";

function view(group: string, kind: string, schema: StructuralSchema, hasStatus: boolean): VersionView {
  const apiVersion = (v: string) => (group ? `${group}/${v}` : v);
  return {
    kind,
    hasStatus,
    apiVersion,
    versionOf: (av) => (av === apiVersion("v1") ? "v1" : undefined),
    schema: () => schema,
    convert: (o, v) => ({ ...o, apiVersion: apiVersion(v) }),
  };
}

const deployments = view("apps", "Deployment", kindSchema(catalog, "apps/v1.Deployment"), true);
const configMaps = view("", "ConfigMap", kindSchema(catalog, "core/v1.ConfigMap"), false);

let clock = Date.parse("2026-01-01T00:00:00.250Z");
function manager(v: VersionView, subresource = ""): FieldManager {
  return new FieldManager({
    view: v,
    version: "v1",
    subresource,
    lastAppliedAnnotation: ANNOTATION,
    now: () => new Date(clock),
  });
}

function entries(o: Obj): Obj[] {
  return ((o.metadata as Obj).managedFields as Obj[] | undefined) ?? [];
}

function byManager(o: Obj, name: string, operation?: string): Obj | undefined {
  return entries(o).find((e) => e.manager === name && (!operation || e.operation === operation));
}

function deployment(containers: Obj[], extra: Obj = {}): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", ...((extra.metadata as Obj) ?? {}) },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers } },
      ...((extra.spec as Obj) ?? {}),
    },
  };
}

/** A write as the registry makes it: the stored object gets the manager's managedFields. */
async function update(fm: FieldManager, live: Obj | undefined, next: Obj, name: string): Promise<Obj> {
  const out = structuredClone(next);
  const sent = (out.metadata as Obj).managedFields;
  await fm.update(live, out, sent, name);
  return out;
}

function apply(
  live: Obj | undefined,
  config: Obj,
  name: string,
  force = false,
  v = deployments,
): Promise<Obj> {
  return manager(v).apply(live, structuredClone(config), name, force);
}

describe("field manager: updates", () => {
  it("records what a create sets, at second precision, without server-owned fields", async () => {
    const created = await update(
      manager(configMaps),
      undefined,
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "c", namespace: "default", uid: "u", labels: { a: "1" } },
        data: { k: "v" },
      },
      "kubectl-create",
    );
    assert.deepEqual(entries(created), [
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:k": {} }, "f:metadata": { "f:labels": { ".": {}, "f:a": {} } } },
      },
    ]);
  });

  it("moves a changed field to its new writer and drops removed ones", async () => {
    const fm = manager(configMaps);
    const base = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } };
    const v1 = await update(fm, undefined, { ...base, data: { a: "1", b: "2" } }, "one");
    const v2 = await update(fm, v1, { ...v1, data: { a: "changed", b: "2" } }, "two");
    assert.deepEqual(byManager(v2, "one")?.fieldsV1, { "f:data": { ".": {}, "f:b": {} } });
    assert.deepEqual(byManager(v2, "two")?.fieldsV1, { "f:data": { "f:a": {} } });
    const v3 = await update(fm, v2, { ...v2, data: { a: "changed" } }, "three");
    assert.deepEqual(byManager(v3, "one")?.fieldsV1, { "f:data": {} });
    assert.equal(byManager(v3, "three"), undefined, "a removal alone owns nothing");
  });

  it("an unchanged write keeps the entries as they were", async () => {
    const fm = manager(configMaps);
    const v1 = await update(
      fm,
      undefined,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1" } },
      "one",
    );
    clock += 5000;
    const v2 = await update(fm, v1, structuredClone(v1), "one");
    assert.deepEqual(entries(v2), entries(v1));
  });

  it("a single empty entry resets, and the writer owns what it changes; an empty list does not", async () => {
    const fm = manager(configMaps);
    const v1 = await update(
      fm,
      undefined,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1" } },
      "one",
    );
    const reset = structuredClone(v1);
    (reset.metadata as Obj).managedFields = [{}];
    (reset.data as Obj).b = "2";
    const v2 = await update(fm, v1, reset, "two");
    assert.deepEqual(
      entries(v2).map((e) => [e.manager, e.fieldsV1]),
      [["two", { "f:data": { "f:b": {} } }]],
    );
    const emptied = structuredClone(v1);
    (emptied.metadata as Obj).managedFields = [];
    const v3 = await update(fm, v1, emptied, "two");
    assert.deepEqual(entries(v3), entries(v1));
  });

  it("takes managedFields the writer sends when they decode, and ignores them on subresources", async () => {
    const fm = manager(configMaps);
    const v1 = await update(
      fm,
      undefined,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1" } },
      "one",
    );
    const replaced = structuredClone(v1);
    (entries(replaced)[0] as Obj).manager = "renamed";
    assert.deepEqual((await update(fm, v1, replaced, "x")).metadata, {
      name: "c",
      managedFields: entries(replaced),
    });
    const bad = structuredClone(v1);
    (bad.metadata as Obj).managedFields = [
      { manager: "m", operation: "Bogus", apiVersion: "v1", fieldsType: "FieldsV1" },
    ];
    assert.deepEqual(entries(await update(fm, v1, bad, "x")), entries(v1), "undecodable: the live ones stay");
  });

  it("leaves objects that predate tracking untracked", async () => {
    const fm = manager(configMaps);
    const live = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", uid: "u" }, data: { a: "1" } };
    const next = await update(fm, live, { ...live, data: { a: "2" } }, "one");
    assert.equal((next.metadata as Obj).managedFields, undefined);
  });

  it("caps updaters at 10, folding the oldest into ancient-changes", async () => {
    const fm = manager(configMaps);
    let o = await update(
      fm,
      undefined,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: {} },
      "m0",
    );
    for (let i = 1; i <= 14; i++) {
      clock += 1000;
      o = await update(fm, o, { ...o, data: { ...(o.data as Obj), [`k${i}`]: "v" } }, `m${i}`);
    }
    const updaters = entries(o).filter((e) => e.operation === "Update");
    assert.equal(updaters.length, 10);
    const ancient = byManager(o, "ancient-changes");
    assert.ok(ancient, JSON.stringify(entries(o).map((e) => e.manager)));
    assert.deepEqual(Object.keys(((ancient as Obj).fieldsV1 as Obj)["f:data"] as Obj).sort(), [
      ".",
      "f:k1",
      "f:k2",
      "f:k3",
      "f:k4",
      "f:k5",
    ]);
    assert.ok(!entries(o).some((e) => ["m0", "m1", "m5"].includes(e.manager as string)));
  });
});

describe("field manager: apply", () => {
  const nginx = { name: "nginx", image: "nginx:1" };

  it("creates with one Apply entry owning what was sent", async () => {
    const out = await apply(
      undefined,
      deployment([nginx], { metadata: { labels: { app: "web" } } }),
      "kubectl",
    );
    const entry = byManager(out, "kubectl", "Apply");
    assert.equal(entry?.apiVersion, "apps/v1");
    assert.deepEqual(entry?.fieldsV1, {
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": {
        "f:selector": {},
        "f:template": {
          "f:metadata": { "f:labels": { "f:app": {} } },
          "f:spec": { "f:containers": { 'k:{"name":"nginx"}': { ".": {}, "f:image": {}, "f:name": {} } } },
        },
      },
    });
  });

  it("a changed field owned by another manager conflicts; force takes it; the same value shares it", async () => {
    const created = await apply(undefined, deployment([nginx], { spec: { replicas: 2 } }), "ci");
    const scaled = await update(
      manager(deployments),
      created,
      { ...created, spec: { ...(created.spec as Obj), replicas: 5 } },
      "hpa",
    );
    await assert.rejects(
      async () => apply(scaled, deployment([nginx], { spec: { replicas: 3 } }), "ci"),
      (err: unknown) => {
        assert.ok(err instanceof ApplyConflictError);
        assert.equal(
          err.message,
          'Apply failed with 1 conflict: conflict with "hpa" using apps/v1: .spec.replicas',
        );
        assert.deepEqual(err.causes(), [
          {
            reason: "FieldManagerConflict",
            message: 'conflict with "hpa" using apps/v1',
            field: ".spec.replicas",
          },
        ]);
        return true;
      },
    );
    const shared = await apply(scaled, deployment([nginx], { spec: { replicas: 5 } }), "other");
    assert.ok(JSON.stringify(byManager(shared, "hpa")?.fieldsV1).includes("f:replicas"));
    assert.ok(JSON.stringify(byManager(shared, "other")?.fieldsV1).includes("f:replicas"));
    const forced = await apply(scaled, deployment([nginx], { spec: { replicas: 3 } }), "ci", true);
    assert.equal((forced.spec as Obj).replicas, 3);
    assert.equal(byManager(forced, "hpa"), undefined, "hpa owned only replicas");
  });

  it("a list-map key the schema defaults may be left out: ports key on protocol TCP", async () => {
    const web = { ...nginx, ports: [{ containerPort: 80 }] };
    const out = await apply(undefined, deployment([web]), "ci");
    const fields = JSON.stringify(byManager(out, "ci", "Apply")?.fieldsV1);
    assert.ok(fields.includes('k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}'), fields);
    // Applying it again with the protocol spelled out is the same item.
    const again = await apply(
      out,
      deployment([{ ...nginx, ports: [{ containerPort: 80, protocol: "TCP" }] }]),
      "ci",
    );
    const ports = (((again.spec as Obj).template as Obj).spec as { containers: Obj[] }).containers[0]?.ports;
    assert.equal((ports as Obj[]).length, 1);
  });

  it("owners at another version protect fields from removal; an applier's last set is pruned at its own version", async () => {
    // Two versions of one kind whose objects differ only in apiVersion.
    const schema = kindSchema(catalog, "apps/v1.Deployment");
    const two: VersionView = {
      kind: "Deployment",
      hasStatus: true,
      apiVersion: (v) => `apps/${v}`,
      versionOf: (av) => (av === "apps/v1" ? "v1" : av === "apps/v2" ? "v2" : undefined),
      schema: () => schema,
      convert: (o, v) => ({ ...o, apiVersion: `apps/${v}` }),
    };
    const at = (version: string) =>
      new FieldManager({
        view: two,
        version,
        subresource: "",
        lastAppliedAnnotation: ANNOTATION,
        now: () => new Date(clock),
      });
    const labelled = (labels: Obj, apiVersion = "apps/v1") => ({
      ...deployment([nginx], { metadata: { labels } }),
      apiVersion,
    });
    const v1 = await at("v1").apply(undefined, labelled({ a: "1", b: "2" }), "ci", false);
    const v2 = await at("v2").apply(
      await at("v2").apply(v1, labelled({ b: "2" }, "apps/v2"), "other", false),
      labelled({ b: "2" }, "apps/v2"),
      "other",
      false,
    );
    assert.equal(byManager(v2, "other")?.apiVersion, "apps/v2");
    const v3 = await at("v1").apply(v2, labelled({ a: "1" }), "ci", false);
    assert.deepEqual((v3.metadata as Obj).labels, { a: "1", b: "2" }, "b is still owned, at apps/v2");
    // ci last applied at v1; now it applies at v2 without a: a goes, pruned at v1 where it was set.
    const v4 = await at("v2").apply(v3, labelled({ b: "2" }, "apps/v2"), "ci", false);
    assert.deepEqual((v4.metadata as Obj).labels, { b: "2" });
  });

  it("re-applying what was applied before keeps every field, including ones owned by others", async () => {
    const v1 = await apply(undefined, deployment([nginx], { metadata: { labels: { a: "1" } } }), "ci");
    const v2 = await update(
      manager(deployments),
      v1,
      { ...v1, metadata: { ...(v1.metadata as Obj), labels: { a: "1", other: "x" } } },
      "kubectl-label",
    );
    const v3 = await apply(
      v2,
      deployment([{ ...nginx, image: "nginx:2" }], { metadata: { labels: { a: "1" } } }),
      "ci",
    );
    assert.deepEqual((v3.metadata as Obj).labels, { a: "1", other: "x" });
    const v4 = await apply(
      v3,
      deployment([{ ...nginx, image: "nginx:2" }], { metadata: { labels: { a: "1" } } }),
      "ci",
    );
    assert.deepEqual(entries(v4), entries(v3), "an apply that changes nothing changes no entry");
  });

  it("removes fields the applier stops sending unless someone else owns them", async () => {
    const v1 = await apply(
      undefined,
      deployment([nginx], { metadata: { labels: { a: "1", b: "2" } } }),
      "ci",
    );
    const v2 = await update(
      manager(deployments),
      v1,
      { ...v1, metadata: { ...(v1.metadata as Obj), labels: { a: "1", b: "2", c: "3" } } },
      "kubectl-label",
    );
    // The labeller also touches b (same value is not a change, so it is not theirs).
    const v3 = await apply(v2, deployment([nginx], { metadata: { labels: { a: "1" } } }), "ci");
    assert.deepEqual((v3.metadata as Obj).labels, { a: "1", c: "3" });
  });

  it("two managers own different containers of one Deployment", async () => {
    const a = await apply(undefined, deployment([nginx]), "team-a");
    const b = await apply(a, deployment([{ name: "sidecar", image: "envoy:1" }]), "team-b");
    const names = (((b.spec as Obj).template as Obj).spec as Obj).containers as Obj[];
    assert.deepEqual(
      names.map((c) => c.name),
      ["nginx", "sidecar"],
    );
    const a2 = await apply(b, deployment([{ name: "nginx", image: "nginx:2" }]), "team-a");
    const after = ((((a2.spec as Obj).template as Obj).spec as Obj).containers as Obj[]).map((c) => c.image);
    assert.deepEqual(after, ["nginx:2", "envoy:1"]);
    const dropped = await apply(a2, deployment([]), "team-b");
    const left = ((((dropped.spec as Obj).template as Obj).spec as Obj).containers as Obj[]).map(
      (c) => c.name,
    );
    assert.deepEqual(left, ["nginx"], "team-b's container goes when team-b stops applying it");
  });

  it("refuses managedFields in the body and a body of another kind", async () => {
    const withFields = deployment([nginx], { metadata: { managedFields: [] } });
    await assert.rejects(async () => apply(undefined, withFields, "m"), FieldManagerError);
    await assert.rejects(
      async () => apply(undefined, { ...deployment([nginx]), kind: "StatefulSet" }, "m"),
      /invalid object type: apps\/v1, Kind=StatefulSet/,
    );
    await assert.rejects(
      async () => apply(undefined, { ...deployment([nginx]), apiVersion: "v1", kind: "Deployment" }, "m"),
      /invalid object type: \/v1, Kind=Deployment/,
    );
  });

  it("fields present before the first apply belong to before-first-apply", async () => {
    const live = { ...deployment([nginx], { spec: { replicas: 4 } }), metadata: { name: "web", uid: "u" } };
    await assert.rejects(
      async () => apply(live, deployment([nginx], { spec: { replicas: 1 } }), "ci"),
      /conflict with "before-first-apply" using apps\/v1: \.spec\.replicas/,
    );
  });

  it("kubectl takes over from client-side apply where the last applied values still hold", async () => {
    const lastApplied = deployment([nginx], { spec: { replicas: 2 } });
    const csa = await update(
      manager(deployments),
      undefined,
      {
        ...lastApplied,
        metadata: {
          name: "web",
          namespace: "default",
          annotations: { [ANNOTATION]: JSON.stringify(lastApplied) },
        },
      },
      "kubectl-client-side-apply",
    );
    const out = await apply(csa, deployment([nginx], { spec: { replicas: 3 } }), "kubectl");
    assert.equal((out.spec as Obj).replicas, 3);
    const annotation = JSON.parse(((out.metadata as Obj).annotations as Obj)[ANNOTATION] as string);
    assert.equal(annotation.spec.replicas, 3, "the client-side annotation follows the server-side apply");
    await assert.rejects(
      async () => apply(csa, deployment([nginx], { spec: { replicas: 3 } }), "someone-else"),
      ApplyConflictError,
    );
    const drifted = await update(
      manager(deployments),
      csa,
      { ...csa, spec: { ...(csa.spec as Obj), replicas: 7 } },
      "kubectl-client-side-apply",
    );
    await assert.rejects(
      async () => apply(drifted, deployment([nginx], { spec: { replicas: 3 } }), "kubectl"),
      ApplyConflictError,
    );
  });

  it("applies to status record the subresource and own only status", async () => {
    const live = await apply(undefined, deployment([nginx]), "ci");
    const out = await manager(deployments, "status").apply(
      live,
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web" },
        spec: { replicas: 9 },
        status: { replicas: 1 },
      },
      "controller",
      false,
    );
    const entry = byManager(out, "controller");
    assert.equal(entry?.subresource, "status");
    assert.deepEqual(entry?.fieldsV1, { "f:status": { "f:replicas": {} } });
  });
});
