import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import type { AdmissionPlugin, JsonObject } from "../contract.ts";
import { AdmissionError } from "../errors.ts";
import { registration, TOKEN_EXPIRATION_SECONDS } from "./index.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read deep into plain JSON results
type Obj = Record<string, any>;

describe("ServiceAccount", () => {
  let t: AdmissionTest;
  let plugin: AdmissionPlugin;
  before(async () => {
    t = await startAdmissionTest();
    plugin = await registration.factory(t.env());
    await t.create("namespaces", undefined, { metadata: { name: "ns" } });
    await t.create("serviceaccounts", "ns", {
      metadata: { name: "default" },
      imagePullSecrets: [{ name: "pull" }],
    });
    await t.create("serviceaccounts", "ns", {
      metadata: { name: "quiet" },
      automountServiceAccountToken: false,
    });
    await t.create("serviceaccounts", "ns", {
      metadata: { name: "strict", annotations: { [t.naming.label("enforce-mountable-secrets")]: "true" } },
      secrets: [{ name: "ok" }],
    });
  });
  after(async () => t?.stop());

  async function run(pod: JsonObject): Promise<Obj> {
    const a = t.attributes({ operation: "CREATE", resource: "pods", namespace: "ns", object: pod });
    await plugin.admit?.(a);
    await plugin.validate?.(a);
    return a.object as Obj;
  }
  const pod = (spec: Obj = {}, meta: Obj = {}): JsonObject => ({
    metadata: { name: "p", namespace: "ns", ...meta },
    spec: { containers: [{ name: "c", image: "i" }], ...spec },
  });
  const mountPath = () => `/var/run/secrets/${t.naming.labelDomain}/serviceaccount`;

  it("defaults the account and projects the token volume exactly", async () => {
    const p = await run(pod({ initContainers: [{ name: "init", image: "i" }] }));
    assert.equal(p.spec.serviceAccountName, "default");
    assert.deepEqual(p.spec.imagePullSecrets, [{ name: "pull" }]);
    const [v] = p.spec.volumes;
    assert.match(v.name, /^kube-api-access-[a-z0-9]{5}$/);
    assert.deepEqual(v.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: "token" } },
        { configMap: { name: t.naming.rootCaConfigMap, items: [{ key: "ca.crt", path: "ca.crt" }] } },
        {
          downwardAPI: {
            items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
          },
        },
      ],
    });
    for (const c of [...p.spec.containers, ...p.spec.initContainers])
      assert.deepEqual(c.volumeMounts, [{ name: v.name, readOnly: true, mountPath: mountPath() }]);
  });

  it("refuses an account that does not exist", async () => {
    await assert.rejects(run(pod({ serviceAccountName: "ghost" })), (e: unknown) => {
      assert.ok(e instanceof AdmissionError);
      assert.equal(e.code, 403);
      assert.match(e.message, /error looking up service account ns\/ghost: serviceaccount "ghost" not found/);
      return true;
    });
  });

  it("skips containers already mounting the path and keeps the pod's pull secrets", async () => {
    const mounted = { name: "c", image: "i", volumeMounts: [{ name: "mine", mountPath: mountPath() }] };
    const p = await run(
      pod({
        containers: [mounted],
        imagePullSecrets: [{ name: "own" }],
        volumes: [{ name: "mine", emptyDir: {} }],
      }),
    );
    assert.deepEqual(p.spec.volumes, [{ name: "mine", emptyDir: {} }]);
    assert.deepEqual(p.spec.imagePullSecrets, [{ name: "own" }]);
  });

  for (const [label, spec] of [
    ["pod says false", { automountServiceAccountToken: false }],
    ["account says false", { serviceAccountName: "quiet" }],
  ] as const)
    it(`no token volume when ${label}`, async () => {
      const p = await run(pod(spec));
      assert.equal(p.spec.volumes, undefined);
    });

  it("pod true wins over account false", async () => {
    const p = await run(pod({ serviceAccountName: "quiet", automountServiceAccountToken: true }));
    assert.equal(p.spec.volumes.length, 1);
  });

  it("enforces mountable secrets", async () => {
    const vol = (n: string) => ({ name: n, secret: { secretName: n } });
    await run(pod({ serviceAccountName: "strict", volumes: [vol("ok")] }));
    await assert.rejects(
      run(pod({ serviceAccountName: "strict", volumes: [vol("bad")] })),
      /secret.secretName="bad" is not allowed/,
    );
  });

  it("leaves mirror pods alone, and refuses those naming accounts or secrets", async () => {
    const mirror = { annotations: { [t.naming.label("config.mirror")]: "x" } };
    const p = await run(pod({}, mirror));
    assert.equal(p.spec.serviceAccountName, undefined);
    assert.equal(p.spec.volumes, undefined);
    const refusals: [Obj, RegExp][] = [
      [{ serviceAccountName: "default" }, /a mirror pod may not reference service accounts/],
      [{ volumes: [{ name: "s", secret: { secretName: "s" } }] }, /a mirror pod may not reference secrets/],
      [
        { volumes: [{ name: "t", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } }] },
        /a mirror pod may not use ServiceAccountToken volume projections/,
      ],
      [
        { containers: [{ name: "c", image: "i", envFrom: [{ secretRef: { name: "s" } }] }] },
        /a mirror pod may not reference secrets/,
      ],
    ];
    for (const [spec, pattern] of refusals) await assert.rejects(run(pod(spec, mirror)), pattern);
  });
});
