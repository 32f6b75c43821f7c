import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type JsonObject, type Operation } from "../index.ts";
import { isExtendedResourceName, registration } from "./index.ts";

test("isExtendedResourceName follows upstream's rule", () => {
  const cases: [string, boolean][] = [
    ["example.com/gpu", true],
    ["cpu", false],
    ["hugepages-2Mi", false],
    ["cluster.io/gpu", false],
    ["foo.cluster.io/gpu", false],
    ["requests.example.com/gpu", false],
    [`example.com/${"x".repeat(64)}`, false],
    ["Example.com/gpu", false],
  ];
  for (const [name, want] of cases) assert.equal(isExtendedResourceName(name, "cluster.io"), want, name);
});

const pod = (
  containers: JsonObject[],
  initContainers: JsonObject[] = [],
  tolerations?: unknown,
): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default" },
  spec: { containers, initContainers, ...(tolerations === undefined ? {} : { tolerations }) },
});
const asking = (...names: string[]) => ({
  name: "c",
  image: "i",
  resources: { requests: Object.fromEntries(names.map((n) => [n, "1"])) },
});
const tol = (key: string) => ({ key, operator: "Exists", effect: "NoSchedule" });

test("ExtendedResourceToleration: tolerates the taints of requested extended resources", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(t.env());
    const cases: { name: string; op?: Operation; object: JsonObject; want: unknown }[] = [
      { name: "none requested", object: pod([asking("cpu", "memory")]), want: undefined },
      {
        name: "sorted, init containers too, once each",
        object: pod([asking("z.io/b", "cpu")], [asking("a.io/a", "z.io/b")]),
        want: [tol("a.io/a"), tol("z.io/b")],
      },
      { name: "existing kept", object: pod([asking("a.io/a")], [], [tol("a.io/a")]), want: [tol("a.io/a")] },
      {
        name: "existing with seconds replaced",
        object: pod([asking("a.io/a")], [], [{ ...tol("a.io/a"), tolerationSeconds: 3 }, tol("x")]),
        want: [tol("a.io/a"), tol("x")],
      },
      { name: "update", op: "UPDATE", object: pod([asking("a.io/a")]), want: [tol("a.io/a")] },
      { name: "native domain ignored", object: pod([asking("cluster.io/x")]), want: undefined },
    ];
    for (const c of cases) {
      const op = c.op ?? "CREATE";
      await plugin.admit?.(
        t.attributes({
          operation: op,
          resource: "pods",
          object: c.object,
          ...(op === "UPDATE" ? { oldObject: c.object } : {}),
        }),
      );
      assert.deepEqual((c.object.spec as JsonObject).tolerations, c.want, c.name);
    }
    const bad = pod([asking("a.io/a")], [], "x");
    await assert.rejects(
      async () => plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object: bad })),
      (err: unknown) => err instanceof AdmissionError && err.code === 400,
    );
    const status = pod([asking("a.io/a")]);
    await plugin.admit?.(
      t.attributes({
        operation: "UPDATE",
        resource: "pods",
        subresource: "status",
        object: status,
        oldObject: status,
      }),
    );
    assert.equal((status.spec as JsonObject).tolerations, undefined);
  } finally {
    await t.stop();
  }
});
