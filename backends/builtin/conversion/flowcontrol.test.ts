import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { type FlowcontrolVersion, flowcontrolConversion } from "./index.ts";

type Json = Record<string, unknown>;

const ns = naming("cluster");
const convert = flowcontrolConversion(ns);
const group = ns.group("flowcontrol");
const V1BETA2 = `${group}/v1beta2`;
const V1BETA3 = `${group}/v1beta3`;
const PLC = "PriorityLevelConfiguration";

const queuing = { type: "Queue", queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } };
const conditions = [
  { type: "ConcurrencyShared", status: "True", lastTransitionTime: "2024-05-01T09:00:00Z" },
];

function limited(apiVersion: string, shares: Json): Json {
  return {
    apiVersion,
    kind: PLC,
    metadata: { name: "workload-low" },
    spec: {
      type: "Limited",
      limited: { ...shares, limitResponse: queuing, lendablePercent: 90, borrowingLimitPercent: 10 },
    },
    status: { conditions },
  };
}

const flowSchema = (apiVersion: string): Json => ({
  apiVersion,
  kind: "FlowSchema",
  metadata: { name: "service-accounts" },
  spec: {
    priorityLevelConfiguration: { name: "workload-low" },
    matchingPrecedence: 9000,
    distinguisherMethod: { type: "ByUser" },
    rules: [
      {
        subjects: [{ kind: "Group", group: { name: "authenticated" } }],
        resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"] }],
      },
    ],
  },
  status: { conditions: [{ type: "Dangling", status: "False" }] },
});

const exempt = (apiVersion: string): Json => ({
  apiVersion,
  kind: PLC,
  metadata: { name: "exempt" },
  spec: { type: "Exempt" },
});

describe("flowcontrol conversion", () => {
  const cases: [string, Json, FlowcontrolVersion, Json][] = [
    [
      "v1beta2 assuredConcurrencyShares becomes v1beta3 nominalConcurrencyShares",
      limited(V1BETA2, { assuredConcurrencyShares: 100 }),
      "v1beta3",
      limited(V1BETA3, { nominalConcurrencyShares: 100 }),
    ],
    [
      "and back",
      limited(V1BETA3, { nominalConcurrencyShares: 100 }),
      "v1beta2",
      limited(V1BETA2, { assuredConcurrencyShares: 100 }),
    ],
    [
      "zero shares carry over as they are (1.27 keeps no annotation for them)",
      limited(V1BETA3, { nominalConcurrencyShares: 0 }),
      "v1beta2",
      limited(V1BETA2, { assuredConcurrencyShares: 0 }),
    ],
    ["absent shares stay absent", limited(V1BETA2, {}), "v1beta3", limited(V1BETA3, {})],
    [
      "the target version's name in a source object is unknown there and dropped",
      limited(V1BETA2, { assuredConcurrencyShares: 5, nominalConcurrencyShares: 7 }),
      "v1beta3",
      limited(V1BETA3, { nominalConcurrencyShares: 5 }),
    ],
    ["an exempt priority level only changes apiVersion", exempt(V1BETA2), "v1beta3", exempt(V1BETA3)],
    ["a FlowSchema only changes apiVersion", flowSchema(V1BETA3), "v1beta2", flowSchema(V1BETA2)],
    ["and back", flowSchema(V1BETA2), "v1beta3", flowSchema(V1BETA3)],
    [
      "the same version is left as it is",
      limited(V1BETA3, { nominalConcurrencyShares: 30 }),
      "v1beta3",
      limited(V1BETA3, { nominalConcurrencyShares: 30 }),
    ],
  ];

  for (const [name, input, toVersion, expected] of cases) {
    it(name, () => assert.deepEqual(convert(input, toVersion), expected));
  }

  it("keeps the renamed field where it was", () => {
    const out = convert(limited(V1BETA2, { assuredConcurrencyShares: 1 }), "v1beta3");
    const spec = out.spec as Json;
    assert.deepEqual(Object.keys(spec.limited as Json), [
      "nominalConcurrencyShares",
      "limitResponse",
      "lendablePercent",
      "borrowingLimitPercent",
    ]);
  });

  it("round trips are lossless", () => {
    const v1beta2 = limited(V1BETA2, { assuredConcurrencyShares: 40 });
    const v1beta3 = limited(V1BETA3, { nominalConcurrencyShares: 40 });
    assert.deepEqual(convert(convert(v1beta2, "v1beta3"), "v1beta2"), v1beta2);
    assert.deepEqual(convert(convert(v1beta3, "v1beta2"), "v1beta3"), v1beta3);
    assert.deepEqual(convert(convert(flowSchema(V1BETA2), "v1beta3"), "v1beta2"), flowSchema(V1BETA2));
  });

  it("does not modify its input", () => {
    const input = limited(V1BETA2, { assuredConcurrencyShares: 40 });
    convert(input, "v1beta3");
    assert.deepEqual(input, limited(V1BETA2, { assuredConcurrencyShares: 40 }));
  });

  it("spells the group with the naming preset's suffix", () => {
    for (const preset of ["cluster", "kubernetes"] as const) {
      const n = naming(preset);
      const g = n.group("flowcontrol");
      assert.deepEqual(
        flowcontrolConversion(n)(limited(`${g}/v1beta2`, { assuredConcurrencyShares: 3 }), "v1beta3"),
        limited(`${g}/v1beta3`, { nominalConcurrencyShares: 3 }),
      );
    }
  });

  it("never throws on odd input", () => {
    const odd: unknown[] = [
      null,
      [],
      {},
      { apiVersion: 5, kind: PLC, spec: { limited: { assuredConcurrencyShares: 1 } } },
      { apiVersion: V1BETA2, kind: PLC, spec: "x" },
      { apiVersion: V1BETA2, kind: PLC, spec: { limited: [1] } },
      { apiVersion: "v1beta2", kind: PLC, spec: { limited: null } },
    ];
    for (const input of odd) {
      for (const to of ["v1beta2", "v1beta3"] as const) {
        assert.equal(convert(input as Json, to).apiVersion, `${group}/${to}`);
      }
    }
  });
});
