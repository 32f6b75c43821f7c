import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { asObject, type JsonObject } from "../common/json.ts";
import { naming } from "../naming/naming.ts";
import { type Registry, RegistryError } from "../registry/index.ts";
import { setAPIServiceCondition } from "./apiservice.ts";
import { builtinKinds } from "./index.ts";
import { type ServedKind, serveKind } from "./testing.ts";

for (const preset of ["cluster", "kubernetes"] as const) {
  const n = naming(preset);
  const kind = builtinKinds(n).find((k) => k.schema.plural === "apiservices")!;
  const apiVersion = `${n.group("apiregistration")}/v1`;

  describe(`APIService kind (${preset})`, () => {
    let served: ServedKind;
    let registry: Registry;
    before(async () => {
      served = await serveKind(kind);
      registry = served.registry;
    });
    after(() => served.stop());

    const local = (name: string, group: string, version = "v1"): JsonObject => ({
      apiVersion,
      kind: "APIService",
      metadata: { name },
      spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 100 },
    });
    const remote = (name: string, group: string): JsonObject => ({
      ...local(name, group),
      spec: {
        group,
        version: "v1",
        groupPriorityMinimum: 1000,
        versionPriority: 100,
        service: { namespace: "ns", name: "svc" },
        insecureSkipTLSVerify: true,
      },
    });
    const conditions = (object: JsonObject) =>
      asObject(object.status)?.conditions as JsonObject[] | undefined;
    const rejection = (err: unknown) => {
      assert.ok(err instanceof RegistryError);
      assert.equal(err.reason, "Invalid");
      return err.causes.map((c) => `${c.field}: ${c.detail ?? ""}`);
    };

    it("marks a local APIService available on create, whatever status the body carried", async () => {
      const body = { ...local("v1.", ""), status: { conditions: [{ type: "Available", status: "False" }] } };
      const { object } = await registry.create(undefined, body);
      const [condition, ...rest] = conditions(object) ?? [];
      assert.deepEqual(rest, []);
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
      assert.match(String(condition?.lastTransitionTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it("gives a remote APIService no status and defaults its Service port to 443", async () => {
      const { object } = await registry.create(undefined, {
        ...remote("v1.remote.example.com", "remote.example.com"),
        status: { conditions: [{ type: "Available", status: "True", reason: "Local" }] },
      });
      assert.equal(conditions(object), undefined);
      assert.equal(asObject(asObject(object.spec)?.service)?.port, 443);
    });

    it("refuses a name other than <version>.<group> with a 422 and its cause", async () => {
      await assert.rejects(
        registry.create(undefined, local("v1.wrong.example.com", "right.example.com")),
        (err) => {
          assert.deepEqual(rejection(err), [
            'metadata.name: must be `spec.version+"."+spec.group`: "v1.right.example.com"',
          ]);
          return true;
        },
      );
      await assert.rejects(registry.create(undefined, local("v1/x.example.com", "x.example.com")), (err) => {
        assert.deepEqual(rejection(err), ["metadata.name: may not contain '/'"]);
        return true;
      });
    });

    it("checks the same rules on update, and keeps status there", async () => {
      await registry.create(undefined, local("v1.update.example.com", "update.example.com"));
      await assert.rejects(
        registry.update(undefined, "v1.update.example.com", (cur) => ({
          ...(cur as JsonObject),
          spec: { ...asObject((cur as JsonObject).spec), versionPriority: 0 },
        })),
        (err) => {
          assert.deepEqual(rejection(err), ["spec.versionPriority: must be positive and less than 1000"]);
          return true;
        },
      );
      const { object } = await registry.update(undefined, "v1.update.example.com", (cur) => ({
        ...(cur as JsonObject),
        spec: { ...asObject((cur as JsonObject).spec), versionPriority: 7 },
        status: {},
      }));
      assert.equal(asObject(object.spec)?.versionPriority, 7);
      assert.equal(conditions(object)?.[0]?.reason, "Local", "the main resource does not write status");
    });

    it("writes only status through the status subresource, with known condition statuses", async () => {
      await registry.create(undefined, {
        ...local("v1.status.example.com", "status.example.com"),
        metadata: { name: "v1.status.example.com", labels: { team: "a" } },
      });
      const { object } = await registry.update(
        undefined,
        "v1.status.example.com",
        (cur) => {
          const next = structuredClone(cur as JsonObject);
          setAPIServiceCondition(next, {
            type: "Available",
            status: "False",
            reason: "Testing",
            message: "set by a test",
          });
          next.spec = { ...asObject(next.spec), versionPriority: 9 };
          next.metadata = { ...asObject(next.metadata), labels: { team: "b" }, annotations: { a: "b" } };
          return next;
        },
        { subresource: "status" },
      );
      assert.equal(conditions(object)?.[0]?.status, "False");
      assert.equal(conditions(object)?.[0]?.reason, "Testing");
      assert.equal(asObject(object.spec)?.versionPriority, 100, "spec is the main resource's");
      assert.deepEqual(asObject(object.metadata)?.labels, { team: "a" });
      assert.equal(asObject(object.metadata)?.annotations, undefined);
      await assert.rejects(
        registry.update(
          undefined,
          "v1.status.example.com",
          (cur) => ({
            ...(cur as JsonObject),
            status: { conditions: [{ type: "Available", status: "Maybe" }] },
          }),
          { subresource: "status" },
        ),
        (err) => {
          assert.ok(err instanceof RegistryError);
          assert.deepEqual(
            err.causes.map((c) => [c.field, c.type, c.supported]),
            [["status.conditions[0].status", "FieldValueNotSupported", ["True", "False", "Unknown"]]],
          );
          return true;
        },
      );
    });
  });
}

describe("setAPIServiceCondition", () => {
  it("moves the transition time only when the status changes, and says whether anything changed", () => {
    const object: JsonObject = {};
    const available = { type: "Available", status: "True", reason: "Local", message: "m" };
    assert.equal(setAPIServiceCondition(object, available, "2024-01-01T00:00:00Z"), true);
    assert.equal(setAPIServiceCondition(object, available, "2024-01-02T00:00:00Z"), false);
    assert.equal(
      setAPIServiceCondition(object, { ...available, message: "n" }, "2024-01-03T00:00:00Z"),
      true,
    );
    const [condition] = (object.status as { conditions: JsonObject[] }).conditions;
    assert.equal(condition?.lastTransitionTime, "2024-01-01T00:00:00Z");
    assert.equal(
      setAPIServiceCondition(object, { ...available, status: "False" }, "2024-01-04T00:00:00Z"),
      true,
    );
    assert.equal(condition?.lastTransitionTime, "2024-01-04T00:00:00Z");
  });
});
