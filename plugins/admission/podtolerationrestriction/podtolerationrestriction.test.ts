import assert from "node:assert/strict";
import { test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type JsonObject, type Operation } from "../index.ts";
import { mergeTolerations, registration, verifyAgainstWhitelist } from "./index.ts";

const MEMORY = { key: "node.cluster.io/memory-pressure", operator: "Exists", effect: "NoSchedule" };

const pod = (ns: string, tolerations?: JsonObject[], resources?: JsonObject): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: ns },
  spec: {
    containers: [{ name: "c", image: "i", ...(resources ? { resources } : {}) }],
    ...(tolerations ? { tolerations } : {}),
  },
});

async function namespace(t: AdmissionTest, name: string, annotations: Record<string, string> = {}) {
  await t.create("namespaces", undefined, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, annotations },
  });
}

const DEFAULTS = "scheduler.alpha.cluster.io/defaultTolerations";
const WHITELIST = "scheduler.alpha.cluster.io/tolerationsWhitelist";

test("mergeTolerations and verifyAgainstWhitelist follow the superset rule", () => {
  const cases: { name: string; a: JsonObject[]; b: JsonObject[]; want: JsonObject[] }[] = [
    {
      name: "disjoint",
      a: [{ key: "a", operator: "Exists" }],
      b: [{ key: "b", operator: "Exists" }],
      want: [
        { key: "a", operator: "Exists" },
        { key: "b", operator: "Exists" },
      ],
    },
    {
      name: "equal kept once",
      a: [{ key: "a", operator: "Exists" }],
      b: [{ key: "a", operator: "Exists" }],
      want: [{ key: "a", operator: "Exists" }],
    },
    {
      name: "wildcard covers all",
      a: [{ key: "a", value: "x", operator: "Equal" }],
      b: [{ operator: "Exists" }],
      want: [{ operator: "Exists" }],
    },
    {
      name: "shorter seconds covered by unbounded",
      a: [{ key: "a", operator: "Exists", effect: "NoExecute" }],
      b: [{ key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }],
      want: [{ key: "a", operator: "Exists", effect: "NoExecute" }],
    },
    {
      name: "bounded does not cover unbounded",
      a: [{ key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }],
      b: [{ key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 20 }],
      want: [{ key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 20 }],
    },
    {
      name: "empty effect covers NoSchedule",
      a: [{ key: "a", operator: "Exists", effect: "NoSchedule" }],
      b: [{ key: "a", operator: "Exists" }],
      want: [{ key: "a", operator: "Exists" }],
    },
  ];
  for (const c of cases) assert.deepEqual(mergeTolerations(c.a, c.b), c.want, c.name);
  assert.ok(
    verifyAgainstWhitelist([{ key: "a", operator: "Equal", value: "v" }], [{ key: "a", operator: "Exists" }]),
  );
  assert.ok(
    !verifyAgainstWhitelist(
      [{ key: "a", operator: "Exists" }],
      [{ key: "a", operator: "Equal", value: "v" }],
    ),
  );
  assert.ok(!verifyAgainstWhitelist([{ key: "b", operator: "Exists" }], [{ key: "a", operator: "Exists" }]));
  assert.ok(verifyAgainstWhitelist([{ key: "b", operator: "Exists" }], []));
  // An Equal toleration without operator is not covered: upstream compares the operator as given.
  assert.ok(
    !verifyAgainstWhitelist([{ key: "a", value: "v" }], [{ key: "a", value: "v", operator: "Equal" }]),
  );
});

test("PodTolerationRestriction: defaults, memory pressure and whitelists", async () => {
  const t = await startAdmissionTest();
  try {
    await namespace(t, "plain");
    await namespace(t, "ns-default", {
      [DEFAULTS]: '[{"key":"team","operator":"Equal","value":"a","effect":"NoSchedule"}]',
    });
    await namespace(t, "ns-empty", { [DEFAULTS]: "", [WHITELIST]: "" });
    await namespace(t, "ns-white", {
      [DEFAULTS]: "[]",
      [WHITELIST]:
        '[{"key":"team","operator":"Exists"},{"key":"node.cluster.io/memory-pressure","operator":"Exists"}]',
    });
    await namespace(t, "ns-bad-json", { [DEFAULTS]: "[{", [WHITELIST]: "not json" });
    await namespace(t, "ns-bad-shape", { [DEFAULTS]: '{"key":"a"}', [WHITELIST]: '[{"key":1}]' });
    const configuration = {
      apiVersion: "podtolerationrestriction.admission.cluster.io/v1alpha1",
      kind: "Configuration",
      default: [{ key: "cluster", operator: "Exists", effect: "NoSchedule" }],
      whitelist: [{ key: "cluster", operator: "Exists" }],
    };
    const plugin = await registration.factory(t.env({ configuration }));
    const burstable = { requests: { cpu: "100m" } };
    const cases: {
      name: string;
      op?: Operation;
      ns: string;
      tolerations?: JsonObject[];
      resources?: JsonObject;
      want?: JsonObject[] | undefined;
      error?: [number, string | RegExp];
    }[] = [
      { name: "cluster default, BestEffort", ns: "plain", want: [configuration.default[0] as JsonObject] },
      {
        name: "namespace default replaces cluster default",
        ns: "ns-default",
        tolerations: [{ key: "other", operator: "Exists" }],
        error: [
          403,
          "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist",
        ],
      },
      {
        name: "empty annotations: no defaults, no whitelist",
        ns: "ns-empty",
        tolerations: [{ key: "x", operator: "Exists" }],
        resources: burstable,
        want: [{ key: "x", operator: "Exists" }, MEMORY],
      },
      {
        name: "namespace whitelist admits",
        ns: "ns-white",
        tolerations: [{ key: "team", operator: "Equal", value: "b" }],
        resources: burstable,
        want: [{ key: "team", operator: "Equal", value: "b" }, MEMORY],
      },
      {
        name: "namespace whitelist refuses",
        ns: "ns-white",
        tolerations: [{ key: "cluster", operator: "Exists" }],
        error: [
          403,
          "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist",
        ],
      },
      {
        name: "update adds no defaults",
        op: "UPDATE",
        ns: "plain",
        tolerations: [{ key: "cluster", operator: "Exists", effect: "NoSchedule" }],
        want: [{ key: "cluster", operator: "Exists", effect: "NoSchedule" }],
      },
      { name: "update of BestEffort pod without tolerations", op: "UPDATE", ns: "ns-empty", want: undefined },
      { name: "malformed default annotation", ns: "ns-bad-json", error: [400, /defaultTolerations/] },
      {
        name: "malformed whitelist annotation",
        op: "UPDATE",
        ns: "ns-bad-json",
        tolerations: [{ key: "a", operator: "Exists" }],
        error: [400, /tolerationsWhitelist/],
      },
      { name: "defaults not an array", ns: "ns-bad-shape", error: [400, /expected an array/] },
      {
        name: "whitelist with wrong types",
        op: "UPDATE",
        ns: "ns-bad-shape",
        tolerations: [{ key: "a", operator: "Exists" }],
        error: [400, /key must be a string/],
      },
      {
        name: "tolerations not a list",
        ns: "plain",
        tolerations: "x" as unknown as JsonObject[],
        error: [400, /spec.tolerations/],
      },
      { name: "missing namespace", ns: "nowhere", error: [404, 'namespaces "nowhere" not found'] },
    ];
    for (const c of cases) {
      const object = pod(c.ns, c.tolerations, c.resources);
      const op = c.op ?? "CREATE";
      const a = t.attributes({
        operation: op,
        resource: "pods",
        object,
        ...(op === "UPDATE" ? { oldObject: pod(c.ns) } : {}),
      });
      if (c.error) {
        const [code, text] = c.error;
        await assert.rejects(
          async () => {
            await plugin.admit?.(a);
          },
          (err: unknown) => {
            assert.ok(err instanceof AdmissionError, c.name);
            assert.equal(err.code, code, c.name);
            if (typeof text === "string") assert.equal(err.message, text, c.name);
            else assert.match(err.message, text, c.name);
            return true;
          },
          c.name,
        );
        continue;
      }
      await plugin.admit?.(a);
      await plugin.validate?.(a);
      assert.deepEqual((object.spec as JsonObject).tolerations, c.want, c.name);
    }
    // Subresources and other resources are left alone.
    const status = pod("nowhere", [{ key: "zzz", operator: "Exists" }]);
    await plugin.admit?.(
      t.attributes({
        operation: "UPDATE",
        resource: "pods",
        subresource: "status",
        object: status,
        oldObject: status,
      }),
    );
    assert.deepEqual((status.spec as JsonObject).tolerations, [{ key: "zzz", operator: "Exists" }]);
  } finally {
    await t.stop();
  }
});

test("PodTolerationRestriction: bad configuration fails at factory time", async () => {
  const t = await startAdmissionTest();
  try {
    const api = "podtolerationrestriction.admission.cluster.io/v1";
    const bad: [unknown, RegExp][] = [
      ["text", /expected a Configuration object/],
      [{ kind: "Configuration" }, /Kind' is missing/],
      [
        { apiVersion: "other/v1", kind: "Configuration" },
        /no kind "Configuration" is registered for version "other\/v1"/,
      ],
      [{ apiVersion: api, kind: "Configuration", extra: 1 }, /unknown field "extra"/],
      [{ apiVersion: api, kind: "Configuration", default: "x" }, /default: expected an array/],
      [
        { apiVersion: api, kind: "Configuration", whitelist: [{ operator: "Equal" }] },
        /operator must be Exists when `key` is empty/,
      ],
      [
        { apiVersion: api, kind: "Configuration", default: [{ key: "a", operator: "Maybe" }] },
        /Unsupported value: "Maybe"/,
      ],
      [
        {
          apiVersion: api,
          kind: "Configuration",
          default: [{ key: "a", operator: "Exists", tolerationSeconds: 3 }],
        },
        /effect must be 'NoExecute'/,
      ],
      [
        { apiVersion: api, kind: "Configuration", default: [{ key: "a b", operator: "Exists" }] },
        /not a qualified name/,
      ],
    ];
    for (const [configuration, message] of bad) {
      await assert.rejects(async () => registration.factory(t.env({ configuration })), message);
    }
    await registration.factory(t.env({ configuration: { apiVersion: api, kind: "Configuration" } }));
  } finally {
    await t.stop();
  }
});
