import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type JsonObject } from "../index.ts";
import { registration } from "./index.ts";

const GROUP = "node.cluster.io";

const pod = (spec: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default" },
  spec: { containers: [{ name: "c", image: "i" }], ...spec },
});
const rc = (name: string, extra: JsonObject = {}): JsonObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: "RuntimeClass",
  metadata: { name },
  handler: "runc",
  ...extra,
});

test("RuntimeClass: overhead and scheduling from the class", async () => {
  const t = await startAdmissionTest();
  try {
    await t.create("runtimeclasses", undefined, rc("plain"), GROUP);
    await t.create(
      "runtimeclasses",
      undefined,
      rc("heavy", { overhead: { podFixed: { cpu: "250m", memory: "64Mi" } } }),
      GROUP,
    );
    await t.create(
      "runtimeclasses",
      undefined,
      rc("placed", {
        scheduling: {
          nodeSelector: { sandbox: "gvisor", arch: "amd64" },
          tolerations: [{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }],
        },
      }),
      GROUP,
    );
    const plugin = await registration.factory(t.env());
    const sandboxTol = { key: "sandbox", operator: "Exists", effect: "NoSchedule" };
    const cases: { name: string; spec: JsonObject; want?: JsonObject; error?: [number, string] }[] = [
      { name: "no class", spec: {}, want: {} },
      { name: "class without extras", spec: { runtimeClassName: "plain" }, want: {} },
      {
        name: "overhead set",
        spec: { runtimeClassName: "heavy" },
        want: { overhead: { cpu: "250m", memory: "64Mi" } },
      },
      {
        name: "same overhead in other units",
        spec: { runtimeClassName: "heavy", overhead: { cpu: "0.25", memory: "65536Ki" } },
        want: { overhead: { cpu: "250m", memory: "64Mi" } },
      },
      {
        name: "different overhead",
        spec: { runtimeClassName: "heavy", overhead: { cpu: "1" } },
        error: [
          403,
          `pods "p" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
        ],
      },
      {
        name: "scheduling merged",
        spec: {
          runtimeClassName: "placed",
          nodeSelector: { disk: "ssd", arch: "amd64" },
          tolerations: [{ key: "x", operator: "Exists" }],
        },
        want: {
          nodeSelector: { disk: "ssd", arch: "amd64", sandbox: "gvisor" },
          tolerations: [{ key: "x", operator: "Exists" }, sandboxTol],
        },
      },
      {
        name: "scheduling into an empty pod",
        spec: { runtimeClassName: "placed" },
        want: { nodeSelector: { sandbox: "gvisor", arch: "amd64" }, tolerations: [sandboxTol] },
      },
      {
        name: "wildcard toleration covers the class's",
        spec: { runtimeClassName: "placed", tolerations: [{ operator: "Exists" }] },
        want: { nodeSelector: { sandbox: "gvisor", arch: "amd64" }, tolerations: [{ operator: "Exists" }] },
      },
      {
        name: "selector conflict",
        spec: { runtimeClassName: "placed", nodeSelector: { arch: "arm64" } },
        error: [
          403,
          'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[arch] = amd64; pod.spec.nodeSelector[arch] = arm64',
        ],
      },
      {
        name: "missing class",
        spec: { runtimeClassName: "gone" },
        error: [403, 'pods "p" is forbidden: pod rejected: RuntimeClass "gone" not found'],
      },
      {
        name: "garbage class name",
        spec: { runtimeClassName: 1 },
        error: [400, "spec.runtimeClassName must be a string"],
      },
      {
        name: "garbage overhead",
        spec: { runtimeClassName: "heavy", overhead: { cpu: "lots", memory: "64Mi" } },
        error: [
          400,
          "spec.overhead.cpu: quantities must match '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ],
      },
    ];
    for (const c of cases) {
      const object = pod(c.spec);
      const a = t.attributes({ operation: "CREATE", resource: "pods", object });
      if (c.error) {
        const [code, message] = c.error;
        await assert.rejects(
          async () => plugin.admit?.(a),
          (err: unknown) => err instanceof AdmissionError && err.code === code && err.message === message,
          c.name,
        );
        continue;
      }
      await plugin.admit?.(a);
      await plugin.validate?.(a);
      const spec = object.spec as JsonObject;
      const got: JsonObject = {};
      for (const k of ["overhead", "nodeSelector", "tolerations"])
        if (spec[k] !== undefined) got[k] = spec[k];
      assert.deepEqual(got, c.want, c.name);
    }
  } finally {
    await t.stop();
  }
});

test("RuntimeClass: the validating phase checks the overhead", async () => {
  const t = await startAdmissionTest();
  try {
    await t.create("runtimeclasses", undefined, rc("plain"), GROUP);
    await t.create(
      "runtimeclasses",
      undefined,
      rc("heavy", { overhead: { podFixed: { cpu: "250m" } } }),
      GROUP,
    );
    const plugin = await registration.factory(t.env());
    const cases: { name: string; spec: JsonObject; error?: string }[] = [
      { name: "no class, no overhead", spec: {} },
      {
        name: "no class, overhead",
        spec: { overhead: { cpu: "1" } },
        error: "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
      },
      {
        name: "class without overhead, overhead",
        spec: { runtimeClassName: "plain", overhead: {} },
        error: "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
      },
      {
        name: "overhead removed after admit",
        spec: { runtimeClassName: "heavy" },
        error: "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
      },
      {
        name: "overhead changed after admit",
        spec: { runtimeClassName: "heavy", overhead: { cpu: "251m" } },
        error: "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
      },
      { name: "matching", spec: { runtimeClassName: "heavy", overhead: { cpu: "250m" } } },
      {
        name: "missing class",
        spec: { runtimeClassName: "gone" },
        error: 'pod rejected: RuntimeClass "gone" not found',
      },
    ];
    for (const c of cases) {
      const object = pod(c.spec);
      const before = structuredClone(object);
      const a = t.attributes({ operation: "CREATE", resource: "pods", object });
      if (!c.error) await plugin.validate?.(a);
      else {
        await assert.rejects(
          async () => plugin.validate?.(a),
          (err: unknown) =>
            err instanceof AdmissionError &&
            err.code === 403 &&
            err.message === `pods "p" is forbidden: ${c.error}`,
          c.name,
        );
      }
      assert.deepEqual(object, before, `${c.name}: validate changed the pod`);
    }
    // Updates are not this plugin's business.
    const upd = pod({ overhead: { cpu: "1" } });
    await plugin.validate?.(
      t.attributes({ operation: "UPDATE", resource: "pods", object: upd, oldObject: upd }),
    );
  } finally {
    await t.stop();
  }
});
