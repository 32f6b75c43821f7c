import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import type { Authorizer } from "../../authorization/index.ts";
import { AdmissionError, type AdmissionPlugin, type JsonObject } from "../index.ts";
import { registration } from "./index.ts";
import { bindingOf, policyOf } from "./policies.ts";

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

  test("Warn and Audit actions do not deny; the audit key keeps the first failure", async () => {
    const { plugin, name } = await policy(
      {
        validations: [
          { expression: "false", message: "noted" },
          { expression: "true" },
          { expression: "false", message: "again" },
        ],
      },
      { validationActions: ["Warn", "Audit"] },
    );
    const a = await run(plugin, configMap("w", {}));
    assert.deepEqual(a.warnings, [
      `Validation failed for ValidatingAdmissionPolicy '${name}' with binding '${name}-binding': noted`,
      `Validation failed for ValidatingAdmissionPolicy '${name}' with binding '${name}-binding': again`,
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

  test("matching table: resources, subresources, names, operations and matchPolicy", async () => {
    const rule = (over: JsonObject): JsonObject => ({
      apiGroups: [""],
      apiVersions: ["v1"],
      operations: ["CREATE"],
      resources: ["pods"],
      ...over,
    });
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "prod" }, spec: {} };
    type Req = { operation?: "CREATE" | "UPDATE" | "DELETE"; subresource?: string; name?: string };
    const table: [string, JsonObject, Req, boolean][] = [
      ["exact resource", rule({}), {}, true],
      ["other resource", rule({ resources: ["services"] }), {}, false],
      ["* takes main resources", rule({ resources: ["*"] }), {}, true],
      [
        "* leaves subresources",
        rule({ resources: ["*"], operations: ["UPDATE"] }),
        { operation: "UPDATE", subresource: "status" },
        false,
      ],
      [
        "*/* takes subresources",
        rule({ resources: ["*/*"], operations: ["UPDATE"] }),
        { operation: "UPDATE", subresource: "status" },
        true,
      ],
      [
        "pods/* takes pods' subresources",
        rule({ resources: ["pods/*"], operations: ["UPDATE"] }),
        { operation: "UPDATE", subresource: "status" },
        true,
      ],
      ["pods/* takes pods too (a * subresource matches none)", rule({ resources: ["pods/*"] }), {}, true],
      [
        "*/status",
        rule({ resources: ["*/status"], operations: ["UPDATE"] }),
        { operation: "UPDATE", subresource: "status" },
        true,
      ],
      ["operation differs", rule({}), { operation: "UPDATE" }, false],
      ["operations *", rule({ operations: ["*"] }), { operation: "UPDATE" }, true],
      ["resourceNames listed", rule({ resourceNames: ["web"] }), { name: "web" }, true],
      ["resourceNames not listed", rule({ resourceNames: ["db"] }), { name: "web" }, false],
      ["other group", rule({ apiGroups: ["apps"] }), {}, false],
      ["scope Cluster", rule({ scope: "Cluster" }), {}, false],
      ["scope Namespaced", rule({ scope: "Namespaced" }), {}, true],
    ];
    for (const [label, r, req, denied] of table) {
      const { plugin } = await policy({
        matchConstraints: { resourceRules: [r] },
        validations: [{ expression: "false", message: "matched" }],
      });
      const operation = req.operation ?? "CREATE";
      const call = plugin.validate?.(
        t.attributes({
          operation,
          resource: "pods",
          namespace: "prod",
          name: req.name ?? "web",
          ...(req.subresource ? { subresource: req.subresource } : {}),
          object: pod,
          ...(operation === "UPDATE" ? { oldObject: pod } : {}),
        }),
      ) as Promise<void>;
      if (denied) await assert.rejects(call, /denied request: matched$/, label);
      else await assert.doesNotReject(call, label);
    }
    // matchPolicy: a v2 request reaches a v1 rule only when Equivalent, the object seen at v1.
    const autoscaling = "autoscaling"; // an upstream group name, not under the domain
    const hpa = {
      apiVersion: `${autoscaling}/v2`,
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "h", namespace: "prod" },
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "d", apiVersion: "apps/v1" },
        minReplicas: 1,
        maxReplicas: 3,
      },
    };
    const hpaRule = {
      apiGroups: [autoscaling],
      apiVersions: ["v1"],
      operations: ["CREATE"],
      resources: ["horizontalpodautoscalers"],
    };
    for (const [matchPolicy, denied] of [
      ["Exact", false],
      ["Equivalent", true],
    ] as const) {
      const { plugin } = await policy({
        matchConstraints: { resourceRules: [hpaRule], matchPolicy },
        validations: [{ expression: "object.apiVersion.endsWith('/v2')", message: "seen at v1" }],
      });
      const call = plugin.validate?.(
        t.attributes({
          operation: "CREATE",
          resource: "horizontalpodautoscalers",
          group: autoscaling,
          version: "v2",
          namespace: "prod",
          object: hpa,
        }),
      ) as Promise<void>;
      if (denied) await assert.rejects(call, /denied request: seen at v1$/, matchPolicy);
      else await call;
    }
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
    await assert.rejects(
      run(missing.plugin, configMap("x", {})),
      (err: unknown) =>
        err instanceof AdmissionError &&
        err.code === 422 &&
        err.message.endsWith(
          `ValidatingAdmissionPolicy '${missing.name}' with binding '${missing.name}-binding' denied request: failed to configure binding: absent not found`,
        ),
    );
    // Configuration errors deny whatever the binding's actions are.
    const warnOnly = await policy(spec, {
      paramRef: { name: "absent", namespace: "prod" },
      validationActions: ["Warn"],
    });
    await assert.rejects(run(warnOnly.plugin, configMap("w", {})), /absent not found$/);
    const ignored = await policy(
      { ...spec, failurePolicy: "Ignore" },
      { paramRef: { name: "absent", namespace: "prod" } },
    );
    await run(ignored.plugin, configMap("y", {}));
  });

  test("params: without paramRef `params` is null; an unknown paramKind fails the policy itself", async () => {
    const unbound = await policy({
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      validations: [{ expression: "params == null", message: "params given" }],
    });
    await run(unbound.plugin, configMap("n", {}));
    const unknown = await policy({
      paramKind: { apiVersion: "example.com/v1", kind: "Nope" },
      validations: [{ expression: "true" }],
    });
    await assert.rejects(
      run(unknown.plugin, configMap("u", {})),
      (err: unknown) =>
        err instanceof AdmissionError &&
        err.code === 422 &&
        err.message.endsWith(
          `ValidatingAdmissionPolicy '${unknown.name}' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'`,
        ),
    );
    const ignoring = await policy({
      paramKind: { apiVersion: "example.com/v1", kind: "Nope" },
      failurePolicy: "Ignore",
      validations: [{ expression: "false" }],
    });
    await run(ignoring.plugin, configMap("i", {}));
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
        asked.push(`${attrs.user.username} ${attrs.verb} ${attrs.resource}/${attrs.name}${attrs.path}`);
        return attrs.user.username === "boss"
          ? { decision: "allow", reason: "" }
          : { decision: "deny", reason: "only the boss" };
      },
    };
    const { plugin } = await policy(
      {
        validations: [
          {
            expression:
              "authorizer.group('').resource('configmaps').name(object.metadata.name).check('approve').allowed()",
            message: "not approved",
          },
          {
            expression: "authorizer.path('/healthz').check('get').reason() != 'only the boss'",
            message: "path check refused",
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
      /denied request: not approved$/,
    );
    assert.ok(asked.includes("intern approve configmaps/c"));
    assert.ok(
      asked.includes("intern get //healthz"),
      "the path check reached the authorizer as a non-resource request",
    );
  });

  test("authorizer: serviceAccount() checks as the account; bad names and failing authorizers are errors", async () => {
    const asked: string[] = [];
    const authorizer: Authorizer = {
      name: "test",
      authorize(attrs) {
        if (attrs.resource === "explode") throw new Error("backend down");
        asked.push(
          `${attrs.user.username} ${[...attrs.user.groups].join(",")} ${attrs.verb} ${attrs.resource}`,
        );
        return {
          decision: attrs.user.username.startsWith("system:serviceaccount:") ? "allow" : "deny",
          reason: "",
        };
      },
    };
    const table: [string, RegExp | undefined][] = [
      [
        "authorizer.serviceAccount('prod', 'builder').group('').resource('pods').check('create').allowed()",
        undefined,
      ],
      [
        "authorizer.group('').resource('pods').check('create').allowed()",
        /denied request: failed expression: /,
      ],
      [
        "authorizer.serviceAccount('prod', 'Not_Valid').group('').resource('pods').check('create').allowed()",
        /resulted in error: .*Invalid service account name/,
      ],
      [
        "authorizer.group('').resource('explode').check('get').allowed()",
        /resulted in error: .*error in authorization check: backend down/,
      ],
    ];
    for (const [expression, expected] of table) {
      const { plugin } = await policy({ validations: [{ expression }] }, {}, { authorizer });
      const call = plugin.validate?.(
        t.attributes({
          operation: "CREATE",
          resource: "configmaps",
          object: configMap("sa", {}),
          user: { username: "carol", uid: "", groups: [], extra: {} },
        }),
      ) as Promise<void>;
      if (expected) await assert.rejects(call, expected, expression);
      else await call;
    }
    assert.ok(
      asked.includes(
        "system:serviceaccount:prod:builder system:serviceaccounts,system:serviceaccounts:prod create pods",
      ),
      JSON.stringify(asked),
    );
  });

  test("cost: the per-call limit fails one expression; the shared budget stops the rest", async () => {
    const list = (n: number) => `[${Array.from({ length: n }, (_, i) => i + 1).join(",")}]`;
    const L = list(10);
    const perCall = `${L}.all(a, ${L}.all(b, ${L}.all(c, ${L}.all(d, ${L}.all(e, ${L}.all(f, a+b+c+d+e+f > 0))))))`;
    const costly = await policy({ validations: [{ expression: perCall }] });
    await assert.rejects(
      run(costly.plugin, configMap("costly", {})),
      (err: unknown) =>
        err instanceof AdmissionError &&
        err.message.endsWith(
          `denied request: expression '${perCall}' resulted in error: operation cancelled: actual cost limit exceeded`,
        ),
    );
    // Each costs about 0.77M, under the per-call limit; thirteen overrun the 10M budget of a call.
    const M = list(16);
    const heavy = `${M}.all(a, ${M}.all(b, ${M}.all(c, ${M}.all(d, a+b+c+d > 0))))`;
    const many = Array.from({ length: 13 }, () => ({ expression: heavy }));
    const budget = await policy({ validations: many });
    await assert.rejects(
      run(budget.plugin, configMap("budget", {})),
      /denied request: validation failed due to running out of cost budget, no further validation rules will be run$/,
    );
    const fits = await policy({ validations: many.slice(1) });
    await run(fits.plugin, configMap("fits", {}));
    const ignored = await policy({ validations: many, failurePolicy: "Ignore" });
    await run(ignored.plugin, configMap("ignored", {}));
  });

  test("messages: trimmed, multi-line or failing messageExpressions fall back to message", async () => {
    const table: [JsonObject, RegExp][] = [
      [{ expression: "false", messageExpression: "'  padded  '" }, /denied request: padded$/],
      [
        { expression: "false", messageExpression: "'two\\nlines'", message: " plain " },
        /denied request: plain$/,
      ],
      [{ expression: "false", messageExpression: "'   '", message: "blank" }, /denied request: blank$/],
      [
        { expression: "false", messageExpression: "string(object.data.nope)", message: "fallback" },
        /fallback$/,
      ],
      // messageExpressions have no authorizer in 1.27: the expression does not compile.
      [
        {
          expression: "false",
          messageExpression: "authorizer.path('/').check('get').reason()",
          message: "m",
        },
        /denied request: m$/,
      ],
      [{ expression: " 1 > 2 " }, /denied request: failed expression: 1 > 2$/],
    ];
    for (const [validation, expected] of table) {
      const { plugin } = await policy({ validations: [validation] });
      await assert.rejects(run(plugin, configMap("m", {})), expected, JSON.stringify(validation));
    }
  });

  test("audit annotations: per policy, deduplicated and joined; bad values deny", async () => {
    await t.create("configmaps", "prod", configMap("team-a", { team: "a" }));
    await t.create("configmaps", "prod", configMap("team-b", { team: "b" }));
    const { name } = await policy(
      {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        validations: [{ expression: "true" }],
        auditAnnotations: [
          { key: "team", valueExpression: "' ' + params.data.team + ' '" },
          { key: "fixed", valueExpression: "'same'" },
          { key: "none", valueExpression: "null" },
          { key: "empty", valueExpression: "''" },
        ],
      },
      { paramRef: { name: "team-a", namespace: "prod" } },
    );
    await t.create(
      "validatingadmissionpolicybindings",
      undefined,
      {
        apiVersion: `${group}/v1alpha1`,
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: `${name}-second` },
        spec: {
          policyName: name,
          validationActions: ["Deny"],
          paramRef: { name: "team-b", namespace: "prod" },
        },
      },
      group,
    );
    stored.push(["validatingadmissionpolicybindings", `${name}-second`]);
    const second = await registration.factory(
      t.env({ options: { featureGates: { ValidatingAdmissionPolicy: true } } }),
    );
    plugins.push(second);
    const a = await run(second, configMap("annotated", {}));
    assert.deepEqual(a.annotations, { [`${name}/team`]: "a, b", [`${name}/fixed`]: "same" });

    const wrongType = await policy(
      { validations: [{ expression: "true" }], auditAnnotations: [{ key: "n", valueExpression: "1 + 1" }] },
      { validationActions: ["Warn"] },
    );
    await assert.rejects(
      run(wrongType.plugin, configMap("t", {})),
      /denied request: valueExpression '1 \+ 1' resulted in unsupported return type: int\. Return type must be either string or null\.$/,
    );
  });

  test("matchConditions: a false one skips the binding, errors follow failurePolicy", async () => {
    const conditions = [
      { name: "labelled", expression: "has(object.metadata.labels) && 'check' in object.metadata.labels" },
    ];
    const { plugin } = await policy({
      matchConditions: conditions,
      validations: [{ expression: "false", message: "checked" }],
    });
    await run(plugin, configMap("plain", {}));
    await assert.rejects(
      run(plugin, {
        ...configMap("labelled", {}),
        metadata: { name: "l", namespace: "prod", labels: { check: "1" } },
      }),
      /denied request: checked$/,
    );
    const broken = [{ name: "broken", expression: "object.data.absent == 'x'" }];
    const failing = await policy({ matchConditions: broken, validations: [{ expression: "true" }] });
    await assert.rejects(
      run(failing.plugin, configMap("b", { a: "1" })),
      /denied request: expression 'object\.data\.absent == 'x'' resulted in error: no such key: absent$/,
    );
    const ignoring = await policy({
      matchConditions: broken,
      failurePolicy: "Ignore",
      validations: [{ expression: "false" }],
    });
    await run(ignoring.plugin, configMap("b", { a: "1" }));
  });

  test("request: kind and resource are the request's; user, operation, dryRun as sent", async () => {
    const { plugin } = await policy({
      validations: [
        {
          expression:
            "request.kind.kind == 'ConfigMap' && request.resource.resource == 'configmaps' && request.requestKind == request.kind && request.operation == 'CREATE' && request.userInfo.username == 'alice' && request.namespace == 'prod' && request.dryRun == false",
          message: "request differs",
        },
      ],
    });
    await plugin.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "configmaps",
        namespace: "prod",
        object: configMap("r", {}),
        user: { username: "alice", uid: "1", groups: ["g"], extra: {} },
      }),
    );
    await assert.rejects(
      plugin.validate?.(
        t.attributes({
          operation: "CREATE",
          resource: "configmaps",
          namespace: "prod",
          object: configMap("r", {}),
          user: { username: "bob", uid: "2", groups: [], extra: {} },
        }),
      ) as Promise<void>,
      /request differs$/,
    );
  });

  test("bad policies do not crash: garbage fields, non-compiling expressions", async () => {
    const compileError = await policy({ validations: [{ expression: "object.data.(" }] });
    await assert.rejects(run(compileError.plugin, configMap("c", {})), /denied request: compilation error: /);
    const ignored = await policy({ validations: [{ expression: "1 +" }], failurePolicy: "Ignore" });
    await run(ignored.plugin, configMap("c", {}));
    // The registry refuses malformed specs; objects read back are still read defensively.
    await assert.rejects(
      t.create(
        "validatingadmissionpolicies",
        undefined,
        { metadata: { name: "garbage" }, spec: { validations: "nope" } },
        group,
      ),
    );
    const odd = policyOf({
      metadata: {},
      spec: {
        validations: [7, { expression: 3 }],
        matchConditions: "x",
        auditAnnotations: [null],
        paramKind: 1,
      },
    });
    assert.equal(odd.validations.length, 2);
    assert.ok(odd.validations.every((v) => v.rule.error !== undefined));
    assert.deepEqual(bindingOf({ spec: { validationActions: "Deny", paramRef: 4 } }).validationActions, [
      "Deny",
    ]);
  });

  async function typeChecking(name: string): Promise<JsonObject> {
    for (let i = 0; i < 250; i++) {
      const s = (await t.get("validatingadmissionpolicies", undefined, name, group))?.status as
        | JsonObject
        | undefined;
      if (s?.typeChecking) return s;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no type-checking status on ${name}`);
  }
  const warningsOf = (status: JsonObject) =>
    (status.typeChecking as { expressionWarnings?: { fieldRef: string; warning: string }[] })
      .expressionWarnings ?? [];

  test("type-checking writes expression warnings into the policy's status", async () => {
    const { name } = await policy({
      validations: [
        { expression: "object.data.x == 'y'", messageExpression: "object.nothing.here" },
        { expression: "object.spec.replicas > 1" },
      ],
    });
    const status = await typeChecking(name);
    assert.equal(status.observedGeneration, 1);
    const warnings = warningsOf(status);
    // messageExpressions are not type-checked in 1.27.
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]?.fieldRef, "spec.validations[1].expression");
    assert.match(warnings[0]?.warning ?? "", /^\/v1, Kind=ConfigMap: .*spec/);
  });

  test("type-checking: every named kind, sorted; wildcard names skipped, wildcard groups skip the rule", async () => {
    const { name } = await policy({
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ["apps", ""],
            apiVersions: ["v1"],
            operations: ["CREATE"],
            resources: ["deployments", "configmaps", "*", "pods/status"],
          },
          { apiGroups: ["*"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["secrets"] },
        ],
      },
      validations: [{ expression: "object.data.x == 'y'" }, { expression: "object.metadata.name != ''" }],
    });
    const warnings = warningsOf(await typeChecking(name));
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]?.fieldRef, "spec.validations[0].expression");
    const lines = (warnings[0]?.warning ?? "").split("\n").filter((l) => /Kind=/.test(l));
    assert.deepEqual(
      lines.map((l) => l.slice(0, l.indexOf(":"))),
      ["apps/v1, Kind=Deployment"],
      warnings[0]?.warning,
    );
  });

  test("off without the feature gate; never applied to policies and bindings, but to webhook configurations", async () => {
    const { plugin } = await policy({ validations: [{ expression: "false" }] }, {}, { gate: false });
    await run(plugin, configMap("free", {}));
    const on = await policy({
      validations: [{ expression: "false", message: "locked" }],
      matchConstraints: {
        resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }],
      },
    });
    for (const resource of ["validatingadmissionpolicies", "validatingadmissionpolicybindings"])
      await on.plugin.validate?.(
        t.attributes({
          operation: "DELETE",
          resource,
          group,
          name: on.name,
          oldObject: { metadata: { name: on.name } },
        }),
      );
    await assert.rejects(
      on.plugin.validate?.(
        t.attributes({
          operation: "DELETE",
          resource: "validatingwebhookconfigurations",
          group,
          name: "hooks",
          oldObject: { metadata: { name: "hooks" } },
        }),
      ) as Promise<void>,
      /denied request: locked$/,
    );
    await assert.rejects(run(on.plugin, configMap("any", {})), /denied request: locked$/);
  });
});
