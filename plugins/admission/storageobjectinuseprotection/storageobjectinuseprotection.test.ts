import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError } from "../index.ts";
import { registration } from "./index.ts";

test("StorageObjectInUseProtection: protection finalizers on new claims and volumes", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(t.env());
    const pvc = t.naming.label("pvc-protection");
    const pv = t.naming.label("pv-protection");
    const cases: { name: string; resource: string; finalizers?: unknown; want: string[] }[] = [
      { name: "claim", resource: "persistentvolumeclaims", want: [pvc] },
      {
        name: "claim with others",
        resource: "persistentvolumeclaims",
        finalizers: ["a/b"],
        want: ["a/b", pvc],
      },
      { name: "claim already", resource: "persistentvolumeclaims", finalizers: [pvc], want: [pvc] },
      { name: "volume", resource: "persistentvolumes", want: [pv] },
    ];
    for (const c of cases) {
      const ns = c.resource === "persistentvolumes" ? undefined : "default";
      const a = t.attributes({
        operation: "CREATE",
        resource: c.resource,
        object: {
          apiVersion: "v1",
          metadata: {
            name: "x",
            ...(ns ? { namespace: ns } : {}),
            ...(c.finalizers ? { finalizers: c.finalizers } : {}),
          },
          spec: {},
        },
      });
      await plugin.admit?.(a);
      assert.deepEqual(
        (a.object?.metadata as { finalizers?: string[] } | undefined)?.finalizers,
        c.want,
        c.name,
      );
    }
    const bad = t.attributes({
      operation: "CREATE",
      resource: "persistentvolumeclaims",
      object: { apiVersion: "v1", metadata: { name: "x", namespace: "default", finalizers: "nope" } },
    });
    await assert.rejects(
      async () => plugin.admit?.(bad),
      (err: unknown) => err instanceof AdmissionError && err.code === 400,
    );
  } finally {
    await t.stop();
  }
});
