import assert from "node:assert/strict";
import { test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type JsonObject } from "../index.ts";
import { registration } from "./index.ts";

const GROUP = "scheduling.cluster.io";

const pod = (spec: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default" },
  spec: { containers: [{ name: "c", image: "i" }], ...spec },
});
const pc = (name: string, value: number, extra: JsonObject = {}): JsonObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: "PriorityClass",
  metadata: { name },
  value,
  ...extra,
});

/** Stores classes and waits (bounded) until the shared informer the plugin lists has them. */
async function classes(t: AdmissionTest, ...objects: JsonObject[]): Promise<void> {
  for (const o of objects) await t.create("priorityclasses", undefined, o, GROUP);
  const informer = t.objects.informer({ group: GROUP, resource: "priorityclasses" });
  assert.ok(informer);
  await informer.synced;
  const deadline = Date.now() + 5000;
  const names = objects.map((o) => (o.metadata as { name: string }).name);
  while (!names.every((n) => informer.get(undefined, n))) {
    assert.ok(Date.now() < deadline, "informer did not catch up");
    await new Promise((r) => setTimeout(r, 5));
  }
}

function refusal(code: number, message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof AdmissionError);
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  };
}

test("Priority: pods get their class's priority and preemption policy", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(t.env());
    // No default class yet: priority 0, PreemptLowerPriority.
    const plain = pod();
    await plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object: plain }));
    assert.deepEqual(
      [
        (plain.spec as JsonObject).priority,
        (plain.spec as JsonObject).preemptionPolicy,
        (plain.spec as JsonObject).priorityClassName,
      ],
      [0, "PreemptLowerPriority", undefined],
    );
    await classes(
      t,
      pc("high", 1000, { preemptionPolicy: "Never" }),
      pc("low", 10),
      pc("dflt", 50, { globalDefault: true }),
    );
    const cases: {
      name: string;
      spec: JsonObject;
      want?: [number, string, string];
      error?: [number, string];
    }[] = [
      { name: "named", spec: { priorityClassName: "high" }, want: [1000, "Never", "high"] },
      {
        name: "defaulted policy",
        spec: { priorityClassName: "low" },
        want: [10, "PreemptLowerPriority", "low"],
      },
      { name: "global default", spec: {}, want: [50, "PreemptLowerPriority", "dflt"] },
      {
        name: "system class",
        spec: { priorityClassName: "system-node-critical" },
        want: [2000001000, "PreemptLowerPriority", "system-node-critical"],
      },
      {
        name: "matching priority given",
        spec: { priorityClassName: "low", priority: 10 },
        want: [10, "PreemptLowerPriority", "low"],
      },
      {
        name: "unknown class",
        spec: { priorityClassName: "nope" },
        error: [403, 'pods "p" is forbidden: no PriorityClass with name nope was found'],
      },
      {
        name: "different priority",
        spec: { priorityClassName: "low", priority: 11 },
        error: [
          403,
          'pods "p" is forbidden: the integer value of priority (11) must not be provided in pod spec; priority admission controller computed 10 from the given PriorityClass name',
        ],
      },
      {
        name: "different preemption policy",
        spec: { priorityClassName: "high", preemptionPolicy: "PreemptLowerPriority" },
        error: [
          403,
          'pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
        ],
      },
      {
        name: "garbage class name",
        spec: { priorityClassName: 3 },
        error: [400, "spec.priorityClassName must be a string"],
      },
      {
        name: "garbage priority",
        spec: { priorityClassName: "low", priority: "10" },
        error: [400, "spec.priority must be an integer"],
      },
    ];
    for (const c of cases) {
      const object = pod(c.spec);
      const a = t.attributes({ operation: "CREATE", resource: "pods", object });
      if (c.error) {
        await assert.rejects(async () => plugin.admit?.(a), refusal(...c.error), c.name);
        continue;
      }
      await plugin.admit?.(a);
      const s = object.spec as JsonObject;
      assert.deepEqual([s.priority, s.preemptionPolicy, s.priorityClassName], c.want, c.name);
    }
    // Updates keep what creation set.
    const stored = pod({ priorityClassName: "high", priority: 1000, preemptionPolicy: "Never" });
    const updated = pod({ priorityClassName: "high" });
    await plugin.admit?.(
      t.attributes({ operation: "UPDATE", resource: "pods", object: updated, oldObject: stored }),
    );
    assert.equal((updated.spec as JsonObject).priority, 1000);
    assert.equal((updated.spec as JsonObject).preemptionPolicy, "Never");
    // Subresources are ignored.
    const binding = pod({ priorityClassName: "nope" });
    await plugin.admit?.(
      t.attributes({
        operation: "UPDATE",
        resource: "pods",
        subresource: "status",
        object: binding,
        oldObject: binding,
      }),
    );
  } finally {
    await t.stop();
  }
});

test("Priority: only one global default PriorityClass", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(t.env());
    const attrs = (operation: "CREATE" | "UPDATE", object: JsonObject) =>
      t.attributes({
        operation,
        resource: "priorityclasses",
        group: GROUP,
        object,
        ...(operation === "UPDATE" ? { oldObject: object } : {}),
      });
    // Nothing is default yet.
    await plugin.validate?.(attrs("CREATE", pc("first", 1, { globalDefault: true })));
    await classes(t, pc("first", 1, { globalDefault: true }), pc("other", 2));
    await assert.rejects(
      async () => plugin.validate?.(attrs("CREATE", pc("second", 1, { globalDefault: true }))),
      refusal(
        403,
        'priorityclasses.scheduling.cluster.io "second" is forbidden: PriorityClass first is already marked as default. Only one default can exist',
      ),
    );
    await assert.rejects(
      async () => plugin.validate?.(attrs("UPDATE", pc("other", 2, { globalDefault: true }))),
      refusal(
        403,
        'priorityclasses.scheduling.cluster.io "other" is forbidden: PriorityClass first is already marked as default. Only one default can exist',
      ),
    );
    // The default itself may be updated; non-default classes pass.
    await plugin.validate?.(attrs("UPDATE", pc("first", 1, { globalDefault: true, description: "d" })));
    await plugin.validate?.(attrs("CREATE", pc("third", 3)));
  } finally {
    await t.stop();
  }
});
