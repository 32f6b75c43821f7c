import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Attributes } from "../authorizer.ts";
import {
  compactRules,
  compactString,
  covers,
  type PolicyRule,
  policyRule,
  ruleAllows,
  ruleToJson,
  toPolicyRule,
} from "./policy-rule.ts";

const user = { username: "alice", uid: "", groups: [], extra: {} };

function resource(verb: string, group: string, res: string, extra: Partial<Attributes> = {}): Attributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: "",
    namespace: "ns",
    apiGroup: group,
    apiVersion: "v1",
    resource: res,
    subresource: "",
    name: "",
    ...extra,
  };
}

function nonResource(verb: string, path: string): Attributes {
  return { ...resource(verb, "", ""), isResourceRequest: false, path, namespace: "" };
}

describe("rule matching", () => {
  const cases: [string, Partial<PolicyRule>, Attributes, boolean][] = [
    ["exact", { verbs: ["get"], apiGroups: [""], resources: ["pods"] }, resource("get", "", "pods"), true],
    [
      "other verb",
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      resource("list", "", "pods"),
      false,
    ],
    ["verb *", { verbs: ["*"], apiGroups: [""], resources: ["pods"] }, resource("delete", "", "pods"), true],
    [
      "other group",
      { verbs: ["get"], apiGroups: ["apps"], resources: ["pods"] },
      resource("get", "", "pods"),
      false,
    ],
    [
      "group *",
      { verbs: ["get"], apiGroups: ["*"], resources: ["deployments"] },
      resource("get", "apps", "deployments"),
      true,
    ],
    [
      "resource *",
      { verbs: ["get"], apiGroups: [""], resources: ["*"] },
      resource("get", "", "secrets"),
      true,
    ],
    [
      "resource * covers subresources",
      { verbs: ["get"], apiGroups: [""], resources: ["*"] },
      resource("get", "", "pods", { subresource: "log" }),
      true,
    ],
    [
      "plain resource does not cover its subresource",
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      resource("get", "", "pods", { subresource: "log" }),
      false,
    ],
    [
      "resource/subresource",
      { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] },
      resource("get", "", "pods", { subresource: "log" }),
      true,
    ],
    [
      "resource/subresource is not the resource",
      { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] },
      resource("get", "", "pods"),
      false,
    ],
    [
      "*/subresource",
      { verbs: ["update"], apiGroups: ["*"], resources: ["*/status"] },
      resource("update", "apps", "deployments", { subresource: "status" }),
      true,
    ],
    [
      "*/subresource of another subresource",
      { verbs: ["update"], apiGroups: ["*"], resources: ["*/status"] },
      resource("update", "apps", "deployments", { subresource: "scale" }),
      false,
    ],
    [
      "*/subresource is not a resource",
      { verbs: ["get"], apiGroups: [""], resources: ["*/status"] },
      resource("get", "", "status"),
      false,
    ],
    [
      "resourceNames: named",
      { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a", "b"] },
      resource("get", "", "configmaps", { name: "b" }),
      true,
    ],
    [
      "resourceNames: other name",
      { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] },
      resource("get", "", "configmaps", { name: "c" }),
      false,
    ],
    [
      "resourceNames: create has no name",
      { verbs: ["create"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] },
      resource("create", "", "configmaps"),
      false,
    ],
    [
      "resourceNames: list without name",
      { verbs: ["list"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] },
      resource("list", "", "configmaps"),
      false,
    ],
    [
      "resourceNames: list pinned to a name",
      { verbs: ["list"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] },
      resource("list", "", "configmaps", { name: "a" }),
      true,
    ],
    ["URL exact", { verbs: ["get"], nonResourceURLs: ["/healthz"] }, nonResource("get", "/healthz"), true],
    [
      "URL other",
      { verbs: ["get"], nonResourceURLs: ["/healthz"] },
      nonResource("get", "/healthz/ping"),
      false,
    ],
    [
      "URL prefix *",
      { verbs: ["get"], nonResourceURLs: ["/healthz/*"] },
      nonResource("get", "/healthz/etcd"),
      true,
    ],
    [
      "URL prefix * needs the prefix",
      { verbs: ["get"], nonResourceURLs: ["/healthz/*"] },
      nonResource("get", "/healthz"),
      false,
    ],
    ["URL *", { verbs: ["get"], nonResourceURLs: ["*"] }, nonResource("get", "/anything"), true],
    ["URL verb", { verbs: ["get"], nonResourceURLs: ["/metrics"] }, nonResource("post", "/metrics"), false],
    [
      "URL rule does not match resources",
      { verbs: ["*"], nonResourceURLs: ["*"] },
      resource("get", "", "pods"),
      false,
    ],
    [
      "resource rule does not match URLs",
      { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
      nonResource("get", "/healthz"),
      false,
    ],
  ];
  for (const [name, rule, attributes, expected] of cases) {
    it(name, () => assert.equal(ruleAllows(attributes, policyRule(rule)), expected));
  }
});

describe("rule JSON", () => {
  it("reads tolerantly and writes like upstream", () => {
    const rule = toPolicyRule({ verbs: ["get", 3], apiGroups: "x", resources: ["pods"] });
    assert.deepEqual(rule, {
      verbs: ["get"],
      apiGroups: [],
      resources: ["pods"],
      resourceNames: [],
      nonResourceURLs: [],
    });
    assert.deepEqual(ruleToJson(rule), { verbs: ["get"], resources: ["pods"] });
    assert.deepEqual(toPolicyRule(null).verbs, []);
  });
});

describe("covers", () => {
  const r = (p: Partial<PolicyRule>) => policyRule(p);
  const cases: [string, Partial<PolicyRule>[], Partial<PolicyRule>[], boolean][] = [
    [
      "same",
      [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
      [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
      true,
    ],
    [
      "fewer verbs",
      [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
      [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
      true,
    ],
    [
      "more verbs",
      [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
      [{ verbs: ["get", "delete"], apiGroups: [""], resources: ["pods"] }],
      false,
    ],
    [
      "stars",
      [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      [{ verbs: ["get"], apiGroups: ["apps"], resources: ["deployments/scale"] }],
      true,
    ],
    [
      "*/subresource covers any resource's subresource",
      [{ verbs: ["get"], apiGroups: [""], resources: ["*/status"] }],
      [{ verbs: ["get"], apiGroups: [""], resources: ["pods/status"] }],
      true,
    ],
    [
      "unnamed covers named",
      [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
      [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] }],
      true,
    ],
    [
      "named does not cover unnamed",
      [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] }],
      [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
      false,
    ],
    [
      "split over two owner rules",
      [
        { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
        { verbs: ["list"], apiGroups: [""], resources: ["pods"] },
      ],
      [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
      true,
    ],
    [
      "URL prefix",
      [{ verbs: ["get"], nonResourceURLs: ["/api/*"] }],
      [{ verbs: ["get"], nonResourceURLs: ["/api/v1"] }],
      true,
    ],
    [
      "URL outside",
      [{ verbs: ["get"], nonResourceURLs: ["/api/*"] }],
      [{ verbs: ["get"], nonResourceURLs: ["/apis"] }],
      false,
    ],
    ["nothing held", [], [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }], false],
    ["nothing granted", [], [], true],
  ];
  for (const [name, owner, servant, expected] of cases) {
    it(name, () => assert.equal(covers(owner.map(r), servant.map(r)).covered, expected));
  }

  it("lists what is missing, one verb, resource and name at a time, compacted by resource", () => {
    const { missing } = covers(
      [r({ verbs: ["get"], apiGroups: [""], resources: ["pods"] })],
      [r({ verbs: ["get", "list", "delete"], apiGroups: [""], resources: ["pods", "secrets"] })],
    );
    assert.equal(missing.length, 5);
    assert.deepEqual(compactRules(missing).map(compactString).sort(), [
      '{APIGroups:[""], Resources:["pods"], Verbs:["list" "delete"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}',
    ]);
  });

  it("writes the compact text of every kind of rule", () => {
    assert.equal(
      compactString(
        r({ verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"], resourceNames: ["x"] }),
      ),
      '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["x"], Verbs:["get"]}',
    );
    assert.equal(
      compactString(r({ verbs: ["get"], nonResourceURLs: ["/healthz"] })),
      '{NonResourceURLs:["/healthz"], Verbs:["get"]}',
    );
  });
});
