import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError } from "../index.ts";
import { registration } from "./index.ts";

const claim = (size: unknown, className: string | undefined, phase: string) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name: "c", namespace: "default" },
  spec: {
    accessModes: ["ReadWriteOnce"],
    resources: { requests: { storage: size } },
    volumeName: "v",
    ...(className === undefined ? {} : { storageClassName: className }),
  },
  status: { phase },
});

test("PersistentVolumeClaimResize: growth needs a bound claim and an expandable class", async () => {
  const t = await startAdmissionTest();
  try {
    const group = t.naming.group("storage");
    for (const [name, allow] of [
      ["grow", true],
      ["fixed", false],
    ] as const) {
      await t.create(
        "storageclasses",
        undefined,
        {
          apiVersion: `${group}/v1`,
          kind: "StorageClass",
          metadata: { name },
          provisioner: "p",
          allowVolumeExpansion: allow,
        },
        group,
      );
    }
    const plugin = await registration.factory(t.env());
    const notBound =
      'persistentvolumeclaims "c" is forbidden: Only bound persistent volume claims can be expanded';
    const noResize =
      'persistentvolumeclaims "c" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';
    const cases: {
      name: string;
      old: unknown;
      now: unknown;
      cls?: string;
      phase?: string;
      error?: string | number;
    }[] = [
      { name: "grow allowed", old: "1Gi", now: "2Gi", cls: "grow" },
      { name: "numeric compare: 1024Mi is 1Gi", old: "1Gi", now: "1024Mi", cls: "fixed" },
      { name: "numeric compare: 2000M < 2Gi", old: "2Gi", now: "2000M", cls: "fixed" },
      { name: "shrink passes here", old: "2Gi", now: "1Gi", cls: "fixed" },
      { name: "class forbids", old: "1Gi", now: "1500Mi", cls: "fixed", error: noResize },
      { name: "no class", old: "1Gi", now: "2Gi", error: noResize },
      { name: "missing class", old: "1Gi", now: "2Gi", cls: "gone", error: noResize },
      { name: "not bound", old: "1Gi", now: "2Gi", cls: "grow", phase: "Pending", error: notBound },
      { name: "garbage size", old: "1Gi", now: "lots", cls: "grow", error: 400 },
    ];
    for (const c of cases) {
      const a = t.attributes({
        operation: "UPDATE",
        resource: "persistentvolumeclaims",
        object: claim(c.now, c.cls, c.phase ?? "Bound"),
        oldObject: claim(c.old, c.cls, c.phase ?? "Bound"),
      });
      if (c.error === undefined) {
        await plugin.validate?.(a);
        continue;
      }
      await assert.rejects(
        async () => plugin.validate?.(a),
        (err: unknown) => {
          assert.ok(err instanceof AdmissionError, c.name);
          if (typeof c.error === "number") assert.equal(err.code, c.error, c.name);
          else assert.equal(err.message, c.error, c.name);
          return true;
        },
        c.name,
      );
    }
  } finally {
    await t.stop();
  }
});
