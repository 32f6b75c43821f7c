import { describe, it } from "node:test";
import { assertTolerant, type Case, CREATED, runCases } from "./test-support.ts";

const meta = (name: string) => ({ name, creationTimestamp: CREATED });

const cases: Case[] = [
  {
    name: "approved and issued",
    group: "certificates",
    plural: "certificatesigningrequests",
    object: {
      metadata: meta("alice"),
      spec: {
        request: "LS0tLS1CRUdJTi0tLS0t",
        signerName: "example.com/client",
        username: "alice",
        groups: ["devs"],
        usages: ["client auth"],
        expirationSeconds: 86400,
      },
      status: {
        conditions: [{ type: "Approved", status: "True", reason: "Manual" }],
        certificate: "LS0tLS1CRUdJTi0tLS0t",
      },
    },
    row: [
      ["Age", "string", 0, "26h"],
      ["SignerName", "string", 0, "example.com/client"],
      ["Requestor", "string", 0, "alice"],
      ["RequestedDuration", "string", 0, "24h"],
      ["Condition", "string", 0, "Approved,Issued"],
    ],
  },
  {
    name: "denied wins over approved, failed is added",
    group: "certificates",
    plural: "certificatesigningrequests",
    object: {
      metadata: meta("bob"),
      spec: { request: "", username: "bob", expirationSeconds: 600 },
      status: {
        conditions: [
          { type: "Approved", status: "True" },
          { type: "Denied", status: "True" },
          { type: "Failed", status: "True" },
        ],
      },
    },
    row: [
      ["Age", "string", 0, "26h"],
      ["SignerName", "string", 0, "<none>"],
      ["Requestor", "string", 0, "bob"],
      ["RequestedDuration", "string", 0, "10m"],
      ["Condition", "string", 0, "Denied,Failed"],
    ],
  },
  {
    name: "pending",
    group: "certificates",
    plural: "certificatesigningrequests",
    object: { metadata: meta("carol"), spec: { signerName: "example.com/serving", username: "carol" } },
    row: [
      ["Age", "string", 0, "26h"],
      ["SignerName", "string", 0, "example.com/serving"],
      ["Requestor", "string", 0, "carol"],
      ["RequestedDuration", "string", 0, "<none>"],
      ["Condition", "string", 0, "Pending"],
    ],
  },
];

describe("certificates columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () =>
    assertTolerant("certificates", "certificatesigningrequests"));
});
