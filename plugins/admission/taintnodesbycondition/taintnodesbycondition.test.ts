import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type JsonObject, type Operation } from "../index.ts";
import { registration } from "./index.ts";

const KEY = "node.cluster.io/not-ready";
const node = (taints?: unknown): JsonObject => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "n1" },
  ...(taints === undefined ? {} : { spec: { taints } }),
});

test("TaintNodesByCondition: new nodes start not-ready", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(t.env());
    const mine = { key: "dedicated", value: "x", effect: "NoExecute" };
    const cases: { name: string; op?: Operation; object: JsonObject; want: unknown }[] = [
      { name: "no spec", object: node(), want: [{ key: KEY, effect: "NoSchedule" }] },
      { name: "appended", object: node([mine]), want: [mine, { key: KEY, effect: "NoSchedule" }] },
      {
        name: "present with a value",
        object: node([{ key: KEY, value: "v", effect: "NoSchedule" }]),
        want: [{ key: KEY, value: "v", effect: "NoSchedule" }],
      },
      {
        name: "other effect does not count",
        object: node([{ key: KEY, effect: "NoExecute" }]),
        want: [
          { key: KEY, effect: "NoExecute" },
          { key: KEY, effect: "NoSchedule" },
        ],
      },
      { name: "updates untouched", op: "UPDATE", object: node([]), want: [] },
    ];
    for (const c of cases) {
      const op = c.op ?? "CREATE";
      await plugin.admit?.(
        t.attributes({
          operation: op,
          resource: "nodes",
          object: c.object,
          ...(op === "UPDATE" ? { oldObject: c.object } : {}),
        }),
      );
      assert.deepEqual((c.object.spec as JsonObject | undefined)?.taints, c.want, c.name);
    }
    await assert.rejects(
      async () => plugin.admit?.(t.attributes({ operation: "CREATE", resource: "nodes", object: node("x") })),
      (err: unknown) =>
        err instanceof AdmissionError &&
        err.code === 403 &&
        /^nodes "n1" is forbidden: unexpected type/.test(err.message),
    );
    // Pods are not nodes.
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: {} };
    await plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object: pod }));
    assert.deepEqual(pod.spec, {});
  } finally {
    await t.stop();
  }
});
