import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type Operation } from "../index.ts";
import { registration } from "./index.ts";

const svc = (externalIPs?: unknown) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "s", namespace: "default" },
  spec: { ports: [{ port: 80 }], ...(externalIPs === undefined ? {} : { externalIPs }) },
});

test("DenyServiceExternalIPs: new external IPs are refused, removals pass", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(t.env());
    const cases: { name: string; op: Operation; now: unknown; old?: unknown; deny: boolean }[] = [
      { name: "create without", op: "CREATE", now: undefined, deny: false },
      { name: "create with", op: "CREATE", now: ["1.2.3.4"], deny: true },
      { name: "update adding", op: "UPDATE", now: ["1.2.3.4", "5.6.7.8"], old: ["1.2.3.4"], deny: true },
      { name: "update keeping", op: "UPDATE", now: ["1.2.3.4"], old: ["1.2.3.4"], deny: false },
      { name: "update removing", op: "UPDATE", now: [], old: ["1.2.3.4"], deny: false },
      { name: "garbage type", op: "CREATE", now: "1.2.3.4", deny: false },
    ];
    for (const c of cases) {
      const a = t.attributes({
        operation: c.op,
        resource: "services",
        object: svc(c.now),
        ...(c.op === "UPDATE" ? { oldObject: svc(c.old) } : {}),
      });
      if (!c.deny) {
        await plugin.validate?.(a);
        continue;
      }
      await assert.rejects(
        async () => plugin.validate?.(a),
        (err: unknown) => {
          assert.ok(err instanceof AdmissionError && err.code === 403, c.name);
          assert.equal(
            err.message,
            'services "s" is forbidden: use of external IPs is denied by admission control',
          );
          return true;
        },
      );
    }
  } finally {
    await t.stop();
  }
});
