import assert from "node:assert/strict";
import { test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import type { JsonObject } from "../contract.ts";
import { AdmissionError } from "../errors.ts";
import { createPodSecurity, registration } from "./index.ts";

const L = (name: string) => `pod-security.cluster.io/${name}`;

/** Passes restricted. */
function goodPod(name = "p", ns = "ns"): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns },
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          name: "c",
          image: "img:1",
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
        },
      ],
    },
  };
}

/** Passes baseline, fails restricted. */
function baselinePod(name = "p", ns = "ns"): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns },
    spec: { containers: [{ name: "c", image: "img:1" }] },
  };
}

/** Fails baseline. */
function privilegedPod(name = "p", ns = "ns"): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns },
    spec: {
      hostNetwork: true,
      containers: [{ name: "c", image: "img:1", securityContext: { privileged: true } }],
    },
  };
}

const RESTRICTED_DETAIL =
  'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';
const BASELINE_DETAIL =
  'host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true)';

async function refusal(run: () => unknown): Promise<AdmissionError> {
  try {
    await run();
  } catch (err) {
    assert.ok(err instanceof AdmissionError, String(err));
    return err;
  }
  assert.fail("expected a refusal");
}

async function withTest(body: (t: AdmissionTest) => Promise<void>): Promise<void> {
  const t = await startAdmissionTest();
  try {
    await body(t);
  } finally {
    await t.stop();
  }
}

const namespace = (t: AdmissionTest, name: string, labels: Record<string, string> = {}) =>
  t.create("namespaces", undefined, { metadata: { name, labels } });

test("enforce: 403 with upstream's message; audit and warn at their own levels", async () => {
  await withTest(async (t) => {
    await namespace(t, "ns", {
      [L("enforce")]: "baseline",
      [L("audit")]: "restricted",
      [L("warn")]: "restricted",
    });
    const plugin = await registration.factory(t.env());
    assert.equal(plugin.name, "PodSecurity");

    const denied = t.attributes({ operation: "CREATE", resource: "pods", object: privilegedPod() });
    const err = await refusal(() => plugin.validate?.(denied));
    assert.equal(err.code, 403);
    assert.equal(err.reason, "Forbidden");
    assert.equal(
      err.message,
      `pods "p" is forbidden: violates PodSecurity "baseline:latest": ${BASELINE_DETAIL}`,
    );
    assert.equal(denied.annotations[L("enforce-policy")], "baseline:latest");
    assert.match(
      denied.annotations[L("audit-violations")] ?? "",
      /^would violate PodSecurity "restricted:latest": host namespaces/,
    );
    assert.deepEqual(denied.warnings, [], "no warning on a denied request");

    const warned = t.attributes({ operation: "CREATE", resource: "pods", object: baselinePod() });
    await plugin.validate?.(warned);
    assert.deepEqual(warned.warnings, [
      `would violate PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`,
    ]);
    assert.equal(
      warned.annotations[L("audit-violations")],
      `would violate PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`,
    );
    assert.equal(warned.annotations[L("enforce-policy")], "baseline:latest");

    const clean = t.attributes({ operation: "CREATE", resource: "pods", object: goodPod() });
    await plugin.validate?.(clean);
    assert.deepEqual(clean.warnings, []);
    assert.deepEqual(clean.annotations, { [L("enforce-policy")]: "baseline:latest" });

    // dry runs are judged the same way
    const dry = t.attributes({
      operation: "CREATE",
      resource: "pods",
      object: privilegedPod(),
      dryRun: true,
    });
    assert.equal((await refusal(() => plugin.validate?.(dry))).code, 403);
  });
});

test("versions from labels, warn following a stricter enforce, and unlabeled namespaces", async () => {
  await withTest(async (t) => {
    await namespace(t, "v", { [L("enforce")]: "restricted", [L("enforce-version")]: "v1.22" });
    await namespace(t, "plain");
    const plugin = await registration.factory(t.env());
    const pod = baselinePod("p", "v");
    (pod.spec as { containers: JsonObject[] }).containers[0] = {
      name: "c",
      image: "i",
      securityContext: {
        runAsUser: 0,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
        runAsNonRoot: true,
      },
    };
    (pod.spec as JsonObject).securityContext = { seccompProfile: { type: "RuntimeDefault" } };
    // runAsUser=0 is only checked from v1.23
    const a = t.attributes({ operation: "CREATE", resource: "pods", object: pod });
    await plugin.validate?.(a);
    assert.equal(a.annotations[L("enforce-policy")], "restricted:v1.22");

    // A deployment in the same namespace warns at the enforce level and version.
    const deploy = t.attributes({
      operation: "CREATE",
      resource: "deployments",
      group: "apps",
      object: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "d", namespace: "v" },
        spec: { template: { metadata: {}, spec: privilegedPod().spec as JsonObject } },
      },
    });
    await plugin.validate?.(deploy);
    assert.equal(deploy.warnings.length, 1);
    assert.match(
      deploy.warnings[0] ?? "",
      /^would violate PodSecurity "restricted:v1.22": host namespaces \(hostNetwork=true\), privileged/,
    );
    assert.equal(deploy.annotations[L("enforce-policy")], undefined);

    const plain = t.attributes({
      operation: "CREATE",
      resource: "pods",
      object: privilegedPod("p", "plain"),
    });
    await plugin.validate?.(plain);
    assert.deepEqual(plain.annotations, { [L("enforce-policy")]: "privileged:latest" });
  });
});

test("invalid label values: enforce fails closed to restricted, audit and warn fail open", async () => {
  await withTest(async (t) => {
    await namespace(t, "bad", { [L("enforce")]: "strict", [L("warn")]: "loud", [L("audit-version")]: "1.2" });
    const plugin = await registration.factory(t.env());
    const a = t.attributes({ operation: "CREATE", resource: "pods", object: baselinePod("p", "bad") });
    const err = await refusal(() => plugin.validate?.(a));
    assert.equal(
      err.message,
      `pods "p" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`,
    );
    assert.equal(
      a.annotations[L("error")],
      `Failed to parse policy: [metadata.labels[${L("enforce")}]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[${L("audit-version")}]: Invalid value: "1.2": must be "latest" or "v1.x", metadata.labels[${L("warn")}]: Invalid value: "loud": must be one of privileged, baseline, restricted]`,
    );
    assert.equal(a.annotations[L("audit-violations")], undefined);
    assert.deepEqual(a.warnings, []);
  });
});

test("namespace writes: invalid labels are refused (422) unless they were already there", async () => {
  await withTest(async (t) => {
    const plugin = await registration.factory(t.env());
    const ns = (labels: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "n", labels },
    });
    const err = await refusal(() =>
      plugin.validate?.(
        t.attributes({ operation: "CREATE", resource: "namespaces", object: ns({ [L("enforce")]: "nope" }) }),
      ),
    );
    assert.equal(err.code, 422);
    assert.deepEqual(err.fieldErrors, [
      {
        field: `metadata.labels[${L("enforce")}]`,
        type: "FieldValueInvalid",
        value: "nope",
        detail: "must be one of privileged, baseline, restricted",
      },
    ]);
    await plugin.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "namespaces",
        object: ns({ [L("enforce")]: "baseline" }),
      }),
    );
    // unchanged invalid labels do not block other updates; new ones do
    const old = ns({ [L("warn-version")]: "x" });
    await plugin.validate?.(
      t.attributes({
        operation: "UPDATE",
        resource: "namespaces",
        object: ns({ [L("warn-version")]: "x", a: "b" }),
        oldObject: old,
      }),
    );
    const changed = await refusal(() =>
      plugin.validate?.(
        t.attributes({
          operation: "UPDATE",
          resource: "namespaces",
          object: ns({ [L("warn-version")]: "y" }),
          oldObject: old,
        }),
      ),
    );
    assert.equal(changed.code, 422);
    // status and finalize subresources are not checked
    await plugin.validate?.(
      t.attributes({
        operation: "UPDATE",
        resource: "namespaces",
        subresource: "status",
        object: ns({ [L("enforce")]: "x" }),
        oldObject: old,
      }),
    );
  });
});

test("tightening a namespace's enforce level warns about existing pods, bounded", async () => {
  await withTest(async (t) => {
    await namespace(t, "ns");
    const owner = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u1", controller: true };
    await t.create("pods", "ns", privilegedPod("priv-b"));
    await t.create("pods", "ns", privilegedPod("priv-a"));
    await t.create("pods", "ns", baselinePod("base-1"));
    const replica = (name: string) => ({
      ...baselinePod(name),
      metadata: { name, namespace: "ns", ownerReferences: [owner] },
    });
    await t.create("pods", "ns", replica("rep-1"));
    await t.create("pods", "ns", replica("rep-2"));
    await t.create("pods", "ns", goodPod("good"));
    const informer = t.objects.informer({ group: "", resource: "pods" });
    assert.ok(informer);
    await informer.synced;
    for (let i = 0; i < 200 && informer.list("ns").length < 6; i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(informer.list("ns").length, 6);

    const ns = (labels: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ns", labels },
    });
    const update = (from: Record<string, string>, to: Record<string, string>) =>
      t.attributes({
        operation: "UPDATE",
        resource: "namespaces",
        name: "ns",
        object: ns(to),
        oldObject: ns(from),
      });

    const plugin = await registration.factory(t.env());
    const restricted = update({}, { [L("enforce")]: "restricted" });
    await plugin.validate?.(restricted);
    assert.deepEqual(restricted.warnings, [
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"',
      "base-1 (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile",
      "priv-a (and 1 other pod): host namespaces, privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile",
    ]);

    // loosening, or keeping the same level and version, checks nothing
    for (const [from, to] of [
      [{ [L("enforce")]: "restricted" }, { [L("enforce")]: "baseline" }],
      [{ [L("enforce")]: "restricted" }, { [L("enforce")]: "restricted", other: "x" }],
      [{}, { [L("enforce")]: "privileged" }],
    ] as const) {
      const a = update(from, to);
      await plugin.validate?.(a);
      assert.deepEqual(a.warnings, [], JSON.stringify(to));
    }

    const bounded = await createPodSecurity(t.env(), { namespaceMaxPodsToCheck: 2 });
    const b = update({}, { [L("enforce")]: "baseline", [L("enforce-version")]: "v1.5" });
    await bounded.validate?.(b);
    assert.equal(
      b.warnings[0],
      "new PodSecurity enforce level only checked against the first 2 of 6 existing pods",
    );
  });
});

test("exemptions by namespace, user and runtime class; exempt namespace label warnings", async () => {
  await withTest(async (t) => {
    await namespace(t, "ns", { [L("enforce")]: "restricted" });
    await namespace(t, "free", { [L("enforce")]: "restricted" });
    const configuration = {
      apiVersion: "pod-security.admission.config.cluster.io/v1",
      kind: "PodSecurityConfiguration",
      exemptions: { usernames: ["robot"], namespaces: ["free"], runtimeClasses: ["sandboxed"] },
    };
    const plugin = await registration.factory(t.env({ configuration }));

    const byNs = t.attributes({ operation: "CREATE", resource: "pods", object: privilegedPod("p", "free") });
    await plugin.validate?.(byNs);
    assert.deepEqual(byNs.annotations, { [L("exempt")]: "namespace" });

    const robot = { username: "robot", uid: "", groups: [], extra: {} };
    const byUser = t.attributes({
      operation: "CREATE",
      resource: "pods",
      object: privilegedPod(),
      user: robot,
    });
    await plugin.validate?.(byUser);
    assert.deepEqual(byUser.annotations, { [L("exempt")]: "user" });

    const sandboxed = privilegedPod();
    (sandboxed.spec as JsonObject).runtimeClassName = "sandboxed";
    const byRc = t.attributes({ operation: "CREATE", resource: "pods", object: sandboxed });
    await plugin.validate?.(byRc);
    assert.deepEqual(byRc.annotations, { [L("exempt")]: "runtimeClass" });

    const other = t.attributes({ operation: "CREATE", resource: "pods", object: privilegedPod() });
    assert.equal((await refusal(() => plugin.validate?.(other))).code, 403);

    const ns = (labels: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "free", labels },
    });
    const a = t.attributes({
      operation: "UPDATE",
      resource: "namespaces",
      name: "free",
      object: ns({ [L("enforce")]: "restricted", [L("warn-version")]: "v1.20" }),
      oldObject: ns({}),
    });
    await plugin.validate?.(a);
    assert.deepEqual(a.warnings, [
      'namespace "free" is exempt from Pod Security, and the policy (enforce=restricted:latest, warn=restricted:v1.20) will be ignored',
    ]);
  });
});

test("configured defaults apply to unlabeled namespaces", async () => {
  await withTest(async (t) => {
    await namespace(t, "ns");
    const configuration = {
      apiVersion: "pod-security.admission.config.cluster.io/v1beta1",
      kind: "PodSecurityConfiguration",
      defaults: {
        enforce: "baseline",
        "enforce-version": "v1.27",
        warn: "restricted",
        "warn-version": "v1.10",
      },
    };
    const plugin = await registration.factory(t.env({ configuration }));
    await refusal(() =>
      plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: privilegedPod() })),
    );
    const a = t.attributes({ operation: "CREATE", resource: "pods", object: baselinePod() });
    await plugin.validate?.(a);
    assert.equal(a.warnings.length, 1);
    assert.match(
      a.warnings[0] ?? "",
      /^would violate PodSecurity "restricted:v1.10": allowPrivilegeEscalation != false \(container "c" must set securityContext.allowPrivilegeEscalation=false\), runAsNonRoot != true \(pod or container "c" must set securityContext.runAsNonRoot=true\)$/,
    );
    await assert.rejects(
      async () =>
        registration.factory(t.env({ configuration: { ...configuration, defaults: { warn: "x" } } })),
      /PodSecurity invalid/,
    );
  });
});

test("pod templates only warn and audit; subresources and other kinds are ignored", async () => {
  await withTest(async (t) => {
    await namespace(t, "ns", { [L("enforce")]: "restricted", [L("audit")]: "baseline" });
    const plugin = await registration.factory(t.env());
    const template = { metadata: { labels: { a: "b" } }, spec: privilegedPod().spec };
    const objects: [string, string, JsonObject][] = [
      ["deployments", "apps", { apiVersion: "apps/v1", kind: "Deployment", spec: { template } }],
      ["replicasets", "apps", { apiVersion: "apps/v1", kind: "ReplicaSet", spec: { template } }],
      ["statefulsets", "apps", { apiVersion: "apps/v1", kind: "StatefulSet", spec: { template } }],
      ["daemonsets", "apps", { apiVersion: "apps/v1", kind: "DaemonSet", spec: { template } }],
      ["jobs", "batch", { apiVersion: "batch/v1", kind: "Job", spec: { template } }],
      [
        "cronjobs",
        "batch",
        { apiVersion: "batch/v1", kind: "CronJob", spec: { jobTemplate: { spec: { template } } } },
      ],
      ["replicationcontrollers", "", { apiVersion: "v1", kind: "ReplicationController", spec: { template } }],
      ["podtemplates", "", { apiVersion: "v1", kind: "PodTemplate", template }],
    ];
    for (const [resource, group, object] of objects) {
      const a = t.attributes({
        operation: "CREATE",
        resource,
        group,
        object: { ...object, metadata: { name: "x", namespace: "ns" } },
      });
      await plugin.validate?.(a);
      assert.equal(a.warnings.length, 1, resource);
      assert.match(
        a.warnings[0] ?? "",
        /^would violate PodSecurity "restricted:latest": host namespaces/,
        resource,
      );
      assert.equal(
        a.annotations[L("audit-violations")],
        `would violate PodSecurity "baseline:latest": ${BASELINE_DETAIL}`,
      );
    }
    const scale = t.attributes({
      operation: "UPDATE",
      resource: "deployments",
      group: "apps",
      subresource: "scale",
      object: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "x", namespace: "ns" },
        spec: { template },
      },
      oldObject: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "x", namespace: "ns" },
        spec: { template },
      },
    });
    await plugin.validate?.(scale);
    assert.deepEqual(scale.warnings, []);
    // A controller in a namespace that cannot be found is let through with an error annotation.
    const lost = t.attributes({
      operation: "CREATE",
      resource: "deployments",
      group: "apps",
      object: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "x", namespace: "gone" },
        spec: { template },
      },
    });
    await plugin.validate?.(lost);
    assert.match(lost.annotations[L("error")] ?? "", /^failed to lookup namespace "gone"/);
  });
});

test("pod updates: only image changes and new ephemeral containers are judged", async () => {
  await withTest(async (t) => {
    await namespace(t, "ns", { [L("enforce")]: "baseline" });
    const plugin = await registration.factory(t.env());
    const old = privilegedPod();
    const relabeled = { ...privilegedPod(), metadata: { name: "p", namespace: "ns", labels: { x: "y" } } };
    const update = (object: JsonObject, subresource?: string) =>
      t.attributes({ operation: "UPDATE", resource: "pods", object, oldObject: old, subresource });
    await plugin.validate?.(update(relabeled));
    const reimaged = privilegedPod();
    (reimaged.spec as { containers: JsonObject[] }).containers[0] = {
      name: "c",
      image: "img:2",
      securityContext: { privileged: true },
    };
    assert.equal((await refusal(() => plugin.validate?.(update(reimaged)))).code, 403);
    assert.equal((await refusal(() => plugin.validate?.(update(reimaged, "resize")))).code, 403);
    for (const sub of ["status", "binding", "eviction", "exec", "attach", "log", "portforward", "proxy"]) {
      await plugin.validate?.(update(reimaged, sub));
    }
    const debugged = {
      ...privilegedPod(),
      spec: { ...(old.spec as JsonObject), ephemeralContainers: [{ name: "dbg", image: "busybox" }] },
    };
    const err = await refusal(() => plugin.validate?.(update(debugged, "ephemeralcontainers")));
    assert.match(err.message, /^pods "p" is forbidden: violates PodSecurity "baseline:latest"/);
    // deletes are never checked
    await plugin.validate?.(t.attributes({ operation: "DELETE", resource: "pods", oldObject: old }));
  });
});

test("bad input: a missing namespace is a 500, a missing object a 400", async () => {
  await withTest(async (t) => {
    await namespace(t, "ns", { [L("enforce")]: "baseline" });
    const plugin = await registration.factory(t.env());
    const lost = t.attributes({ operation: "CREATE", resource: "pods", object: privilegedPod("p", "gone") });
    const err = await refusal(() => plugin.validate?.(lost));
    assert.equal(err.code, 500);
    assert.equal(err.message, 'Internal error occurred: failed to lookup namespace "gone"');
    const empty = t.attributes({ operation: "CREATE", resource: "pods", namespace: "ns", name: "p" });
    assert.equal((await refusal(() => plugin.validate?.(empty))).code, 400);
    const nsMissing = t.attributes({ operation: "CREATE", resource: "namespaces", name: "n" });
    assert.equal((await refusal(() => plugin.validate?.(nsMissing))).code, 400);
    const garbage = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "ns" },
      spec: { containers: "x", hostPID: "yes" },
    };
    await plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: garbage }));
  });
});

test("the kubernetes naming preset reads upstream's labels and annotation keys", async () => {
  const t = await startAdmissionTest({ preset: "kubernetes" });
  try {
    await t.create("namespaces", undefined, {
      metadata: { name: "ns", labels: { "pod-security.kubernetes.io/enforce": "baseline" } },
    });
    const plugin = await registration.factory(t.env());
    const pod = goodPod();
    pod.metadata = {
      name: "p",
      namespace: "ns",
      annotations: { "container.apparmor.security.beta.kubernetes.io/c": "unconfined" },
    };
    const a = t.attributes({ operation: "CREATE", resource: "pods", object: pod });
    const err = await refusal(() => plugin.validate?.(a));
    assert.equal(
      err.message,
      'pods "p" is forbidden: violates PodSecurity "baseline:latest": forbidden AppArmor profile (container.apparmor.security.beta.kubernetes.io/c="unconfined")',
    );
    assert.equal(a.annotations["pod-security.kubernetes.io/enforce-policy"], "baseline:latest");
    // the cluster domain's keys mean nothing under this preset
    const other = goodPod();
    other.metadata = {
      name: "p",
      namespace: "ns",
      annotations: { "container.apparmor.security.beta.cluster.io/c": "unconfined" },
    };
    await plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: other }));
  } finally {
    await t.stop();
  }
});

test("metrics count evaluations, exemptions and errors as upstream labels them", async () => {
  await withTest(async (t) => {
    await namespace(t, "ns", {
      [L("enforce")]: "restricted",
      [L("enforce-version")]: "v1.30",
      [L("warn")]: "baseline",
    });
    await namespace(t, "bad", { [L("enforce")]: "x" });
    const env = t.env({
      configuration: {
        apiVersion: "pod-security.admission.config.cluster.io/v1",
        kind: "PodSecurityConfiguration",
        exemptions: { usernames: ["robot"] },
      },
    });
    const plugin = await registration.factory(env);
    await refusal(() =>
      plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: baselinePod() })),
    );
    await plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: goodPod() }));
    await plugin.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "pods",
        object: baselinePod(),
        user: { username: "robot", uid: "", groups: [], extra: {} },
      }),
    );
    await plugin.validate?.(
      t.attributes({ operation: "CREATE", resource: "pods", object: goodPod("p", "bad") }),
    );
    const text = await env.metrics.metrics();
    assert.match(
      text,
      /pod_security_evaluations_total\{decision="deny",policy_level="restricted",policy_version="future",mode="enforce",request_operation="create",resource="pod",subresource=""\} 1/,
    );
    assert.match(
      text,
      /pod_security_evaluations_total\{decision="allow",policy_level="restricted",policy_version="future",mode="enforce",request_operation="create",resource="pod",subresource=""\} 1/,
    );
    assert.match(
      text,
      /pod_security_exemptions_total\{request_operation="create",resource="pod",subresource=""\} 1/,
    );
    assert.match(
      text,
      /pod_security_errors_total\{fatal="false",request_operation="create",resource="pod",subresource=""\} 1/,
    );
    // a second instance over the same registry shares the counters
    await registration.factory(env);
  });
});

test("runAsUser=0 is enforced from restricted v1.23 on", async () => {
  await withTest(async (t) => {
    await namespace(t, "old", { [L("enforce")]: "restricted", [L("enforce-version")]: "v1.22" });
    await namespace(t, "new", { [L("enforce")]: "restricted", [L("enforce-version")]: "v1.23" });
    const plugin = await registration.factory(t.env());
    const root = (ns: string) => {
      const pod = goodPod("p", ns);
      (pod.spec as { securityContext: JsonObject }).securityContext.runAsUser = 0;
      return pod;
    };
    await plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: root("old") }));
    const err = await refusal(() =>
      plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: root("new") })),
    );
    assert.equal(
      err.message,
      'pods "p" is forbidden: violates PodSecurity "restricted:v1.23": runAsUser=0 (pod must not set runAsUser=0)',
    );
  });
});
