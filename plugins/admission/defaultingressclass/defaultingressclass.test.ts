import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError } from "../index.ts";
import { registration } from "./index.ts";

const ingress = (spec: Record<string, unknown>, annotations?: Record<string, string>) => ({
  apiVersion: "networking.cluster.io/v1",
  kind: "Ingress",
  metadata: { name: "i", namespace: "default", ...(annotations ? { annotations } : {}) },
  spec: { defaultBackend: { service: { name: "s", port: { number: 80 } } }, ...spec },
});

test("DefaultIngressClass: defaults the one default class, keeps explicit ones, refuses several", async () => {
  const t = await startAdmissionTest();
  try {
    const group = t.naming.group("networking");
    const isDefault = t.naming.label("is-default-class", "ingressclass");
    const klass = (name: string, def: boolean) =>
      t.create(
        "ingressclasses",
        undefined,
        {
          apiVersion: `${group}/v1`,
          kind: "IngressClass",
          metadata: { name, ...(def ? { annotations: { [isDefault]: "true" } } : {}) },
          spec: { controller: "example.com/c" },
        },
        group,
      );
    const plugin = await registration.factory(t.env());
    const run = async (object: Record<string, unknown>) => {
      const a = t.attributes({ operation: "CREATE", resource: "ingresses", group, object });
      await plugin.admit?.(a);
      return (a.object?.spec as { ingressClassName?: string } | undefined)?.ingressClassName;
    };
    assert.equal(await run(ingress({})), undefined, "no default class: nothing");
    await klass("plain", false);
    await klass("main", true);
    const cases: { name: string; object: Record<string, unknown>; want: string | undefined }[] = [
      { name: "unset", object: ingress({}), want: "main" },
      { name: "explicit", object: ingress({ ingressClassName: "plain" }), want: "plain" },
      {
        name: "legacy annotation",
        object: ingress({}, { [t.naming.label("ingress.class")]: "x" }),
        want: undefined,
      },
    ];
    for (const c of cases) assert.equal(await run(c.object), c.want, c.name);

    await klass("second", true);
    await assert.rejects(run(ingress({})), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 403);
      assert.equal(
        err.message,
        `ingresses.${group} "i" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed`,
      );
      return true;
    });
  } finally {
    await t.stop();
  }
});
