import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type JsonObject } from "../index.ts";
import { registration } from "./index.ts";

const pod = (securityContext?: JsonObject, container?: JsonObject, init?: JsonObject): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default" },
  spec: {
    ...(securityContext ? { securityContext } : {}),
    containers: [{ name: "c", image: "i", ...(container ? { securityContext: container } : {}) }],
    ...(init ? { initContainers: [{ name: "i", image: "i", securityContext: init }] } : {}),
    ephemeralContainers: [{ name: "e", image: "i", securityContext: { runAsUser: 0 } }],
  },
});

test("SecurityContextDeny: needs its feature gate", async () => {
  const t = await startAdmissionTest();
  try {
    await assert.rejects(
      async () => registration.factory(t.env()),
      /^Error: SecurityContextDeny admission controller is an alpha feature, planned to be removed, and requires the SecurityContextDeny feature gate to be enabled/,
    );
  } finally {
    await t.stop();
  }
});

test("SecurityContextDeny: refuses identity and SELinux settings", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await registration.factory(
      t.env({ options: { featureGates: { SecurityContextDeny: true } } }),
    );
    const cases: { name: string; object: JsonObject; error?: string }[] = [
      { name: "plain", object: pod({ runAsNonRoot: true }, { privileged: false }) },
      {
        name: "supplementalGroups",
        object: pod({ supplementalGroups: [] }),
        error: "pod.Spec.SecurityContext.SupplementalGroups is forbidden",
      },
      {
        name: "pod seLinux",
        object: pod({ seLinuxOptions: {} }),
        error: "pod.Spec.SecurityContext.SELinuxOptions is forbidden",
      },
      {
        name: "pod runAsUser",
        object: pod({ runAsUser: 0, fsGroup: 1 }),
        error: "pod.Spec.SecurityContext.RunAsUser is forbidden",
      },
      {
        name: "pod fsGroup",
        object: pod({ fsGroup: 1 }),
        error: "pod.Spec.SecurityContext.FSGroup is forbidden",
      },
      {
        name: "container seLinux",
        object: pod(undefined, { seLinuxOptions: { level: "s0" } }),
        error: "SecurityContext.SELinuxOptions is forbidden",
      },
      {
        name: "container runAsUser",
        object: pod(undefined, { runAsUser: 1 }),
        error: "SecurityContext.RunAsUser is forbidden",
      },
      {
        name: "init container runAsUser",
        object: pod(undefined, undefined, { runAsUser: 1 }),
        error: "SecurityContext.RunAsUser is forbidden",
      },
      { name: "null is unset", object: pod({ runAsUser: null }, { runAsUser: null }) },
    ];
    for (const c of cases) {
      for (const op of ["CREATE", "UPDATE"] as const) {
        const a = t.attributes({
          operation: op,
          resource: "pods",
          object: c.object,
          ...(op === "UPDATE" ? { oldObject: c.object } : {}),
        });
        if (!c.error) {
          await plugin.validate?.(a);
          continue;
        }
        await assert.rejects(
          async () => plugin.validate?.(a),
          (err: unknown) =>
            err instanceof AdmissionError &&
            err.code === 403 &&
            err.message === `pods "p" is forbidden: ${c.error}`,
          c.name,
        );
      }
    }
    const bad = pod({ runAsUser: 0 });
    await plugin.validate?.(
      t.attributes({
        operation: "UPDATE",
        resource: "pods",
        subresource: "status",
        object: bad,
        oldObject: bad,
      }),
    );
  } finally {
    await t.stop();
  }
});
