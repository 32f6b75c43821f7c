import { describe, it } from "node:test";
import { assertTolerant, type Case, CREATED, runCases } from "./test-support.ts";

const meta = (name: string) => ({ name, creationTimestamp: CREATED });
const webhook = (name: string) => ({
  name,
  clientConfig: { service: { namespace: "hooks", name: "svc" } },
  admissionReviewVersions: ["v1"],
  sideEffects: "None",
});

const cases: Case[] = [
  {
    name: "mutating configuration with two webhooks",
    group: "admissionregistration",
    plural: "mutatingwebhookconfigurations",
    object: { metadata: meta("inject"), webhooks: [webhook("a.example.com"), webhook("b.example.com")] },
    row: [
      ["Webhooks", "integer", 0, 2],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "validating configuration without webhooks",
    group: "admissionregistration",
    plural: "validatingwebhookconfigurations",
    object: { metadata: meta("empty") },
    row: [
      ["Webhooks", "integer", 0, 0],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "parameterized policy",
    group: "admissionregistration",
    plural: "validatingadmissionpolicies",
    object: {
      metadata: meta("replica-limit"),
      spec: {
        paramKind: { apiVersion: "rules.example.com/v1", kind: "ReplicaLimit" },
        matchConstraints: { resourceRules: [] },
        validations: [{ expression: "object.spec.replicas <= params.maxReplicas" }, { expression: "true" }],
      },
    },
    row: [
      ["Validations", "integer", 0, 2],
      ["ParamKind", "string", 0, "rules.example.com/v1/ReplicaLimit"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "policy without parameters",
    group: "admissionregistration",
    plural: "validatingadmissionpolicies",
    object: { metadata: meta("plain"), spec: { validations: [{ expression: "true" }] } },
    row: [
      ["Validations", "integer", 0, 1],
      ["ParamKind", "string", 0, "<unset>"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "binding to a namespaced parameter",
    group: "admissionregistration",
    plural: "validatingadmissionpolicybindings",
    object: {
      metadata: meta("replica-limit-test"),
      spec: { policyName: "replica-limit", paramRef: { name: "limit-3", namespace: "default" } },
    },
    row: [
      ["PolicyName", "string", 0, "replica-limit"],
      ["ParamRef", "string", 0, "default/limit-3"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "binding to a cluster-wide parameter",
    group: "admissionregistration",
    plural: "validatingadmissionpolicybindings",
    object: {
      metadata: meta("cluster-wide"),
      spec: { policyName: "replica-limit", paramRef: { name: "limit-5" } },
    },
    row: [
      ["PolicyName", "string", 0, "replica-limit"],
      ["ParamRef", "string", 0, "limit-5"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "binding without a parameter",
    group: "admissionregistration",
    plural: "validatingadmissionpolicybindings",
    object: { metadata: meta("bare"), spec: { policyName: "plain" } },
    row: [
      ["PolicyName", "string", 0, "plain"],
      ["ParamRef", "string", 0, "<unset>"],
      ["Age", "string", 0, "26h"],
    ],
  },
];

describe("admissionregistration columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () => {
    for (const plural of [
      "mutatingwebhookconfigurations",
      "validatingwebhookconfigurations",
      "validatingadmissionpolicies",
      "validatingadmissionpolicybindings",
    ])
      assertTolerant("admissionregistration", plural);
  });
});
