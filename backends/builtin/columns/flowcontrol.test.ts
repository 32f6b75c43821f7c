import { describe, it } from "node:test";
import { assertTolerant, type Case, CREATED, runCases } from "./test-support.ts";

const meta = (name: string) => ({ name, creationTimestamp: CREATED });

const cases: Case[] = [
  {
    name: "flow schema with a live priority level",
    group: "flowcontrol",
    plural: "flowschemas",
    object: {
      metadata: meta("service-accounts"),
      spec: {
        priorityLevelConfiguration: { name: "workload-low" },
        matchingPrecedence: 9000,
        distinguisherMethod: { type: "ByUser" },
        rules: [],
      },
      status: { conditions: [{ type: "Dangling", status: "False", reason: "Found" }] },
    },
    row: [
      ["PriorityLevel", "string", 0, "workload-low"],
      ["MatchingPrecedence", "string", 0, 9000],
      ["DistinguisherMethod", "string", 0, "ByUser"],
      ["Age", "string", 0, "26h"],
      ["MissingPL", "string", 0, "False"],
    ],
  },
  {
    name: "flow schema not checked yet",
    group: "flowcontrol",
    plural: "flowschemas",
    object: {
      metadata: meta("exempt"),
      spec: { priorityLevelConfiguration: { name: "exempt" }, matchingPrecedence: 1 },
    },
    row: [
      ["PriorityLevel", "string", 0, "exempt"],
      ["MatchingPrecedence", "string", 0, 1],
      ["DistinguisherMethod", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
      ["MissingPL", "string", 0, "?"],
    ],
  },
  {
    name: "limited level with queues",
    group: "flowcontrol",
    plural: "prioritylevelconfigurations",
    object: {
      metadata: meta("workload-low"),
      spec: {
        type: "Limited",
        limited: {
          nominalConcurrencyShares: 100,
          lendablePercent: 90,
          limitResponse: { type: "Queue", queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
        },
      },
    },
    row: [
      ["Type", "string", 0, "Limited"],
      ["NominalConcurrencyShares", "string", 0, 100],
      ["Queues", "string", 0, 128],
      ["HandSize", "string", 0, 6],
      ["QueueLengthLimit", "string", 0, 50],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "limited level that rejects",
    group: "flowcontrol",
    plural: "prioritylevelconfigurations",
    object: {
      metadata: meta("catch-all"),
      spec: { type: "Limited", limited: { nominalConcurrencyShares: 5, limitResponse: { type: "Reject" } } },
    },
    row: [
      ["Type", "string", 0, "Limited"],
      ["NominalConcurrencyShares", "string", 0, 5],
      ["Queues", "string", 0, "<none>"],
      ["HandSize", "string", 0, "<none>"],
      ["QueueLengthLimit", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "exempt level",
    group: "flowcontrol",
    plural: "prioritylevelconfigurations",
    object: { metadata: meta("exempt"), spec: { type: "Exempt", exempt: {} } },
    row: [
      ["Type", "string", 0, "Exempt"],
      ["NominalConcurrencyShares", "string", 0, "<none>"],
      ["Queues", "string", 0, "<none>"],
      ["HandSize", "string", 0, "<none>"],
      ["QueueLengthLimit", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
    ],
  },
];

describe("flowcontrol columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () => {
    assertTolerant("flowcontrol", "flowschemas");
    assertTolerant("flowcontrol", "prioritylevelconfigurations");
  });
});
