import { describe, it } from "node:test";
import { assertTolerant, type Case, CREATED, runCases } from "./test-support.ts";

const meta = (name: string) => ({ name, creationTimestamp: CREATED });

const cases: Case[] = [
  {
    name: "aggregated API that is down",
    group: "apiregistration",
    plural: "apiservices",
    object: {
      metadata: meta("v1beta1.metrics.example.com"),
      spec: {
        service: { namespace: "monitoring", name: "metrics-server", port: 443 },
        group: "metrics.example.com",
        version: "v1beta1",
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
      status: {
        conditions: [
          { type: "Other", status: "True" },
          { type: "Available", status: "False", reason: "MissingEndpoints", message: "no endpoints" },
        ],
      },
    },
    row: [
      ["Service", "string", 0, "monitoring/metrics-server"],
      ["Available", "string", 0, "False (MissingEndpoints)"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "local API",
    group: "apiregistration",
    plural: "apiservices",
    object: {
      metadata: meta("v1.apps"),
      spec: { group: "apps", version: "v1", groupPriorityMinimum: 17800, versionPriority: 15 },
      status: { conditions: [{ type: "Available", status: "True", reason: "Local" }] },
    },
    row: [
      ["Service", "string", 0, "Local"],
      ["Available", "string", 0, "True"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "not checked yet",
    group: "apiregistration",
    plural: "apiservices",
    object: { metadata: meta("v1.new"), spec: { group: "new", version: "v1" } },
    row: [
      ["Service", "string", 0, "Local"],
      ["Available", "string", 0, "Unknown"],
      ["Age", "string", 0, "26h"],
    ],
  },
];

describe("apiregistration columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () => assertTolerant("apiregistration", "apiservices"));
});
