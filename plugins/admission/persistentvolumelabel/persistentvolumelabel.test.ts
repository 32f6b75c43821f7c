import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { registration } from "./index.ts";

test("PersistentVolumeLabel: without a cloud provider volumes are left as they are", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(t.env());
    assert.equal(plugin.name, "PersistentVolumeLabel");
    const object = {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "v" },
      spec: { capacity: { storage: "1Gi" }, gcePersistentDisk: { pdName: "d" } },
    };
    const a = t.attributes({
      operation: "CREATE",
      resource: "persistentvolumes",
      object: structuredClone(object),
    });
    await plugin.admit?.(a);
    await plugin.validate?.(a);
    assert.deepEqual(a.object, object);
  } finally {
    await t.stop();
  }
});
