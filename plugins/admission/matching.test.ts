import assert from "node:assert/strict";
import { test } from "node:test";
import type { Attributes, Operation } from "./index.ts";
import { type Rule, ruleMatches } from "./matching.ts";

function attrs(
  resource: string,
  subresource: string,
  namespace: string,
  operation: Operation = "CREATE",
): Attributes {
  return {
    operation,
    kind: { group: "", version: "v1", kind: "X" },
    resource: { group: "", version: "v1", resource },
    subresource,
    name: "n",
    namespace,
    object: undefined,
    oldObject: undefined,
    options: undefined,
    dryRun: false,
    user: { username: "u", uid: "", groups: [], extra: {} },
    storageVersion: "v1",
    versions: ["v1"],
    convert: (o) => o,
    annotate: () => {},
    warn: () => {},
  };
}

const rule = (resources: string[], scope = "*", operations = ["*"], resourceNames?: string[]): Rule => ({
  operations,
  apiGroups: [""],
  apiVersions: ["v1"],
  resources,
  scope,
  ...(resourceNames ? { resourceNames } : {}),
});

test("resource patterns: *, */*, pods/*, */status and exact names", () => {
  const cases: [string[], string, string, boolean][] = [
    [["*"], "pods", "", true],
    [["*"], "pods", "status", false],
    [["*/*"], "pods", "status", true],
    [["*/*"], "pods", "", true],
    [["pods/*"], "pods", "exec", true],
    [["pods/*"], "pods", "", true],
    [["pods/*"], "services", "", false],
    [["*/status"], "pods", "status", true],
    [["*/status"], "pods", "", false],
    [["*/status"], "deployments", "scale", false],
    [["pods"], "pods", "", true],
    [["pods"], "pods", "binding", false],
    [["pods/binding"], "pods", "binding", true],
  ];
  for (const [resources, resource, sub, expected] of cases)
    assert.equal(
      ruleMatches(rule(resources), attrs(resource, sub, "ns"), "v1"),
      expected,
      `${resources} vs ${resource}/${sub}`,
    );
});

test("scope: a Namespace counts as cluster-scoped", () => {
  assert.equal(ruleMatches(rule(["*"], "Cluster"), attrs("namespaces", "", "ns1"), "v1"), true);
  assert.equal(ruleMatches(rule(["*"], "Namespaced"), attrs("namespaces", "", "ns1"), "v1"), false);
  assert.equal(ruleMatches(rule(["*"], "Namespaced"), attrs("pods", "", "ns1"), "v1"), true);
  assert.equal(ruleMatches(rule(["*"], "Cluster"), attrs("pods", "", "ns1"), "v1"), false);
  assert.equal(ruleMatches(rule(["*"], "Cluster"), attrs("nodes", "", ""), "v1"), true);
});

test("operations and versions", () => {
  assert.equal(ruleMatches(rule(["*"], "*", ["UPDATE"]), attrs("pods", "", "ns"), "v1"), false);
  assert.equal(
    ruleMatches(rule(["*"], "*", ["CREATE", "DELETE"]), attrs("pods", "", "ns", "DELETE"), "v1"),
    true,
  );
  assert.equal(ruleMatches(rule(["*"]), attrs("pods", "", "ns"), "v2"), false);
});

test("resourceNames narrow a rule to those objects", () => {
  assert.equal(ruleMatches(rule(["pods"], "*", ["*"], ["n"]), attrs("pods", "", "ns"), "v1"), true);
  assert.equal(ruleMatches(rule(["pods"], "*", ["*"], ["other"]), attrs("pods", "", "ns"), "v1"), false);
  assert.equal(ruleMatches(rule(["pods"], "*", ["*"], []), attrs("pods", "", "ns"), "v1"), true);
});
