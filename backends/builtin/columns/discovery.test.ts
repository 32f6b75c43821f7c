import { describe, it } from "node:test";
import { assertTolerant, type Case, CREATED, runCases } from "./test-support.ts";

const meta = (name: string) => ({ name, namespace: "default", creationTimestamp: CREATED });

const cases: Case[] = [
  {
    name: "slice with named and unnamed ports",
    group: "discovery",
    plural: "endpointslices",
    object: {
      metadata: meta("web-abc12"),
      addressType: "IPv4",
      ports: [{ name: "http", port: 80, protocol: "TCP" }, { name: "grpc" }, {}],
      endpoints: [
        { addresses: ["10.1.0.1"], conditions: { ready: true } },
        { addresses: ["10.1.0.2", "10.1.0.3"] },
        { addresses: ["10.1.0.4"] },
      ],
    },
    row: [
      ["AddressType", "string", 0, "IPv4"],
      ["Ports", "string", 0, "80,grpc,*"],
      ["Endpoints", "string", 0, "10.1.0.1,10.1.0.2,10.1.0.3 + 1 more..."],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "many ports, no endpoints",
    group: "discovery",
    plural: "endpointslices",
    object: {
      metadata: meta("many"),
      addressType: "IPv6",
      ports: [{ port: 1 }, { port: 2 }, { port: 3 }, { port: 4 }, { port: 5 }],
      endpoints: [],
    },
    row: [
      ["AddressType", "string", 0, "IPv6"],
      ["Ports", "string", 0, "1,2,3 + 2 more..."],
      ["Endpoints", "string", 0, "<unset>"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "empty slice",
    group: "discovery",
    plural: "endpointslices",
    object: { metadata: meta("empty"), addressType: "FQDN" },
    row: [
      ["AddressType", "string", 0, "FQDN"],
      ["Ports", "string", 0, "<unset>"],
      ["Endpoints", "string", 0, "<unset>"],
      ["Age", "string", 0, "26h"],
    ],
  },
];

describe("discovery columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () => assertTolerant("discovery", "endpointslices"));
});
