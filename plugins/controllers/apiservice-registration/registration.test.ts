import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import { builtinPriority } from "./priorities.ts";
import {
  automanagedLabel,
  builtinApiServices,
  crdApiServices,
  crdGroupVersions,
  type DecisionInput,
  decide,
  localStatusUpdate,
  sameSpec,
} from "./registration.ts";

type Json = Record<string, unknown>;

describe("built-in APIServices", () => {
  it("follow upstream's priority table under both presets, and skip group versions it lacks", () => {
    for (const preset of ["cluster", "kubernetes"] as const) {
      const n = naming(preset);
      const wanted = builtinApiServices(n, [
        { group: "", version: "v1" },
        { group: "apps", version: "v1" },
        { group: "autoscaling", version: "v2" },
        { group: n.group("flowcontrol"), version: "v1beta3" },
        { group: n.group("rbac.authorization"), version: "v1" },
        // Upstream's table has neither: the aggregator's own group and an unknown one.
        { group: n.group("apiregistration"), version: "v1" },
        { group: "example.com", version: "v1" },
        { group: "apps", version: "v2" },
      ]);
      assert.deepEqual(
        [...wanted.keys()],
        [
          "v1.",
          "v1.apps",
          "v2.autoscaling",
          `v1beta3.${n.group("flowcontrol")}`,
          `v1.${n.group("rbac.authorization")}`,
        ],
      );
      const label = automanagedLabel(n);
      assert.equal(label, `kube-aggregator.${n.labelDomain}/automanaged`);
      assert.deepEqual(wanted.get("v1."), {
        apiVersion: `${n.group("apiregistration")}/v1`,
        kind: "APIService",
        metadata: { name: "v1.", labels: { [label]: "onstart" } },
        spec: { group: "", version: "v1", groupPriorityMinimum: 18000, versionPriority: 1 },
      });
      assert.deepEqual(wanted.get("v2.autoscaling")?.spec, {
        group: "autoscaling",
        version: "v2",
        groupPriorityMinimum: 17500,
        versionPriority: 30,
      });
      assert.deepEqual(builtinPriority(n, n.group("flowcontrol"), "v1beta3"), { group: 16100, version: 18 });
    }
    assert.equal(naming("kubernetes").group("flowcontrol"), "flowcontrol.apiserver.k8s.io");
  });
});

describe("custom resource APIServices", () => {
  const crd = (group: string, versions: [string, boolean][], established = true): Json => ({
    spec: { group, versions: versions.map(([name, served]) => ({ name, served, storage: name === "v1" })) },
    status: { conditions: [{ type: "Established", status: established ? "True" : "False" }] },
  });
  it("come from the served versions of established definitions, once per group version", () => {
    const gvs = crdGroupVersions([
      crd("a.example.com", [
        ["v1", true],
        ["v2", false],
      ]),
      crd("a.example.com", [["v1", true]]),
      crd("b.example.com", [["v1", true]], false),
      { spec: { group: "c.example.com", versions: [{ name: "v1", served: true }] } },
    ]);
    assert.deepEqual(gvs, [{ group: "a.example.com", version: "v1" }]);
    const n = naming("cluster");
    assert.deepEqual(crdApiServices(n, gvs).get("v1.a.example.com"), {
      apiVersion: `${n.group("apiregistration")}/v1`,
      kind: "APIService",
      metadata: { name: "v1.a.example.com", labels: { [automanagedLabel(n)]: "true" } },
      spec: { group: "a.example.com", version: "v1", groupPriorityMinimum: 1000, versionPriority: 100 },
    });
  });
});

describe("deciding about one APIService", () => {
  const label = "kube-aggregator.cluster.io/automanaged";
  const spec = { group: "apps", version: "v1", groupPriorityMinimum: 17800, versionPriority: 15 };
  const object = (managed: string | undefined, s: Json = spec): Json => ({
    metadata: { name: "v1.apps", uid: "u-1", ...(managed ? { labels: { [label]: managed } } : {}) },
    spec: s,
  });
  const changed = { ...spec, versionPriority: 3 };
  const input = (o: Partial<DecisionInput>): DecisionInput => ({
    desired: undefined,
    current: undefined,
    presentAtStart: false,
    syncedBefore: false,
    label,
    ...o,
  });

  it("creates a wanted APIService that is missing, even one synced before (it was deleted)", () => {
    for (const managed of ["onstart", "true"]) {
      for (const syncedBefore of [false, true]) {
        const desired = object(managed);
        assert.deepEqual(decide(input({ desired, syncedBefore })), { kind: "create", object: desired });
      }
    }
    assert.deepEqual(decide(input({})), { kind: "none" });
  });

  it("never touches an APIService without the automanaged label", () => {
    for (const desired of [undefined, object("onstart"), object("true")]) {
      assert.deepEqual(
        decide(input({ desired, current: object(undefined, changed), presentAtStart: true })),
        { kind: "none" },
      );
      assert.deepEqual(decide(input({ desired, current: object("bogus", changed) })), { kind: "none" });
    }
  });

  it("puts an onstart APIService's spec back once, when it existed at start", () => {
    const current = object("onstart", changed);
    const desired = object("onstart");
    assert.deepEqual(decide(input({ desired, current, presentAtStart: true })), {
      kind: "update",
      object: { ...current, spec },
    });
    assert.deepEqual(decide(input({ desired, current, presentAtStart: true, syncedBefore: true })), {
      kind: "none",
    });
    assert.deepEqual(decide(input({ desired, current, presentAtStart: false })), { kind: "none" });
  });

  it("puts a continuously managed APIService's spec back every time", () => {
    const current = object("true", { ...spec, service: { namespace: "x", name: "y", port: 443 } });
    const desired = object("true");
    for (const syncedBefore of [false, true]) {
      assert.deepEqual(decide(input({ desired, current, syncedBefore })), {
        kind: "update",
        object: { ...current, spec },
      });
    }
    assert.deepEqual(decide(input({ desired, current: object("true"), syncedBefore: true })), {
      kind: "none",
    });
  });

  it("deletes an automanaged APIService nobody wants: onstart ones once at start, true ones always", () => {
    assert.deepEqual(decide(input({ current: object("onstart"), presentAtStart: true })), {
      kind: "delete",
      uid: "u-1",
    });
    assert.deepEqual(
      decide(input({ current: object("onstart"), presentAtStart: true, syncedBefore: true })),
      {
        kind: "none",
      },
    );
    assert.deepEqual(decide(input({ current: object("onstart") })), { kind: "none" });
    assert.deepEqual(decide(input({ current: object("true"), syncedBefore: true })), {
      kind: "delete",
      uid: "u-1",
    });
  });

  it("compares specs as Go does, absent fields being zero values and the port 443", () => {
    assert.ok(sameSpec(spec, { ...spec, insecureSkipTLSVerify: false, caBundle: "" }));
    assert.ok(!sameSpec(spec, changed));
    assert.ok(
      sameSpec(
        { ...spec, service: { namespace: "a", name: "b" } },
        { ...spec, service: { name: "b", namespace: "a", port: 443 } },
      ),
    );
    assert.ok(!sameSpec(spec, { ...spec, service: { namespace: "a", name: "b" } }));
  });
});

describe("the Available condition of local APIServices", () => {
  it("is set to True/Local when missing or different, and left alone on remote ones", () => {
    const local: Json = { metadata: { name: "v1.apps" }, spec: { group: "apps", version: "v1" } };
    const conditionsOf = (o: Json | undefined) =>
      (o?.status as { conditions?: Json[] } | undefined)?.conditions;
    const fixed = localStatusUpdate(local);
    const [condition] = conditionsOf(fixed) ?? [];
    assert.deepEqual(
      { ...condition, lastTransitionTime: undefined },
      {
        type: "Available",
        status: "True",
        reason: "Local",
        message: "Local APIServices are always available",
        lastTransitionTime: undefined,
      },
    );
    assert.equal(local.status, undefined, "the informer's copy is not changed");
    assert.equal(localStatusUpdate(fixed as Json), undefined);
    const wrong = { ...local, status: { conditions: [{ ...condition, status: "False", reason: "Nope" }] } };
    assert.equal(conditionsOf(localStatusUpdate(wrong))?.[0]?.status, "True");
    const remote = {
      ...wrong,
      spec: { group: "apps", version: "v1", service: { namespace: "a", name: "b" } },
    };
    assert.equal(localStatusUpdate(remote), undefined);
  });
});
