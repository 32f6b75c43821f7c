import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import type { Authorizer } from "../../authorization/index.ts";
import { AdmissionError, type AdmissionPlugin, type JsonObject } from "../index.ts";
import { registration } from "./index.ts";

describe("ValidatingAdmissionPolicy", () => {
  let t: AdmissionTest;
  let group: string;
  const plugins: AdmissionPlugin[] = [];
  const stored: [string, string][] = [];
  let n = 0;

  before(async () => {
    t = await startAdmissionTest();
    group = t.naming.group("admissionregistration");
    await t.create("namespaces", undefined, { metadata: { name: "prod", labels: { env: "prod" } } });
    await t.create("namespaces", undefined, { metadata: { name: "dev", labels: { env: "dev" } } });
  });
  after(async () => {
    for (const p of plugins) await p.close?.();
    await t.stop();
  });

  async function clear() {
    for (const [resource, name] of stored.splice(0)) await t.remove(resource, undefined, name, group);
  }

  /** One policy with one binding; returns a fresh plugin that sees them. */
  async function policy(
    spec: JsonObject,
    bindingSpec: JsonObject = {},
    options: { authorizer?: Authorizer; gate?: boolean } = {},
  ): Promise<{ plugin: AdmissionPlugin; name: string }> {
    await clear();
    const name = `p${++n}`;
    await t.create(
      "validatingadmissionpolicies",
      undefined,
      {
        apiVersion: `${group}/v1alpha1`,
        kind: "ValidatingAdmissionPolicy",
        metadata: { name },
        spec: {
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: [""],
                apiVersions: ["v1"],
                operations: ["CREATE", "UPDATE"],
                resources: ["configmaps"],
              },
            ],
          },
          ...spec,
        },
      },
      group,
    );
    stored.push(["validatingadmissionpolicies", name]);
    await t.create(
      "validatingadmissionpolicybindings",
      undefined,
      {
        apiVersion: `${group}/v1alpha1`,
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: `${name}-binding` },
        spec: { policyName: name, validationActions: ["Deny"], ...bindingSpec },
      },
      group,
    );
    stored.push(["validatingadmissionpolicybindings", `${name}-binding`]);
    const plugin = await registration.factory(
      t.env({
        options: { featureGates: { ValidatingAdmissionPolicy: options.gate ?? true } },
        ...(options.authorizer ? { authorizer: options.authorizer } : {}),
      }),
    );
    plugins.push(plugin);
    return { plugin, name };
  }

  const configMap = (name: string, data: Record<string, string>, ns = "prod"): JsonObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: ns },
    data,
  });
  const run = async (
    plugin: AdmissionPlugin,
    object: JsonObject,
    operation: "CREATE" | "UPDATE" = "CREATE",
  ) => {
    const a = t.attributes({
      operation,
      resource: "configmaps",
      object,
      ...(operation === "UPDATE" ? { oldObject: object } : {}),
    });
    await plugin.validate?.(a);
    return a;
  };

  test("a failing validation denies with its message and reason", async () => {
    const { plugin, name } = await policy({
      validations: [
        {
          expression: "!has(object.data) || !('forbidden' in object.data)",
          message: "no forbidden keys",
          reason: "Forbidden",
        },
        { expression: "size(object.metadata.name) < 10" },
      ],
    });
    await run(plugin, configMap("ok", { a: "1" }));
    await assert.rejects(run(plugin, configMap("bad", { forbidden: "1" })), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 403);
      assert.equal(err.reason, "Forbidden");
      assert.equal(
        err.message,
        `configmaps "bad" is forbidden: ValidatingAdmissionPolicy '${name}' with binding '${name}-binding' denied request: no forbidden keys`,
      );
      return true;
    });
    await assert.rejects(run(plugin, configMap("a-very-long-name", {})), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 422, "reason defaults to Invalid");
      assert.match(err.message, /denied request: failed expression: size\(object\.metadata\.name\) < 10$/);
      return true;
    });
  });

  test("messageExpression builds the message from the request", async () => {
    const { plugin } = await policy({
      validations: [
        { expression: "false", messageExpression: "'configmap ' + object.metadata.name + ' refused'" },
      ],
    });
    await assert.rejects(run(plugin, configMap("named", {})), /denied request: configmap named refused$/);
  });

  test("Warn and Audit actions do not deny", async () => {
    const { plugin, name } = await policy(
      { validations: [{ expression: "false", message: "noted" }] },
      { validationActions: ["Warn", "Audit"] },
    );
    const a = await run(plugin, configMap("w", {}));
    assert.deepEqual(a.warnings, [
      `Validation failed for ValidatingAdmissionPolicy '${name}' with binding '${name}-binding': noted`,
    ]);
    const key = `validation.policy.${t.naming.group("admission")}/validation_failure`;
    assert.deepEqual(JSON.parse(a.annotations[key] ?? "[]"), [
      {
        message: "noted",
        policy: name,
        binding: `${name}-binding`,
        expressionIndex: 0,
        validationActions: ["Warn", "Audit"],
      },
    ]);
  });

  test("matching: the policy's constraints and the binding's matchResources both apply", async () => {
    const { plugin } = await policy(
      { validations: [{ expression: "false", message: "matched" }] },
      { matchResources: { namespaceSelector: { matchLabels: { env: "prod" } } } },
    );
    await assert.rejects(run(plugin, configMap("p", {}, "prod")), /matched/);
    await run(plugin, configMap("d", {}, "dev"));
    await plugin.validate?.(
      t.attributes({ operation: "DELETE", resource: "configmaps", oldObject: configMap("x", {}) }),
    );
    await plugin.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "secrets",
        object: { metadata: { name: "s", namespace: "prod" } },
      }),
    );
    const excluded = await policy({
      validations: [{ expression: "false", message: "matched" }],
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["configmaps"] },
        ],
        excludeResourceRules: [
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["*"],
            resources: ["configmaps"],
            resourceNames: ["spared"],
          },
        ],
      },
    });
    await run(excluded.plugin, configMap("spared", {}));
    await assert.rejects(run(excluded.plugin, configMap("other", {})), /matched/);
  });

  test("params: the binding's parameter object is `params`; a missing one follows failurePolicy", async () => {
    await t.create("configmaps", "prod", configMap("limits", { maxKeys: "1" }));
    const spec = {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      validations: [
        { expression: "size(object.data) <= int(params.data.maxKeys)", message: "too many keys" },
      ],
    };
    const { plugin } = await policy(spec, { paramRef: { name: "limits", namespace: "prod" } });
    await run(plugin, configMap("one", { a: "1" }));
    await assert.rejects(run(plugin, configMap("two", { a: "1", b: "2" })), /too many keys/);
    const missing = await policy(spec, { paramRef: { name: "absent", namespace: "prod" } });
    await assert.rejects(run(missing.plugin, configMap("x", {})), /no params found for policy binding/);
    const ignored = await policy(
      { ...spec, failurePolicy: "Ignore" },
      { paramRef: { name: "absent", namespace: "prod" } },
    );
    await run(ignored.plugin, configMap("y", {}));
  });

  test("runtime errors follow failurePolicy", async () => {
    const spec = { validations: [{ expression: "object.data.missing == 'x'" }] };
    const failing = await policy(spec);
    await assert.rejects(
      run(failing.plugin, configMap("e", { a: "1" })),
      /expression 'object\.data\.missing == 'x'' resulted in error: no such key: missing/,
    );
    const ignoring = await policy({ ...spec, failurePolicy: "Ignore" });
    await run(ignoring.plugin, configMap("e", { a: "1" }));
  });

  test("authorizer: checks reach the server's authorizer, denials included", async () => {
    const asked: string[] = [];
    const authorizer: Authorizer = {
      name: "test",
      authorize(attrs) {
        asked.push(`${attrs.user.username} ${attrs.verb} ${attrs.resource}/${attrs.name}`);
        return { decision: attrs.user.username === "boss" ? "allow" : "deny", reason: "only the boss" };
      },
    };
    const { plugin } = await policy(
      {
        validations: [
          {
            expression:
              "authorizer.group('').resource('configmaps').name(object.metadata.name).check('approve').allowed()",
            messageExpression: "'not approved: ' + authorizer.requestResource.check('approve').reason()",
          },
        ],
      },
      {},
      { authorizer },
    );
    const as = (username: string) => ({ username, uid: "", groups: [], extra: {} });
    await plugin.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "configmaps",
        object: configMap("c", {}),
        user: as("boss"),
      }),
    );
    await assert.rejects(
      plugin.validate?.(
        t.attributes({
          operation: "CREATE",
          resource: "configmaps",
          object: configMap("c", {}),
          user: as("intern"),
        }),
      ) as Promise<void>,
      /denied request: not approved: only the boss$/,
    );
    assert.ok(asked.includes("intern approve configmaps/c"));
  });

  test("the cost limit stops an expensive expression", async () => {
    const { plugin } = await policy({
      validations: [
        {
          expression:
            "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a+b+c+d+e+f > 0))))))",
        },
      ],
    });
    await assert.rejects(run(plugin, configMap("costly", {})), /cost limit exceeded|exceeded/);
  });

  test("type-checking writes expression warnings into the policy's status", async () => {
    const { name } = await policy({
      validations: [{ expression: "object.data.x == 'y'" }, { expression: "object.spec.replicas > 1" }],
    });
    let status: JsonObject | undefined;
    for (let i = 0; i < 200 && !status; i++) {
      const s = (await t.get("validatingadmissionpolicies", undefined, name, group))?.status as
        | JsonObject
        | undefined;
      if (s?.typeChecking) status = s;
      else await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(status, "status written");
    assert.equal(status.observedGeneration, 1);
    const warnings = (status.typeChecking as { expressionWarnings: { fieldRef: string; warning: string }[] })
      .expressionWarnings;
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]?.fieldRef, "spec.validations[1].expression");
    assert.match(warnings[0]?.warning ?? "", /^\/v1, Kind=ConfigMap: .*spec/);
  });

  test("off without the feature gate; never applied to admission configuration objects", async () => {
    const { plugin } = await policy({ validations: [{ expression: "false" }] }, {}, { gate: false });
    await run(plugin, configMap("free", {}));
    const on = await policy({
      validations: [{ expression: "false" }],
      matchConstraints: {
        resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }],
      },
    });
    await on.plugin.validate?.(
      t.attributes({
        operation: "DELETE",
        resource: "validatingadmissionpolicies",
        group,
        name: on.name,
        oldObject: { metadata: { name: on.name } },
      }),
    );
    await assert.rejects(run(on.plugin, configMap("any", {})), /denied request/);
  });
});
