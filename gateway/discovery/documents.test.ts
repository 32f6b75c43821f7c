import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import type { ResourceSchema, ResourceVersion, Verb } from "../../backends/schema/index.ts";
import { aggregatedDiscoveryList, aggregatedMediaType, buildDiscovery, servedGroups } from "./documents.ts";
import { compareVersionPriority, sortGroupsByPriority, sortVersionsByPriority } from "./priority.ts";
import { storageVersionHash } from "./storage-version-hash.ts";

const k8s = naming("kubernetes");
const cluster = naming("cluster");
const allVerbs: Verb[] = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
const v1: ResourceVersion[] = [{ name: "v1", served: true, storage: true }];

function schema(
  fields: Partial<ResourceSchema> & Pick<ResourceSchema, "group" | "plural" | "singular" | "kind">,
): ResourceSchema {
  return {
    versions: v1,
    listKind: `${fields.kind}List`,
    shortNames: [],
    categories: [],
    namespaced: true,
    verbs: allVerbs,
    subresources: [],
    allowCreateOnUpdate: false,
    ...fields,
  };
}

const configmaps = schema({
  group: "",
  plural: "configmaps",
  singular: "configmap",
  kind: "ConfigMap",
  shortNames: ["cm"],
});
const namespaces = schema({
  group: "",
  plural: "namespaces",
  singular: "namespace",
  kind: "Namespace",
  shortNames: ["ns"],
  namespaced: false,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  subresources: ["status", "finalize"],
});
const deployments = schema({
  group: "apps",
  plural: "deployments",
  singular: "deployment",
  kind: "Deployment",
  shortNames: ["deploy"],
  categories: ["all"],
  subresources: ["status", "scale"],
});
// A named group with two versions, the older one deprecated, and a cluster-scoped kind.
const widgets = schema({
  group: "stable.example.com",
  plural: "widgets",
  singular: "widget",
  kind: "Widget",
  versions: [
    { name: "v1beta1", served: true, storage: false, deprecated: true },
    { name: "v1", served: true, storage: true },
    { name: "v1alpha1", served: false, storage: false },
  ],
  subresources: ["status"],
});
const gadgets = schema({
  group: "stable.example.com",
  plural: "gadgets",
  singular: "gadget",
  kind: "Gadget",
  namespaced: false,
  verbs: ["get", "list"],
});
const roles = schema({
  group: k8s.group("rbac.authorization"),
  plural: "roles",
  singular: "role",
  kind: "Role",
});

const schemas = [widgets, configmaps, roles, gadgets, deployments, namespaces];
const options = { naming: k8s, serverAddress: "10.0.0.1:6443" };
const json = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("storageVersionHash", () => {
  it("reproduces the values the reference server publishes", () => {
    assert.equal(storageVersionHash("", "v1", "ConfigMap"), "qFsyl6wFWjQ=");
    assert.equal(storageVersionHash("", "v1", "Pod"), "xPOwRZ+Yhw8=");
    assert.equal(storageVersionHash("", "v1", "Namespace"), "Q3oi5N2YM8M=");
    assert.equal(storageVersionHash("apps", "v1", "Deployment"), "8aSe+NMegvE=");
  });
});

describe("version priority", () => {
  it("orders GA over beta over alpha, then by number, other names last", () => {
    const sorted = sortVersionsByPriority([
      "foo10",
      "v1",
      "v11alpha2",
      "v3beta1",
      "v2",
      "foo1",
      "v10beta3",
      "v12alpha1",
      "v10",
      "v11beta2",
    ]);
    assert.deepEqual(sorted, [
      "v10",
      "v2",
      "v1",
      "v11beta2",
      "v10beta3",
      "v3beta1",
      "v12alpha1",
      "v11alpha2",
      "foo1",
      "foo10",
    ]);
    assert.ok(compareVersionPriority("v1", "v1beta1") > 0);
    assert.ok(compareVersionPriority("v1beta1", "v1beta2") < 0);
    assert.equal(compareVersionPriority("v1", "v1"), 0);
  });

  it("orders built-in groups by their fixed priority, then the rest by name", () => {
    for (const n of [k8s, cluster]) {
      const groups = [
        "zeta.example.com",
        n.group("rbac.authorization"),
        "alpha.example.com",
        "batch",
        n.group("apiextensions"),
        n.group("admissionregistration"),
        "apps",
        n.group("apiregistration"),
        n.group("events"),
      ];
      assert.deepEqual(sortGroupsByPriority(n, groups), [
        n.group("apiregistration"),
        "apps",
        n.group("events"),
        "batch",
        n.group("rbac.authorization"),
        n.group("admissionregistration"),
        n.group("apiextensions"),
        "alpha.example.com",
        "zeta.example.com",
      ]);
    }
  });

  it("treats a group of the other preset as a custom group", () => {
    assert.deepEqual(sortGroupsByPriority(cluster, ["events.k8s.io", "apps"]), ["apps", "events.k8s.io"]);
    assert.deepEqual(sortGroupsByPriority(cluster, ["events.k8s.io", "apiextensions.k8s.io"]), [
      "apiextensions.k8s.io",
      "events.k8s.io",
    ]);
  });
});

describe("legacy documents", () => {
  const docs = buildDiscovery(schemas, options);

  it("/api lists v1 and the server address", () => {
    assert.equal(
      JSON.stringify(docs.apiVersions),
      '{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"10.0.0.1:6443"}]}',
    );
  });

  it("/apis lists named groups by priority, versions preferred first", () => {
    assert.deepEqual(json(docs.apiGroupList), {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: [
        {
          name: "apps",
          versions: [{ groupVersion: "apps/v1", version: "v1" }],
          preferredVersion: { groupVersion: "apps/v1", version: "v1" },
        },
        {
          name: "rbac.authorization.k8s.io",
          versions: [{ groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" },
        },
        {
          name: "stable.example.com",
          versions: [
            { groupVersion: "stable.example.com/v1", version: "v1" },
            { groupVersion: "stable.example.com/v1beta1", version: "v1beta1" },
          ],
          preferredVersion: { groupVersion: "stable.example.com/v1", version: "v1" },
        },
      ],
    });
  });

  it("/apis/<group> is the group with kind and apiVersion first", () => {
    assert.equal(
      JSON.stringify(docs.apiGroups.get("stable.example.com")),
      '{"kind":"APIGroup","apiVersion":"v1","name":"stable.example.com","versions":[{"groupVersion":"stable.example.com/v1","version":"v1"},{"groupVersion":"stable.example.com/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"stable.example.com/v1","version":"v1"}}',
    );
    assert.equal(docs.apiGroups.has(""), false);
  });

  it("/api/v1 lists resources and subresources by name, without apiVersion", () => {
    assert.equal(
      JSON.stringify(docs.resourceLists.get("v1")),
      JSON.stringify({
        kind: "APIResourceList",
        groupVersion: "v1",
        resources: [
          {
            name: "configmaps",
            singularName: "configmap",
            namespaced: true,
            kind: "ConfigMap",
            verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
            shortNames: ["cm"],
            storageVersionHash: "qFsyl6wFWjQ=",
          },
          {
            name: "namespaces",
            singularName: "namespace",
            namespaced: false,
            kind: "Namespace",
            verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
            shortNames: ["ns"],
            storageVersionHash: "Q3oi5N2YM8M=",
          },
          {
            name: "namespaces/finalize",
            singularName: "",
            namespaced: false,
            kind: "Namespace",
            verbs: ["update"],
          },
          {
            name: "namespaces/status",
            singularName: "",
            namespaced: false,
            kind: "Namespace",
            verbs: ["get", "patch", "update"],
          },
        ],
      }),
    );
  });

  it("a subresource of another group's kind names its group and version", () => {
    const list = docs.resourceLists.get("apps/v1")!;
    assert.equal(list.apiVersion, "v1");
    assert.deepEqual(
      list.resources.map((r) => r.name),
      ["deployments", "deployments/scale", "deployments/status"],
    );
    assert.equal(
      JSON.stringify(list.resources[1]),
      '{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]}',
    );
    assert.deepEqual(json(list.resources[0]), {
      name: "deployments",
      singularName: "deployment",
      namespaced: true,
      kind: "Deployment",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["deploy"],
      categories: ["all"],
      storageVersionHash: "8aSe+NMegvE=",
    });
  });

  it("every version of a group lists its resources, the hash names the storage version", () => {
    const beta = docs.resourceLists.get("stable.example.com/v1beta1")!;
    const widget = beta.resources.find((r) => r.name === "widgets")!;
    assert.equal(widget.storageVersionHash, storageVersionHash("stable.example.com", "v1", "Widget"));
    assert.deepEqual(
      beta.resources.map((r) => r.name),
      ["widgets", "widgets/status"],
    );
    const ga = docs.resourceLists.get("stable.example.com/v1")!;
    assert.deepEqual(
      ga.resources.map((r) => [r.name, r.namespaced, r.verbs.join(",")]),
      [
        ["gadgets", false, "get,list"],
        ["widgets", true, "create,delete,deletecollection,get,list,patch,update,watch"],
        ["widgets/status", true, "get,patch,update"],
      ],
    );
    assert.equal(docs.resourceLists.has("stable.example.com/v1alpha1"), false);
  });
});

describe("aggregated documents", () => {
  const docs = buildDiscovery(schemas, options);

  it("the core group is the only item of /api, with an empty name", () => {
    assert.equal(docs.aggregatedCore.length, 1);
    const core = aggregatedDiscoveryList(k8s, "v2beta1", docs.aggregatedCore);
    assert.equal(
      JSON.stringify(core),
      JSON.stringify({
        kind: "APIGroupDiscoveryList",
        apiVersion: "apidiscovery.k8s.io/v2beta1",
        metadata: {},
        items: [
          {
            metadata: { creationTimestamp: null },
            versions: [
              {
                version: "v1",
                resources: [
                  {
                    resource: "configmaps",
                    responseKind: { group: "", version: "v1", kind: "ConfigMap" },
                    scope: "Namespaced",
                    singularResource: "configmap",
                    verbs: [
                      "create",
                      "delete",
                      "deletecollection",
                      "get",
                      "list",
                      "patch",
                      "update",
                      "watch",
                    ],
                    shortNames: ["cm"],
                  },
                  {
                    resource: "namespaces",
                    responseKind: { group: "", version: "v1", kind: "Namespace" },
                    scope: "Cluster",
                    singularResource: "namespace",
                    verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
                    shortNames: ["ns"],
                    subresources: [
                      {
                        subresource: "finalize",
                        responseKind: { group: "", version: "v1", kind: "Namespace" },
                        verbs: ["update"],
                      },
                      {
                        subresource: "status",
                        responseKind: { group: "", version: "v1", kind: "Namespace" },
                        verbs: ["get", "patch", "update"],
                      },
                    ],
                  },
                ],
                freshness: "Current",
              },
            ],
          },
        ],
      }),
    );
  });

  it("/apis holds the named groups in priority order, versions preferred first", () => {
    assert.deepEqual(
      docs.aggregatedGroups.map((g) => [g.metadata.name, g.versions.map((v) => v.version)]),
      [
        ["apps", ["v1"]],
        ["rbac.authorization.k8s.io", ["v1"]],
        ["stable.example.com", ["v1", "v1beta1"]],
      ],
    );
    const apps = docs.aggregatedGroups[0]!;
    assert.equal(
      JSON.stringify(apps),
      JSON.stringify({
        metadata: { name: "apps", creationTimestamp: null },
        versions: [
          {
            version: "v1",
            resources: [
              {
                resource: "deployments",
                responseKind: { group: "apps", version: "v1", kind: "Deployment" },
                scope: "Namespaced",
                singularResource: "deployment",
                verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
                shortNames: ["deploy"],
                categories: ["all"],
                subresources: [
                  {
                    subresource: "scale",
                    responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
                    verbs: ["get", "patch", "update"],
                  },
                  {
                    subresource: "status",
                    responseKind: { group: "apps", version: "v1", kind: "Deployment" },
                    verbs: ["get", "patch", "update"],
                  },
                ],
              },
            ],
            freshness: "Current",
          },
        ],
      }),
    );
    const beta = docs.aggregatedGroups[2]!.versions[1]!;
    assert.deepEqual(beta.resources?.[0]?.responseKind, {
      group: "stable.example.com",
      version: "v1beta1",
      kind: "Widget",
    });
  });

  it("v2 and v2beta1 differ only in apiVersion; the group and media type follow the preset", () => {
    const a = aggregatedDiscoveryList(cluster, "v2", docs.aggregatedGroups);
    const b = aggregatedDiscoveryList(cluster, "v2beta1", docs.aggregatedGroups);
    assert.equal(a.apiVersion, "apidiscovery.cluster.io/v2");
    assert.equal(b.apiVersion, "apidiscovery.cluster.io/v2beta1");
    assert.deepEqual({ ...a, apiVersion: "" }, { ...b, apiVersion: "" });
    assert.equal(
      aggregatedMediaType(k8s, "v2beta1"),
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
    );
    assert.equal(
      aggregatedMediaType(cluster, "v2"),
      "application/json;g=apidiscovery.cluster.io;v=v2;as=APIGroupDiscoveryList",
    );
  });
});

describe("served groups", () => {
  it("leaves out disabled versions, groups left empty, and duplicate resources", () => {
    const duplicate = { ...configmaps, kind: "Other" };
    const groups = servedGroups([...schemas, duplicate], {
      naming: k8s,
      enabled: (group, version) => !(group === "stable.example.com" && version === "v1") && group !== "apps",
    });
    assert.deepEqual(
      groups.map((g) => [g.name, g.versions.map((v) => v.version)]),
      [
        ["", ["v1"]],
        ["rbac.authorization.k8s.io", ["v1"]],
        ["stable.example.com", ["v1beta1"]],
      ],
    );
    assert.equal(groups[0]!.versions[0]!.resources.find((r) => r.plural === "configmaps")!.kind, "ConfigMap");
    assert.deepEqual(
      groups[2]!.versions[0]!.resources.map((r) => r.plural),
      ["widgets"],
    );
  });

  it("without core resources /api lists no versions and /api aggregated has no items", () => {
    const docs = buildDiscovery([deployments], options);
    assert.deepEqual(docs.apiVersions.versions, []);
    assert.deepEqual(docs.aggregatedCore, []);
    assert.equal(docs.resourceLists.has("v1"), false);
  });

  it("well-known core subresources carry their kinds and verbs", () => {
    const pods = schema({
      group: "",
      plural: "pods",
      singular: "pod",
      kind: "Pod",
      subresources: ["status", "log", "exec", "eviction", "binding", "proxy"],
    });
    const serviceaccounts = schema({
      group: "",
      plural: "serviceaccounts",
      singular: "serviceaccount",
      kind: "ServiceAccount",
      subresources: ["token"],
    });
    const list = buildDiscovery([pods, serviceaccounts], {
      naming: cluster,
      serverAddress: "h:1",
    }).resourceLists.get("v1")!;
    assert.deepEqual(
      list.resources.map((r) => [r.name, r.group ?? "", r.version ?? "", r.kind, r.verbs.join(",")]),
      [
        ["pods", "", "", "Pod", "create,delete,deletecollection,get,list,patch,update,watch"],
        ["pods/binding", "", "", "Binding", "create"],
        ["pods/eviction", "policy", "v1", "Eviction", "create"],
        ["pods/exec", "", "", "PodExecOptions", "create,get"],
        ["pods/log", "", "", "Pod", "get"],
        ["pods/proxy", "", "", "PodProxyOptions", "create,delete,get,patch,update"],
        ["pods/status", "", "", "Pod", "get,patch,update"],
        [
          "serviceaccounts",
          "",
          "",
          "ServiceAccount",
          "create,delete,deletecollection,get,list,patch,update,watch",
        ],
        ["serviceaccounts/token", "authentication.cluster.io", "v1", "TokenRequest", "create"],
      ],
    );
  });
});
