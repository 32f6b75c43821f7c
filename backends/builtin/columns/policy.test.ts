import { describe, it } from "node:test";
import { assertTolerant, type Case, CREATED, runCases } from "./test-support.ts";

const meta = (name: string) => ({ name, namespace: "default", creationTimestamp: CREATED });

const cases: Case[] = [
  {
    name: "minimum available as a count",
    group: "policy",
    plural: "poddisruptionbudgets",
    object: {
      metadata: meta("web"),
      spec: { minAvailable: 2, selector: { matchLabels: { app: "web" } } },
      status: { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 },
    },
    row: [
      ["Min Available", "string", 0, "2"],
      ["Max Unavailable", "string", 0, "N/A"],
      ["Allowed Disruptions", "integer", 0, 1],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "maximum unavailable as a percentage",
    group: "policy",
    plural: "poddisruptionbudgets",
    object: { metadata: meta("db"), spec: { maxUnavailable: "25%" } },
    row: [
      ["Min Available", "string", 0, "N/A"],
      ["Max Unavailable", "string", 0, "25%"],
      ["Allowed Disruptions", "integer", 0, 0],
      ["Age", "string", 0, "26h"],
    ],
  },
];

describe("policy columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () => assertTolerant("policy", "poddisruptionbudgets"));
});
