import { describe, it } from "node:test";
import { assertTolerant, type Case, CREATED, runCases } from "./test-support.ts";

const meta = (name: string) => ({ name, namespace: "default", creationTimestamp: CREATED });

const cases: Case[] = [
  {
    name: "ingress with TLS and more hosts than shown",
    group: "networking",
    plural: "ingresses",
    object: {
      metadata: meta("main"),
      spec: {
        ingressClassName: "nginx",
        tls: [{ hosts: ["a.example.com"], secretName: "tls" }],
        rules: [
          { host: "a.example.com", http: { paths: [] } },
          { host: "b.example.com" },
          { http: { paths: [] } },
          { host: "c.example.com" },
          { host: "d.example.com" },
        ],
      },
      status: { loadBalancer: { ingress: [{ ip: "203.0.113.5" }, { hostname: "edge.example.com" }] } },
    },
    row: [
      ["Class", "string", 0, "nginx"],
      ["Hosts", "string", 0, "a.example.com,b.example.com,c.example.com + 2 more..."],
      ["Address", "string", 0, "203.0.113.5,edge.example.com"],
      ["Ports", "string", 0, "80, 443"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "ingress with a default backend only",
    group: "networking",
    plural: "ingresses",
    object: {
      metadata: meta("default"),
      spec: { defaultBackend: { service: { name: "web", port: { number: 80 } } } },
    },
    row: [
      ["Class", "string", 0, "<none>"],
      ["Hosts", "string", 0, "*"],
      ["Address", "string", 0, ""],
      ["Ports", "string", 0, "80"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "ingress class with parameters in a group",
    group: "networking",
    plural: "ingressclasses",
    object: {
      metadata: { name: "external", creationTimestamp: CREATED },
      spec: {
        controller: "example.com/ingress-controller",
        parameters: {
          apiGroup: "params.example.com",
          kind: "IngressParameters",
          name: "external-lb",
          scope: "Cluster",
        },
      },
    },
    row: [
      ["Controller", "string", 0, "example.com/ingress-controller"],
      ["Parameters", "string", 0, "IngressParameters.params.example.com/external-lb"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "ingress class with core parameters",
    group: "networking",
    plural: "ingressclasses",
    object: {
      metadata: { name: "internal", creationTimestamp: CREATED },
      spec: {
        controller: "example.com/ingress-controller",
        parameters: { kind: "ConfigMap", name: "settings" },
      },
    },
    row: [
      ["Controller", "string", 0, "example.com/ingress-controller"],
      ["Parameters", "string", 0, "ConfigMap/settings"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "ingress class without parameters",
    group: "networking",
    plural: "ingressclasses",
    object: {
      metadata: { name: "plain", creationTimestamp: CREATED },
      spec: { controller: "example.com/x" },
    },
    row: [
      ["Controller", "string", 0, "example.com/x"],
      ["Parameters", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "network policy for some pods",
    group: "networking",
    plural: "networkpolicies",
    object: {
      metadata: meta("db-access"),
      spec: { podSelector: { matchLabels: { role: "db" } }, policyTypes: ["Ingress"], ingress: [{}] },
    },
    row: [
      ["Pod-Selector", "string", 0, "role=db"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "network policy for every pod",
    group: "networking",
    plural: "networkpolicies",
    object: { metadata: meta("deny-all"), spec: { podSelector: {}, policyTypes: ["Ingress"] } },
    row: [
      ["Pod-Selector", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
    ],
  },
];

describe("networking columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () => {
    for (const plural of ["ingresses", "ingressclasses", "networkpolicies"])
      assertTolerant("networking", plural);
  });
});
