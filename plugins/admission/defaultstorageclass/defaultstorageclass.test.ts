import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { eventually } from "../../../test/support/watch.ts";
import { registration } from "./index.ts";

const claim = (spec: Record<string, unknown>, annotations?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name: "c", namespace: "default", ...(annotations ? { annotations } : {}) },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...spec },
});

test("DefaultStorageClass: defaults unset classes to the newest default, keeps explicit ones", async () => {
  const t = await startAdmissionTest();
  try {
    const group = t.naming.group("storage");
    const klass = (name: string, annotation: string | undefined) =>
      t.create(
        "storageclasses",
        undefined,
        {
          apiVersion: `${group}/v1`,
          kind: "StorageClass",
          metadata: { name, ...(annotation ? { annotations: { [annotation]: "true" } } : {}) },
          provisioner: "example.com/p",
        },
        group,
      );
    const plugin = await registration.factory(t.env());
    const run = async (object: Record<string, unknown>) => {
      const a = t.attributes({ operation: "CREATE", resource: "persistentvolumeclaims", object });
      await plugin.admit?.(a);
      return (a.object?.spec as { storageClassName?: string } | undefined)?.storageClassName;
    };
    assert.equal(await run(claim({})), undefined, "no default class: nothing");
    await klass("plain", undefined);
    const beta = await klass("beta", t.naming.label("is-default-class", "storageclass.beta"));
    assert.equal(await run(claim({})), "beta", "beta annotation counts");
    // Stored objects get the server's creation time in seconds: wait for the clock to leave beta's
    // second, so the next one is newer.
    const betaCreated = Date.parse(
      String((beta.metadata as { creationTimestamp: string }).creationTimestamp),
    );
    await eventually(() => Date.now() >= betaCreated + 1000, 5_000, "the next second");
    await klass("fast", t.naming.label("is-default-class", "storageclass"));
    const cases: { name: string; object: Record<string, unknown>; want: string | undefined }[] = [
      { name: "unset, two defaults: newest", object: claim({}), want: "fast" },
      { name: "explicit", object: claim({ storageClassName: "plain" }), want: "plain" },
      { name: "explicit empty", object: claim({ storageClassName: "" }), want: "" },
      {
        name: "legacy annotation",
        object: claim({}, { [t.naming.label("storage-class", "volume.beta")]: "plain" }),
        want: undefined,
      },
    ];
    for (const c of cases) assert.equal(await run(c.object), c.want, c.name);
  } finally {
    await t.stop();
  }
});
