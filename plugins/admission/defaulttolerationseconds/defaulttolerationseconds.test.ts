import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type JsonObject, type Operation } from "../index.ts";
import { registration } from "./index.ts";

const NR = "node.cluster.io/not-ready";
const UR = "node.cluster.io/unreachable";
const notReady = (s: number) => ({ key: NR, operator: "Exists", effect: "NoExecute", tolerationSeconds: s });
const unreachable = (s: number) => ({
  key: UR,
  operator: "Exists",
  effect: "NoExecute",
  tolerationSeconds: s,
});

const pod = (tolerations?: unknown): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default" },
  spec: { containers: [{ name: "c", image: "i" }], ...(tolerations === undefined ? {} : { tolerations }) },
});

test("DefaultTolerationSeconds: adds what the pod does not tolerate yet", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(
      t.env({ options: { defaultNotReadyTolerationSeconds: 60, defaultUnreachableTolerationSeconds: 120 } }),
    );
    const own = { key: NR, operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 };
    const cases: { name: string; op?: Operation; tolerations?: unknown; want: unknown }[] = [
      { name: "none", tolerations: undefined, want: [notReady(60), unreachable(120)] },
      { name: "own not-ready kept", tolerations: [own], want: [own, unreachable(120)] },
      {
        name: "empty key covers both",
        tolerations: [{ operator: "Exists" }],
        want: [{ operator: "Exists" }],
      },
      {
        name: "empty effect covers",
        tolerations: [{ key: UR, operator: "Exists" }],
        want: [{ key: UR, operator: "Exists" }, notReady(60)],
      },
      {
        name: "NoSchedule does not cover",
        tolerations: [{ key: NR, operator: "Exists", effect: "NoSchedule" }],
        want: [{ key: NR, operator: "Exists", effect: "NoSchedule" }, notReady(60), unreachable(120)],
      },
      { name: "update too", op: "UPDATE", tolerations: [], want: [notReady(60), unreachable(120)] },
    ];
    for (const c of cases) {
      const object = pod(c.tolerations);
      const op = c.op ?? "CREATE";
      await plugin.admit?.(
        t.attributes({
          operation: op,
          resource: "pods",
          object,
          ...(op === "UPDATE" ? { oldObject: pod() } : {}),
        }),
      );
      assert.deepEqual((object.spec as JsonObject).tolerations, c.want, c.name);
    }
    // Subresources and other kinds are not touched.
    const status = pod();
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
    // Garbage tolerations are a 400, not a crash.
    await assert.rejects(
      async () => plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object: pod("x") })),
      (err: unknown) => err instanceof AdmissionError && err.code === 400,
    );
  } finally {
    await t.stop();
  }
});

test("DefaultTolerationSeconds: 300 seconds by default, bad option fails at factory time", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(t.env());
    const object = pod();
    await plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object }));
    assert.deepEqual((object.spec as JsonObject).tolerations, [notReady(300), unreachable(300)]);
    await assert.rejects(
      async () => registration.factory(t.env({ options: { defaultNotReadyTolerationSeconds: 1.5 } })),
      /default-not-ready-toleration-seconds must be an integer/,
    );
  } finally {
    await t.stop();
  }
});
