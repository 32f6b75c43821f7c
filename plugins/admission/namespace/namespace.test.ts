import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError } from "../errors.ts";
import { namespaceAutoProvision, namespaceExists, namespaceLifecycle } from "./index.ts";

const pod = (ns: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: ns } });

async function refusal(run: () => unknown): Promise<AdmissionError> {
  try {
    await run();
  } catch (err) {
    assert.ok(err instanceof AdmissionError, String(err));
    return err;
  }
  assert.fail("expected a refusal");
}

test("NamespaceLifecycle: missing and terminating namespaces, immortal ones, what always passes", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await namespaceLifecycle.factory(t.env());
    await t.create("namespaces", undefined, { metadata: { name: "live" } });
    await t.create("namespaces", undefined, {
      metadata: { name: "dying", finalizers: ["example.com/hold"] },
    });
    await t.resources.byResource("", "namespaces")?.registry.delete(undefined, "dying");

    await plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object: pod("live") }));

    const missing = await refusal(() =>
      plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object: pod("nope") })),
    );
    assert.equal(missing.code, 404);
    assert.equal(missing.message, 'namespaces "nope" not found');
    const update = await refusal(() =>
      plugin.admit?.(
        t.attributes({ operation: "UPDATE", resource: "pods", object: pod("nope"), oldObject: pod("nope") }),
      ),
    );
    assert.equal(update.code, 404);
    // Deletions pass even where the namespace is gone.
    await plugin.admit?.(t.attributes({ operation: "DELETE", resource: "pods", oldObject: pod("nope") }));

    const dying = await refusal(() =>
      plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object: pod("dying") })),
    );
    assert.equal(dying.code, 403);
    assert.equal(
      dying.message,
      'pods "p" is forbidden: unable to create new content in namespace dying because it is being terminated',
    );
    assert.deepEqual(dying.details?.causes, [
      {
        reason: "NamespaceTerminating",
        message: "namespace dying is being terminated",
        field: "metadata.namespace",
      },
    ]);
    // Updates in a terminating namespace go on (finalizers must be able to finish).
    await plugin.admit?.(
      t.attributes({ operation: "UPDATE", resource: "pods", object: pod("dying"), oldObject: pod("dying") }),
    );

    for (const name of ["default", "cluster-system", "cluster-public"]) {
      const immortal = await refusal(() =>
        plugin.admit?.(t.attributes({ operation: "DELETE", resource: "namespaces", name, namespace: name })),
      );
      assert.equal(immortal.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    }
    await plugin.admit?.(
      t.attributes({ operation: "DELETE", resource: "namespaces", name: "live", namespace: "live" }),
    );
    // Cluster-scoped objects and local access reviews are not the plugin's business.
    await plugin.admit?.(
      t.attributes({ operation: "CREATE", resource: "nodes", object: { metadata: { name: "n" } } }),
    );
    const review = t.attributes({ operation: "CREATE", resource: "pods", object: pod("nope") });
    await plugin.admit?.({
      ...review,
      resource: { group: "authorization.cluster.io", version: "v1", resource: "localsubjectaccessreviews" },
    });
  } finally {
    await t.stop();
  }
});

test("NamespaceExists refuses requests into missing namespaces", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await namespaceExists.factory(t.env());
    await plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: pod("default") }));
    const err = await refusal(() =>
      plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: pod("ghost") })),
    );
    assert.equal(err.code, 404);
    assert.equal(err.message, 'namespaces "ghost" not found');
  } finally {
    await t.stop();
  }
});

test("NamespaceAutoProvision creates the namespace of a create, except on a dry run", async () => {
  const t = await startAdmissionTest();
  try {
    const plugin = await namespaceAutoProvision.factory(t.env());
    await plugin.admit?.(
      t.attributes({ operation: "CREATE", resource: "pods", object: pod("fresh"), dryRun: true }),
    );
    assert.equal(await t.get("namespaces", undefined, "fresh"), undefined);
    await plugin.admit?.(
      t.attributes({ operation: "UPDATE", resource: "pods", object: pod("other"), oldObject: pod("other") }),
    );
    assert.equal(await t.get("namespaces", undefined, "other"), undefined);
    await plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object: pod("fresh") }));
    assert.ok(await t.get("namespaces", undefined, "fresh"));
    // Twice is fine: it exists now.
    await plugin.admit?.(t.attributes({ operation: "CREATE", resource: "pods", object: pod("fresh") }));
  } finally {
    await t.stop();
  }
});
